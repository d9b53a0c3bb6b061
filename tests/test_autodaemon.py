"""`memfs ingest` on a big store starts a daemon that keeps it warm (memfs.services.autodaemon):
the next ingest is handed to it with the same result as in-process, it does not hold the
CLI's pipes, it stops when idle, it gives way to a person's `memfs daemon`, and it is never
started below the threshold or when turned off. Real CLI, real daemons; the threshold is
lowered to 1 item so a small store stands for a big one."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memfs.services.autodaemon import AUTO_PURPOSE, LOG_NAME, lock_holder
from tests.support.cli import env, init, run
from tests.support.daemon import cli_traced, serving, wait


def _chat(n: int) -> dict:
    return {"format": "memfs.conversation/1", "participants": ["Ola", "Tess"],
            "sessions": [{"id": f"S{n}", "time": f"2026-03-0{n} 10:00", "turns": [
                {"id": f"S{n}:1", "speaker": "Ola", "text": f"I keep bicycle number {n} in the blue shed behind the bakery."},
                {"id": f"S{n}:2", "speaker": "Tess", "text": f"I started pottery class {n} at the community centre."}]}]}


def _auto_env(idle: float = 60.0, items: int = 1, **extra: str) -> dict[str, str]:
    return env(MEMFS_DAEMON_AUTO_START_ITEMS=str(items), MEMFS_DAEMON_IDLE_EXIT_SECONDS=str(idle), **extra)


def _markdown(ws: Path) -> dict[str, str]:
    return {str(p.relative_to(ws)): p.read_text(encoding="utf-8") for kind in ("memory", "index", "skill")
            for p in sorted((ws / kind).rglob("*.md"))}


def _alive(pid: int) -> bool:
    """Running (a zombie nobody reaped yet counts as gone: its parent, the CLI, has exited)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.fixture
def chats(tmp_path: Path) -> list[Path]:
    out = []
    for n in (1, 2, 3):
        out.append(tmp_path / f"chat{n}.json")
        out[-1].write_text(json.dumps(_chat(n)), encoding="utf-8")
    return out


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[list[Path]]:
    """Workspaces whose daemons are stopped after the test, whatever it left."""
    made: list[Path] = []
    yield made
    for ws in made:
        holder = lock_holder(ws / ".memfs")
        if holder is not None and holder[0] > 0:
            os.kill(holder[0], signal.SIGKILL)


def test_a_big_store_starts_a_daemon_the_next_ingest_is_handed_to_and_it_stops_when_idle(
        tmp_path: Path, chats: list[Path], stores: list[Path]) -> None:
    alone, ws = init(tmp_path / "alone"), init(tmp_path / "w")
    stores += [alone, ws]
    for chat in chats[:2]:
        run(["ingest", str(chat)], alone, e=_auto_env(items=0))
    t = time.monotonic()
    first = run(["ingest", str(chats[0])], ws, e=_auto_env(idle=3))
    assert time.monotonic() - t < 60  # the CLI's pipes were not held by the daemon it started
    assert first.stdout.startswith("chat1.json: +") and "started a daemon (pid" in first.stderr
    holder = lock_holder(ws / ".memfs")
    assert holder is not None and holder[1] == AUTO_PURPOSE and _alive(holder[0])
    wait(lambda: (ws / ".memfs" / "daemon.sock").exists() and "caught up" in (ws / ".memfs" / LOG_NAME).read_text(),
         60, "the started daemon listens")
    doctor = run(["doctor"], ws, e=_auto_env(idle=3), check=False)
    assert "started by `memfs ingest`" in doctor.stdout
    second, local = cli_traced(ws, ["ingest", str(chats[1])], _auto_env(idle=3))
    assert second.returncode == 0 and second.stdout.startswith("chat2.json: +"), second.stderr
    assert not local  # handed over: this process never loaded the API
    assert "started a daemon" not in second.stderr
    assert _markdown(ws) == _markdown(alone)
    wait(lambda: lock_holder(ws / ".memfs") is None, 60, "the idle daemon stops")
    log = (ws / ".memfs" / LOG_NAME).read_text()
    assert "nothing to do for 3s (started by memfs ingest); stopping" in log and log.rstrip().endswith("stopped")
    assert not (ws / ".memfs" / "daemon.sock").exists()
    wait(lambda: not _alive(holder[0]), 30, "the idle daemon's process ends")


