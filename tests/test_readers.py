"""Tests for memfs.readers: one per format, every refusal, and property tests that any
bytes give either a ParsedSource or a ReadError."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfs.core.segment import ParsedSource
from memfs.readers import ReadError, read_source
from memfs.readers.timeparse import parse_time_string


def read_json(value: object, filename: str = "chat.json") -> ParsedSource:
    return read_source(json.dumps(value).encode(), filename)


def error_of(data: bytes, filename: str = "x", **kwargs: int) -> str:
    with pytest.raises(ReadError) as info:
        read_source(data, filename, **kwargs)
    return str(info.value)


# -- conversations -----------------------------------------------------------------

def test_openai_message_list() -> None:
    src = read_json([
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "Hi, I'm Alice.", "name": "Alice"},
        {"role": "assistant", "content": [{"type": "text", "text": "Hello"},
                                          {"type": "image_url", "image_url": {"url": "x"}},
                                          {"type": "text", "text": "Alice!"}]},
        {"role": "tool", "content": "42"},
        {"role": "user", "content": "   "},
        {"role": "user", "content": "Bye"},
    ])
    assert src.kind == "conversation" and src.format == "openai-messages"
    assert [s.anchor for s in src.segments] == ["m2", "m3", "m6"]
    assert [s.speaker for s in src.segments] == ["Alice", "assistant", "user"]
    assert src.segments[1].text == "Hello\nAlice!"
    assert src.participants == ["Alice", "assistant", "user"]
    assert src.time is None


def test_messages_object_with_role_names_and_times() -> None:
    src = read_json({
        "title": "Trip planning",
        "session_time": "1:56 pm on 8 May, 2023",
        "participants": {"user": "Alice", "assistant": "Bot"},
        "messages": [
            {"role": "user", "content": "Where to?"},
            {"role": "assistant", "content": "Lisbon.", "timestamp": 1683900000},
            {"role": "user", "content": "Ok", "created_at": "2023-05-12T10:00:00Z"},
        ],
    })
    assert src.format == "messages-object" and src.title == "Trip planning"
    assert src.time == datetime(2023, 5, 8, 13, 56)
    assert [s.speaker for s in src.segments] == ["Alice", "Bot", "Alice"]
    assert src.participants == ["Alice", "Bot"]
    assert src.segments[0].time == datetime(2023, 5, 8, 13, 56)
    assert src.segments[1].time == datetime(2023, 5, 12, 14, 0)  # unix seconds, as UTC
    assert src.segments[2].time == datetime(2023, 5, 12, 10, 0)


def test_jsonl_messages_with_blank_lines_and_crlf() -> None:
    data = b'{"role": "user", "content": "a"}\r\n\r\n{"role": "assistant", "content": "b"}\r\n'
    src = read_source(data, "chat.jsonl")
    assert src.format == "messages-jsonl"
    assert [(s.anchor, s.speaker, s.text) for s in src.segments] == [("m1", "user", "a"), ("m2", "assistant", "b")]
    # detected by content even without the extension
    assert read_source(data, "chat").format == "messages-jsonl"


def test_jsonl_bad_line_names_it() -> None:
    data = b'{"role": "user", "content": "a"}\n\n{"role": "user", "content": }\n'
    assert error_of(data, "chat.jsonl").startswith("line 3: broken JSON")
    assert error_of(b'{"role": "user", "content": "a"}\n[1]\n', "c.jsonl").startswith("line 2:")


MEMFS = {
    "format": "memfs.conversation/1",
    "title": "LoCoMo 26",
    "sessions": [
        {"id": "S1", "time": "2023-05-08T13:56:00", "turns": [
            {"id": "D1:1", "speaker": "Caroline", "text": "Hey Mel!"},
            {"id": "D1:2", "speaker": "Melanie", "text": "Hi!", "time": "2023-05-08T14:00:00"},
            {"id": "D1:3", "speaker": "Melanie", "text": ""},
        ]},
        {"id": "S2", "time": "8:10 am on 12 June, 2023", "turns": [
            {"id": "D2:1", "speaker": "Melanie", "text": "Back again."},
        ]},
    ],
}


def test_memfs_conversation_format() -> None:
    src = read_json(MEMFS, "locomo.json")
    assert src.format == "memfs.conversation/1" and src.title == "LoCoMo 26"
    assert [s.anchor for s in src.segments] == ["D1:1", "D1:2", "D2:1"]
    assert [s.session for s in src.segments] == ["S1", "S1", "S2"]
    assert [s.time for s in src.segments] == [
        datetime(2023, 5, 8, 13, 56), datetime(2023, 5, 8, 14, 0), datetime(2023, 6, 12, 8, 10)]
    assert src.time == datetime(2023, 5, 8, 13, 56)
    assert src.participants == ["Caroline", "Melanie"]


def test_memfs_conversation_errors() -> None:
    dup = json.loads(json.dumps(MEMFS))
    dup["sessions"][1]["turns"][0]["id"] = "D1:1"
    assert "duplicate turn id 'D1:1'" in error_of(json.dumps(dup).encode(), "c.json")
    no_id = json.loads(json.dumps(MEMFS))
    del no_id["sessions"][0]["turns"][0]["id"]
    assert '"id" is required' in error_of(json.dumps(no_id).encode(), "c.json")
    assert "unsupported format" in error_of(b'{"format": "memfs.conversation/9", "sessions": []}')
    bad_time = {"format": "memfs.conversation/1", "sessions": [{"time": "yesterday", "turns": []}]}
    assert "cannot read time 'yesterday'" in error_of(json.dumps(bad_time).encode())


def test_conversation_without_text() -> None:
    assert error_of(b'[{"role": "system", "content": "x"}, {"role": "user", "content": ""}]') == "no messages with text"
    assert error_of(b'{"messages": []}') == "no messages with text"


def test_time_strings() -> None:
    assert parse_time_string("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56)
    assert parse_time_string("12:05 am on 1 Jan, 2024") == datetime(2024, 1, 1, 0, 5)
    assert parse_time_string("2023-05-08") == datetime(2023, 5, 8)
    assert parse_time_string("2023-05-08T13:56:00+02:00") == datetime(2023, 5, 8, 13, 56)
    for bad in ("13:56 pm on 8 May, 2023", "1:56 pm on 31 February, 2023", "soon", "1:56 pm on 8 Mai, 2023"):
        assert parse_time_string(bad) is None


# -- documents -----------------------------------------------------------------------

MARKDOWN = """\
---
title: Runbook
date: 2023-05-08
---
Some *intro* text with a [link](http://example.com).

# Setup
Install **everything** first.

## Install

- step one
- step two
  1. nested

```sh
# a comment, not a heading
make
```

## Install
Second install section.

# Setup
Again.

Section
-------
| a | b |
|---|---|
| 1 | 2 |
"""


def test_markdown_sections() -> None:
    src = read_source(MARKDOWN.replace("\n", "\r\n").encode(), "runbook.md")
    assert src.kind == "document" and src.format == "markdown"
    assert src.title == "Runbook" and src.time == datetime(2023, 5, 8)
    assert [s.anchor for s in src.segments] == [
        "intro", "setup", "setup/install", "setup/install-2", "setup-2", "setup-2/section"]
    by = {s.anchor: s for s in src.segments}
    assert by["intro"].text == "Some intro text with a link." and by["intro"].heading is None
    assert by["setup"].heading == "Setup" and by["setup"].text == "Install everything first."
    assert by["setup/install"].text == "- step one\n- step two\n  1. nested\n\n# a comment, not a heading\nmake"
    assert by["setup-2/section"].text == "a | b\n1 | 2"
    assert all(s.time == datetime(2023, 5, 8) for s in src.segments)


def test_markdown_sniffed_without_extension_and_title_from_h1() -> None:
    src = read_source(b"# My Notes\n\nHello.\n", "notes")
    assert src.format == "markdown" and src.title == "My Notes"
    assert [(s.anchor, s.text) for s in src.segments] == [("my-notes", "Hello.")]


def test_broken_front_matter_names_line() -> None:
    msg = error_of(b"---\ntitle: ok\nbad: a: b\n---\nbody\n", "a.md")
    assert msg.startswith("broken front-matter at line 3")
    assert "front-matter date" in error_of(b"---\ndate: someday\n---\nbody\n", "a.md")


def test_plain_text_paragraphs() -> None:
    data = b"\xef\xbb\xbfFirst para\r\nstill first\r\n\r\n   \r\n[Second] para\r\n\r\nthird\r\n"
    src = read_source(data, "notes.txt")
    assert src.format == "text" and src.kind == "document"
    assert [(s.anchor, s.text) for s in src.segments] == [
        ("L1-2", "First para\nstill first"), ("L5-5", "[Second] para"), ("L7-7", "third")]


def test_json_in_text_file_that_is_not_a_conversation_is_text() -> None:
    assert read_source(b'{"a": 1}', "notes.txt").format == "text"


# -- refusals ------------------------------------------------------------------------

@pytest.mark.parametrize(("data", "filename", "expected"), [
    (b"", "a.txt", "empty file"),
    (b"\xef\xbb\xbf", "a.txt", "empty file"),
    (b" \n\t\n", "a.txt", "empty file (only whitespace)"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "photo.txt", "binary file (looks like PNG image)"),
    (b"%PDF-1.7\n%\xe2\xe3", "doc.pdf", "binary file (looks like PDF document)"),
    (b"abc\x00def", "a.txt", "binary file (contains NUL bytes)"),
    (bytes(range(128, 256)) * 4, "blob", "binary file (mostly non-text bytes)"),
    (b"caf\xe9 au lait\nmore text here", "a.txt", "not valid UTF-8 at byte 3 (line 1)"),
    (b'[{"role": "user", "content": "hi"},]', "a.json", "broken JSON at line 1 column 36: Expecting value"),
    (b'{"a": 1,\n "b" 2}', "a.json", "broken JSON at line 2 column 6: Expecting ':' delimiter"),
    (b"hello", "a.json", "broken JSON at line 1 column 1: Expecting value"),
    (b'{"a": 1}', "a.json", 'JSON is not a conversation: expected a list of messages, {"messages": [...]} or memfs.conversation/1'),
    (b"[1, 2, 3]", "x", 'JSON is not a conversation: expected a list of messages, {"messages": [...]} or memfs.conversation/1'),
    (b"[" * 150 + b"]" * 150, "a.json", "JSON is nested more than 100 levels deep"),
    (b"[" * 100_000, "a.json", "JSON is nested more than 100 levels deep"),
])
def test_refusals(data: bytes, filename: str, expected: str) -> None:
    assert error_of(data, filename) == expected


def test_size_limit() -> None:
    assert error_of(b"a" * 2_530_000, "a.txt", max_bytes=2_000_000) == "file is 2.5 MB, over the 2.0 MB limit"
    assert error_of(b"a" * 25_300_000, "a.txt") == "file is 25.3 MB, over the 20.0 MB limit"


def test_bad_message_in_list_is_named() -> None:
    assert error_of(b'[{"role": "user", "content": "hi"}, 5]') == 'message 2: expected an object with "role" and "content"'


def test_nul_and_surrogates_from_json_escapes_are_cleaned() -> None:
    src = read_source(b'[{"role": "user", "content": "a\\u0000b \\ud800c"}]', "c.json")
    assert src.segments[0].text == "ab \ufffdc"


# -- properties ----------------------------------------------------------------------

FILENAMES = st.one_of(st.sampled_from(["a.json", "a.jsonl", "a.md", "a.txt", "a", ".md", "x.png"]), st.text(max_size=20))


def _accepts_or_refuses(data: bytes, filename: str) -> None:
    try:
        src = read_source(data, filename)
    except ReadError as exc:
        assert "internal reader error" not in str(exc), str(exc)
        assert "\n" not in str(exc)
        return
    assert isinstance(src, ParsedSource) and src.segments
    for seg in src.segments:
        assert "\x00" not in seg.text and seg.text == seg.text.strip() and seg.text
    assert len({s.anchor for s in src.segments}) == len(src.segments)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.one_of(st.binary(max_size=300), st.text(max_size=300).map(str.encode)), filename=FILENAMES)
def test_any_bytes_give_source_or_read_error(data: bytes, filename: str) -> None:
    _accepts_or_refuses(data, filename)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10)
    | st.sampled_from(["user", "assistant", "system", "2023-05-08", "1:56 pm on 8 May, 2023",
                       "memfs.conversation/1", "D1:1"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["role", "content", "name", "text", "type", "messages", "time", "timestamp",
                         "format", "sessions", "turns", "id", "speaker", "participants", "title", "x"]),
        children, max_size=5),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=JSON_VALUES, filename=FILENAMES)
def test_any_json_gives_source_or_read_error(value: object, filename: str) -> None:
    _accepts_or_refuses(json.dumps(value).encode(), filename)
