"""Repack the index file after a cold build: the pages a build leaves half empty.

A cold build inserts the embedding cache in content-hash order, which is random: b-tree
pages split as they fill and end up about 70 % full (533 bytes per 392-byte vector row at
10,000 notes, bench/README.md "Size of .memfs/"), and rows deleted by a rebuild leave free
pages. `VACUUM` rewrites the file densely once (0.8-3 s at 10,000 notes, after a build of
many minutes), and an index made with 4 KiB pages moves to `db.PAGE_SIZE` on the way when
no other connection is open or being opened (SQLite refuses to leave WAL mode under an open
connection; the exclusive heal lock keeps out one being opened, for the seconds the file
spends in rollback mode). Small builds (tests, a new workspace) skip it; an index no
memfs has repacked yet (made before this) is repacked by its next sync, once.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from memfs.index.db import PAGE_SIZE, IndexDB
from memfs.index.heal import heal_lock

#: Rows (items + passages) an index must hold before it is worth repacking the file.
COMPACT_MIN_ROWS = 2000
_DONE = "compacted"


def compact_due(db: IndexDB, rows_added: int, cold: bool) -> bool:
    """After a cold build (or rebuild) that added COMPACT_MIN_ROWS rows, or once for an
    index of that size that was never repacked."""
    if cold:
        return rows_added >= COMPACT_MIN_ROWS
    if db.get_meta(_DONE):
        return False
    rows = db.conn.execute("SELECT (SELECT count(*) FROM items) + (SELECT count(*) FROM passages)").fetchone()[0]
    return int(rows) >= COMPACT_MIN_ROWS


def compact(db: IndexDB) -> bool:
    """VACUUM (into PAGE_SIZE pages when it can leave WAL mode for it), then fold the WAL
    back and truncate it if no reader holds it. Never waits for readers: what needs them
    gone is left for later. False when it could not run now (a transaction open)."""
    conn = db.conn
    if conn.in_transaction:
        return False
    try:
        if int(conn.execute("PRAGMA page_size").fetchone()[0]) != PAGE_SIZE:
            with heal_lock(db.path.parent, exclusive=True, wait=False) as alone:
                _vacuum_to_page_size(conn) if alone else conn.execute("VACUUM")
        else:
            conn.execute("VACUUM")
        with _no_wait(conn):
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()  # busy: the WAL folds back later
        db.set_meta(_DONE, "1")
    except sqlite3.OperationalError:  # "database is locked": next time
        return False
    return True


@contextmanager
def _no_wait(conn: sqlite3.Connection) -> Iterator[None]:
    timeout = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
    conn.execute("PRAGMA busy_timeout=0")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA busy_timeout={timeout}")


def _vacuum_to_page_size(conn: sqlite3.Connection) -> None:
    """A WAL file keeps its page size through VACUUM; leaving WAL needs the only connection,
    so with a reader open this is a plain VACUUM and the page size waits for another time."""
    try:
        with _no_wait(conn):
            mode = str(conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0]).lower()
    except sqlite3.OperationalError:
        mode = "wal"
    try:
        if mode == "delete":
            conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
        conn.execute("VACUUM")
    finally:
        if mode == "delete":
            conn.execute("PRAGMA journal_mode=WAL").fetchone()
