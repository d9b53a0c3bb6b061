"""Index files as an older memfs left them, for the tests of conversion and heal races."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memfs.index.ptext import unpack


def to_schema5(db_path: Path, compacted: bool = False) -> None:
    """Schema 5: passage text plain, passages_fts external content kept by triggers.
    `compacted`: mark it repacked already (no VACUUM by the next sync)."""
    c = sqlite3.connect(db_path, isolation_level=None)
    rows = c.execute("SELECT label, heading, text FROM passages").fetchall()
    c.execute("DROP TABLE passages_fts")
    c.executescript("""
CREATE VIRTUAL TABLE passages_fts USING fts5(text, heading, content='passages', content_rowid='label',
    tokenize='porter unicode61 remove_diacritics 2');
CREATE TRIGGER passages_ai AFTER INSERT ON passages BEGIN
  INSERT INTO passages_fts(rowid, text, heading) VALUES (new.label, new.text, new.heading);
END;
CREATE TRIGGER passages_ad AFTER DELETE ON passages BEGIN
  INSERT INTO passages_fts(passages_fts, rowid, text, heading) VALUES ('delete', old.label, old.text, old.heading);
END;""")
    c.executemany("UPDATE passages SET text=? WHERE label=?", [(unpack(t), label) for label, _, t in rows])
    c.execute("INSERT INTO passages_fts(passages_fts) VALUES('rebuild')")
    c.execute("UPDATE meta SET value='5' WHERE key='schema'")
    if compacted:
        c.execute("INSERT INTO meta(key, value) VALUES('compacted', '1') ON CONFLICT(key) DO UPDATE SET value='1'")
    c.close()
