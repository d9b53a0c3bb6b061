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
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memfs.services.autodaemon import AUTO_PURPOSE, LOG_NAME, lock_holder
from tests.support.cli import env, init, run
from tests.support.daemon import cli_traced, serving, wait


#: Each chat says different things (near-duplicates would be merged into one line).
_SAID = [("I keep my bicycle in the blue shed behind the bakery.",
          "I started a pottery class at the community centre."),
         ("My sister Mira moved to Porto for a design job.", "Our landlord Viktor raised the rent by ninety euros."),
         ("I adopted a grey parrot called Zorkel from the shelter.", "The quarterly budget review moved to Thursday.")]


def _chat(n: int) -> dict:
    ola, tess = _SAID[n - 1]
    return {"format": "memfs.conversation/1", "participants": ["Ola", "Tess"],
            "sessions": [{"id": f"S{n}", "time": f"2026-03-0{n} 10:00", "turns": [
                {"id": f"S{n}:1", "speaker": "Ola", "text": ola}, {"id": f"S{n}:2", "speaker": "Tess", "text": tess}]}]}


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
def store(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """`store(rel)`: a new workspace at tmp_path/rel; its daemons are stopped after the test,
    whatever it left."""
    made: list[Path] = []

    def make(rel: str) -> Path:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        made.append(init(tmp_path / rel))
        return made[-1]

    yield make
    for ws in made:
        holder = lock_holder(ws / ".memfs")
        if holder is not None and holder[0] > 0:
            os.kill(holder[0], signal.SIGKILL)


def test_a_big_store_starts_a_daemon_the_next_ingest_is_handed_to_and_it_stops_when_idle(
        tmp_path: Path, chats: list[Path], store: Callable[[str], Path]) -> None:
    alone, ws = store("alone"), store("w")
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
        tmp_path: Path, chats: list[Path], store: Callable[[str], Path]) -> None:
    for name, e in (("default", env()), ("off", _auto_env(items=0)), ("big", _auto_env(items=10_000)),
                    ("nowarm", _auto_env(MEMFS_NO_WARM="1"))):
        ws = store(name)
        out = run(["ingest", str(chats[0])], ws, e=e)
        assert out.stdout.startswith("chat1.json: +") and "started a daemon" not in out.stderr, name
        time.sleep(0.3)
        assert lock_holder(ws / ".memfs") is None and not (ws / ".memfs" / LOG_NAME).exists(), name


def test_a_second_ingest_while_the_daemon_starts_does_not_start_another(
        tmp_path: Path, chats: list[Path], store: Callable[[str], Path]) -> None:
    ws = store("w")
    run(["ingest", str(chats[0])], ws, e=_auto_env())
    holder = lock_holder(ws / ".memfs")
    assert holder is not None
    out = run(["ingest", str(chats[1])], ws, e=_auto_env())  # handed over, or done here if not yet listening
    assert "started a daemon" not in out.stderr
    assert lock_holder(ws / ".memfs") == holder


def test_a_persons_daemon_takes_over_from_a_started_one(tmp_path: Path, chats: list[Path],
                                                        store: Callable[[str], Path]) -> None:
    ws = store("w")
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
                                                           store: Callable[[str], Path]) -> None:
    ws = store("w")
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
                                                                          store: Callable[[str], Path]) -> None:
    ws = store("w")
    log = ws / ".memfs" / LOG_NAME
    log.write_text("memfs daemon: watching x (pid 1)\nmemfs daemon: inotify watch limit reached\n", encoding="utf-8")
    out = run(["ingest", str(chats[0])], ws, e=_auto_env())
    assert "started a daemon" not in out.stderr and lock_holder(ws / ".memfs") is None
    old = time.time() - 3600  # an hour later it is tried again
    os.utime(log, (old, old))
    out = run(["ingest", str(chats[1])], ws, e=_auto_env())
    assert "started a daemon" in out.stderr and lock_holder(ws / ".memfs") is not None


def test_an_ingest_sent_as_the_daemon_stops_on_its_own_is_done_here(tmp_path: Path, chats: list[Path],
                                                                    store: Callable[[str], Path]) -> None:
    """Its socket's queued connections are answered (refused), not reset: a reset read as
    "the daemon took it and gave no answer", and the input was never memorized."""
    for trial in range(2):
        ws = store(f"w{trial}")
        run(["ingest", str(chats[0])], ws, e=_auto_env(idle=2))
        log = ws / ".memfs" / LOG_NAME
        wait(lambda: "nothing to do" in log.read_text(), 60, "the idle stop")
        out = run(["ingest", str(chats[1])], ws, e=_auto_env(idle=2), check=False)
        assert out.returncode == 0 and out.stdout.startswith("chat2.json: +"), out.stderr
        text = "".join(p.read_text(encoding="utf-8") for p in (ws / "memory").rglob("*.md"))
        assert "bicycle" in text and "Mira" in text


