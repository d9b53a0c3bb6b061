"""A `memfs daemon` that `memfs ingest` starts to keep a big store warm (issue #18 item 4).

A fresh process rebuilds the entry files' state (people, facets, keywords, rankings) from
what the index keeps, and loads the vector graph dedupe searches: ~6.7 s an input at
100,000 items against ~0.3 s for a daemon that keeps them, whatever the store's size. So,
the way build tools keep a warm server, an in-process `memfs ingest` on a store of
`[daemon] auto_start_items` items or more (10,000 by default) starts `memfs daemon` in the
background once it is done: detached from the terminal (its own session, no inherited
output: a caller waiting on the CLI's pipes is not held), its log in `.memfs/daemon.log`.
The next `memfs ingest` or `memfs add` is handed to it (memfs.addwire). It

- marks its lock as started this way (`AUTO_PURPOSE`, what `memfs doctor` shows);
- does not take what lands in inbox/ (that waits for `memfs ingest`, as without a daemon);
- stops once memfs.toml changed under it (the next ingest starts one with the new config);
- stops after `[daemon] idle_exit_seconds` (600) with no input, request or edit, or when
  its folder goes, as any daemon does;
- gives way to a `memfs daemon` a person starts (SIGTERM: it finishes its input first).

`[daemon] auto_start_items = 0` (or MEMFS_DAEMON_AUTO_START_ITEMS=0) never starts one, and
MEMFS_NO_WARM=1 neither hands work to a daemon nor starts one.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from memfs.config import Config

#: The daemon lock's purpose word for a daemon started by `memfs ingest`.
AUTO_PURPOSE = "daemon-auto"
LOCK_NAME = "daemon.lock"
LOG_NAME = "daemon.log"
#: The log is started afresh past this size (one line an input).
LOG_MAX = 1 << 20
#: How long a person's `memfs daemon` waits for a started one to stop: it finishes the input
#: (or batch of a large one) it is on and fills owed vectors for at most
#: memfs.daemon.FINISH_SECONDS; an LLM mode batch can take minutes.
GIVE_WAY_SECONDS = 600.0
#: How often the waiting daemon says it still waits.
GIVE_WAY_NOTICE_SECONDS = 30.0
#: After a started daemon ended without a clean stop, how long before another is started.
RETRY_SECONDS = 600.0
#: A daemon's last log line when it stopped cleanly (memfs.daemon).
STOPPED_LINE = "memfs daemon: stopped"
#: The longest Unix socket path (sun_path is 108 bytes with its NUL, on Linux).
SUN_PATH_MAX = 107
#: How long `start` waits for the daemon it started to take its lock.
LOCK_WAIT_SECONDS = 15.0


def lock_holder(state: Path) -> tuple[int, str] | None:
    """(pid, purpose) of the daemon holding `state/daemon.lock`, None if none holds it
    (pid -1 when the file does not say)."""
    path = state / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            words = os.pread(fd, 64, 0).decode(errors="replace").split()
            pid = int(words[0]) if words and words[0].isdigit() else -1
            return pid, (words[1] if len(words) > 1 else "")
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def wanted(config: Config, items: Callable[[], int]) -> bool:
    """Should an in-process ingest into a store of `items()` items start a daemon? (Counted
    only when the answer depends on it.)"""
    threshold = config.daemon.auto_start_items
    return threshold > 0 and not os.environ.get("MEMFS_NO_WARM") and items() >= threshold


def started_line(pid: int, config: Config) -> str:
    """What the CLI says when it started one."""
    return (f"memfs: started a daemon (pid {pid}) to keep this big store warm: the next `memfs ingest` "
            f"and `memfs add` are handed to it; it stops after {config.daemon.idle_exit_seconds:g}s idle "
            f"(log: .memfs/{LOG_NAME}; `[daemon] auto_start_items = 0` turns this off)")


def start(root: Path, state: Path) -> int | None:
    """Start `memfs daemon --auto-started` for `root` in the background, unless a daemon
    holds its lock already; its pid, or None. The same interpreter and environment as
    this process (so the same config key: the daemon takes this CLI's requests)."""
    root, log = root.resolve(), state / LOG_NAME
    if len(os.fsencode(state / "daemon.sock")) > SUN_PATH_MAX:
        return None  # its socket could not be bound: the CLI could hand it nothing
    if lock_holder(state) is not None or failed_recently(log):
        return None
    try:
        if log.stat().st_size > LOG_MAX:
            log.replace(state / (LOG_NAME + ".1"))
    except OSError:
        pass
    with open(log, "ab") as out:
        proc = subprocess.Popen([sys.executable, "-m", "memfs.cli", "-C", str(root), "daemon", "--auto-started"],
                                stdin=subprocess.DEVNULL, stdout=out, stderr=out, cwd=str(root),
                                start_new_session=True, close_fds=True)
    # Until it holds its lock (~0.3 s, once): an ingest right after this one then finds it
    # and starts no second one; a child that could not start is not reported as started.
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while proc.poll() is None and time.monotonic() < deadline:
        if (lock_holder(state) or (0, ""))[0] == proc.pid:
            return proc.pid
        time.sleep(0.02)
    return proc.pid if proc.poll() is None else None


def failed_recently(log: Path, now: float | None = None) -> bool:
    """The last daemon started here ended without its clean "stopped" line (it could not
    start, or died) within RETRY_SECONDS: do not start one at every ingest meanwhile."""
    try:
        if (now if now is not None else time.time()) - log.stat().st_mtime > RETRY_SECONDS:
            return False
        with open(log, "rb") as fh:
            fh.seek(max(0, fh.seek(0, os.SEEK_END) - 256))
            tail = fh.read().decode("utf-8", "replace").rstrip().rsplit("\n", 1)[-1]
    except OSError:
        return False
    return tail != STOPPED_LINE


def give_way(state: Path, log: Callable[[str], None], timeout: float = GIVE_WAY_SECONDS) -> bool:
    """A person's `memfs daemon` found the lock held: if by a daemon `memfs ingest`
    started, ask it to stop and wait until it has; True when the lock is free."""
    holder = lock_holder(state)
    if holder is None:
        return True
    pid, purpose = holder
    if purpose != AUTO_PURPOSE or pid <= 0:
        return False
    log(f"memfs daemon: stopping the daemon `memfs ingest` started here (pid {pid}) to take over")
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    except PermissionError:
        return False
    started = time.monotonic()
    notice = started + GIVE_WAY_NOTICE_SECONDS
    while time.monotonic() < started + timeout:
        if lock_holder(state) is None:
            return True
        if time.monotonic() >= notice:
            log(f"memfs daemon: still waiting for pid {pid} to finish the input it is on")
            notice += GIVE_WAY_NOTICE_SECONDS
        time.sleep(0.1)
    log(f"memfs daemon: pid {pid} did not stop within {timeout:g}s; it was asked to: start `memfs daemon` "
        "again once it has")
    return False


def idle_seconds(now: float, *marks: float) -> float:
    """Seconds since the latest of `marks` (monotonic times of activity)."""
    return now - max(marks)
