"""Layout changes an existing index takes in place: what schema 7 dropped from schema 6.

Schema 7 has no `items_recent` index and a narrower `items_seen` (1.57 MB of the 57.6 MB
SQLite file at 10,000 notes were these two, bench/README.md "Index size, fourth pass").
They served root-file candidate queries that no longer exist; the one query left that
reads either is search's `SELECT max(seen) FROM items` (once per recall), which an index on
`seen` alone answers with one probe (`items_seen_max`: no `id` text in every entry;
tests/test_index_layout.py checks the query plan). Neither change
touches a row, label or vector, so an index of schema 5 or 6 converts in well under a
second; the next sync repacks the file once to give the pages back.
"""

from __future__ import annotations

import sqlite3

#: Indexes of an older layout that this one does not keep.
DROPPED_INDEXES = ("items_seen", "items_recent")
#: What replaces them (also in db._SCHEMA, for a new file).
SEEN_INDEX_SQL = "CREATE INDEX IF NOT EXISTS items_seen_max ON items(seen)"


def migrate(c: sqlite3.Connection) -> bool:
    """Drop what this layout no longer has; True if anything was (then the file is repacked
    by its next sync: `compacted` is cleared, memfs.index.compact)."""
    present = [name for (name,) in c.execute(
        f"SELECT name FROM sqlite_master WHERE type='index' AND name IN ({','.join('?' * len(DROPPED_INDEXES))})",
        DROPPED_INDEXES)]
    if not present:
        return False
    c.execute("BEGIN IMMEDIATE")
    try:
        for name in present:
            c.execute(f'DROP INDEX IF EXISTS "{name}"')
        c.execute(SEEN_INDEX_SQL)
        c.execute("DELETE FROM meta WHERE key='compacted'")
    except BaseException:
        c.execute("ROLLBACK")
        raise
    c.execute("COMMIT")
    return True
