"""Shared fixtures: every test gets its own workspace in a temp dir."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from memfs.api import Memory
from memfs.config import load_config
from memfs.workspace import init_workspace

MEMFS = [sys.executable, "-m", "memfs.cli"]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.startswith("MEMFS_") or key in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
            monkeypatch.delenv(key, raising=False)


@pytest.fixture
def ws_path(tmp_path: Path) -> Path:
    return init_workspace(tmp_path / "mem", git=False).root


def hashing_memory(root: Path, **recall: object) -> Memory:
    """A Memory on the fast hashing embedder (tests that need meaning use minilm)."""
    config = load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"})
    for key, value in recall.items():
        setattr(config.recall, key, value)
    return Memory(root, config=config)


@pytest.fixture
def mem(ws_path: Path):  # type: ignore[no-untyped-def]
    m = hashing_memory(ws_path)
    yield m
    m.close()
