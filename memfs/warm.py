"""A warm recall service inside the daemon, over a Unix socket in `.memfs/`.

A cold `memfs recall` pays for imports, the model load and the index load (~0.7 s); the
daemon already holds all three. The CLI tries the socket first and falls back to doing
the work itself, so the answer is the same either way, only faster with a daemon.
Requests and answers are one JSON line each; only `recall` and `ping` are served (reads only).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from memfs.warm_client import MAX_REQUEST, SOCKET_NAME, ping, socket_path, try_warm_recall

if TYPE_CHECKING:
    from memfs.api import Memory

__all__ = ["MAX_REQUEST", "SOCKET_NAME", "WarmServer", "ping", "socket_path", "try_warm_recall"]


def _answer(server: Any, line: bytes) -> bytes:
    """One request line in, one answer line out (the server side of the protocol)."""
    try:
        req = json.loads(line)
        if req.get("verb") == "ping":  # `memfs doctor`: is anyone answering?
            return b'{"ok": true}\n'
        if req.get("verb") != "recall":
            raise ValueError("only recall and ping are served")
        with server.lock:
            hits = server.memory.recall(str(req["query"]), k=req.get("k"),
                                        types=set(req["types"]) if req.get("types") else None,
                                        categories=set(req["categories"]) if req.get("categories") else None)
        out = {"ok": True, "hits": [h.model_dump() for h in hits]}
    except Exception as err:  # noqa: BLE001 - reported to the client, which falls back
        out = {"ok": False, "error": f"{type(err).__name__}: {err}"}
    return json.dumps(out).encode() + b"\n"


def _handler_class() -> type:
    # socketserver and threading are the server's: the thin client (memfs.console) that
    # imports this module for try_warm_recall does not pay for them.
    import socketserver

    class _Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            self.wfile.write(_answer(self.server, self.rfile.readline(MAX_REQUEST)))

    return _Handler


class WarmServer:
    """Serves recall from a reader Memory of its own (own SQLite connection, shared model)."""

    def __init__(self, memory: "Memory") -> None:
        import socketserver
        import threading

        from memfs.api import Memory

        self.path = socket_path(memory.ws.state)
        reader = Memory(memory.ws.root, config=memory.config, embedder=memory.embedder)
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        self.server = socketserver.ThreadingUnixStreamServer(str(self.path), _handler_class())
        os.chmod(self.path, 0o600)
        self.server.memory = reader  # type: ignore[attr-defined]
        self.server.lock = threading.Lock()  # type: ignore[attr-defined]
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        self.server.memory.close()  # type: ignore[attr-defined]
