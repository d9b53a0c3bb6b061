"""Index-safety items of issue 10 against a real `memfs daemon`: `.memfs/` deleted under
it, a file still growing in the inbox."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from tests.support.cli import env, init, run
from tests.support.daemon import Daemon, wait
from tests.support.figures import figure
from tests.support.workspace import indexed_items, settled, waiting


@pytest.mark.slow
def _indexed_texts(ws: Path) -> list[str]:
    """Texts in the on-disk index; [] while it is being created (no tables yet)."""
    import sqlite3

    try:
        return [t for _, _, t in indexed_items(ws)]
    except sqlite3.OperationalError:
        return []


@pytest.mark.slow
def test_rm_rf_memfs_under_a_running_daemon(tmp_path: Path) -> None:
    e = env()
    ws = init(tmp_path / "w", e)
    run(["add", "Olga keeps three cats named after planets.", "-c", "pets"], ws, e)
    with Daemon(ws, e, tmp_path / "a.log") as first:
        first.wait_ready()
        shutil.rmtree(ws / ".memfs")
        with Daemon(ws, e, tmp_path / "b.log") as second:
            # Exactly one daemon is left on the workspace.
            wait(lambda: first.proc.poll() is not None or second.proc.poll() is not None, 30, "one daemon to stop")
            time.sleep(1.0)
            alive = [d for d in (first, second) if d.proc.poll() is None]
            assert len(alive) == 1, (first.log(), second.log())
            survivor = alive[0]
            stopped = second if survivor is first else first
            assert stopped.proc.returncode in (0, 1)
            if survivor is first:
                assert ".memfs/ was deleted" in first.log()
                assert "already running" in second.log() or "another memfs daemon" in second.log()
            # The survivor still works, on the index that exists on disk (not a deleted one).
            (ws / "inbox" / "note.md").write_text("Olga's tortoise is called Pluto and eats dandelions.\n")
            wait(lambda: not waiting(ws) and "note.md: +" in survivor.log(), 60, "the survivor to ingest")
            wait(lambda: any("Pluto" in t for t in _indexed_texts(ws)), 30, "the on-disk index to have it")
            assert any("cats" in t for t in _indexed_texts(ws))  # rebuilt from the Markdown
            wait(lambda: (ws / ".memfs" / "daemon.sock").exists(), 30, "warm recall to be back")
            hits = json.loads(run(["recall", "tortoise Pluto", "--json"], ws, e).stdout)
            assert hits and "Pluto" in hits[0]["text"]
            assert survivor.stop() == 0


@pytest.mark.slow
def test_rm_rf_memfs_under_a_lone_daemon_rebuilds_the_index(tmp_path: Path) -> None:
    e = env()
    ws = init(tmp_path / "w", e)
    run(["add", "Olga keeps three cats named after planets.", "-c", "pets"], ws, e)
    with Daemon(ws, e, tmp_path / "d.log") as d:
        d.wait_ready()
        shutil.rmtree(ws / ".memfs")
        wait(lambda: "rebuilding the index" in d.log(), 30, "the daemon to notice")
        wait(lambda: bool(_indexed_texts(ws)), 30, "a rebuilt index")
        (ws / "inbox" / "note.md").write_text("Olga's tortoise is called Pluto and eats dandelions.\n")
        wait(lambda: any("Pluto" in t for t in _indexed_texts(ws)), 60, "the new input in the on-disk index")
        # a second daemon is refused, as before the deletion
        with Daemon(ws, e, tmp_path / "second.log") as second:
            assert second.proc.wait(timeout=60) == 1
            assert "already running" in second.log()
        assert d.stop() == 0


LOGGER = """
import json, sys, time
path, lines, pause, keep_open = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "open"
facts = ["I adopted a dog named Rex from the shelter.", "I work as a nurse at the city hospital.",
         "My sister Mia lives in Porto and teaches chemistry.", "I bought a red bicycle called Zoom.",
         "My favourite book is Dune by Frank Herbert.", "I am allergic to peanuts and shellfish."]
