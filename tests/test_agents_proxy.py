"""`memfs proxy` (a real process) between an OpenAI client and a real 127.0.0.1 upstream."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memfs.workspace import init_workspace
from tests.support.cli import MEMFS
from tests.support.fake_openai import MODELS, FakeOpenAI, failing, ok, refusing_system

ENV = {"MEMFS_EMBEDDER_PROVIDER": "hashing", "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
KEY = "sk-test-client-key-123"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Running:
    def __init__(self, root: Path, upstream: FakeOpenAI) -> None:
        self.root = root
        self.upstream = upstream
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}/v1"
        self.proc = subprocess.Popen(
            [*MEMFS, "proxy", "--dir", str(root), "--upstream", upstream.url,
             "--port", str(self.port)], env={**os.environ, **ENV}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            if self.proc.poll() is not None:
                raise AssertionError(self.proc.stderr.read().decode() if self.proc.stderr else "proxy died")
            time.sleep(0.05)
        raise AssertionError("proxy did not start")

    def stop(self) -> str:
        if self.proc.stderr is None or self.proc.stderr.closed:
            return ""
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        err = self.proc.stderr.read().decode()
        self.proc.stderr.close()
        return err

    def wait_filed(self, n: int, timeout: float = 20.0) -> None:
        """Until `n` exchanges are archived and none waits in the inbox."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            archived = list((self.root / "resources").rglob("*.json"))
            waiting = [p for p in (self.root / "inbox").glob("*.json")]
            if len(archived) >= n and not waiting:
                return
            time.sleep(0.05)
        raise AssertionError(f"exchanges not filed: {list((self.root / 'inbox').iterdir())}")


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Running]:
    root = init_workspace(tmp_path / "mem", git=False).root
    upstream = FakeOpenAI(answer="Noted, Rex sounds lovely!").start()
    run = Running(root, upstream)
    try:
        yield run
    finally:
        run.stop()
        upstream.stop()


def _client(run: Running) -> Any:
    from openai import OpenAI

    return OpenAI(base_url=run.base, api_key=KEY, max_retries=0, timeout=30)


def _system_blocks(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["json"]["messages"] if m["role"] == "system"]


def _archived_conversations(root: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted((root / "resources").rglob("*.json"))]


def test_second_request_recalls_what_the_first_said(running: Running) -> None:
    client = _client(running)
    first = client.chat.completions.create(
        model="fake-model", user="Alice",
        messages=[{"role": "system", "content": "You are terse."},
                  {"role": "user", "content": "I adopted a dog called Rex last week."}])
    assert first.choices[0].message.content == "Noted, Rex sounds lovely!"
    req1 = running.upstream.chat_requests()[0]
    assert req1["headers"]["authorization"] == f"Bearer {KEY}"  # the client's own key goes upstream
    assert req1["path"] == "/v1/chat/completions"
    assert _system_blocks(req1) == ["You are terse."]  # nothing to recall yet: request unchanged
    running.wait_filed(1)
    conv = _archived_conversations(running.root)[0]
    turns = conv["sessions"][0]["turns"]
    assert [(t["speaker"], t["text"]) for t in turns] == [("Alice", "I adopted a dog called Rex last week."),
                                                         ("assistant", "Noted, Rex sounds lovely!")]
    assert "Rex" in (running.root / "memory" / "relationships.md").read_text() or \
        any("Rex" in p.read_text() for p in (running.root / "memory").glob("*.md"))

    # A new conversation: the upstream now sees what the first one said.
    second = client.chat.completions.create(
        model="fake-model", user="Alice",
        messages=[{"role": "system", "content": "You are terse."},
                  {"role": "user", "content": "What is the name of my dog?"}])
    assert second.choices[0].message.content == "Noted, Rex sounds lovely!"
    req2 = running.upstream.chat_requests()[1]
    blocks = _system_blocks(req2)
    assert blocks[0] == "You are terse."  # the client's system prompt stays first
    assert len(blocks) == 2 and "Long-term memory (memfs)" in blocks[1] and "Rex" in blocks[1]
    assert "[" in blocks[1] and "]" in blocks[1]  # ids in brackets
    assert req2["json"]["messages"][-1] == {"role": "user", "content": "What is the name of my dog?"}
    # only the new turns of the second exchange were filed, not the first again
    running.wait_filed(2)
    second_turns = _archived_conversations(running.root)
    texts = [t["text"] for c in second_turns for t in c["sessions"][0]["turns"]]
    assert texts.count("I adopted a dog called Rex last week.") == 1


