"""A scripted OpenAI chat-completions server on 127.0.0.1 (stdlib http.server in a thread),
and `MisbehavingModel`: the failure modes seen against a real small local model, on demand.

`FakeOpenAI`: each POST to /v1/chat/completions records the request and pops the next
scripted `Reply` (or asks `responder`); an empty script answers 500 ("script exhausted"),
so a test that makes more calls than it scripted fails loudly.

`MisbehavingModel` answers by the schema a request asks for (extraction, merge, summary,
recall), like a model would, with switches for what llama-cpp-python serving
SmolLM2-135M did to memfs:

- ``reject_json_schema``: HTTP 500 with llama-cpp-python's pydantic message on
  ``response_format: json_schema`` ("Input should be 'text' or 'json_object'");
- ``cite``: "all" (one grounded fact per turn), "none" (schema-valid facts with
  ``"turns": []``), "first" (only the first turn: first-topic dominance), "invented"
  (a fact citing turn 1 about something no turn says);
- ``placeholder_summaries``: "The summary text." for every summary;
- ``one_based_merge``: facts and neighbours numbered from 1 where 0 was shown;
- ``merge``: "reinforce" (REINFORCE every fact into its first neighbour, related or not),
  "update-subject" (UPDATE neighbour 0 with text about someone else), "add";
- ``runaway``: a 200 whose body never ends (a space every 50 ms), as a generation that
  does not stop; ``finish_length``: answers cut at max_tokens (invalid JSON,
  finish_reason "length").

Everything runs in this process on 127.0.0.1 and stops with the fixture.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from memfs.llm.client import ChatClient
from memfs.llm.config import ProfileConfig
from memfs.llm.usage import Budget, Usage

SECRET = "sk-test-SECRET-123"
#: What llama-cpp-python's server says (HTTP 500) to response_format type json_schema.
LLAMA_CPP_REJECTION = ("1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  Input should be "
                       "'text' or 'json_object' [type=literal_error, input_value='json_schema', input_type=str]")
RUNAWAY_CAP_SECONDS = 20.0  # a never-ending answer still ends: the test server stops by itself


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
    finish_reason: str = "stop"
    trickle: float = 0.0  # > 0: headers at once, then one byte of padding every `trickle` seconds ...
    trickle_for: float = RUNAWAY_CAP_SECONDS  # ... for this long, then the answer


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


def runaway(every: float = 0.05, lasting: float = RUNAWAY_CAP_SECONDS) -> Reply:
    """A generation that does not stop: bytes keep coming, the answer never completes."""
    return Reply(content=json.dumps({"facts": []}), trickle=every, trickle_for=lasting)


class FakeOpenAI:
    def __init__(self) -> None:
        self.script: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.responder: Callable[[dict[str, Any]], Reply] | None = None
        self.disconnects = 0  # answers the client walked away from
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
                                          "auth": self.headers.get("Authorization"), "t": time.monotonic()})
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
                        "choices": [{"index": 0, "finish_reason": reply.finish_reason,
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
                    if reply.trickle > 0:
                        self.send_header("Connection", "close")  # body ends when the connection does
                    else:
                        self.send_header("Content-Length", str(len(payload)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    if reply.trickle > 0:
                        self.close_connection = True
                        end = time.monotonic() + reply.trickle_for
                        while time.monotonic() < end:  # JSON may start with white space: valid padding
                            self.wfile.write(b" ")
                            self.wfile.flush()
                            time.sleep(reply.trickle)
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    with fake._lock:
                        fake.disconnects += 1  # the client gave up (timeout test)

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

    def start(self) -> "FakeOpenAI":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI().start()
    yield server
    server.stop()


def make_client(fake: FakeOpenAI, *, timeout: float = 5.0, retries: int = 2, budget: int | None = None,
                usage: Usage | None = None, **kw: Any) -> ChatClient:
    profile = ProfileConfig(base_url=fake.url, model="test-model", timeout=timeout, retries=retries)
    return ChatClient(profile, usage or Usage(), budget=Budget(limit_tokens=budget),
                      environ={"OPENAI_API_KEY": SECRET}, backoff_base=0.01, **kw)


@pytest.fixture
def client(fake: FakeOpenAI) -> ChatClient:
    return make_client(fake)


# -- a model that misbehaves on purpose ----------------------------------------------------

_TURN_RE = re.compile(r"^\[(\d+)\] (?:\([^)]*\) )?([^:\n]+): (.+)$", re.MULTILINE)
_NEW_RE = re.compile(r"^NEW fact (\d+): (.+)$", re.MULTILINE)
_EXISTING_RE = re.compile(r"^    (\d+): (.+)$", re.MULTILINE)


def schema_of(body: dict[str, Any]) -> str:
    """Which answer a request wants: the json_schema name, else the schema title in the prompt."""
    rf = body.get("response_format") or {}
    if rf.get("type") == "json_schema":
        return str(rf.get("json_schema", {}).get("name", ""))
    prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
    for name in ("ExtractionAnswer", "MergeAnswer", "SummaryAnswer", "RewriteAnswer", "RerankAnswer",
                 "SufficientAnswer"):
        if f'"title":"{name}"' in prompt:
            return name
    return ""


@dataclass
class MisbehavingModel:
    reject_json_schema: bool = False
    cite: str = "all"  # all | none | first | invented
    placeholder_summaries: bool = False
    one_based_merge: bool = False
    merge: str = "add"  # add | reinforce | update-subject
    runaway: bool = False
    finish_length: bool = False
    calls: dict[str, int] = field(default_factory=dict)

    def __call__(self, body: dict[str, Any]) -> Reply:
        rf = (body.get("response_format") or {}).get("type")
        if self.reject_json_schema and rf == "json_schema":
            return fail(500, LLAMA_CPP_REJECTION)
        kind = schema_of(body)
        self.calls[kind] = self.calls.get(kind, 0) + 1
        if self.runaway:
            return runaway()
        if self.finish_length:
            r = ok('{"facts": [{"text": "Alice went to the lake and then she went to the')
            r.finish_reason = "length"
            return r
        user = next((m["content"] for m in reversed(body.get("messages", [])) if m.get("role") == "user"), "")
        if kind == "ExtractionAnswer":
            return ok({"facts": self._facts(user)})
        if kind == "MergeAnswer":
            return ok({"decisions": self._merge(user)})
        if kind == "SummaryAnswer":
            if self.placeholder_summaries:
                return ok({"summary": "The summary text."})
            items = [line[2:] for line in user.splitlines() if line.startswith("- ")]
            return ok({"summary": " ".join(items[:2])[:200] or "nothing"})
        if kind == "RewriteAnswer":
            return ok({"queries": []})
        if kind == "RerankAnswer":
            return ok({"order": []})
        if kind == "SufficientAnswer":
            return ok({"sufficient": True})
        return ok({})

    def _facts(self, user: str) -> list[dict[str, Any]]:
        turns = [(int(n), who.strip(), text.strip()) for n, who, text in _TURN_RE.findall(user)]
        people = [(n, who, text) for n, who, text in turns if who.lower() not in ("assistant", "ai", "bot")]
        if self.cite == "none":
            return [{"text": f"{who} said: {text}", "type": "profile", "turns": []} for _, who, text in people]
        if self.cite == "first":
            people = people[:1]
        out = [{"text": f"{who} said: {text}", "type": "profile", "turns": [n]} for n, who, text in people]
        if self.cite == "invented" and people:
            out = out[:1] + [{"text": "Zorblax commands the lunar fleet from Atlantis.", "type": "profile",
                              "turns": [people[0][0]]}]
        return out

    def _merge(self, user: str) -> list[dict[str, Any]]:
        shift = 1 if self.one_based_merge else 0
        out = []
        for block in user.split("\n\n"):
            m = _NEW_RE.search(block)
            if not m:
                continue
            k = int(m.group(1))
            existing = _EXISTING_RE.findall(block)
            if self.merge == "reinforce" and existing:
                out.append({"fact": k + shift, "action": "REINFORCE", "target": len(existing) - 1 + shift})
            elif self.merge == "update-subject" and existing:
                out.append({"fact": k + shift, "action": "UPDATE", "target": 0 + shift,
                            "text": "Zorblax now lives on the Moon."})
            else:
                out.append({"fact": k + shift, "action": "ADD"})
        return out
