"""The client side of warm recall: ask a running daemon over `.memfs/daemon.sock`.

Apart from the server (memfs.warm) so that the thin console client and the recall service
import only the standard library's socket and json for it, and so that nothing below the
facade imports the daemon's side. Requests and answers are one JSON line each.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

from memfs.sockconnect import connect

SOCKET_NAME = "daemon.sock"
MAX_REQUEST = 1 << 20


def socket_path(state_dir: Path) -> Path:
    return state_dir / SOCKET_NAME


def ping(state_dir: Path, timeout: float = 2.0) -> float | None:
    """Milliseconds a running daemon takes to answer, or None if nobody answers."""
    import time

    path = socket_path(state_dir)
    t0 = time.perf_counter()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(path))
            sock.sendall(b'{"verb": "ping"}\n')
            reply = json.loads(sock.makefile("rb").readline(MAX_REQUEST))
    except (OSError, ValueError):
        return None
    return (time.perf_counter() - t0) * 1000 if reply.get("ok") else None


def try_warm_recall(state_dir: Path, query: str, k: int | None, types: list[str] | None,
                    categories: list[str] | None, timeout: float = 5.0) -> list[dict] | None:
    """Ask a running daemon; None when there is none (or it failed): the caller works cold."""
    path = socket_path(state_dir)
    if not path.exists():
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            connect(sock, str(path), timeout)
            sock.sendall(json.dumps({"verb": "recall", "query": query, "k": k, "types": types,
                                     "categories": categories}).encode() + b"\n")
            buf = b""
            while not buf.endswith(b"\n"):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                buf += chunk
        reply = json.loads(buf)
    except (OSError, ValueError):
        return None
    return reply["hits"] if reply.get("ok") else None
