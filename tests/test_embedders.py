"""Embedders: hashing determinism, the packaged MiniLM offline, an OpenAI-compatible server."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memfs.config import EmbedderConfig
from memfs.providers.hashing import HashingEmbedder
from memfs.providers.minilm import MiniLMEmbedder, verify_files
from memfs.providers.openai_embed import OpenAIEmbedder
from tests.support.fake_openai import FakeOpenAI


def test_hashing_is_deterministic_and_normalised() -> None:
    e = HashingEmbedder(256)
    a = e.embed(["the quick brown fox", "", "the quick brown fox"])
    assert a.shape == (3, 256) and np.allclose(a[0], a[2])
    assert np.isclose(np.linalg.norm(a[0]), 1.0)
    assert np.allclose(HashingEmbedder(256).embed(["the quick brown fox"])[0], a[0])


def test_minilm_loads_offline_and_knows_tea_is_a_drink() -> None:
    verify_files()
    e = MiniLMEmbedder(threads=1)
    docs = ["Alice prefers green tea over coffee in the morning.",
            "The staging database runs PostgreSQL 16 on port 5433.",
            "Bob repaired the garden fence last weekend."]
    d = e.embed(docs)
    q = e.embed(["what does Alice drink"])[0]
    assert d.shape == (3, 384) and int(np.argmax(d @ q)) == 0
    # Batching and order do not change a vector.
    again = e.embed(list(reversed(docs)))
    assert np.allclose(again[::-1], d, atol=1e-5)


def test_openai_compatible_embedder_against_a_local_server(fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    monkeypatch.setenv("MY_KEY", "sk-test-secret")
    cfg = EmbedderConfig(provider="openai", base_url=fake.url, model="m1", api_key_env="MY_KEY", batch_size=2)
    e = OpenAIEmbedder(cfg)
    out = e.embed(["a", "bbb", "cc"])
    assert out.shape == (3, 3) and e.dim == 3 and e.name == "openai:m1"
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0)
    calls = fake.requests
    assert [c["path"] for c in calls[-2:]] == ["/v1/embeddings"] * 2  # batched by 2
    assert calls[-1]["auth"] == "Bearer sk-test-secret"


def test_openai_embedder_goes_through_usage_and_budget(fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    """The one OpenAI client: embedding calls are counted (step `embed`) and a spent budget
    stops them before a request is sent."""
    from memfs.errors import MemfsError
    from memfs.llm.usage import Budget

    monkeypatch.setenv("MY_KEY", "sk-test-secret")
    cfg = EmbedderConfig(provider="openai", base_url=fake.url, model="m1", api_key_env="MY_KEY", batch_size=2)
    e = OpenAIEmbedder(cfg)
    e.embed(["a", "bbb", "cc"])
    assert e.usage.steps["embed"].calls == 2 and e.usage.total_tokens > 0
    before = len(fake.requests)
    spent = OpenAIEmbedder(cfg, budget=Budget(limit_tokens=1, used_tokens=1))
    with pytest.raises(MemfsError, match="budget"):
        spent.embed(["a"])
    assert len(fake.requests) == before  # refused before any request


def test_openai_embedder_usage_is_saved_with_the_workspace(fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch,
                                                         ws_path: Path) -> None:
    from memfs.api import Memory
    from memfs.config import load_config
    from memfs.llm.runtime import load_usage

    monkeypatch.setenv("MY_KEY", "sk-test-secret")
    config = load_config(ws_path, environ={})
    config.embedder = EmbedderConfig(provider="openai", base_url=fake.url, model="m1", api_key_env="MY_KEY")
    with Memory(ws_path, config=config) as mem:
        mem.embedder.embed(["hello"])
    assert load_usage(ws_path / ".memfs").steps["embed"].calls == 1
