"""Repack the index file after a cold build: the pages a build leaves half empty.

A cold build inserts the embedding cache in content-hash order, which is random: b-tree
pages split as they fill and end up about 70 % full (533 bytes per 392-byte vector row at
10,000 notes, bench/README.md "Size of .memfs/"), and rows deleted by a rebuild leave free
pages. `VACUUM` rewrites the file densely once; it costs seconds after a build of minutes,
so small builds (tests, a new workspace) skip it.
"""

from __future__ import annotations

import sqlite3

from memfs.index.db import IndexDB

#: Rows (items + passages) a build must add before it is worth repacking the file.
COMPACT_MIN_ROWS = 2000


def worth_compacting(rows_added: int, cold: bool) -> bool:
    return cold and rows_added >= COMPACT_MIN_ROWS


def compact(db: IndexDB) -> bool:
    """VACUUM, then fold the WAL (which held the rewritten file) back and truncate it.
    False when another connection holds a transaction open (tried again after the next build)."""
    conn = db.conn
    if conn.in_transaction:
        return False
    try:
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    except sqlite3.OperationalError:  # "database is locked" / a reader mid-snapshot: size only
        return False
    return True
