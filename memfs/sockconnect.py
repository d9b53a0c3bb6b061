"""Connect to the daemon's Unix socket, waiting while its listen queue is full.

Shared by the thin console client (which imports nothing heavy) and memfs.warm_client;
standard library only, imported lazily.
"""

from __future__ import annotations


def connect(sock: object, path: str, timeout: float) -> None:
    """`sock.connect(path)`, waiting while the daemon's listen queue is full (EAGAIN: a Unix
    socket does not queue the caller, it refuses at once) instead of giving up."""
    import time

    deadline = time.monotonic() + timeout
    pause = 0.001
    while True:
        try:
            sock.connect(path)  # type: ignore[attr-defined]
            return
        except BlockingIOError:
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
