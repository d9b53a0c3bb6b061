"""The one-writer lock (invariant 6): an flock on `.memfs/<name>.lock`, anchored on the
workspace root so that deleting `.memfs/` never lets two writers in (split from fsutil.py,
which re-exports it)."""

from __future__ import annotations

import errno
import fcntl
import os
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from memfs.errors import LockedError, MemfsError


class WriterLock:
    """An exclusive flock on `.memfs/<name>.lock`; the kernel drops it if the holder dies.

    `timeout` > 0 waits for the lock (CLI writers queue behind a daemon's short
    write bursts); 0 fails at once (a second daemon must not start).

    `.memfs/` may be deleted at any time (it is a cache), lock file included; a lock on
    the deleted file would then exclude nobody. So `anchor` (the workspace root) is
    flocked first, a lock that survives `rm -rf .memfs`; and a lock file taken is checked
    to still be the file at its path (`still_held`), else it is opened again.
    """

    def __init__(self, path: Path, timeout: float = 30.0, purpose: str = "write", anchor: Path | None = None) -> None:
        self.path = path
        self.timeout = timeout
        self.purpose = purpose
        self.anchor = anchor
        self._fd: int | None = None
        self._anchor_fd: int | None = None

    def acquire(self) -> None:
        deadline = time.monotonic() + self.timeout
        if self.anchor is not None:
            self._anchor_fd = self._flock(lambda: os.open(self.anchor, os.O_RDONLY), deadline)  # type: ignore[arg-type]
        try:
            while True:
                fd = self._flock(self._open_file, deadline)
                if self._same_file(fd):
                    break
                os.close(fd)  # the file was deleted or replaced after we opened it: again
        except BaseException:
            self._release_anchor()
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()} {self.purpose}\n".encode())
        self._fd = fd

    def _open_file(self) -> int:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            if err.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                raise MemfsError(f"cannot {self.purpose}: {self.path.parent} is not writable ({err.strerror}); "
                                 "reading (recall, status) still works") from None
            raise

    def _flock(self, opener: Callable[[], int], deadline: float) -> int:
        fd = opener()
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except OSError as err:
                if err.errno not in (errno.EAGAIN, errno.EACCES):
                    os.close(fd)
                    raise
                if time.monotonic() >= deadline:
                    holder = _read_holder(fd) if opener == self._open_file else ""
                    os.close(fd)
                    raise LockedError(
                        f"workspace is locked by another memfs process{holder}; "
                        f"could not {self.purpose} (try again, or stop the other process)"
                    ) from None
                time.sleep(0.02)

    def _same_file(self, fd: int) -> bool:
        try:
            st = os.stat(self.path)
        except OSError:
            return False
        mine = os.fstat(fd)
        return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)

    def still_held(self) -> bool:
        """False once the lock file was deleted or replaced (e.g. `rm -rf .memfs`): the
        lock then no longer keeps anyone out who opens the path anew."""
        return self._fd is not None and self._same_file(self._fd)

    def _release_anchor(self) -> None:
        fd, self._anchor_fd = self._anchor_fd, None
        _unlock(fd)

    def release(self) -> None:
        try:
            fd, self._fd = self._fd, None
            _unlock(fd)
        finally:
            self._release_anchor()

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


def _unlock(fd: int | None) -> None:
    """Unlock and close one lock descriptor (nothing for None); closed even if the unlock fails."""
    if fd is None:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
