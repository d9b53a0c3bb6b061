"""A warm recall service inside the daemon, over a Unix socket in `.memfs/`.

A cold `memfs recall` pays for imports, the model load and the index load (~0.7 s); the
daemon already holds all three. The CLI tries the socket first and falls back to doing
the work itself, so the answer is the same either way, only faster with a daemon.
Requests are one JSON line each; `recall`, `ping` and `recall-rendered` are reads, and
`add` and `ingest` are handed to the daemon's loop (memfs.warm_write) when the daemon passes a queue.
Answers are one JSON line, except `recall-rendered`: `ok` and then the exact text
`memfs recall [--json]` prints, so the thin client (memfs.console) needs no json.
"""

from __future__ import annotations

import json
import os
import time
from typing import TYPE_CHECKING, Any

from memfs.addwire import INGEST_VERB
from memfs.addwire import VERB as ADD_VERB
from memfs.warm_client import MAX_REQUEST, SOCKET_NAME, ping, socket_path, try_warm_recall

if TYPE_CHECKING:
    from collections.abc import Callable

    from memfs.api import Memory
    from memfs.warm_write import WriteQueue

__all__ = ["MAX_REQUEST", "SOCKET_NAME", "WarmServer", "ping", "socket_path", "start_warm", "try_warm_recall"]


#: The daemon's GIL switch interval while it serves recall (seconds; Python's default 0.005).
SWITCH_INTERVAL = 0.0005
#: The verb whose answer is the finished output of `memfs recall [--json]` (memfs.console).
RENDER_VERB = "recall-rendered"


def _recall_rows(server: Any, req: dict) -> list[dict]:
    """The hits as `RecallHit.model_dump()` dicts. The query vector is computed before the
    reader lock (cached, and onnxruntime releases the GIL), so concurrent requests embed side
    by side and hold the lock only for the SQLite and vector-index reads (~1-2 ms)."""
    query = str(req["query"])
    if query.strip():
        server.embedder.embed([query])
    with server.lock:
        hits = server.memory.recall(query, k=req.get("k"),
                                    types=set(req["types"]) if req.get("types") else None,
                                    categories=set(req["categories"]) if req.get("categories") else None)
    return [h.model_dump() for h in hits]


def render_output(query: str, rows: list[dict], fmt: str) -> str:
    """Exactly what `memfs recall` prints (memfs.cli.recall), trailing newline included."""
    if fmt == "json":
        return json.dumps(rows, ensure_ascii=False, indent=2) + "\n"
    from memfs.render import render_recall_markdown

    return render_recall_markdown(query, rows) + "\n"


def _answer(server: Any, line: bytes) -> bytes:
    """One request line in, one answer out (the server side of the protocol): a JSON line,
    or for RENDER_VERB `ok\n` and the text to print (an error is one `error: ...` line)."""
    req: Any = None
    try:
        req = json.loads(line)
        verb = req.get("verb")
        if verb not in (ADD_VERB, INGEST_VERB):  # (a write counts once its queue takes it)
            server.active_at = time.monotonic()  # a daemon `memfs ingest` started stops when idle
        if verb == "ping":  # `memfs doctor`: is anyone answering?
            return b'{"ok": true}\n'
        if verb in (ADD_VERB, INGEST_VERB):  # performed by the daemon's loop (memfs.warm_write)
            writes = getattr(server, "writes", None)
            reply = writes.submit(req) if writes is not None else {"status": "refused"}
            # ASCII: a file name that is not UTF-8 (a lone surrogate) must not fail the answer
            # of a write that is done (the client would take it as not done and do it again)
            return json.dumps(reply).encode("ascii") + b"\n"
        if verb == RENDER_VERB:
            fmt = req.get("format", "markdown")
            if fmt not in ("json", "markdown"):
                raise ValueError(f"unknown format {fmt!r}")
            return b"ok\n" + render_output(str(req["query"]), _recall_rows(server, req), fmt).encode("utf-8")
        if verb != "recall":
            raise ValueError("only recall and ping are served")
        out = {"ok": True, "hits": _recall_rows(server, req)}
    except Exception as err:  # noqa: BLE001 - reported to the client, which falls back
        if isinstance(req, dict) and req.get("verb") == RENDER_VERB:
            return f"error: {type(err).__name__}: {err}\n".encode("utf-8", "replace")
        out = {"ok": False, "error": f"{type(err).__name__}: {err}"}
    return json.dumps(out).encode() + b"\n"


def query_embedder(shared: Any) -> Any:
    """The embedder the recall threads use. For MiniLM, a session of its own on one thread:
    onnxruntime runs concurrent calls of one session on its one intra-op pool, so a query
    sharing the ingest's session waited behind each 64-text batch (hundreds of ms). The
    same files, so the same vectors; ~25 MB more memory. Other embedders are shared."""
    from memfs.providers.minilm import MiniLMEmbedder

    if type(shared) is MiniLMEmbedder:
        return MiniLMEmbedder(threads=1, batch_size=shared.batch_size)
    return shared


#: Connections the kernel queues before `connect` fails with EAGAIN (socketserver's
#: default is 5: eight recall loops on a busy machine overflowed it; half their requests
#: failed over to a cold recall).
BACKLOG = 128
#: How long a connection may take to send its request line (a client stalled by load sends
#: within this; one that never does frees its thread).
HANDLER_READ_SECONDS = 10.0


