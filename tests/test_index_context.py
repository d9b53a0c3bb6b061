"""Search context for an item (memfs/index/context.py): the turn before its source turn and
its date as words, read from the real resource file under resources/."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memfs.index.context import CONTEXT_CHARS, ContextResolver, date_words

CHAT = {"messages": [
    {"role": "user", "name": "Ana", "content": "Who performed at the concert?"},
    {"role": "assistant", "content": "It was Matt Patterson, he is so talented!"},
    {"role": "user", "name": "Ana", "content": "x" * (CONTEXT_CHARS + 100)},
]}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "resources" / "2022").mkdir(parents=True)
    (tmp_path / "resources" / "2022" / "chat.json").write_text(json.dumps(CHAT))
    return tmp_path


@pytest.mark.parametrize("when, words", [
    ("2022-07-10", "10 July 2022"), ("2022-07", "July 2022"), ("2022", "2022"),
    (None, ""), ("", ""), ("2022-13-01", ""), ("2022-xx", ""),
])
def test_date_words(when: str | None, words: str) -> None:
    assert date_words(when) == words


def test_context_is_the_turn_before_plus_this_turn_and_the_date(root: Path) -> None:
    r = ContextResolver(root)
    ctx = r.context("resources/2022/chat.json#m2", "2022-07-10")
    assert ctx == ("10 July 2022 Ana: Who performed at the concert? "
                   "assistant: It was Matt Patterson, he is so talented!")
    assert r.context("resources/2022/chat.json#m1", None) == "Ana: Who performed at the concert?"
    assert r.passage("resources/2022/chat.json#m2") == "assistant: It was Matt Patterson, he is so talented!"


def test_long_turns_are_cut_in_the_context_but_not_in_the_passage(root: Path) -> None:
    r = ContextResolver(root)
    ctx = r.context("resources/2022/chat.json#m3", None)
    assert ctx.startswith("assistant: It was Matt") and ctx.endswith("x")
    assert len(ctx) <= 2 * CONTEXT_CHARS + 1
    assert r.passage("resources/2022/chat.json#m3") == "Ana: " + "x" * (CONTEXT_CHARS + 100)


def test_no_context_for_a_missing_resource_or_an_unknown_anchor(root: Path) -> None:
    r = ContextResolver(root)
    for src in ("resources/missing.json#m2", "resources/2022/chat.json#m99"):
        assert r.context(src, "2022-07") == "July 2022", src
        assert r.passage(src) is None, src
    assert r.context(None, None) == "" and r.context("resources/2022/chat.json", "2022") == "2022"
    assert r.passage("no-anchor") is None


def test_no_context_outside_resources(root: Path) -> None:
    """A src a person wrote by hand (memory/..., ../, a symlink) is never read as a resource."""
    (root / "memory").mkdir()
    (root / "memory" / "chat.json").write_text(json.dumps(CHAT))
    (root / "outside.json").write_text(json.dumps(CHAT))
    os.symlink(root / "outside.json", root / "resources" / "link.json")
    r = ContextResolver(root)
    for src in ("memory/chat.json#m2", "resources/../outside.json#m2", "resources/link.json#m2"):
        assert r.context(src, "2022-07") == "July 2022", src
        assert r.passage(src) is None, src


def test_each_resource_is_read_once_per_resolver(root: Path) -> None:
    r = ContextResolver(root)
    assert r.passage("resources/2022/chat.json#m1")
    (root / "resources" / "2022" / "chat.json").unlink()
    assert r.passage("resources/2022/chat.json#m2")  # served from this resolver's cache
    assert ContextResolver(root).passage("resources/2022/chat.json#m2") is None  # a new sync reads again