def test_streaming_is_relayed_as_it_arrives_and_filed(running: Running) -> None:
    running.upstream.answer = "Lisbon is a lovely city to live in."
    running.upstream.release_stream.clear()
    body = json.dumps({"model": "fake-model", "stream": True, "user": "Bob",
                       "messages": [{"role": "user", "content": "I moved to Lisbon in March."}]})
    conn = http.client.HTTPConnection("127.0.0.1", running.port, timeout=30)
    conn.request("POST", "/v1/chat/completions", body=body,
                 headers={"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"})
    resp = conn.getresponse()
    assert resp.status == 200 and resp.getheader("Content-Type") == "text/event-stream"
    first = resp.read1(65536)
    # the first chunk reached the client while the upstream is still holding the rest back
    assert b'"content": "Lisbon"' in first and running.upstream.first_chunk_sent.wait(5)
    assert not running.upstream.release_stream.is_set()
    running.upstream.release_stream.set()
    rest = first + resp.read()
    conn.close()
    assert rest.rstrip().endswith(b"data: [DONE]")
    running.wait_filed(1)
    turns = _archived_conversations(running.root)[0]["sessions"][0]["turns"]
    assert turns[0]["speaker"] == "Bob" and turns[1]["text"] == "Lisbon is a lovely city to live in."

    # the second (streaming, via the OpenAI client) request carries the first one's fact
    client = _client(running)
    stream = client.chat.completions.create(model="fake-model", stream=True, user="Bob",
                                            messages=[{"role": "user", "content": "Which city did I move to?"}])
    text = "".join(c.choices[0].delta.content or "" for c in stream)
    assert text == "Lisbon is a lovely city to live in."
    blocks = _system_blocks(running.upstream.chat_requests()[1])
    assert len(blocks) == 1 and "Bob moved to Lisbon" in blocks[0]


def test_upstream_failures_and_models_pass_through_unchanged(running: Running) -> None:
    client = _client(running)
    models = client.models.list()
    assert [m.id for m in models.data] == ["fake-model"]
    assert running.upstream.requests[0]["path"] == "/v1/models"
    raw = http.client.HTTPConnection("127.0.0.1", running.port, timeout=30)
    raw.request("GET", "/v1/models")
    resp = raw.getresponse()
    assert json.loads(resp.read()) == MODELS and resp.getheader("X-Upstream") == "fake"
    raw.close()

    # the answer's bytes are the upstream's, streamed or not
    for stream in (False, True):
        payload = json.dumps({"model": "m", "stream": stream, "messages": [{"role": "user", "content": f"Hi ({stream})."}]})
        bodies = []
        for port in (running.upstream.port, running.port):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("POST", "/v1/chat/completions", body=payload, headers={"Content-Type": "application/json"})
            r = conn.getresponse()
            bodies.append((r.status, r.getheader("Content-Type"), r.read()))
            conn.close()
        assert bodies[0] == bodies[1] and bodies[0][2]
    running.wait_filed(2)

    # a client that streams its upload (Transfer-Encoding: chunked, no Content-Length)
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "Chunked hello."}]}).encode()
    raw = http.client.HTTPConnection("127.0.0.1", running.port, timeout=30)
    raw.request("POST", "/v1/chat/completions", body=iter([body[:10], body[10:]]), encode_chunked=True,
                headers={"Content-Type": "application/json"})
    resp = raw.getresponse()
    assert resp.status == 200 and json.loads(resp.read())["choices"][0]["message"]["content"]
    raw.close()
    assert running.upstream.chat_requests()[-1]["json"]["messages"][-1]["content"] == "Chunked hello."
    running.wait_filed(3)

    running.upstream.responder = failing(500, "upstream exploded")
    from openai import InternalServerError

    with pytest.raises(InternalServerError) as err:
        client.chat.completions.create(model="fake-model", messages=[{"role": "user", "content": "I love jazz."}])
    assert err.value.status_code == 500 and "upstream exploded" in str(err.value)
    time.sleep(0.3)
    assert not list((running.root / "inbox").glob("*.json"))  # a failed exchange is not filed
    assert len(list((running.root / "resources").rglob("*.json"))) == 3


