"""The table of per-file entry parts (memfs.entry.partstore): SQL only, no meaning.

One row per (file, part name): the latest value memfs computed for that file, with what
it was computed from (the file's content hash and indexed item count, the store's horizon
where the part depends on it, a digest of the file's supersession marks). The reader
decides whether a row still applies; a row for another hash is only ever a starting
point for a delta, never served as the value.
"""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from memfs.index.db import IndexDB

#: The table, as it stands in index/db.py's schema (created in place by every writer's open).
TABLE = "entry_parts"


class PartRow(NamedTuple):
    key: str
    digest: str
    count: int
    horizon: str
    marks: str
    value: str


def parts_of(db: IndexDB, path: str) -> dict[str, PartRow]:
    """{part key: row} of one file (empty when the table is missing: an index opened by an
    older memfs' writer has it, a read-only open of a very old one may not)."""
    try:
        rows = db.conn.execute("SELECT key, digest, count, horizon, marks, value FROM entry_parts WHERE path=?",
                               (path,)).fetchall()
    except sqlite3.OperationalError as err:
        if "no such table" in str(err):
            return {}
        raise
    return {r[0]: PartRow(r[0], r[1], int(r[2]), r[3], r[4], r[5]) for r in rows}


def save_parts(db: IndexDB, rows: list[tuple[str, PartRow]]) -> None:
    """Replace the (path, key) rows given, in one transaction (call under the writer lock)."""
    if not rows:
        return
    with db.transaction() as c:
        c.executemany("INSERT INTO entry_parts(path, key, digest, count, horizon, marks, value) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(path, key) DO UPDATE SET digest=excluded.digest, "
                      "count=excluded.count, horizon=excluded.horizon, marks=excluded.marks, value=excluded.value",
                      [(path, *row) for path, row in rows])


def drop_parts(db: IndexDB, paths: list[str]) -> None:
    """Forget the parts of files that left the index."""
    if paths:
        with db.transaction() as c:
            c.executemany("DELETE FROM entry_parts WHERE path=?", [(p,) for p in paths])


def part_paths(db: IndexDB) -> set[str]:
    try:
        return {r[0] for r in db.conn.execute("SELECT DISTINCT path FROM entry_parts")}
    except sqlite3.OperationalError as err:
        if "no such table" in str(err):
            return set()
        raise


def entry_row_of(db: IndexDB, path: str, item_id: str) -> tuple | None:  # type: ignore[type-arg]
    """One row of `repository.entry_rows_of(db, path)`, by id (None if that file has no such item)."""
    return db.conn.execute('SELECT id, text, type, "when", src, seen, updated, path, COALESCE(line, 0) '
                           "FROM items WHERE id=? AND path=?", (item_id, path)).fetchone()
