"""Shared fixtures: every test gets its own workspace in a temp dir; `fake` is the one fake
OpenAI-compatible server (tests/support/fake_openai.py). Helpers are imported from
tests/support/ (``from tests.support.<module> import ...``), never from other test files."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from memfs.api import Memory
from memfs.llm.client import ChatClient
from memfs.workspace import init_workspace
from tests.support.fake_openai import FakeOpenAI, make_client
from tests.support.workspace import hashing_memory

__all__ = ["hashing_memory"]  # still importable from here for tests written before tests/support/


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.startswith("MEMFS_") or key in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
            monkeypatch.delenv(key, raising=False)


@pytest.fixture
def ws_path(tmp_path: Path) -> Path:
    return init_workspace(tmp_path / "mem", git=False).root


@pytest.fixture
def mem(ws_path: Path) -> Iterator[Memory]:
    m = hashing_memory(ws_path)
    yield m
    m.close()


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    """A scripted fake OpenAI server on 127.0.0.1, stopped after the test."""
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def client(fake: FakeOpenAI) -> ChatClient:
    """memfs's chat client pointed at `fake` (fast retries)."""
    return make_client(fake)
