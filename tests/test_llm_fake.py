"""A scripted OpenAI chat-completions server on 127.0.0.1 (stdlib http.server in a thread).

Each POST to /v1/chat/completions records the request and pops the next scripted
reply; an empty script answers 500 ("script exhausted"), so a test that makes more
calls than it scripted fails loudly. Other test_llm_* files import the fixtures from here.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from memfs.llm.config import ProfileConfig
from memfs.llm.jsonparse import parse_json_lenient
from memfs.llm.client import ChatClient
from memfs.llm.usage import Budget, Usage

SECRET = "sk-test-SECRET-123"


@dataclass
class Reply:
    status: int = 200
    content: str | None = None
    delay: float = 0.0
    usage: dict[str, int] | None = field(default_factory=lambda: {"prompt_tokens": 11, "completion_tokens": 7,
                                                                   "total_tokens": 18})
    error: str = "error"
    echo_auth: bool = False  # a hostile server quoting the Authorization header in its error body
    raw: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)


def ok(answer: Any, usage: bool = True) -> Reply:
    """A 200 whose message content is ``answer`` (JSON-encoded unless it is already a string)."""
    content = answer if isinstance(answer, str) else json.dumps(answer)
    return Reply(content=content) if usage else Reply(content=content, usage=None)


def fail(status: int, message: str = "error", **kw: Any) -> Reply:
    return Reply(status=status, error=message, **kw)


def slow(seconds: float, then: Reply | None = None) -> Reply:
    r = then or ok({"never": "seen"})
    r.delay = seconds
    return r


class FakeOpenAI:
    def __init__(self) -> None:
        self.script: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.responder: Callable[[dict[str, Any]], Reply] | None = None
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake._lock:
                    fake.requests.append({"path": self.path, "json": body,
                                          "auth": self.headers.get("Authorization")})
                    if fake.responder is not None:
                        reply = fake.responder(body)
                    elif fake.script:
                        reply = fake.script.popleft()
                    else:
                        reply = fail(500, "script exhausted")
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.raw is not None:
                    payload = reply.raw
                elif reply.status == 200:
                    doc: dict[str, Any] = {
                        "id": f"chatcmpl-{len(fake.requests)}", "object": "chat.completion", "created": 0,
                        "model": body.get("model", "m"),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": reply.content}}]}
                    if reply.usage is not None:
                        doc["usage"] = reply.usage
                    payload = json.dumps(doc).encode()
                else:
                    msg = reply.error
                    if reply.echo_auth:
                        msg += " " + self.headers.get("Authorization", "")
                    payload = json.dumps({"error": {"message": msg, "type": "invalid_request_error",
                                                    "code": None}}).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02},
                                       daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def push(self, *replies: Reply) -> "FakeOpenAI":
        self.script.extend(replies)
        return self

    def messages(self, i: int = -1) -> list[dict[str, str]]:
        return self.requests[i]["json"]["messages"]

    def prompt(self, i: int = -1) -> str:
        return "\n".join(m["content"] for m in self.messages(i))

    def response_format(self, i: int = -1) -> dict[str, Any] | None:
        return self.requests[i]["json"].get("response_format")


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    server.thread.start()
    yield server
    server.server.shutdown()
    server.server.server_close()


def make_client(fake: FakeOpenAI, *, timeout: float = 5.0, retries: int = 2, budget: int | None = None,
                usage: Usage | None = None, **kw: Any) -> ChatClient:
    profile = ProfileConfig(base_url=fake.url, model="test-model", timeout=timeout, retries=retries)
    return ChatClient(profile, usage or Usage(), budget=Budget(limit_tokens=budget),
                      environ={"OPENAI_API_KEY": SECRET}, backoff_base=0.01, **kw)


@pytest.fixture
def client(fake: FakeOpenAI) -> ChatClient:
    return make_client(fake)


# -- the fake itself, and the tolerant JSON parser ----------------------------------

def test_fake_server_records_and_pops(fake: FakeOpenAI) -> None:
    import urllib.request

    fake.push(ok({"a": 1}))
    req = urllib.request.Request(fake.url + "/chat/completions", data=b'{"model": "x", "messages": []}',
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as resp:
        doc = json.loads(resp.read())
    assert json.loads(doc["choices"][0]["message"]["content"]) == {"a": 1}
    assert fake.requests[0]["json"]["model"] == "x"


@pytest.mark.parametrize("text, expected", [
    ('{"a": 1}', {"a": 1}),
    ('```json\n{"a": [1, 2,],}\n```', {"a": [1, 2]}),
    ('Sure! Here it is:\n```\n[{"x": "}"}]\n```\nAnything else?', [{"x": "}"}]),
    ('<think>hmm {not json}</think>{"ok": true}', {"ok": True}),
    ('The answer is {"s": "a, ]"} as asked.', {"s": "a, ]"}),
    ('{"t": "quote \\" and, }"}', {"t": 'quote " and, }'}),
])
def test_parse_json_lenient(text: str, expected: Any) -> None:
    assert parse_json_lenient(text) == expected


@pytest.mark.parametrize("text", ["", "   ", "no json here", '{"a": 1', "```json\n```"])
def test_parse_json_lenient_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_json_lenient(text)
