"""Index-safety items of issue 10 against a real `memfs daemon`: `.memfs/` deleted under
it, a file still growing in the inbox."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from tests.test_hardening_helpers import Daemon, env, indexed_items, init, run, wait, waiting


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
            wait(lambda: any("Pluto" in t for _, _, t in indexed_items(ws)), 30, "the on-disk index to have it")
            assert any("cats" in t for _, _, t in indexed_items(ws))  # rebuilt from the Markdown
            wait(lambda: (ws / ".memfs" / "daemon.sock").exists(), 30, "warm recall to be back")
            hits = json.loads(run(["recall", "tortoise Pluto", "--json"], ws, e).stdout)
            assert hits and "Pluto" in hits[0]["text"]
            assert survivor.stop() == 0


def test_rm_rf_memfs_under_a_lone_daemon_rebuilds_the_index(tmp_path: Path) -> None:
    e = env()
    ws = init(tmp_path / "w", e)
    run(["add", "Olga keeps three cats named after planets.", "-c", "pets"], ws, e)
    with Daemon(ws, e, tmp_path / "d.log") as d:
        d.wait_ready()
        shutil.rmtree(ws / ".memfs")
        wait(lambda: "rebuilding the index" in d.log(), 30, "the daemon to notice")
        wait(lambda: (ws / ".memfs" / "index.sqlite3").exists() and bool(indexed_items(ws)), 30, "a rebuilt index")
        (ws / "inbox" / "note.md").write_text("Olga's tortoise is called Pluto and eats dandelions.\n")
        wait(lambda: any("Pluto" in t for _, _, t in indexed_items(ws)), 60, "the new input in the on-disk index")
        # a second daemon is refused, as before the deletion
        with Daemon(ws, e, tmp_path / "second.log") as second:
            assert second.proc.wait(timeout=60) == 1
            assert "already running" in second.log()
        assert d.stop() == 0
