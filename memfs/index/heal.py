"""A damaged or foreign index heals itself: detect, move aside, rebuild, say so in one line.

`.memfs/index.sqlite3` is a cache of the Markdown (invariant 1), so the right answer to a
truncated file, a page of garbage or a layout this version does not know is never an
"internal error": the file is moved to `.memfs/damaged/<time>/` (kept for a post-mortem;
only the newest two are kept) and a fresh index is built from the Markdown.
Readers never heal (they may not hold the writer lock, or may not be able to write at
all): they raise IndexDamaged and the caller rebuilds under the lock.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path

#: SQLite result codes that mean "this file is not a sound database" (Python >= 3.11
#: names them; older versions fall back to the message).
_DAMAGE_CODES = frozenset({"SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_CORRUPT_VTAB", "SQLITE_CORRUPT_SEQUENCE",
                           "SQLITE_CORRUPT_INDEX"})
_DAMAGE_WORDS = ("malformed", "not a database", "database corrupt", "corrupt")
KEEP_DAMAGED = 2

#: Where the one-line notices go; the CLI and the daemon both log to stderr.
notice: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731


class IndexDamaged(Exception):
    """The index file cannot be used as it is; `reason` says why in a few words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def is_damage(err: BaseException) -> bool:
    """True for SQLite errors that mean a damaged file (not a lock, not a permission)."""
    if isinstance(err, IndexDamaged):
        return True
    if not isinstance(err, sqlite3.DatabaseError):
        return False
    name = getattr(err, "sqlite_errorname", "") or ""
    if name:
        return name in _DAMAGE_CODES
    return not isinstance(err, sqlite3.OperationalError) and any(w in str(err).lower() for w in _DAMAGE_WORDS)


def probe(conn: sqlite3.Connection) -> None:
    """Cheap soundness check at open: the header and the schema pages must read.

    A file cut short or overwritten at the start fails here (microseconds); damage deep
    inside a table surfaces when it is read, and is handled where it surfaces."""
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as err:
        if is_damage(err):
            raise IndexDamaged(str(err)) from None
        raise


def quick_check(conn: sqlite3.Connection) -> None:
    """A full read of every page (what `sync --rebuild` runs first: the person asked for it)."""
    try:
        rows = [r[0] for r in conn.execute("PRAGMA quick_check(3)")]
    except sqlite3.DatabaseError as err:
        if is_damage(err):
            raise IndexDamaged(str(err)) from None
        raise
    if rows != ["ok"]:
        raise IndexDamaged("; ".join(rows)[:200])


def move_aside(db_path: Path, reason: str, what: str = "was damaged") -> Path:
    """Move the index file (and its -wal/-shm) to `.memfs/damaged/<UTC time>/`; say so.

    Call with the writer lock held and no connection open on the file."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    base = db_path.parent / "damaged"
    dest = base / stamp
    n = 1
    while dest.exists():
        dest = base / f"{stamp}-{n}"
        n += 1
    dest.mkdir(parents=True)
    for suffix in ("", "-wal", "-shm", "-journal"):
        src = Path(f"{db_path}{suffix}")
        if src.exists():
            os.replace(src, dest / src.name)
    for old in sorted((p for p in base.iterdir() if p.is_dir()), key=lambda p: p.name)[:-KEEP_DAMAGED]:
        shutil.rmtree(old, ignore_errors=True)
    rel = f"{db_path.parent.name}/{db_path.name}"
    reason = " ".join(reason.split())[:160]  # one line, whatever SQLite said
    notice(f"memfs: warning: {rel} {what} ({reason}); moved it to {db_path.parent.name}/damaged/{dest.name}/ "
           "and rebuilding the index from the Markdown")
    return dest
