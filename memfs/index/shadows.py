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
from pathlib import Path

from typing import TYPE_CHECKING

from memfs.index.db import IndexDB, text_hash

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


def copies_of(db: IndexDB, root: Path, planned: list[tuple[str, str, str]]) -> list[tuple[str, str, int, str]]:
    """The copies a person made of planned (id, path, text) lines that still say the same:
    within the same file (an item of its own under a new id, core/entryitem.py) and in
    other files (recorded here, not indexed). As (id, path, line, text), for a forget to
    show and remove: a line that was copied and then rewritten into another fact, keeping
    the id, is not a copy of this one and stays."""
    from memfs.core.categoryfile import read_category

    out: list[tuple[str, str, int, str]] = []
    seen = {(item_id, path) for item_id, path, _ in planned}
    for item_id, path, text in planned:
        for other, line, same in db.conn.execute(
                "SELECT id, line, text FROM items WHERE path=? AND text_hash=? AND id<>?",
                (path, text_hash(text), item_id)):
            if (other, path) not in seen:
                seen.add((other, path))
                out.append((other, path, int(line or 0), same))
    texts = {item_id: text_hash(text) for item_id, _, text in planned}
    for item_id, paths in holders(db, list(texts)).items():
        for rel in paths:
            try:
                doc, _ = read_category(root / rel, rel)
            except OSError:
                continue
            # The line holding the id, and any other line there with the same text (a copy
            # of the copy: an item of its own in that file), if it says the same.
            for slot in doc.slots:
                if text_hash(slot.item.text) == texts[item_id] and (slot.item.id, rel) not in seen:
                    seen.add((slot.item.id, rel))
                    out.append((slot.item.id, rel, (slot.start or 0) + doc.front_raw.count("\n") + 1, slot.item.text))
    return out
