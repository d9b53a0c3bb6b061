"""`memfs proxy`: an OpenAI-compatible endpoint that adds memory to chat completions.

    client → memfs proxy (127.0.0.1:8787) → upstream (any OpenAI-compatible server)

For `POST …/chat/completions` (streaming or not) the proxy recalls on the last user
turns, injects one bounded system block of current facts with their ids, forwards the
request with the client's own headers (its API key included), relays the upstream's
answer byte for byte as it arrives, and then files the exchange into inbox/. Every other
path (`/v1/models`, …) is passed through untouched.

It never breaks a request: if recall fails or takes longer than `[agents]
recall_timeout`, the request goes out unchanged; if the upstream refuses the request
with memory (a 4xx), it is sent again unchanged; filing failures are logged and
forgotten. Only a dead upstream yields an error of the proxy's own (502).
Standard library HTTP only: no new dependency.
"""

from __future__ import annotations

import http.client
import json
import logging
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from memfs.agents.config import AgentsConfig
from memfs.agents.exchange import file_exchange, new_user_turns, process_if_no_daemon, speaker_name
from memfs.agents.inject import memory_block, message_text, with_block
from memfs.agents.tools import AgentTools
from memfs.errors import MemfsError

log = logging.getLogger("memfs.proxy")

MAX_BODY = 64 * 1024 * 1024
MAX_CAPTURE = 4 * 1024 * 1024
#: Not forwarded either way: hop-by-hop headers, and the ones the proxy sets itself.
#: Accept-Encoding is dropped so the answer comes back readable (to be filed).
_SKIP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
                   "trailers", "transfer-encoding", "upgrade", "host", "content-length", "accept-encoding"})

_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


@dataclass
class Exchange:
    """What the proxy needs after the answer: who spoke and what they said."""

    user_turns: list[str]
    speaker: str
    injected: bool = False


class MemoryProxy:
    """The proxy's state: one workspace's tools, the upstream, the settings."""

    def __init__(self, tools: AgentTools, upstream: str, config: AgentsConfig) -> None:
        parts = urlsplit(upstream)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise MemfsError(f"--upstream must be an http(s) URL such as http://127.0.0.1:11434/v1, got {upstream!r}")
        self.tools = tools
        self.config = config
        self.scheme = parts.scheme
        self.netloc = parts.netloc
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.base = parts.path.rstrip("/")
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="memfs-recall")

    def target(self, path: str) -> str:
        """The upstream path for a client path: the base URL's path, then the client's
        (a base ending in /v1 and a client path starting with /v1 share it)."""
        if self.base.endswith("/v1") and (path == "/v1" or path.startswith("/v1/") or path.startswith("/v1?")):
            path = path[3:]
        return (self.base + path) or "/"

    def connect(self) -> http.client.HTTPConnection:
        cls = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
        return cls(self.host, self.port, timeout=self.config.upstream_timeout)

    def prepare(self, body: bytes) -> tuple[bytes, Exchange | None]:
        """(the body to send, what to file afterwards); the body unchanged on any failure."""
        try:
            request = json.loads(body)
            messages = request.get("messages") if isinstance(request, dict) else None
            if not isinstance(messages, list):
                return body, None
            exchange = Exchange(user_turns=new_user_turns(messages),
                                speaker=speaker_name(request.get("user"), self.config.speaker))
        except (ValueError, AttributeError):
            return body, None
        try:
            future = self._pool.submit(memory_block, self.tools, messages, self.config.inject_k,
                                       self.config.inject_chars)
            block = future.result(timeout=self.config.recall_timeout)
        except FutureTimeout:
            log.warning("memfs proxy: recall took over %.1fs; forwarding without memory", self.config.recall_timeout)
            return body, exchange
        except Exception as err:  # noqa: BLE001 - memfs failing must never fail the request
            log.warning("memfs proxy: recall failed (%s: %s); forwarding without memory", type(err).__name__, err)
            return body, exchange
        if not block:
            return body, exchange
        exchange.injected = True
        request["messages"] = with_block(messages, block)
        return json.dumps(request, ensure_ascii=False).encode("utf-8"), exchange

    def file(self, exchange: Exchange, answer: str) -> None:
        """File the exchange (and ingest it now if no daemon will); failures are only logged."""
        try:
            path = file_exchange(self.tools.memory.ws, exchange.user_turns, answer, exchange.speaker,
                                 self.config.assistant)
            status = process_if_no_daemon(self.tools, path)
            if path is not None:
                log.info("memfs proxy: filed %s%s", path.name, f" ({status})" if status else "")
        except Exception as err:  # noqa: BLE001 - the answer is already with the client
            log.warning("memfs proxy: could not file the exchange (%s: %s)", type(err).__name__, err)


