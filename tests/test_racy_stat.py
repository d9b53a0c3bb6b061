"""A same-size edit within the file's mtime tick is indexed (index/statstamp.py).

Sync skips a file whose (size, mtime) match what it recorded. An edit that keeps both (the
same tick; an editor or tool restoring the mtime) was skipped until a rebuild: recall kept
answering the old text. A stat recorded within its tick is now recorded with mtime 0, so
the next sync hashes the file."""

from __future__ import annotations

import os
import time
from pathlib import Path

from memfs.index.statstamp import RACY_NS, recorded_mtime
from tests.support.cli import run, env
from tests.support.workspace import hashing_memory

FILE = "---\ntitle: Tools\ndescription: tools we use\n---\n\n- The build server runs zorblax nightly.\n"


def _indexed(mem, word: str) -> bool:
    return bool(mem.indexer.db.conn.execute(
        "SELECT count(*) FROM items_fts WHERE items_fts MATCH ?", (word,)).fetchone()[0])


def _same_tick_edit(path: Path, old: str, new: str) -> None:
    """Rewrite `path` with a same-length text and give it back its exact mtime."""
    st = os.stat(path)
    text = path.read_text(encoding="utf-8")
    assert len(old) == len(new) and old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_size == st.st_size


def test_recorded_mtime_is_zero_only_inside_the_tick() -> None:
    st = os.stat(__file__)
    assert recorded_mtime(st, now_ns=st.st_mtime_ns + RACY_NS + 1) == st.st_mtime_ns
    assert recorded_mtime(st, now_ns=st.st_mtime_ns + 1_000_000) == 0
    assert recorded_mtime(st, now_ns=st.st_mtime_ns - 5_000_000_000) == 0  # a clock behind the file


def test_a_same_size_same_mtime_edit_after_sync_is_indexed(ws_path: Path) -> None:
    path = ws_path / "index" / "tools.md"
    path.write_text(FILE, encoding="utf-8")
    with hashing_memory(ws_path) as mem:
        mem.sync()
        assert _indexed(mem, "zorblax")
        _same_tick_edit(path, "zorblax", "quimbly")
        mem.sync()
        assert _indexed(mem, "quimbly") and not _indexed(mem, "zorblax")


def test_a_same_size_same_mtime_edit_after_a_memfs_write_is_indexed(ws_path: Path) -> None:
    path = ws_path / "index" / "tools.md"
    path.write_text(FILE, encoding="utf-8")
    with hashing_memory(ws_path) as mem:
        mem.sync()
        mem.add("The deploy bot posts to the kestrel channel.", category="index/tools")
        assert _indexed(mem, "kestrel")
        _same_tick_edit(path, "kestrel", "sparrow")
        mem.sync()
        assert _indexed(mem, "sparrow") and not _indexed(mem, "kestrel")


def test_an_old_file_records_its_mtime_and_is_not_reread(ws_path: Path) -> None:
    path = ws_path / "index" / "tools.md"
    path.write_text(FILE, encoding="utf-8")
    hour_ago = time.time_ns() - 3600 * 10**9
    os.utime(path, ns=(hour_ago, hour_ago))
    with hashing_memory(ws_path) as mem:
        mem.sync()
        row = mem.indexer.db.conn.execute("SELECT mtime_ns FROM files WHERE path='index/tools.md'").fetchone()
        assert row[0] == hour_ago
        assert mem.sync().files_parsed == 0


def test_doctor_does_not_call_a_just_written_file_stale(ws_path: Path) -> None:
    with hashing_memory(ws_path) as mem:
        mem.add("Alice prefers green tea over coffee in the morning.")
    proc = run(["doctor", "--json"], ws_path, env(), check=False)
    assert '"changed since indexed' not in proc.stdout and "changed since indexed" not in proc.stdout, proc.stdout
