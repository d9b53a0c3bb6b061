"""Passage text at rest: raw DEFLATE in `passages.text`, a contentless FTS5 beside it.

Passages' text was the largest thing in SQLite after the vectors (9.5 of 61.5 MB at
10,000 notes). Compressed per row (raw DEFLATE, no header) it is 39 % smaller; a reader
inflates only the rows it shows (a recall's ~10 hits, microseconds each).

FTS5 cannot read compressed text, so `passages_fts` is contentless (`content=''`): it holds
the index and nothing else, and this module (not a trigger) feeds it the plain text on
insert and the old plain text on delete, which is what a contentless FTS5 needs to remove
a row. Search asks it only for rowids and bm25, which need no content.
"""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Iterable

#: zlib's default level: level 9 saved 0.3 % more at 10,000 notes for twice the CPU.
_LEVEL = 6
FTS_SQL = ("CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5(text, heading, content='', "
           "tokenize='porter unicode61 remove_diacritics 2')")


def pack(text: str) -> bytes:
    c = zlib.compressobj(_LEVEL, zlib.DEFLATED, -15)
    return c.compress(text.encode("utf-8")) + c.flush()


def unpack(value: str | bytes) -> str:
    """The plain text of a stored value; a `str` is a row written before compression."""
    if isinstance(value, str):
        return value
    return zlib.decompress(value, -15).decode("utf-8")


def insert(c: sqlite3.Connection, rows: Iterable[tuple]) -> None:  # type: ignore[type-arg]
    """Rows are (id, path, category, kind, heading, text, line_start, line_end, text_hash) with
    plain text; any row already under one of these ids is removed first (FTS too)."""
    rows = list(rows)
    delete(c, [r[0] for r in rows])
    for r in rows:
        cur = c.execute("INSERT INTO passages(id, path, category, kind, heading, text, line_start, line_end, "
                        "text_hash) VALUES(?,?,?,?,?,?,?,?,?)", (*r[:5], pack(r[5]), *r[6:]))
        c.execute("INSERT INTO passages_fts(rowid, text, heading) VALUES(?,?,?)", (cur.lastrowid, r[5], r[4]))


def delete(c: sqlite3.Connection, ids: list[str]) -> None:
    """Remove passages by id, taking their words out of the FTS index with the old text."""
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        rows = c.execute(f"SELECT label, heading, text FROM passages WHERE id IN ({','.join('?' * len(chunk))})",
                         chunk).fetchall()
        c.executemany("INSERT INTO passages_fts(passages_fts, rowid, text, heading) VALUES('delete', ?, ?, ?)",
                      [(label, unpack(text), heading) for label, heading, text in rows])
        c.executemany("DELETE FROM passages WHERE label=?", [(label,) for label, _, _ in rows])


def convert(c: sqlite3.Connection) -> bool:
    """An index whose passages_fts is external content (text stored plain, kept in step by
    triggers) moves to this layout in place: same rows, same labels, so no vector and no
    hnsw slot changes. Run inside the caller's write transaction (memfs.index.layout), which
    made the check too. True if it did (the next sync repacks the file once)."""
    row = c.execute("SELECT sql FROM sqlite_master WHERE name='passages_fts'").fetchone()
    if row is None or "content=''" in row[0]:
        return False
    c.execute("DROP TRIGGER IF EXISTS passages_ai")
    c.execute("DROP TRIGGER IF EXISTS passages_ad")
    c.execute("DROP TABLE passages_fts")
    c.execute(FTS_SQL)
    rows = c.execute("SELECT label, heading, text FROM passages").fetchall()
    c.executemany("UPDATE passages SET text=? WHERE label=?",
                  [(pack(t), label) for label, _, t in rows if isinstance(t, str)])
    c.executemany("INSERT INTO passages_fts(rowid, text, heading) VALUES(?,?,?)",
                  [(label, unpack(t), h) for label, h, t in rows])
    c.execute("DELETE FROM meta WHERE key='compacted'")
    return True