fh = open(path, "a", encoding="utf-8") if keep_open else None
for n in range(lines):
    line = json.dumps({"role": "user", "name": "Ana", "content": facts[n]}) + "\\n"
    if keep_open:
        fh.write(line); fh.flush()
    else:
        with open(path, "a", encoding="utf-8") as out:
            out.write(line)
    time.sleep(pause)
if fh:
    fh.close()
"""


def _logged_facts(ws: Path) -> list[str]:
    from tests.support.workspace import item_set

    return sorted(t for _, t, _, _ in item_set(ws) if any(w in t for w in ("Rex", "nurse", "Mia", "Zoom", "Dune", "peanuts")))


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["open", "reopen"])
def test_a_jsonl_logger_appending_a_line_a_second_loses_nothing(tmp_path: Path, mode: str) -> None:
    """A logger appends JSONL to a file in inbox/ (no rename): every line is memorized,
    exactly once. `open` keeps its descriptor open (the daemon must not take the file
    early); `reopen` opens, appends, closes each line (the daemon takes a settled
    version, then the grown file's new tail)."""
    import subprocess
    import sys

    e = env()
    ws = init(tmp_path / "w", e)
    lines = 6
    with Daemon(ws, e, tmp_path / "d.log") as d:
        d.wait_ready()
        logger = subprocess.Popen([sys.executable, "-c", LOGGER, str(ws / "inbox" / "chat.jsonl"), str(lines),
                                   "0.8", mode])
        assert logger.wait(timeout=60) == 0
        wait(lambda: not waiting(ws), 60, "the inbox to drain")
        wait(lambda: len(_logged_facts(ws)) >= lines, 30, "every line memorized")
        time.sleep(1.0)
        facts = _logged_facts(ws)
        assert len(facts) == lines, (facts, d.log())
        from tests.support.workspace import item_set

        assert all(seen == 1 for _, t, seen, _ in item_set(ws) if t in facts)  # once, not reinforced twice
        if mode == "open":
            assert d.log().count("chat.jsonl: +") == 1  # taken once, after the logger closed it
        assert d.stop() == 0


def _big_chat(n: int) -> dict:
    names = ["Ana", "Ben", "Chloe", "Dev", "Emma", "Farid", "Gita", "Hugo"]
    things = ["violin", "kayak", "telescope", "sourdough", "bonsai", "chess", "pottery", "archery", "falconry",
              "origami", "beekeeping", "fencing"]
    places = ["Porto", "Oslo", "Lima", "Kyoto", "Accra", "Quito", "Hanoi", "Tunis", "Perth", "Riga", "Bergen"]
    msgs = []
    for k in range(n):
        who = names[k % len(names)]
        msgs.append({"role": "user", "name": who, "content": f"I took up {things[k % 12]} in {places[(k // 12) % 11]} "
                     f"with my cousin {names[(k // 7) % 8]}{k}."})
    return {"messages": msgs, "time": "2024-05-01T10:00:00"}


BATCH_ENV = {"MEMFS_INGEST_BATCH_SEGMENTS": "40"}


@pytest.mark.slow
def test_a_large_input_goes_in_batches_small_inputs_do_not_wait_and_sigterm_is_honoured(tmp_path: Path) -> None:
    from tests.support.workspace import item_set

    e = env(**BATCH_ENV)
    big = tmp_path / "big.json"
    big.write_text(json.dumps(_big_chat(400)))  # 10 batches of 40 turns
    reference = init(tmp_path / "ref", e)
    run(["ingest", str(big)], reference, e, timeout=300)
    expected = item_set(reference)

    ws = init(tmp_path / "w", e)
    with Daemon(ws, e, tmp_path / "d1.log") as d:
        d.wait_ready()
        shutil.copy(big, ws / "inbox" / "big.json")
        wait(lambda: "big.json: batch done" in d.log(), 120, "the first batch")
        at_drop = d.log().count("big.json: batch done")
        (ws / "inbox" / "small.md").write_text("Olga's tortoise is called Pluto and eats dandelions.\n")
        wait(lambda: "small.md: +" in d.log(), 120, "the small input")
        log = d.log()
        assert "big.json: +" not in log  # taken between two batches of the big one, not after it
        waited = log[:log.index("small.md: +")].count("big.json: batch done") - at_drop
        assert waited <= 1, log  # at most the batch that was running when it was dropped
        t0 = time.monotonic()
        assert d.stop() == 0  # SIGTERM: honoured after the current batch
        took = time.monotonic() - t0
    assert (ws / "inbox" / "big.json").exists()  # unfinished: still in the inbox, not archived
    assert not list((ws / "resources").rglob("*-big-*"))
    batches_before = log.count("big.json: batch done")
    with Daemon(ws, e, tmp_path / "d2.log") as d:
        d.wait_ready()
        wait(lambda: settled(ws, e), 300, "the big input to finish, its checks after the write made")
        assert d.stop() == 0
        resumed = d.log()
    # It resumed from its checkpoint (no batch done twice) and the result is the clean run's.
    assert batches_before + resumed.count("big.json: batch done") <= 10, (log, resumed)
    assert f"{40 * (batches_before + 1)}/400" in resumed or "big.json: +" in resumed
    got = {x for x in item_set(ws) if "Pluto" not in x[1]}
    assert got == expected
    figure("large input, SIGTERM", f"stopped {took:.2f}s after the signal (batch of 40 turns); small input "
           f"dropped during batch {at_drop + 1}, waited {waited} batch(es); resumed and "
           f"equal to a clean run ({len(expected)} items)")


@pytest.mark.slow
@pytest.mark.parametrize("how", ["moved", "deleted"])
def test_a_workspace_moved_or_deleted_under_its_daemon_is_not_recreated(tmp_path: Path, how: str) -> None:
    """`mv` of the whole workspace (or `rm -rf` of it) takes `.memfs/` with it. The daemon used
    to take that for a deleted `.memfs/`, recreate the old folder with root files in it, then die
    with "not in a memfs workspace". It stops cleanly instead and writes nothing at the old path."""
    e = env()
    ws = init(tmp_path / "w", e)
    run(["add", "Olga keeps three cats named after planets.", "-c", "pets"], ws, e)
    with Daemon(ws, e, tmp_path / "d.log") as d:
        d.wait_ready()
        (ws / "inbox" / "note.md").write_text("Olga's tortoise is called Pluto and eats dandelions.\n")
        wait(lambda: "note.md: +" in d.log(), 60, "the daemon to ingest")
        wait(lambda: settled(ws, e), 60, "the daemon to settle")
        moved = tmp_path / "elsewhere"
        if how == "moved":
            ws.rename(moved)
        else:
            for _ in range(5):  # like `rm -rf` re-run: a file the daemon writes meanwhile
                shutil.rmtree(ws, ignore_errors=True)
                if not ws.exists():
                    break
                time.sleep(0.2)
        assert d.proc.wait(timeout=60) == 0, d.log()
        assert "was moved or deleted; stopping" in d.log()
        if how == "moved":  # a rename is atomic; `rm -rf` may take `.memfs/` a moment before the rest
            assert "error" not in d.log().lower(), d.log()
    time.sleep(1.0)
    assert not ws.exists()  # nothing recreated at the old path
    if how == "moved":
        hits = json.loads(run(["recall", "tortoise Pluto", "--json"], moved, e).stdout)
        assert hits and "Pluto" in hits[0]["text"]


def test_a_stopping_daemons_socket_cleanup_leaves_the_survivors_socket(ws_path: Path) -> None:
    """After `rm -rf .memfs` the daemon that stops (when the other one survives) removed the
    socket file by path: the survivor's, bound there meanwhile. The survivor then ran without
    warm recall (test_rm_rf_memfs_under_a_running_daemon failed whenever the second won)."""
    import os
    import socket

    from memfs import warm
    from tests.support.workspace import hashing_memory

    mem = hashing_memory(ws_path)
    mem.add("Olga keeps three cats named after planets.")
    server = warm.WarmServer(mem)
    server.start()
    other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        os.unlink(server.path)  # the second daemon binds the same path
        other.bind(str(server.path))
        server.stop()
        assert server.path.exists(), "the stopping server removed the other daemon's socket"
    finally:
        other.close()
        mem.close()
    server2 = warm.WarmServer(hashing_memory(ws_path))  # its own socket it still removes
    server2.start()
    server2.stop()
    assert not server2.path.exists()
