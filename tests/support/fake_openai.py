"""The one fake OpenAI-compatible server of the suite: a real HTTP server on 127.0.0.1
(stdlib http.server in a thread). A model that misbehaves the way a real small local one
did is in tests/support/misbehaving.py (set it as ``responder``).

`FakeOpenAI` serves what memfs and the agents' adapters call:

- POST /v1/chat/completions: records the request and answers, in this order, from
  ``responder(body)``, the next scripted `Reply`, or the fixed ``answer`` text; with none of
  them it answers 500 ("script exhausted"), so a test that makes more calls than it scripted
  fails loudly. A request with ``"stream": true`` gets the answer as SSE chunks, one per word
  (``first_chunk_sent`` / ``release_stream`` let a test hold the stream after its first chunk).
- POST /v1/embeddings: one vector per input from ``embed(text)`` (default ``[len, 1, 0]``),
  or the next `Reply` in ``embed_script`` (to fail or misbehave).
- GET /v1/models: `MODELS`.

Misbehaviour knobs, all on `Reply`: status codes (`fail`, `rate_limited` for 429 with
Retry-After), malformed JSON (`malformed`), slow answers (`slow`), never-ending answers
(`runaway`), usage fields present or absent (``usage``), a hostile server quoting the
Authorization header back (``echo_auth``), extra headers, finish_reason.

Everything runs in this process on 127.0.0.1; the `fake` fixture (tests/conftest.py)
starts one per test and stops it afterwards.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from memfs.llm.client import ChatClient
from memfs.llm.config import ProfileConfig
from memfs.llm.usage import Budget, Usage

SECRET = "sk-test-SECRET-123"
RUNAWAY_CAP_SECONDS = 20.0  # a never-ending answer still ends: the test server stops by itself
MODELS = {"object": "list", "data": [{"id": "fake-model", "object": "model", "owned_by": "test"}]}


@dataclass
class Reply:
    status: int = 200
    content: str | None = None
    delay: float = 0.0
    usage: dict[str, int] | None = field(default_factory=lambda: {"prompt_tokens": 11, "completion_tokens": 7,
                                                                   "total_tokens": 18})
    error: str = "error"
    error_type: str = "invalid_request_error"
    echo_auth: bool = False  # a hostile server quoting the Authorization header in its error body or answer
    raw: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    finish_reason: str = "stop"
    trickle: float = 0.0  # > 0: headers at once, then one byte of padding every `trickle` seconds ...
    trickle_for: float = RUNAWAY_CAP_SECONDS  # ... for this long, then the answer


def ok(answer: Any, usage: bool = True, **kw: Any) -> Reply:
    """A 200 whose message content is ``answer`` (JSON-encoded unless it is already a string)."""
    content = answer if isinstance(answer, str) else json.dumps(answer)
    return Reply(content=content, **kw) if usage else Reply(content=content, usage=None, **kw)


def fail(status: int, message: str = "error", **kw: Any) -> Reply:
    return Reply(status=status, error=message, **kw)


def rate_limited(retry_after: float | str, message: str = "rate limited") -> Reply:
    """A 429 carrying a Retry-After header (seconds)."""
    return fail(429, message, headers={"Retry-After": str(retry_after)})


def malformed(body: bytes = b'{"choices": [{"message": {"content": ') -> Reply:
    """A 200 whose body is not JSON at all (a proxy that cut the answer short)."""
    return Reply(raw=body)


def slow(seconds: float, then: Reply | None = None) -> Reply:
    r = then or ok({"never": "seen"})
    r.delay = seconds
    return r


def runaway(every: float = 0.05, lasting: float = RUNAWAY_CAP_SECONDS) -> Reply:
    """A generation that does not stop: bytes keep coming, the answer never completes."""
    return Reply(content=json.dumps({"facts": []}), trickle=every, trickle_for=lasting)


def failing(status: int, message: str) -> Callable[[dict[str, Any]], Reply]:
    """A responder that fails every request (an upstream that broke)."""
    return lambda body: fail(status, message, error_type="server_error")


def refusing_system(marker: str, then: Callable[[dict[str, Any]], Reply]) -> Callable[[dict[str, Any]], Reply]:
    """A responder that answers 400 to any request with a system message containing `marker`."""
    def respond(body: dict[str, Any]) -> Reply:
        if any(m.get("role") == "system" and marker in str(m.get("content")) for m in body.get("messages", [])):
            return fail(400, "no system messages here", error_type="invalid_request")
        return then(body)
    return respond


def _length_vector(text: str) -> list[float]:
    return [float(len(text)), 1.0, 0.0]


class FakeOpenAI:
    """One OpenAI-compatible server on 127.0.0.1; see the module docstring for its endpoints."""

    def __init__(self, answer: str | None = None) -> None:
        self.script: deque[Reply] = deque()
        self.embed_script: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.responder: Callable[[dict[str, Any]], Reply] | None = None
        self.answer = answer  # answered when neither a responder nor a script is set
        self.embed: Callable[[str], list[float]] = _length_vector
        self.disconnects = 0  # answers the client walked away from
        self.first_chunk_sent = threading.Event()
        self.release_stream = threading.Event()
        self.release_stream.set()
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # chunked streams and keep-alive, like a real endpoint

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _record(self, body: dict[str, Any] | None) -> None:
                fake.requests.append({"method": self.command, "path": self.path, "json": body,
                                      "headers": {k.lower(): v for k, v in self.headers.items()},
                                      "auth": self.headers.get("Authorization"), "t": time.monotonic()})

            def do_GET(self) -> None:  # noqa: N802
                with fake._lock:
                    self._record(None)
                found = self.path.rstrip("/").endswith("/models")
                self._send(200 if found else 404, json.dumps(MODELS if found else {"error": "no"}).encode())

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                embeddings = self.path.rstrip("/").endswith("/embeddings")
                with fake._lock:
                    self._record(body)
                    if embeddings:
                        reply = fake.embed_script.popleft() if fake.embed_script else None
                    elif fake.responder is not None:
                        reply = fake.responder(body)
                    elif fake.script:
                        reply = fake.script.popleft()
                    elif fake.answer is not None:
                        reply = ok(fake.answer)
                    else:
                        reply = fail(500, "script exhausted")
                if reply is None:
                    self._send(200, self._vectors(body))
                    return
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status == 200 and reply.raw is None and body.get("stream"):
                    self._stream(body, reply)
                    return
                self._send(reply.status, self._payload(body, reply), reply)

            def _vectors(self, body: dict[str, Any]) -> bytes:
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                data = [{"object": "embedding", "index": i, "embedding": fake.embed(t)} for i, t in enumerate(inputs)]
                return json.dumps({"object": "list", "data": data, "model": body.get("model", "m"),
                                   "usage": {"prompt_tokens": len(inputs), "total_tokens": len(inputs)}}).encode()

            def _payload(self, body: dict[str, Any], reply: Reply) -> bytes:
                auth = self.headers.get("Authorization", "")
                if reply.raw is not None:
                    return reply.raw
                if reply.status == 200:
                    content = reply.content
                    if reply.echo_auth:
                        content = f"{content or ''} {auth}"
                    doc: dict[str, Any] = {
                        "id": "chatcmpl-fake", "object": "chat.completion", "created": 0,
                        "model": body.get("model", "m"),
                        "choices": [{"index": 0, "finish_reason": reply.finish_reason,
                                     "message": {"role": "assistant", "content": content}}]}
                    if reply.usage is not None:
                        doc["usage"] = reply.usage
                    return json.dumps(doc).encode()
                msg = reply.error + (" " + auth if reply.echo_auth else "")
                return json.dumps({"error": {"message": msg, "type": reply.error_type, "code": None}}).encode()

            def _send(self, status: int, payload: bytes, reply: Reply | None = None) -> None:
                trickle = reply.trickle if reply else 0.0
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("X-Upstream", "fake")
                    if trickle > 0:
                        self.send_header("Connection", "close")  # body ends when the connection does
                    else:
                        self.send_header("Content-Length", str(len(payload)))
                    for k, v in (reply.headers if reply else {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    if trickle > 0 and reply is not None:
                        self.close_connection = True
                        end = time.monotonic() + reply.trickle_for
                        while time.monotonic() < end:  # JSON may start with white space: valid padding
                            self.wfile.write(b" ")
                            self.wfile.flush()
                            time.sleep(trickle)
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    with fake._lock:
                        fake.disconnects += 1  # the client gave up (timeout test)

            def _stream(self, body: dict[str, Any], reply: Reply) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for n, word in enumerate((reply.content or "").split(" ")):
                    chunk = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0,
                             "model": body.get("model", "m"),
                             "choices": [{"index": 0, "delta": {"content": (" " if n else "") + word},
                                          "finish_reason": None}]}
                    self._chunk(f"data: {json.dumps(chunk)}\n\n".encode())
                    if n == 0:
                        fake.first_chunk_sent.set()
                        fake.release_stream.wait(10)
                    time.sleep(0.01)
                self._chunk(b"data: [DONE]\n\n")
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            def _chunk(self, data: bytes) -> None:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02},
                                       daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def push(self, *replies: Reply) -> "FakeOpenAI":
        self.script.extend(replies)
        return self

    def chat_requests(self) -> list[dict[str, Any]]:
        """The POSTs to chat/completions, in order."""
        return [r for r in self.requests if r["method"] == "POST" and r["path"].endswith("/chat/completions")]

    def messages(self, i: int = -1) -> list[dict[str, str]]:
        return self.requests[i]["json"]["messages"]

    def prompt(self, i: int = -1) -> str:
        return "\n".join(m["content"] for m in self.messages(i))

    def response_format(self, i: int = -1) -> dict[str, Any] | None:
        return self.requests[i]["json"].get("response_format")

    def start(self) -> "FakeOpenAI":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> "FakeOpenAI":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def make_client(fake: FakeOpenAI, *, timeout: float = 5.0, retries: int = 2, budget: int | None = None,
                usage: Usage | None = None, **kw: Any) -> ChatClient:
    profile = ProfileConfig(base_url=fake.url, model="test-model", timeout=timeout, retries=retries)
    return ChatClient(profile, usage or Usage(), budget=Budget(limit_tokens=budget),
                      environ={"OPENAI_API_KEY": SECRET}, backoff_base=0.01, **kw)