def test_upstream_refusing_the_memory_block_gets_the_original_request(running: Running) -> None:
    client = _client(running)
    client.chat.completions.create(model="fake-model",
                                   messages=[{"role": "user", "content": "I adopted a dog called Rex."}])
    running.wait_filed(1)
    running.upstream.responder = refusing_system("memfs", then=lambda body: ok(running.upstream.answer))
    answer = client.chat.completions.create(model="fake-model",
                                            messages=[{"role": "user", "content": "What is my dog called?"}])
    assert answer.choices[0].message.content == "Noted, Rex sounds lovely!"
    tried, retried = running.upstream.chat_requests()[1:3]
    assert _system_blocks(tried) and not _system_blocks(retried)
    assert retried["json"]["messages"] == [{"role": "user", "content": "What is my dog called?"}]


def test_a_broken_workspace_never_breaks_a_request(running: Running) -> None:
    client = _client(running)
    client.chat.completions.create(model="fake-model", messages=[{"role": "user", "content": "Hello there."}])
    running.wait_filed(1)  # the proxy is idle now (warm-up and filing done)
    running.upstream.requests.clear()
    shutil.rmtree(running.root)
    running.root.write_text("not a folder any more\n")  # every memfs read and write now fails
    body = [{"role": "user", "content": "I adopted a dog called Rex."}]
    answer = client.chat.completions.create(model="fake-model", messages=body)
    assert answer.choices[0].message.content == "Noted, Rex sounds lovely!"
    assert running.upstream.chat_requests()[0]["json"]["messages"] == body
    stream = client.chat.completions.create(model="fake-model", messages=body, stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in stream) == "Noted, Rex sounds lovely!"
    log = running.stop()
    assert "forwarding without memory" in log and "could not file the exchange" in log


def test_browser_origins_and_rebound_hosts_are_refused(running: Running) -> None:
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "I am a web page."}]})
    for headers in ({"Origin": "https://evil.example"}, {"Host": "evil.example:8787"}):
        conn = http.client.HTTPConnection("127.0.0.1", running.port, timeout=30)
        conn.request("POST", "/v1/chat/completions", body=body, headers={"Content-Type": "text/plain", **headers})
        resp = conn.getresponse()
        assert resp.status == 403, headers
        resp.read()
        conn.close()
    assert running.upstream.requests == []
    conn = http.client.HTTPConnection("127.0.0.1", running.port, timeout=30)
    conn.request("GET", "/v1/models", headers={"Origin": "http://localhost:3000"})
    assert conn.getresponse().status == 200
    conn.close()


def test_dead_upstream_is_a_clear_502(tmp_path: Path) -> None:
    root = init_workspace(tmp_path / "mem", git=False).root
    upstream = FakeOpenAI().start()
    upstream.stop()
    run = Running(root, upstream)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", run.port, timeout=30)
        conn.request("POST", "/v1/chat/completions", body=json.dumps({"model": "m", "messages": []}),
                     headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        assert resp.status == 502 and "unreachable" in json.loads(resp.read())["error"]["message"]
        conn.close()
    finally:
        run.stop()


def test_bad_upstream_url_is_one_line(ws_path: Path) -> None:
    proc = subprocess.run([*MEMFS, "proxy", "--dir", str(ws_path), "--upstream", "ftp://x"],
                          env={**os.environ, **ENV}, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()] and "--upstream must be an http" in proc.stderr


@pytest.mark.slow
def test_with_a_daemon_running_the_daemon_files_the_exchange(tmp_path: Path) -> None:
    root = init_workspace(tmp_path / "mem", git=False).root
    daemon = subprocess.Popen([*MEMFS, "--dir", str(root), "daemon"],
                              env={**os.environ, **ENV}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    upstream = FakeOpenAI(answer="Sounds fun.").start()
    run = None
    try:
        deadline = time.monotonic() + 30
        while not (root / ".memfs" / "daemon.sock").exists() and time.monotonic() < deadline:
            assert daemon.poll() is None
            time.sleep(0.05)
        run = Running(root, upstream)
        client = _client(run)
        client.chat.completions.create(model="m", user="Dana",
                                       messages=[{"role": "user", "content": "I started learning the banjo."}])
        run.wait_filed(1)
        log = run.stop()
        assert "filed proxy-" in log and "(processed)" not in log  # left to the daemon, not ingested by the proxy
        assert any("Dana" in p.read_text() and "banjo" in p.read_text() for p in (root / "memory").glob("*.md"))
    finally:
        if run is not None:
            run.stop()
        upstream.stop()
        daemon.terminate()
        daemon.wait(timeout=20)
        if daemon.stderr:
            daemon.stderr.close()
