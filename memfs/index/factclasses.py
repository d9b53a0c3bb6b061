"""The table of per-fact classifications (memfs.entry.classseed): SQL only, no meaning.

One row per fact text digest: the code entry/classseed.py packs a classification into.
Two meta rows say what the codes were computed with: the people's names and a digest of
the rules; the reader decides whether a row still applies. A rebuilt index starts empty.
"""

from __future__ import annotations

import sqlite3

from memfs.index.db import IndexDB

NAMES_META = "fact_classes_names"
RULES_META = "fact_classes_rules"


def load(db: IndexDB) -> tuple[dict[bytes, int], str | None, str | None]:
    """(rows, names JSON, rules digest); ({}, None, None) when the table is missing (a
    read-only open of an index an older memfs wrote)."""
    try:
        rows = db.conn.execute("SELECT key, code FROM fact_classes").fetchall()
    except sqlite3.OperationalError as err:
        if "no such table" in str(err):
            return {}, None, None
        raise
    return {k: c for k, c in rows if isinstance(k, bytes) and isinstance(c, int)}, *meta(db)


def meta(db: IndexDB) -> tuple[str | None, str | None]:
    """(names JSON, rules digest) the table's rows say they were computed with."""
    return db.get_meta(NAMES_META), db.get_meta(RULES_META)


def save(db: IndexDB, rows: dict[bytes, int], names: str, rules: str, replace: bool) -> None:
    """Add (or, with `replace`, put in place of every row) `rows`, computed with these
    names and rules, inside the caller's transaction (under the writer lock)."""
    if replace:
        db.conn.execute("DELETE FROM fact_classes")
    db.conn.executemany("INSERT OR REPLACE INTO fact_classes(key, code) VALUES (?, ?)", rows.items())
    db.set_meta(NAMES_META, names)
    db.set_meta(RULES_META, rules)
