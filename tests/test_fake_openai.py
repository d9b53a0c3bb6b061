"""The suite's one fake OpenAI server (tests/support/fake_openai.py): each knob does what the
tests that rely on it assume, checked against the real `openai` client where it matters."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from openai import OpenAI

from tests.support.fake_openai import FakeOpenAI, fail, malformed, ok, rate_limited, refusing_system
from tests.support.misbehaving import MisbehavingModel


def _post(fake: FakeOpenAI, path: str, body: dict[str, Any],
          headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(fake.url + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def test_fake_server_records_and_pops(fake: FakeOpenAI) -> None:
    fake.push(ok({"a": 1}))
    status, _, raw = _post(fake, "/chat/completions", {"model": "x", "messages": []})
    doc = json.loads(raw)
    assert status == 200 and json.loads(doc["choices"][0]["message"]["content"]) == {"a": 1}
    assert fake.requests[0]["json"]["model"] == "x"
    # An exhausted script is a loud 500, not a silent default.
    status, _, raw = _post(fake, "/chat/completions", {"model": "x", "messages": []})
    assert status == 500 and "script exhausted" in raw.decode()


def test_status_retry_after_malformed_and_usage_knobs(fake: FakeOpenAI) -> None:
    fake.push(rate_limited(0.5), fail(503, "busy"), malformed(), ok("plain", usage=False))
    status, headers, _ = _post(fake, "/chat/completions", {"messages": []})
    assert status == 429 and headers["Retry-After"] == "0.5"
    status, _, raw = _post(fake, "/chat/completions", {"messages": []})
    assert status == 503 and json.loads(raw)["error"]["message"] == "busy"
    status, _, raw = _post(fake, "/chat/completions", {"messages": []})
    assert status == 200
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw)
    status, _, raw = _post(fake, "/chat/completions", {"messages": []})
    assert "usage" not in json.loads(raw) and json.loads(raw)["choices"][0]["message"]["content"] == "plain"


def test_echo_auth_quotes_the_key_back(fake: FakeOpenAI) -> None:
    fake.push(fail(401, "bad key:", echo_auth=True), ok("your header was", echo_auth=True))
    _, _, raw = _post(fake, "/chat/completions", {"messages": []}, {"Authorization": "Bearer sk-x"})
    assert json.loads(raw)["error"]["message"] == "bad key: Bearer sk-x"
    _, _, raw = _post(fake, "/chat/completions", {"messages": []}, {"Authorization": "Bearer sk-x"})
    assert json.loads(raw)["choices"][0]["message"]["content"] == "your header was Bearer sk-x"
    assert fake.requests[-1]["auth"] == "Bearer sk-x" and fake.requests[-1]["headers"]["authorization"] == "Bearer sk-x"


def test_the_real_client_streams_lists_models_and_embeds(fake: FakeOpenAI) -> None:
    fake.answer = "Noted, Rex sounds lovely!"
    api = OpenAI(base_url=fake.url, api_key="k", max_retries=0)
    plain = api.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert plain.choices[0].message.content == "Noted, Rex sounds lovely!" and plain.usage is not None
    stream = api.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], stream=True)
    chunks = [c.choices[0].delta.content or "" for c in stream]
    assert len(chunks) == 4 and "".join(chunks) == "Noted, Rex sounds lovely!"
    assert fake.first_chunk_sent.is_set()
    assert [m.id for m in api.models.list()] == ["fake-model"]
    vectors = api.embeddings.create(model="e", input=["a", "bbb"])
    assert [d.embedding for d in vectors.data] == [[1.0, 1.0, 0.0], [3.0, 1.0, 0.0]]
    assert [r["method"] for r in fake.requests] == ["POST", "POST", "GET", "POST"]
    assert len(fake.chat_requests()) == 2  # models and embeddings are not chat requests


def test_embeddings_can_fail_on_demand(fake: FakeOpenAI) -> None:
    fake.embed_script.append(fail(500, "embedder down"))
    status, _, raw = _post(fake, "/embeddings", {"model": "e", "input": ["a"]})
    assert status == 500 and "embedder down" in raw.decode()
    status, _, raw = _post(fake, "/embeddings", {"model": "e", "input": "abcd"})
    assert status == 200 and json.loads(raw)["data"][0]["embedding"] == [4.0, 1.0, 0.0]


def test_refusing_system_and_a_model_that_cites_nothing(fake: FakeOpenAI) -> None:
    fake.responder = refusing_system("memfs", then=lambda body: ok("fine"))
    status, _, _ = _post(fake, "/chat/completions", {"messages": [{"role": "system", "content": "memfs: x"}]})
    assert status == 400
    status, _, raw = _post(fake, "/chat/completions", {"messages": [{"role": "user", "content": "x"}]})
    assert status == 200 and json.loads(raw)["choices"][0]["message"]["content"] == "fine"
    model = MisbehavingModel(cite="none")
    fake.responder = model
    body = {"messages": [{"role": "user", "content": "[1] Ana: I adopted a dog.\n[2] Sam: Nice!"}],
            "response_format": {"type": "json_schema", "json_schema": {"name": "ExtractionAnswer"}}}
    _, _, raw = _post(fake, "/chat/completions", body)
    facts = json.loads(json.loads(raw)["choices"][0]["message"]["content"])["facts"]
    assert facts and all(f["turns"] == [] for f in facts) and model.calls == {"ExtractionAnswer": 1}