def test_a_started_daemon_stops_when_a_cli_with_another_config_asks(tmp_path: Path, chats: list[Path],
                                                                     store: Callable[[str], Path]) -> None:
    ws = store("w")
    run(["ingest", str(chats[0])], ws, e=_auto_env())
    first = lock_holder(ws / ".memfs")
    assert first is not None
    wait(lambda: (ws / ".memfs" / "daemon.sock").exists(), 60, "the started daemon listens")
    config = ws / "memfs.toml"
    config.write_text(config.read_text(encoding="utf-8") + "\n# a person edited this file\n", encoding="utf-8")
    out, local = cli_traced(ws, ["ingest", str(chats[1])], _auto_env())
    assert out.returncode == 0 and local  # refused by the daemon of the old config: done here
    wait(lambda: lock_holder(ws / ".memfs") is None, 60, "the stale daemon stops")
    assert "memfs.toml changed since this daemon started" in (ws / ".memfs" / LOG_NAME).read_text()
    out = run(["ingest", str(chats[2])], ws, e=_auto_env())
    assert "started a daemon" in out.stderr  # one with the new config
    second = lock_holder(ws / ".memfs")
    assert second is not None and second[0] != first[0]


def test_a_started_daemon_does_not_stop_while_a_person_keeps_editing(tmp_path: Path, chats: list[Path],
                                                                     store: Callable[[str], Path]) -> None:
    ws = store("w")
    run(["ingest", str(chats[0])], ws, e=_auto_env(idle=2))
    holder = lock_holder(ws / ".memfs")
    assert holder is not None
    note = ws / "memory" / "notes.md"
    end = time.monotonic() + 5
    n = 0
    while time.monotonic() < end:  # a save every 0.3 s: never 2 s without an edit, never 0.5 s settled
        n += 1
        with open(note, "a", encoding="utf-8") as fh:
            fh.write(f"- Ola's locker code {n} is quuxblue{n}.\n")
        time.sleep(0.3)
    assert lock_holder(ws / ".memfs") == holder  # still running when the edits end
    wait(lambda: lock_holder(ws / ".memfs") is None, 60, "the idle stop after the edits")
    log = (ws / ".memfs" / LOG_NAME).read_text()
    assert log.index("synced edits") < log.index("nothing to do")  # the last edit synced before it left
    hits = json.loads(run(["recall", f"quuxblue{n}", "--json"], ws, e=_auto_env(items=0)).stdout)
    assert any(f"quuxblue{n}." in h["text"] for h in hits)


def test_a_daemon_hands_over_ingests_after_its_index_was_deleted(tmp_path: Path, chats: list[Path],
                                                                 store: Callable[[str], Path]) -> None:
    """`.memfs/` is a cache: deleted under a daemon that ingested over its socket, the next
    handed-over ingest works (its replay ledger's tables are made again)."""
    import shutil

    ws = store("w")
    mine = serving(ws, tmp_path / "mine.log", env())
    try:
        out, local = cli_traced(ws, ["ingest", str(chats[0])], env())
        assert out.returncode == 0 and not local, out.stderr
        shutil.rmtree(ws / ".memfs")
        wait(lambda: "rebuilding the index" in mine.log() and (ws / ".memfs" / "daemon.sock").exists(), 60,
             "the daemon rebuilt its index")
        wait(lambda: mine.log().count("caught up") >= 1 and "rebuild after" not in mine.log(), 5, "no failure")
        for chat in chats[1:]:
            out, _ = cli_traced(ws, ["ingest", str(chat)], env())
            assert out.returncode == 0 and out.stdout.startswith(f"{chat.name}: +"), out.stderr
    finally:
        assert mine.stop() == 0


def test_a_daemon_that_cannot_be_started_leaves_the_ingest_done(tmp_path: Path, chats: list[Path],
                                                                store: Callable[[str], Path]) -> None:
    ws = store("w")
    (ws / ".memfs" / LOG_NAME).mkdir(parents=True)  # its log cannot be opened
    out = run(["ingest", str(chats[0])], ws, e=_auto_env(), check=False)
    assert out.returncode == 0 and out.stdout.startswith("chat1.json: +")
    assert "memfs: warning: could not start a daemon for this store" in out.stderr
    assert lock_holder(ws / ".memfs") is None


_HOLDER = """
import fcntl, os, signal, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
os.ftruncate(fd, 0); os.write(fd, f"{os.getpid()} daemon-auto\\n".encode())
busy = float(sys.argv[2])  # seconds it goes on after SIGTERM (an input to finish), -1: forever
signal.signal(signal.SIGTERM, lambda *_: (time.sleep(busy), sys.exit(0)) if busy >= 0 else None)
print("locked", flush=True)
while True:
    time.sleep(0.05)
"""


