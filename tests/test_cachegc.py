"""The embedding cache drops the vectors of edited-away lines once enough lines changed.

Before: a sync never dropped a cached vector (only `forget` did), so every edit, every
removed note and every compared-only fact left its vector behind for good."""

from __future__ import annotations

from pathlib import Path

import pytest

from memfs.categorize import spec_texts
from memfs.core.hashing import text_hash
from memfs.services import cachegc
from memfs.workspace import init_workspace
from tests.support.workspace import hashing_memory


def _cached(mem) -> set[str]:  # type: ignore[no-untyped-def]
    return {h for (h,) in mem.indexer.db.conn.execute("SELECT text_hash FROM embeddings")}


def _note(i: int, word: str) -> str:
    return "".join(f"- {word} fact number {i}-{j} about the harbour.\n" for j in range(10))


def test_a_sync_drops_edited_away_vectors_once_the_churn_is_due(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cachegc, "MIN_CHURN", 30)
    root = init_workspace(tmp_path / "w", git=False).root
    notes = root / "index" / "notes"
    notes.mkdir()
    for i in range(6):
        (notes / f"n{i}.md").write_text(_note(i, "old"))
    with hashing_memory(root) as mem:
        mem.sync()
        mem.warm_up()
        keep = {text_hash(t) for t in spec_texts(mem.runtime.category_specs())}
        old = _cached(mem) - keep
        assert len(old) >= 60
        # 20 lines edited: below the churn that is worth a scan, nothing dropped yet.
        for i in range(2):
            (notes / f"n{i}.md").write_text(_note(i, "new"))
        report = mem.sync()
        assert report.vectors_dropped == 0 and old <= _cached(mem)
        # 20 more: 40 >= 30, so the vectors no line uses go, the descriptions' stay.
        for i in range(2, 4):
            (notes / f"n{i}.md").write_text(_note(i, "new"))
        report = mem.sync()
        assert report.vectors_dropped == 40
        used = {h for (h,) in mem.indexer.db.conn.execute("SELECT text_hash FROM items")}
        assert _cached(mem) >= used | keep
        assert not (_cached(mem) - used - keep)
        assert mem.indexer.db.get_meta(cachegc.CHURN_KEY) == "0"
        hits = mem.recall("new fact number 3-4 harbour", k=3)
        assert hits and hits[0].text.startswith("new fact number")  # the kept vectors still serve


def test_below_the_share_of_a_big_index_nothing_is_scanned(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cachegc, "MIN_CHURN", 5)
    monkeypatch.setattr(cachegc, "SHARE", 0.6)  # 60 % of the index must change
    root = init_workspace(tmp_path / "w", git=False).root
    (root / "index" / "a.md").write_text(_note(0, "old") + _note(1, "old"))
    with hashing_memory(root) as mem:
        mem.sync()
        (root / "index" / "a.md").write_text(_note(0, "new") + _note(1, "old"))
        assert mem.sync().vectors_dropped == 0  # 10 of 20 rows churned: not yet 60 %
        assert int(mem.indexer.db.get_meta(cachegc.CHURN_KEY) or 0) == 10