def _server_class() -> type:
    import socketserver

    class _Server(socketserver.ThreadingUnixStreamServer):
        request_queue_size = BACKLOG

    return _Server


def _handler_class() -> type:
    # socketserver and threading are the server's: the thin client (memfs.console) that
    # imports this module for try_warm_recall does not pay for them.
    import socketserver
    import threading

    class _Handler(socketserver.StreamRequestHandler):
        timeout = HANDLER_READ_SECONDS  # (the connection's: a client that never sends ends here)

        def handle(self) -> None:
            live = getattr(self.server, "live", None)
            me = threading.current_thread()
            if live is not None:  # a stopping daemon waits for it (WarmServer.stop)
                live.add(me)
            try:
                answer = _answer(self.server, self.rfile.readline(MAX_REQUEST))
                try:
                    self.wfile.write(answer)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client is gone (Ctrl-C): what it asked is done all the same
            finally:
                if live is not None:
                    live.discard(me)

    return _Handler


class WarmServer:
    """Serves recall from a reader Memory of its own (own SQLite connection, shared model)."""

    def __init__(self, memory: "Memory", writes: Any = None) -> None:
        import threading

        from memfs.api import Memory
        from memfs.index.qcache import CachingEmbedder

        self.path = socket_path(memory.ws.state)
        embedder = CachingEmbedder(query_embedder(memory.embedder))
        reader = Memory(memory.ws.root, config=memory.config, embedder=embedder)
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        self.server = _server_class()(str(self.path), _handler_class())
        os.chmod(self.path, 0o600)
        bound = os.stat(self.path)
        self._bound = (bound.st_dev, bound.st_ino)  # stop() removes this socket file, no other
        self.server.memory = reader  # type: ignore[attr-defined]
        self.server.embedder = embedder  # type: ignore[attr-defined]
        self.server.lock = threading.Lock()  # type: ignore[attr-defined]
        self.server.writes = writes  # type: ignore[attr-defined]  # a WriteQueue: `memfs add` served
        self.server.daemon_threads = True
        self.server.live = set()  # type: ignore[attr-defined]  # handler threads at work (stop waits)
        self.thread = threading.Thread(target=self._serve, daemon=True, name="memfs-warm")

    def _serve(self) -> None:
        # Load the query session before answering (requests wait in the listen backlog
        # meanwhile, ~0.3 s once), so no request pays for it and ingestion starts at once.
        try:
            self.server.embedder.embed(["warm up"])  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001, S110 - the first request reports the error
            pass
        self.server.serve_forever()

    def start(self) -> None:
        import sys

        # A recall hands the GIL back and forth ~20 times (each SQLite call, the session
        # run, hnswlib). While the daemon's ingest thread is busy in Python, each time it
        # is taken back only when the holder is asked to drop it: up to 5 ms each time by
        # default. 0.5 ms bounds that wait; the ingest pays a few more thread switches, and
        # only while a request waits (docs/decisions.md, "Recall under load").
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
        self.thread.start()

    def stop(self) -> None:
        # Only our own socket: after `rm -rf .memfs` a second daemon may have bound the same
        # path by now, and removing its socket left it running without warm recall. Removed
        # first: a client connecting from now on finds no daemon and does the work itself.
        try:
            now = os.stat(self.path)
            if (now.st_dev, now.st_ino) == self._bound:
                self.path.unlink()
        except FileNotFoundError:
            pass
        self.server.shutdown()
        self._answer_backlog()
        # The requests being read or answered now: the process must not end under them (its
        # threads are daemon threads), or a client whose request is read late (a stalled
        # machine) is cut off and reports a lost answer for a write never done.
        deadline = time.monotonic() + HANDLER_READ_SECONDS + 2.0
        for thread in list(self.server.live):  # type: ignore[attr-defined]
            thread.join(max(0.0, deadline - time.monotonic()))
        self.server.server_close()
        self.server.memory.close()  # type: ignore[attr-defined]

    def _answer_backlog(self) -> None:
        """Answer the connections still queued on the socket: closing it reset them, and a
        client whose request was sent then reports an unknown outcome (maybe done) for a
        write the daemon never read. A stopping daemon refuses writes, so each such client
        does its write itself (a recall is answered)."""
        sock = self.server.socket
        sock.setblocking(False)
        while True:
            try:
                conn, addr = sock.accept()
            except OSError:  # BlockingIOError: none left
                return
            try:  # (the handler reads with its own timeout, HANDLER_READ_SECONDS)
                self.server.finish_request(conn, addr)
            except OSError:
                pass
            finally:
                self.server.shutdown_request(conn)


def start_warm(memory: "Memory", writes: "WriteQueue", log: "Callable[[str], None]") -> "WarmServer | None":
    """The daemon's socket server, or None (recall then works cold) if it cannot listen."""
    try:
        warm = WarmServer(memory, writes)
        warm.start()
        return warm
    except OSError as err:  # e.g. a path too long for a Unix socket
        log(f"memfs daemon: warm recall unavailable ({err.strerror or err})")
        return None