@pytest.mark.parametrize("busy", [1.5, -1.0])
def test_a_persons_daemon_waits_for_a_busy_started_one_or_says_why_not(tmp_path: Path, busy: float,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """give_way against a real process holding the lock as a started daemon: one still on
    its input is waited for (with notices); one that never stops is named, never killed."""
    import subprocess
    import sys

    from memfs.services import autodaemon

    state = tmp_path / ".memfs"
    state.mkdir()
    proc = subprocess.Popen([sys.executable, "-c", _HOLDER, str(state / "daemon.lock"), str(busy)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
        monkeypatch.setattr(autodaemon, "GIVE_WAY_NOTICE_SECONDS", 0.5)
        said: list[str] = []
        took = autodaemon.give_way(state, said.append, timeout=1.0 if busy < 0 else 30.0)
        assert took is (busy >= 0)
        assert any("still waiting" in line for line in said)
        if busy < 0:
            assert "did not stop within 1s" in said[-1] and proc.poll() is None
        else:
            assert proc.wait(timeout=10) == 0
    finally:
        proc.kill()
        proc.wait()


def test_a_started_daemon_leaves_inbox_files_to_the_cli(tmp_path: Path, chats: list[Path],
                                                        store: Callable[[str], Path]) -> None:
    """`memfs ingest inbox/X` a moment after the copy: the daemon did not take X first (which
    made the CLI say "failed: not a regular file" for an input that was memorized)."""
    import shutil

    ws = store("w")
    run(["ingest", str(chats[0])], ws, e=_auto_env())
    wait(lambda: (ws / ".memfs" / "daemon.sock").exists(), 60, "the started daemon listens")
    for chat in chats[1:]:
        shutil.copy(chat, ws / "inbox" / chat.name)
    time.sleep(1.5)  # settled long past ingest.settle_seconds
    assert sorted(p.name for p in (ws / "inbox").glob("*.json")) == ["chat2.json", "chat3.json"]
    out, local = cli_traced(ws, ["ingest", str(ws / "inbox" / "chat2.json"), str(ws / "inbox" / "chat3.json")],
                            _auto_env())
    assert out.returncode == 0 and not local, out.stderr
    assert [line.split(":")[0] for line in out.stdout.splitlines()] == ["chat2.json", "chat3.json"]
    assert "failed" not in out.stdout + out.stderr


def test_no_daemon_is_started_where_its_socket_cannot_be_bound(tmp_path: Path, chats: list[Path],
                                                               store: Callable[[str], Path]) -> None:
    ws = store(f"{'d' * 60}/{'e' * 60}/w")
    assert len(os.fsencode(ws / ".memfs" / "daemon.sock")) > 107
    out = run(["ingest", str(chats[0])], ws, e=_auto_env())
    assert out.stdout.startswith("chat1.json: +") and "started a daemon" not in out.stderr
    assert lock_holder(ws / ".memfs") is None


def test_a_cli_with_other_settings_is_refused_and_the_daemon_stays(tmp_path: Path, chats: list[Path],
                                                                   store: Callable[[str], Path]) -> None:
    """Only memfs.toml changing stops a started daemon: a CLI with other MEMFS_* settings
    ingests in-process beside it (two such CLIs stopped each other's daemons), and
    MEMFS_DAEMON_* settings are not part of the config a write is checked against."""
    ws = store("w")
    run(["ingest", str(chats[0])], ws, e=_auto_env())
    holder = lock_holder(ws / ".memfs")
    wait(lambda: (ws / ".memfs" / "daemon.sock").exists(), 60, "the started daemon listens")
    out, local = cli_traced(ws, ["ingest", str(chats[1])], _auto_env(MEMFS_RECALL_TOP_K="12"))
    assert out.returncode == 0 and local and "started a daemon" not in out.stderr
    time.sleep(2.5)  # past the daemon's next check
    assert lock_holder(ws / ".memfs") == holder
    out, local = cli_traced(ws, ["ingest", str(chats[2])], _auto_env(idle=30, items=5))
    assert out.returncode == 0 and not local, out.stderr  # other MEMFS_DAEMON_*: still handed over


def test_a_request_sent_late_to_a_stopping_daemon_is_answered(tmp_path: Path, chats: list[Path],
                                                              store: Callable[[str], Path]) -> None:
    """A client connected, stalled, and sent its request after the daemon was told to stop:
    it gets a whole answer (the process waits for the request being read), not a cut-off
    connection that the CLI must report as a lost answer."""
    import socket

    ws = store("w")
    e = env()
    mine = serving(ws, tmp_path / "mine.log", e)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(ws / ".memfs" / "daemon.sock"))
        time.sleep(0.3)  # accepted: its handler waits for the request line
        mine.proc.send_signal(signal.SIGTERM)
        time.sleep(1.5)
        # another config's key: refused, but a whole answer (a stopping daemon refuses writes anyway)
        sock.sendall(json.dumps({"verb": "ingest", "paths": [str(chats[0])], "allow_relearn": False,
                                 "json": False, "config": "another"}).encode() + b"\n")
        sock.settimeout(30)
        answer = b""
        while not answer.endswith(b"\n"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
        assert json.loads(answer)["status"] == "refused"
    finally:
        sock.close()
        assert mine.stop() == 0
