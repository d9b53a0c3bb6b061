"""Atomic writes and the one-writer lock (invariants 2 and 6)."""

from __future__ import annotations

import errno
import fcntl
import os
import signal
import stat
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from memfs.errors import MemfsError
from memfs.writerlock import WriterLock  # noqa: F401  (re-exported: where it always was)


class ChangedMeanwhile(MemfsError):
    """`atomic_write`'s precondition failed: the target changed; nothing was written."""


def atomic_write(path: Path, data: str | bytes, precondition: Callable[[], bool] | None = None,
                 sync_dir: bool = True) -> None:
    """Write via a temp file in the same folder, fsync, rename: readers see old or new, never half.
    `sync_dir` False leaves the folder's fsync (the rename's durability) to the caller, who
    writes several files there and syncs it once (`fsync_dir`).

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
    if sync_dir:
        fsync_dir(path.parent)


class NotRegularFile(OSError, MemfsError):
    """A path that should hold a file's bytes is a FIFO, socket, device or folder."""

    def __str__(self) -> str:
        return self.strerror or "not a regular file"


def read_regular(path: Path) -> bytes:
    """The bytes of a regular file (see read_regular_stat)."""
    return read_regular_stat(path)[0]


def read_regular_stat(path: Path) -> tuple[bytes, os.stat_result]:
    """The bytes of a regular file; anything else raises NotRegularFile without blocking.

    Opened with O_NONBLOCK, so a FIFO placed where a category file or an input should be
    never hangs the process (which would hold the writer lock); checked with fstat on the
    opened descriptor, so a swap between a check and the read cannot slip one through."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = {stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a device",
                    stat.S_IFBLK: "a device", stat.S_IFDIR: "a folder"}.get(stat.S_IFMT(mode), "not a file")
            raise NotRegularFile(errno.EINVAL, f"{path} is not a regular file ({kind}); memfs neither reads "
                                 "nor writes it", str(path))
        os.set_blocking(fd, True)
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks), os.fstat(fd)
    finally:
        os.close(fd)


def same_version(path: Path, seen: os.stat_result) -> bool:
    """True if `path` is still the file (inode, size, mtime) that `seen` describes."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) == (seen.st_dev, seen.st_ino, seen.st_size,
                                                                   seen.st_mtime_ns)


#: How long a file found empty may be an editor's save in progress (an in-place save
#: truncates, then writes): category files are waited for (store), people pages left alone.
EMPTY_GRACE = 3.0


def emptied_just_now(path: Path, st: os.stat_result | None = None) -> bool:
    """The file changed under EMPTY_GRACE seconds ago (asked of an empty file: mid-save?)."""
    try:
        st = st if st is not None else path.stat()
    except OSError:
        return False
    return time.time() - st.st_mtime < EMPTY_GRACE


def has_writer(path: Path) -> bool | None:
    """Is some process holding `path` open for writing? (Linux: a read lease is refused
    exactly then.) None when that cannot be known (another OS, another owner's file).

    A logger that keeps its file open and appends a line a second looks settled between
    two lines; its open descriptor does not."""
    setlease = getattr(fcntl, "F_SETLEASE", None)
    if setlease is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    # A writer opening the file while we hold the lease makes the kernel signal us
    # (SIGIO, whose default action ends the process): ignore it for these microseconds.
    previous = signal.getsignal(signal.SIGIO)
    swap = previous in (signal.SIG_DFL, None)
    try:
        if swap:
            if threading.current_thread() is not threading.main_thread():
                return None  # cannot change a signal's handling here: do not risk it
            signal.signal(signal.SIGIO, signal.SIG_IGN)
        try:
            fcntl.fcntl(fd, setlease, fcntl.F_RDLCK)
        except OSError as err:
            return True if err.errno == errno.EAGAIN else None
        fcntl.fcntl(fd, setlease, fcntl.F_UNLCK)
        return False
    finally:
        os.close(fd)
        if swap and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGIO, signal.SIG_DFL)


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


def fsync_dir(folder: Path) -> None:
    """Make the renames and unlinks done in `folder` durable (errors ignored, as after a write)."""
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
    _KNOWN[str(path)], _SIZES[str(path)] = _stamp(st), st.st_size


def known_stamp(path: Path) -> tuple[int, int, int, int] | None:
    return _KNOWN.get(str(path))


def remember_stamp(path: Path, stamp: tuple[int, int, int, int]) -> None:
    """As `remember_written`, for a stat an earlier memfs process saw after its own write."""
    if str(path) not in _KNOWN:  # (what this process knows of the file comes first)
        _KNOWN[str(path)], _SIZES[str(path)] = stamp, max(_SIZES.get(str(path), 0), stamp[2])


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
            data = read_regular(path)  # never blocks on a FIFO
            st2 = path.stat()
        except FileNotFoundError:
            return None
        if _stamp(st) == _stamp(st2) and len(data) == st.st_size:
            known = _KNOWN.get(key)
            if known == _stamp(st):
                return data
            young = clock() - st.st_mtime_ns / 1e9 < window
            if known is not None and known[:2] != _stamp(st)[:2] and st.st_size > 0 and not young:
                # A new inode renamed in (an editor's safe write) is whole by construction,
                # but only an old one tells that apart from a stale stamp: after such a
                # save, an in-place save (same new inode, truncated first) also differs
                # from the inode memfs knew, and read half-written it lost the rest.
                _SIZES[key] = st.st_size
                _KNOWN[key] = _stamp(st)
                return data
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
