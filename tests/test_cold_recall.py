"""Cold recall (no daemon): the model loads on a thread started before the heavy imports,
built without constant folding (one query), and the answer is `Memory.recall`'s."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memfs import coldrecall
from memfs.api import Memory
from memfs.config import load_config
from memfs.providers.minilm import MiniLMEmbedder
from tests.support.cli import env as support_env

FACTS = ("Alice prefers green tea over coffee in the morning.", "Bob drinks espresso after lunch.",
         "Chloe plays chess on Sundays.", "On 2024-05-01 Alice moved to Lisbon.")


def test_one_shot_minilm_gives_the_folded_sessions_vectors() -> None:
    """Skipping constant folding changes how the weights are multiplied, not what: the
    vectors agree to float32 rounding, so cold and warm rank alike."""
    texts = ["what does Alice drink", "Bob drinks espresso after lunch.", "chess on Sundays"]
    folded = MiniLMEmbedder(threads=1).embed(texts)
    one = MiniLMEmbedder(threads=1, one_shot=True)
    quick = one.embed(texts)
    assert np.abs(folded - quick).max() < 1e-5
    assert one._session.get_session_options().get_session_config_entry(  # type: ignore[attr-defined]
        "optimization.disable_specified_optimizers") == "ConstantFolding"


def test_cold_minilm_answer_is_memory_recalls(ws_path: Path) -> None:
    """The default embedder end to end: the early-loaded one-shot model answers exactly
    what a `Memory` (folded session) answers."""
    mem = Memory(ws_path)
    try:
        for text in FACTS:
            mem.add(text)
        want = [h.model_dump() for h in mem.recall("what does Alice drink", k=3)]
    finally:
        mem.close()
    got = coldrecall.rows(str(ws_path), "what does Alice drink", 3)
    assert got == want
    assert any(h["text"].startswith("Alice prefers green tea") for h in got)


def test_peek_guesses_the_embedder_and_the_config_decides(ws_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert coldrecall._peek_embedder(ws_path) == (2, 64)
    monkeypatch.setenv("MEMFS_EMBEDDER_THREADS", "1")
    spec = coldrecall._peek_embedder(ws_path)
    assert spec == (1, 64)
    early = coldrecall._EarlyModel(spec, "tea")
    assert early.take(load_config(ws_path)) is not None  # the config agrees: used
    early.thread.join()
    monkeypatch.setenv("MEMFS_EMBEDDER_THREADS", "2")
    assert early.take(load_config(ws_path)) is None  # it does not: rows() builds its own
    monkeypatch.setenv("MEMFS_EMBEDDER_PROVIDER", "hashing")
    assert coldrecall._peek_embedder(ws_path) is None  # nothing to load early
    (ws_path / "memfs.toml").write_text("[embedder\n")
    assert coldrecall._peek_embedder(ws_path) is None  # bad TOML: no guess, no error here


def test_cold_recall_with_bad_embedder_setting_leaves_it_to_the_full_cli(ws_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    mem = Memory(ws_path, embedder=None)
    mem.close()
    monkeypatch.setenv("MEMFS_EMBEDDER_THREADS", "zero")
    assert coldrecall.rows(str(ws_path), "tea", None) is None


def test_cold_process_imports_no_writer_code(ws_path: Path) -> None:
    """A cold recall in a fresh process: none of the write path's parsers (yaml, mistune,
    frontmatter), not typer or the API, and not importlib.metadata (pydantic's plugin
    loader, stubbed while plugins are off)."""
    mem = Memory(ws_path, embedder=None)
    try:
        mem.add("Alice prefers green tea.")
    finally:
        mem.close()
    probe = ("import sys; from memfs import coldrecall; r = coldrecall.rows(sys.argv[1], 'tea', 2); "
             "print(len(r)); print(' '.join(sorted(sys.modules)))")
    env = support_env(embedder=None)
    env.pop("PYDANTIC_DISABLE_PLUGINS", None)
    out = subprocess.run([sys.executable, "-c", probe, str(ws_path)], env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    count, modules = out.stdout.split("\n", 1)
    assert count == "1"
    loaded = set(modules.split())
    for heavy in ("yaml", "mistune", "frontmatter", "typer", "memfs.api", "importlib.metadata",
                  "memfs.core.categoryfile", "concurrent.futures"):
        assert heavy not in loaded, heavy
    assert "onnxruntime" in loaded  # the default embedder was loaded (early, on its thread)
