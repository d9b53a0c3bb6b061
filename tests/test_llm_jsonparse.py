"""The tolerant JSON parser for model answers (memfs/llm/jsonparse.py)."""

from __future__ import annotations

from typing import Any

import pytest

from memfs.llm.jsonparse import parse_json_lenient


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
