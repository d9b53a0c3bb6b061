"""Copies of one stamped id in two files: which one is indexed, and what happens when it goes.

A person who copies an item line into another file (or moves it in two saves: paste here,
then cut there) leaves two lines with one id. The first file (path order) keeps the id; the
other copy is reported and recorded here. When the indexed copy's line goes, the files that
hold a copy are read again, so the line that remains is found instead of vanishing from the
index until the next rebuild. A forget removes every copy (memfs.forget), so a forgotten
fact cannot come back this way.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from typing import TYPE_CHECKING

from memfs.index.db import IndexDB

if TYPE_CHECKING:
    from memfs.index.sync import Indexer, SyncReport


def forget_paths(c: sqlite3.Connection, paths: Iterable[str]) -> None:
    """Drop what is recorded of `paths` (they are being read again, or are gone)."""
    c.executemany("DELETE FROM shadows WHERE path=?", [(p,) for p in paths])


def record(c: sqlite3.Connection, pairs: Iterable[tuple[str, str]]) -> None:
    """Record (id, path) copies that were not indexed."""
    c.executemany("INSERT OR IGNORE INTO shadows(id, path) VALUES(?, ?)", list(pairs))


def holders(db: IndexDB, ids: Iterable[str]) -> dict[str, list[str]]:
    """The files holding an unindexed copy of each of `ids` (only ids that have one)."""
    wanted = list(dict.fromkeys(ids))
    out: dict[str, list[str]] = {}
    for n in range(0, len(wanted), 500):
        chunk = wanted[n:n + 500]
        marks = ",".join("?" * len(chunk))
        for item_id, path in db.conn.execute(
                f"SELECT id, path FROM shadows WHERE id IN ({marks}) ORDER BY path", chunk):
            out.setdefault(item_id, []).append(path)
    return out


def has_any(db: IndexDB, ids: Iterable[str]) -> bool:
    """Whether any of `ids` has an unindexed copy (one probe per id, by primary key prefix)."""
    return any(db.conn.execute("SELECT 1 FROM shadows WHERE id=? LIMIT 1", (i,)).fetchone() for i in ids)


def mark_stale(c: sqlite3.Connection, paths: Iterable[str]) -> None:
    """Make the next sync parse `paths` again although their bytes did not change: neither
    their recorded size nor their hash can match a file's."""
    c.executemany("UPDATE files SET size=-1, hash='' WHERE path=?", [(p,) for p in paths])


def all_copies(db: IndexDB, item_id: str) -> list[str]:
    """The files holding an unindexed copy of `item_id`."""
    return holders(db, [item_id]).get(item_id, [])


def to_reread(db: IndexDB, freed: list[str], read_now: set[str]) -> set[str]:
    """Files holding a copy of an id whose indexed line went, less those this sync reads."""
    return {h for hs in holders(db, freed).values() for h in hs} - read_now if freed else set()


def reread(indexer: "Indexer", paths: set[str], report: "SyncReport") -> None:
    """Sync `paths` (marked stale in the sync that freed their ids) and add what it did to
    `report`. A depth limit bounds the chain: each round reads only files whose copy was
    freed, which an unchanged file's round does not do again."""
    if not paths or indexer._chasing >= 3:
        return
    indexer._chasing += 1
    try:
        more = indexer.sync(only=sorted(paths))
    finally:
        indexer._chasing -= 1
    report.items_added += more.items_added
    report.warnings.extend(more.warnings)
