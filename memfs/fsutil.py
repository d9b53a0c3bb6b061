"""Atomic writes and the one-writer lock (DESIGN §3, invariants 2 and 6)."""

from __future__ import annotations

import errno
import fcntl
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from memfs.errors import LockedError


class ChangedMeanwhile(Exception):
    """`atomic_write`'s precondition failed: the target changed; nothing was written."""


def atomic_write(path: Path, data: str | bytes, precondition: Callable[[], bool] | None = None) -> None:
    """Write via a temp file in the same folder, fsync, rename: readers see old or new, never half.

    `precondition`, if given, is checked after the fsync, immediately before the rename; if
    it returns False the temp file is removed and ChangedMeanwhile is raised. (Hardening
    fix: the fsync is the slow part of a write, so a check made before it left a window
    of milliseconds in which a person's save was silently replaced; see CategoryStore.)"""
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    # The temp name carries at most 100 bytes of the file's name (hardening fix: a
    # 255-byte name plus the temp decoration exceeded the file-name limit).
    short = os.fsdecode(os.fsencode(path.name)[:100])
    fd, tmp = tempfile.mkstemp(prefix=f".{short}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes 0600; keep the file's mode, or give a new one the umask's default.
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        if precondition is not None and not precondition():
            raise ChangedMeanwhile(str(path))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(path.parent)


def remove_stale_temp_files(folders: list[Path], shallow: tuple[Path, ...] | list[Path] = ()) -> int:
    """Delete temp files a killed writer left (`.<name>.<random>.tmp`); call under the writer lock.

    They were never visible under a real name (the rename did not happen), so nothing is
    lost; removing them keeps the tree clean after a crash."""
    removed = 0
    targets = [(f, True) for f in folders] + [(f, False) for f in shallow]
    for folder, deep in targets:
        if not folder.is_dir():
            continue
        for path in (folder.rglob(".*.tmp") if deep else folder.glob(".*.md.*.tmp")):
            try:
                path.unlink()
                removed += 1
            except OSError:
                pass
    return removed


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class WriterLock:
    """An exclusive flock on `.memfs/lock`; the kernel drops it if the holder dies.

    `timeout` > 0 waits for the lock (CLI writers queue behind a daemon's short
    write bursts); 0 fails at once (a second daemon must not start).
    """

    def __init__(self, path: Path, timeout: float = 30.0, purpose: str = "write") -> None:
        self.path = path
        self.timeout = timeout
        self.purpose = purpose
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as err:
                if err.errno not in (errno.EAGAIN, errno.EACCES):
                    os.close(fd)
                    raise
                if time.monotonic() >= deadline:
                    holder = _read_holder(fd)
                    os.close(fd)
                    raise LockedError(
                        f"workspace is locked by another memfs process{holder}; "
                        f"could not {self.purpose} (try again, or stop the other process)"
                    ) from None
                time.sleep(0.02)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()} {self.purpose}\n".encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            finally:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> "WriterLock":
        self.acquire()
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.release()


def _read_holder(fd: int) -> str:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 200).decode(errors="replace").strip()
        pid, _, purpose = text.partition(" ")
        return f" (pid {pid}, {purpose})" if pid.isdigit() else ""
    except OSError:
        return ""


# --- Read-verify-write: reading a file a person may be saving right now (issue #10, item 1) ---

#: (device, inode, size, mtime_ns) of each file this process last wrote or read as settled.
#: A file still exactly like that needs no settle wait: memfs knows the bytes are whole.
_KNOWN: dict[str, tuple[int, int, int, int]] = {}


class Unsettled(Exception):
    """A file kept changing (or stayed suspicious) for longer than memfs was willing to wait."""


def _stamp(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def remember_written(path: Path) -> None:
    """Record a file memfs just wrote, so its next read does not wait for it to settle."""
    try:
        st = path.stat()
    except OSError:
        return
    _KNOWN[str(path)] = _stamp(st)
    _SIZES[str(path)] = st.st_size


#: The largest size seen per file: a file that shrank since is suspect (a truncate, then a write).
_SIZES: dict[str, int] = {}


def read_settled(path: Path, window: float, max_wait: float = 10.0,
                 clock: Callable[[], float] = time.time) -> bytes | None:
    """The whole content of `path` once it holds still; None if it does not exist.

    Editors that save in place truncate the file to 0 bytes and then write it. Content read
    in between is not the person's file. A read is trusted at once only if the file is what
    memfs itself last wrote or read, was renamed in since (a new inode: whole by
    construction), or was last modified more than `window` seconds ago and did not shrink. Otherwise (modified within the window, empty, or smaller than
    before) it must read the same, with the same size and mtime, across a whole window.
    Raises Unsettled after `max_wait` seconds of change."""
    key = str(path)
    deadline = time.monotonic() + max_wait
    while True:
        try:
            st = path.stat()
            data = path.read_bytes()
            st2 = path.stat()
        except FileNotFoundError:
            return None
        if _stamp(st) == _stamp(st2) and len(data) == st.st_size:
            known = _KNOWN.get(key)
            if known == _stamp(st):
                return data
            if known is not None and known[:2] != _stamp(st)[:2] and st.st_size > 0:
                # A new inode: renamed in (an editor's safe write), so whole by construction.
                # An in-place save keeps the inode and takes the settle path below.
                _SIZES[key] = st.st_size
                _KNOWN[key] = _stamp(st)
                return data
            young = clock() - st.st_mtime_ns / 1e9 < window
            shrunk = st.st_size < _SIZES.get(key, 0) or st.st_size == 0
            if not (young or shrunk):
                _SIZES[key] = st.st_size
                _KNOWN[key] = _stamp(st)
                return data
            time.sleep(window)
            try:
                again = path.stat()
                same = _stamp(again) == _stamp(st) and path.read_bytes() == data and _stamp(path.stat()) == _stamp(st)
            except FileNotFoundError:
                continue
            if same:  # held still for a whole window: this is what the person means
                _SIZES[key] = st.st_size
                _KNOWN[key] = _stamp(st)
                return data
        if time.monotonic() >= deadline:
            raise Unsettled(f"{path.name} kept changing for {max_wait:.0f} s")
        time.sleep(min(0.05, window or 0.05))


def unchanged_since(path: Path, data: bytes | None) -> bool:
    """True if `path` still holds exactly `data` (None: still absent). Reads it whole."""
    try:
        return path.read_bytes() == data
    except FileNotFoundError:
        return data is None


def write_protected(path: Path) -> bool:
    """True if a person made the file read-only (no write bit): memfs then never replaces it.

    A rename replaces a 0444 file as easily as any other (only the folder's permission
    counts), so the mode has to be checked explicitly."""
    try:
        return path.stat().st_mode & 0o222 == 0
    except FileNotFoundError:
        return False
