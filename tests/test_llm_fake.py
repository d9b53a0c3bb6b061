"""The scripted fake OpenAI server (tests/support/fake_openai.py) and the tolerant JSON parser."""

from __future__ import annotations

import json
from typing import Any

import pytest

from memfs.llm.jsonparse import parse_json_lenient
from support.fake_openai import (  # noqa: F401  (re-exported: other test_llm_* files import from here)
    SECRET, FakeOpenAI, MisbehavingModel, Reply, client, fail, fake, make_client, ok, runaway, slow,
)


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
