"""Open the index read-only: what `recall` and `status` use, never writing a byte."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from memfs.index.heal import IndexDamaged, is_damage


def connect_readonly(path: Path) -> sqlite3.Connection:
    """`mode=ro`: no file is created, no journal mode is set, nothing is written. If even
    that cannot open (the -shm of a WAL file cannot be created in a folder we may not
    write), `immutable=1`: SQLite then takes no locks, so a writer with more rights
    changing the file meanwhile could give this reader an error or a stale answer
    (docs/reliability.md, windows that stay open), never a write."""
    uri = path.absolute().as_uri()
    conn: sqlite3.Connection | None = None
    try:
        conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=30.0, isolation_level=None,
                               check_same_thread=False)
        conn.execute("PRAGMA busy_timeout=30000")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError as err:
        if conn is not None:
            conn.close()
        if is_damage(err):
            raise IndexDamaged(str(err)) from None
        if not path.exists() or os.access(path.parent, os.W_OK):
            raise
    except sqlite3.DatabaseError as err:
        if conn is not None:
            conn.close()
        if is_damage(err):
            raise IndexDamaged(str(err)) from None
        raise
    return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, timeout=30.0, isolation_level=None,
                           check_same_thread=False)
