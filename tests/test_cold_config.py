"""A cold recall reads `[embedder]`/`[recall]` from the snapshot a validating process saved
(memfs.configsnap) instead of importing pydantic, and only while nothing it depends on
changed; the tokenizer loads from the vocabulary file and tokenizes as the JSON does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memfs import configsnap, workspace
from memfs.api import Memory
from memfs.config import load_config
from memfs.index.present import DEFAULT_WINDOW, is_present_query
from memfs.index.timefilter import TimeFilter
from memfs.index.timefilter import is_present_query as tf_present
from tests.support.cli import MEMFS
from tests.support.cli import env as support_env

PROBE = ("import json, sys; from memfs import coldrecall; r = coldrecall.rows(sys.argv[1], 'tea', None); "
         "print(json.dumps([None if r is None else len(r), 'pydantic' in sys.modules]))")


def _cold(ws: Path, **extra: str) -> tuple[int | None, bool]:
    """(hits, pydantic imported?) of `coldrecall.rows` in a fresh process (hashing embedder)."""
    out = subprocess.run([sys.executable, "-c", PROBE, str(ws)], env=support_env(**extra), capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    hits, pyd = json.loads(out.stdout.strip().splitlines()[-1])
    return hits, pyd


@pytest.fixture
def tea_ws(ws_path: Path) -> Path:
    mem = Memory(ws_path, embedder=None)
    try:
        for i in range(12):
            mem.add(f"Alice drinks green tea number {i}.")
    finally:
        mem.close()
    return ws_path


def test_second_cold_recall_skips_pydantic_and_answers_alike(tea_ws: Path) -> None:
    assert not (tea_ws / ".memfs" / configsnap.SNAPSHOT_NAME).exists()
    assert _cold(tea_ws) == (10, True)  # validated, then saved
    assert (tea_ws / ".memfs" / configsnap.SNAPSHOT_NAME).is_file()
    assert _cold(tea_ws) == (10, False)  # the snapshot: same answer, no pydantic


def test_an_edit_or_override_makes_the_snapshot_stale(tea_ws: Path) -> None:
    _cold(tea_ws)
    toml = tea_ws / "memfs.toml"
    toml.write_text(toml.read_text() + "\n")  # any byte of memfs.toml counts
    assert _cold(tea_ws) == (10, True)
    text = toml.read_text().replace("top_k = 10", "top_k = 3", 1)
    assert text != toml.read_text()
    toml.write_text(text)
    assert _cold(tea_ws) == (3, True)
    assert _cold(tea_ws) == (3, False)
    assert _cold(tea_ws, MEMFS_RECALL_TOP_K="5") == (5, True)  # the environment is in the key
    assert _cold(tea_ws, MEMFS_RECALL_TOP_K="5") == (5, False)
    assert _cold(tea_ws, MEMFS_RECALL_TOP_K="zero") == (None, True)  # bad override: the full CLI reports it


def test_broken_config_after_a_snapshot_is_reported_by_the_cli(tea_ws: Path) -> None:
    _cold(tea_ws)
    (tea_ws / "memfs.toml").write_text((tea_ws / "memfs.toml").read_text() + "\n[recall]\nbogus = 1\n")
    out = subprocess.run(MEMFS[:1] + ["-m", "memfs.console", "recall", "tea"], cwd=tea_ws, env=support_env(),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "memfs.toml" in out.stderr and len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("junk", ["", "{", "[]", '{"format": 1, "key": "x"}'])
def test_damaged_or_foreign_snapshot_is_ignored(tea_ws: Path, junk: str) -> None:
    path = tea_ws / ".memfs" / configsnap.SNAPSHOT_NAME
    path.write_text(junk)
    assert configsnap.read_snapshot(str(tea_ws)) is None
    assert _cold(tea_ws) == (10, True)
    assert _cold(tea_ws) == (10, False)  # replaced by a good one


def test_snapshot_holds_the_validated_sections_and_no_secret(tea_ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("MEMFS_RECALL_CANDIDATES", "77")
    config = load_config(tea_ws)
    configsnap.write_snapshot(str(tea_ws), config, configsnap.snapshot_key(str(tea_ws)))
    raw = (tea_ws / ".memfs" / configsnap.SNAPSHOT_NAME).read_text()
    assert "sk-secret" not in raw and "77" in raw
    snap = configsnap.read_snapshot(str(tea_ws))
    assert snap is not None
    assert vars(snap.recall) == config.recall.model_dump() and vars(snap.embedder) == config.embedder.model_dump()
    monkeypatch.setenv("MEMFS_RECALL_CANDIDATES", "78")
    assert configsnap.read_snapshot(str(tea_ws)) is None
    assert configsnap.CONFIG_NAME == workspace.CONFIG_NAME


def test_default_window_answers_as_timefilter() -> None:
    ref = TimeFilter()
    for when in (None, "2024", "2024-05-01"):
        for until in (None, "2025"):
            for sup in (None, "abc12345"):
                assert DEFAULT_WINDOW.keep(when, until, sup) == ref.keep(when, until, sup)
    for name in ("since", "until", "as_of", "history", "active"):
        assert getattr(DEFAULT_WINDOW, name) == getattr(ref, name)
    assert tf_present is is_present_query and is_present_query("where does Priya live now")


def test_search_module_imports_no_pydantic() -> None:
    probe = "import sys, memfs.index.search, memfs.configsnap; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], env=support_env(), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_vocab_tokenizer_is_the_json_tokenizer() -> None:
    from tokenizers import Tokenizer

    from memfs.providers.minilm import MAX_TOKENS, TOKENIZER_PATH
    from memfs.providers.minilm_tokenizer import VOCAB_PATH, load_tokenizer

    spec = json.loads(TOKENIZER_PATH.read_text(encoding="utf-8"))
    vocab = VOCAB_PATH.read_text(encoding="utf-8").split("\n")[:-1]
    assert {t: i for i, t in enumerate(vocab)} == spec["model"]["vocab"]
    ref = Tokenizer.from_file(str(TOKENIZER_PATH))
    ref.enable_truncation(max_length=MAX_TOKENS)
    ref.enable_padding(pad_id=0, pad_token="[PAD]")
    tok = load_tokenizer(MAX_TOKENS)
    texts = ["What does Alice drink?", "", "  tabs\tand\nnewlines ", "Héllo wörld naïve café 東京 🎉",
             "[CLS] [SEP] [PAD] [MASK] [UNK] hi", "don't CAN'T e-mail C++ ﬁ", "x" * 150 + " tail",
             " ".join(["tea"] * 400), "Zoë moved to São Paulo in 2024; she'd loved Reykjavík."]
    for text in texts:
        a, b = tok.encode(text), ref.encode(text)
        assert (a.ids, a.attention_mask, a.type_ids) == (b.ids, b.attention_mask, b.type_ids), text
    batch_a, batch_b = tok.encode_batch(texts), ref.encode_batch(texts)
    assert [e.ids for e in batch_a] == [e.ids for e in batch_b]
    pair_a, pair_b = tok.encode("a question", "an answer"), ref.encode("a question", "an answer")
    assert (pair_a.ids, pair_a.type_ids) == (pair_b.ids, pair_b.type_ids)
