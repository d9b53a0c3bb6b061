"""A damaged or foreign index heals itself: detect, move aside, rebuild, say so in one line.

`.memfs/index.sqlite3` is a cache of the Markdown (invariant 1), so the right answer to a
truncated file, a page of garbage or a layout this version does not know is never an
"internal error": the file is moved to `.memfs/damaged/<time>/` (kept for a post-mortem;
only the newest two are kept) and a fresh index is built from the Markdown.
Readers never heal (they may not hold the writer lock, or may not be able to write at
all): they raise IndexDamaged and the caller rebuilds under the lock.

Renaming a SQLite file and its -wal/-shm is not atomic, and a process that opens the path
half way through can pair a database with another one's WAL or shared memory (two
processes healing one file at once got "malformed" and "disk I/O error", and one moved
aside the index the other had just rebuilt: tests/test_db_open_race.py). So every open
holds `heal_lock` shared until its connection has its files, a heal holds it exclusive,
and a heal moves the file only if it is still the one that was found damaged.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

#: SQLite result codes that mean "this file is not a sound database" (Python >= 3.11
#: names them; older versions fall back to the message).
_DAMAGE_CODES = frozenset({"SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_CORRUPT_VTAB", "SQLITE_CORRUPT_SEQUENCE",
                           "SQLITE_CORRUPT_INDEX"})
_DAMAGE_WORDS = ("malformed", "not a database", "database corrupt", "corrupt")
KEEP_DAMAGED = 2
HEAL_LOCK = "heal.lock"
_LOCK_WAIT = 60.0  # seconds; past that an open goes ahead unlocked rather than hang

#: Where the one-line notices go; the CLI and the daemon both log to stderr.
notice: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731


class IndexDamaged(Exception):
    """The index file cannot be used as it is; `reason` says why in a few words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


#: What the index's database raises, for callers outside memfs/index that must not import
#: sqlite3 (an opportunistic sync a recall may skip: memfs.services.recall).
INDEX_ERRORS: tuple[type[BaseException], ...] = (sqlite3.Error,)


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


FileId = tuple[int, int]
_held: dict[str, tuple[int, int]] = {}  # lock path -> (fd, depth): one flock per process
_guard = threading.RLock()  # threads of one process take turns (flock is per process here)


def file_id(path: Path) -> FileId | None:
    """(device, inode) of the file at `path` now; None if there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


@contextmanager
def heal_lock(folder: Path, exclusive: bool = False, wait: bool = True) -> Iterator[bool]:
    """Shared while a connection is being opened, exclusive while the file is moved aside
    or out of WAL mode. Yields whether it is held (`wait=False`: False if it is not free now).

    Reentrant within a process (an exclusive holder's own opens pass). Where the lock file
    cannot be opened (a read-only `.memfs/`) nothing can heal there either: no lock."""
    key = str(folder / HEAL_LOCK)
    with _guard:
        if key in _held:
            fd, depth = _held[key]
            _held[key] = (fd, depth + 1)
            try:
                yield True
            finally:
                _held[key] = (fd, depth)
            return
        try:
            fd = os.open(key, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            yield True
            return
        try:
            if not _flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH, _LOCK_WAIT if wait else 0.0):
                if not wait:
                    yield False
                    return
            _held[key] = (fd, 1)
            try:
                yield True
            finally:
                del _held[key]
        finally:
            os.close(fd)  # drops the flock


def _flock(fd: int, mode: int, patience: float) -> bool:
    """True once locked; False after `patience` seconds (the caller goes ahead unlocked
    rather than hang behind a stuck process, or, not waiting, does something else)."""
    deadline = time.monotonic() + patience
    while True:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)


def move_aside(db_path: Path, reason: str, what: str = "was damaged", seen: FileId | None = None) -> Path | None:
    """Move the index file (and its -wal/-shm) to `.memfs/damaged/<UTC time>/`; say so.

    With `seen` (the file found damaged), only if that is still the file at the path:
    None when another process healed it meanwhile. Call with no connection of ours open."""
    with heal_lock(db_path.parent, exclusive=True):
        if seen is not None and file_id(db_path) != seen:
            return None
        return _move(db_path, reason, what)


def _move(db_path: Path, reason: str, what: str) -> Path:
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
