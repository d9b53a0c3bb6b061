"""Writers opening one index at the same moment (real processes, released together): a
damaged file is moved aside once, an older layout is rebuilt or converted once, and every
process ends on the same sound file (issue 10, damaged caches)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from memfs.index import ptext
from memfs.index.db import SCHEMA_VERSION, IndexDB
from tests.support.cli import env

_OPENER = r"""
import os, sys, time
from pathlib import Path
from memfs.index.db import IndexDB
path, go = Path(sys.argv[1]), Path(sys.argv[2])
while not go.exists():
    time.sleep(0.001)
db = IndexDB(path)
with db.transaction() as c:
    c.execute("INSERT INTO meta(key, value) VALUES(?, '1')", (f"opened-{os.getpid()}",))
print(db.get_meta("schema"), os.stat(path).st_ino, flush=True)
time.sleep(0.5)  # keep it open while the others finish theirs
db.close()
"""


def _open_together(path: Path, n: int = 4) -> tuple[list[str], str]:
    """`n` processes open `path` as writers at once; (their stdout lines, all their stderr)."""
    go = path.parent / "go"
    procs = [subprocess.Popen([sys.executable, "-c", _OPENER, str(path), str(go)], env=env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(n)]
    time.sleep(1.5)  # every interpreter started and polling
    go.touch()
    outs = [p.communicate(timeout=60) for p in procs]
    assert all(p.returncode == 0 for p in procs), [e for _, e in outs]
    return [o.strip() for o, _ in outs], "".join(e for _, e in outs)


def _damaged(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = IndexDB(path)
    with db.transaction():
        db.set_meta("embedder", "hashing:3")
    db.close()
    data = path.read_bytes()
    path.write_bytes(data[:100] + os.urandom(len(data) - 100))  # header kept, schema page garbage


def _sound_and_opened_by_all(path: Path, outs: list[str], n: int) -> None:
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    opened = conn.execute("SELECT count(*) FROM meta WHERE key LIKE 'opened-%'").fetchone()[0]
    conn.close()
    assert opened == n  # nobody's writes went into a file another process moved aside
    assert {o.split()[0] for o in outs} == {SCHEMA_VERSION}
    assert len({o.split()[1] for o in outs}) == 1  # all on one file


def test_a_damaged_index_is_moved_aside_once_when_writers_open_it_together(tmp_path: Path) -> None:
    path = tmp_path / ".memfs" / "index.sqlite3"
    _damaged(path)
    outs, err = _open_together(path)
    assert err.count("moved it to") == 1, err
    assert len(list((tmp_path / ".memfs" / "damaged").iterdir())) == 1
    _sound_and_opened_by_all(path, outs, 4)


def test_an_older_layout_is_rebuilt_once_when_writers_open_it_together(tmp_path: Path) -> None:
    path = tmp_path / ".memfs" / "index.sqlite3"
    path.parent.mkdir(parents=True)
    db = IndexDB(path)
    with db.transaction():
        db.store_vectors([("h1", np.ones(3, dtype=np.float32))])
        db.set_meta("embedder", "hashing:3")
        db.set_meta("embedder_dim", "3")
        db.set_meta("schema", "0")  # as an older memfs left it
    db.close()
    outs, err = _open_together(path)
    assert err.count("built by another memfs version") == 1, err
    _sound_and_opened_by_all(path, outs, 4)
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM embeddings").fetchone()[0] == 1  # the cache kept
    conn.close()


def test_plain_passage_text_is_converted_once_when_writers_open_it_together(tmp_path: Path) -> None:
    path = tmp_path / ".memfs" / "index.sqlite3"
    path.parent.mkdir(parents=True)
    db = IndexDB(path)
    with db.transaction() as c:
        ptext.insert(c, [(f"p{i}", "memory/a.md", "a", "memory", "H", f"Paragraph {i} about otters.", i, i, f"h{i}")
                         for i in range(50)])
        c.execute("DROP TABLE passages_fts")  # the schema-5 layout: external content, triggers
        c.execute("CREATE VIRTUAL TABLE passages_fts USING fts5(text, heading, content='passages', "
                  "content_rowid='label', tokenize='porter unicode61 remove_diacritics 2')")
        c.execute("UPDATE passages SET text=CAST(? AS TEXT) || label", ("Paragraph about otters ",))
        c.execute("INSERT INTO passages_fts(passages_fts) VALUES('rebuild')")
        c.execute("UPDATE meta SET value='5' WHERE key='schema'")
    db.close()
    outs, _ = _open_together(path)
    _sound_and_opened_by_all(path, outs, 4)
    conn = sqlite3.connect(path)
    assert "content=''" in conn.execute("SELECT sql FROM sqlite_master WHERE name='passages_fts'").fetchone()[0]
    assert conn.execute("SELECT count(*) FROM passages_fts WHERE passages_fts MATCH 'otters'").fetchone()[0] == 50
    assert conn.execute("SELECT count(*) FROM passages WHERE typeof(text) = 'text'").fetchone()[0] == 0
    conn.close()


_OPENING = r"""
import sys
from pathlib import Path
from memfs.index.heal import heal_lock
with heal_lock(Path(sys.argv[1])):  # what an open holds until its connection has its files
    print("opening", flush=True)
    sys.stdin.read()