def answer_text(data: bytes, streamed: bool) -> str:
    """The assistant's text from a chat completion (JSON) or its SSE stream."""
    try:
        if not streamed:
            obj = json.loads(data)
            return message_text(obj["choices"][0]["message"]) if isinstance(obj, dict) else ""
        parts: list[str] = []
        for line in data.decode("utf-8", "replace").splitlines():
            if not line.startswith("data:"):
                continue
            payload = line[5:].strip()
            if payload == "[DONE]" or not payload:
                continue
            chunk = json.loads(payload)
            for choice in chunk.get("choices") or []:
                if choice.get("index", 0) == 0:
                    delta = choice.get("delta") or {}
                    if isinstance(delta.get("content"), str):
                        parts.append(delta["content"])
        return "".join(parts)
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return ""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "memfs-proxy"
    proxy: MemoryProxy  # set on the subclass built by make_server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        log.info("%s %s", self.address_string(), format % args)

    def do_GET(self) -> None:  # noqa: N802
        self._handle()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_GET  # noqa: N815

    def _read_body(self) -> bytes | None:
        length = self.headers.get("Content-Length")
        if length is None and "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            return self._read_chunked()
        if length is None:
            return b""
        try:
            n = int(length)
        except ValueError:
            n = -1
        if n < 0 or n > MAX_BODY:
            self._error(413 if n > MAX_BODY else 400, "request body too large or malformed Content-Length")
            return None
        return self.rfile.read(n)

    def _read_chunked(self) -> bytes | None:
        """A request body sent with Transfer-Encoding: chunked (some HTTP clients stream uploads)."""
        body = bytearray()
        while True:
            line = self.rfile.readline(1024)
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                self._error(400, "malformed chunked request body")
                return None
            if size == 0:
                while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return bytes(body)
            if len(body) + size > MAX_BODY:
                self._error(413, "request body too large")
                return None
            body += self.rfile.read(size)
            self.rfile.readline(1024)

    def _foreign(self) -> str | None:
        """Why a request must be refused, on a loopback-bound proxy: a Host that is not
        loopback (DNS rebinding) or a browser Origin that is not (a web page posting to it
        would write into memory)."""
        if not self.server.server_address[0].startswith(("127.", "::1")):  # type: ignore[union-attr]
            return None
        try:
            host = urlsplit(f"http://{self.headers.get('Host') or ''}").hostname
        except ValueError:
            host = None
        if host not in _LOOPBACK:
            return f"Host {self.headers.get('Host')!r} is not this machine"
        origin = self.headers.get("Origin")
        if origin is not None and urlsplit(origin).hostname not in _LOOPBACK:
            return f"Origin {origin!r} may not use this proxy"
        return None

    def _handle(self) -> None:
        refused = self._foreign()
        if refused is not None:
            self._error(403, f"memfs proxy: {refused}")
            self.close_connection = True
            return
        body = self._read_body()
        if body is None:
            return
        path = self.path
        exchange = None
        send = body
        if self.command == "POST" and path.split("?", 1)[0].rstrip("/").endswith("/chat/completions"):
            send, exchange = self.proxy.prepare(body)
        resp, conn = self._upstream(send)
        if resp is None:
            return
        if exchange is not None and exchange.injected and 400 <= resp.status < 500:
            # The upstream refused the request with memory in it: send the client's own.
            log.warning("memfs proxy: upstream answered %d to the request with memory; retrying it unchanged",
                        resp.status)
            resp.read()
            conn.close()
            exchange.injected = False
            resp, conn = self._upstream(body)
            if resp is None:
                return
        try:
            captured, streamed = self._relay(resp, capture=exchange is not None and resp.status == 200)
        except (BrokenPipeError, ConnectionResetError):
            log.info("memfs proxy: the client hung up before the answer was complete; not filed")
            self.close_connection = True
            return
        finally:
            conn.close()
        if exchange is not None and resp.status == 200 and captured is not None:
            self.proxy.file(exchange, answer_text(captured, streamed))

    def _upstream(self, body: bytes) -> tuple[http.client.HTTPResponse | None, Any]:
        conn = self.proxy.connect()
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _SKIP}
        headers["Host"] = self.proxy.netloc
        headers["Accept-Encoding"] = "identity"
        if body or self.command in ("POST", "PUT", "PATCH"):
            headers["Content-Length"] = str(len(body))
        try:
            conn.request(self.command, self.proxy.target(self.path), body=body or None, headers=headers)
            return conn.getresponse(), conn
        except (OSError, http.client.HTTPException) as err:
            conn.close()
            self._error(502, f"memfs proxy: upstream {self.proxy.netloc} unreachable: {type(err).__name__}: {err}")
            return None, None

    def _relay(self, resp: http.client.HTTPResponse, capture: bool) -> tuple[bytes | None, bool]:
        """Send the upstream's status, headers and body on; the body too, if asked."""
        self.send_response_only(resp.status, resp.reason)
        length = resp.getheader("Content-Length")
        chunked = length is None and self.command != "HEAD" and resp.status not in (204, 304)
        for key, value in resp.getheaders():
            if key.lower() not in _SKIP:
                self.send_header(key, value)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        elif length is not None:
            self.send_header("Content-Length", length)
        self.end_headers()
        kept = bytearray() if capture else None
        streamed = "text/event-stream" in (resp.getheader("Content-Type") or "")
        if self.command == "HEAD":
            return (bytes(kept) if kept is not None else None), streamed
        while True:
            data = resp.read1(65536) if chunked else resp.read(65536)
            if not data:
                break
            if kept is not None and len(kept) < MAX_CAPTURE:
                kept += data
            if chunked:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            else:
                self.wfile.write(data)
            self.wfile.flush()
        if chunked:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        return (bytes(kept) if kept is not None else None), streamed

    def _error(self, status: int, message: str) -> None:
        data = json.dumps({"error": {"message": message, "type": "memfs_proxy_error"}}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def make_server(proxy: MemoryProxy, host: str = "127.0.0.1", port: int = 8787) -> ThreadingHTTPServer:
    handler = type("MemfsProxyHandler", (_Handler,), {"proxy": proxy})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def serve(tools: AgentTools, upstream: str, host: str = "127.0.0.1", port: int = 8787) -> None:
    """Run until SIGINT/SIGTERM; one line on stderr says where."""
    import signal

    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    proxy = MemoryProxy(tools, upstream, tools.memory.config.agents)
    try:
        server = make_server(proxy, host, port)
    except OSError as err:
        raise MemfsError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None
    threading.Thread(target=tools.warm_up, daemon=True, name="memfs-warm-up").start()
    stop = threading.Event()

    def _stop(*_: object) -> None:
        if not stop.is_set():
            stop.set()
            threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    print(f"memfs proxy: http://{host}:{server.server_address[1]}/v1 → {upstream} "
          f"(memory: {tools.memory.root})", file=sys.stderr, flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