def test_no_daemon_below_the_threshold_turned_off_or_without_warm_work(
        tmp_path: Path, chats: list[Path], stores: list[Path]) -> None:
    for name, e in (("default", env()), ("off", _auto_env(items=0)), ("big", _auto_env(items=10_000)),
                    ("nowarm", _auto_env(MEMFS_NO_WARM="1"))):
        ws = init(tmp_path / name)
        stores.append(ws)
        out = run(["ingest", str(chats[0])], ws, e=e)
        assert out.stdout.startswith("chat1.json: +") and "started a daemon" not in out.stderr, name
        time.sleep(0.3)
        assert lock_holder(ws / ".memfs") is None and not (ws / ".memfs" / LOG_NAME).exists(), name


def test_a_second_ingest_while_the_daemon_starts_does_not_start_another(
        tmp_path: Path, chats: list[Path], stores: list[Path]) -> None:
    ws = init(tmp_path / "w")
    stores.append(ws)
    run(["ingest", str(chats[0])], ws, e=_auto_env())
    holder = lock_holder(ws / ".memfs")
    assert holder is not None
    out = run(["ingest", str(chats[1])], ws, e=_auto_env())  # handed over, or done here if not yet listening
    assert "started a daemon" not in out.stderr
    assert lock_holder(ws / ".memfs") == holder


def test_a_persons_daemon_takes_over_from_a_started_one(tmp_path: Path, chats: list[Path],
                                                        stores: list[Path]) -> None:
    ws = init(tmp_path / "w")
    stores.append(ws)
    run(["ingest", str(chats[0])], ws, e=_auto_env())
    started = lock_holder(ws / ".memfs")
    assert started is not None and started[1] == AUTO_PURPOSE
    wait(lambda: "caught up" in (ws / ".memfs" / LOG_NAME).read_text(), 60, "the started daemon caught up")
    mine = serving(ws, tmp_path / "mine.log", _auto_env())
    try:
        holder = lock_holder(ws / ".memfs")
        assert holder is not None and holder == (mine.proc.pid, "daemon")
        wait(lambda: not _alive(started[0]), 30, "the started daemon gone")
        assert "to take over" in mine.log() and "stopped" in (ws / ".memfs" / LOG_NAME).read_text()
        out = run(["ingest", str(chats[2])], ws, e=_auto_env())  # handed to the person's daemon
        assert out.stdout.startswith("chat3.json: +") and "started a daemon" not in out.stderr
    finally:
        assert mine.stop() == 0


def test_a_started_daemon_never_takes_over_from_a_persons(tmp_path: Path, chats: list[Path],
                                                           stores: list[Path]) -> None:
    ws = init(tmp_path / "w")
    stores.append(ws)
    # another config: the daemon refuses the CLI's ingest, which is then done in-process
    mine = serving(ws, tmp_path / "mine.log", _auto_env(MEMFS_RECALL_TOP_K="7"))
    try:
        out, local = cli_traced(ws, ["ingest", str(chats[0])], _auto_env())
        assert out.returncode == 0 and local, out.stderr
        assert "started a daemon" not in out.stderr  # a daemon holds the lock: none is started
        assert lock_holder(ws / ".memfs") == (mine.proc.pid, "daemon") and mine.proc.poll() is None
    finally:
        assert mine.stop() == 0


def test_a_started_daemon_that_died_is_not_started_again_at_every_ingest(tmp_path: Path, chats: list[Path],
                                                                          stores: list[Path]) -> None:
    ws = init(tmp_path / "w")
    stores.append(ws)
    log = ws / ".memfs" / LOG_NAME
    log.write_text("memfs daemon: watching x (pid 1)\nmemfs daemon: inotify watch limit reached\n", encoding="utf-8")
    out = run(["ingest", str(chats[0])], ws, e=_auto_env())
    assert "started a daemon" not in out.stderr and lock_holder(ws / ".memfs") is None
    old = time.time() - 3600  # an hour later it is tried again
    os.utime(log, (old, old))
    out = run(["ingest", str(chats[1])], ws, e=_auto_env())
    assert "started a daemon" in out.stderr and lock_holder(ws / ".memfs") is not None