"""


def _old_pages(path: Path) -> IndexDB:
    """An index file made with 4 KiB pages (as before memfs moved to 8 KiB), with some rows."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA page_size=4096")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
    conn.commit()
    conn.close()
    db = IndexDB(path)
    with db.transaction():
        db.store_vectors([(f"h{i:04d}", np.ones(8, dtype=np.float32) * i) for i in range(300)])
    assert db.conn.execute("PRAGMA page_size").fetchone()[0] == 4096
    return db


def test_the_page_size_waits_while_another_process_is_opening_the_index(tmp_path: Path) -> None:
    from memfs.index.compact import compact

    path = tmp_path / ".memfs" / "index.sqlite3"
    db = _old_pages(path)
    opener = subprocess.Popen([sys.executable, "-c", _OPENING, str(path.parent)], env=env(),
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert opener.stdout is not None and opener.stdout.readline().strip() == "opening"
        assert compact(db)  # repacked, but not out of WAL mode: the other process may be mid-open
        assert db.conn.execute("PRAGMA page_size").fetchone()[0] == 4096
        assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        opener.communicate("", timeout=30)
    db.conn.execute("DELETE FROM meta WHERE key='compacted'")
    assert compact(db)  # alone now: into 8 KiB pages
    assert db.conn.execute("PRAGMA page_size").fetchone()[0] == 8192
    assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert len(db.cached_vectors([f"h{i:04d}" for i in range(300)])) == 300
    db.close()


_SLOW_CONVERSION = r"""
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")  # the write lock a conversion holds, for as long as a big one takes
c.execute("SELECT count(*) FROM passages").fetchone()
print("converting", flush=True)
time.sleep(2.0)
c.execute("COMMIT")
"""


@pytest.mark.slow  # four CLI processes: ~10 s on a quiet machine
def test_recall_during_another_processes_conversion_waits_and_answers(tmp_path: Path) -> None:
    """`memfs recall` on a schema-5 index while another process holds the conversion's write
    lock: it waits, converts once, answers; no error, no heal, a sound file after."""
    from tests.support.cli import init, run
    from tests.support.oldlayout import to_schema5

    root = init(tmp_path / "w")
    (root / "memory" / "harbour.md").write_text(
        "# Harbour\n\nThe zanzibar crew paints the lighthouse every spring, rain or shine.\n", encoding="utf-8")
    run(["add", "Ines keeps otters at the harbour.", "--category", "harbour"], cwd=root)
    db_path = root / ".memfs" / "index.sqlite3"
    to_schema5(db_path)
    slow = subprocess.Popen([sys.executable, "-c", _SLOW_CONVERSION, str(db_path)], env=env(),
                            stdout=subprocess.PIPE, text=True)
    try:
        assert slow.stdout is not None and slow.stdout.readline().strip() == "converting"
        t0 = time.monotonic()
        out = run(["recall", "zanzibar lighthouse", "--json"], cwd=root)
        waited = time.monotonic() - t0
    finally:
        slow.wait(timeout=30)
    assert "zanzibar" in out.stdout and "damaged" not in out.stderr and "malformed" not in out.stderr, out
    assert waited > 0.5  # it did meet the other process's write lock
    assert "otters" in run(["recall", "otters", "--json"], cwd=root).stdout
    conn = sqlite3.connect(db_path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == SCHEMA_VERSION
    assert "content=''" in conn.execute("SELECT sql FROM sqlite_master WHERE name='passages_fts'").fetchone()[0]
    conn.close()
    assert not (root / ".memfs" / "damaged").exists()
