"""Small follow-ups of the views work: the derived summary's budget, forget's one sync, and the
one statement set both ways of indexing share (index/itemrows.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memfs.core.derived import SUMMARY_CHARS, extractive_summary
from memfs.core.model import Item
from memfs.errors import NotFoundError
from tests.support.workspace import hashing_memory


def test_a_long_first_item_keeps_the_summary_within_its_budget() -> None:
    long = Item(id="a1", text="x" * 400, type="knowledge")
    summary = extractive_summary([long])
    assert len(summary) == SUMMARY_CHARS and summary.endswith(".")
    short = [Item(id=f"b{i}", text=f"fact number {i} " * 3, type="knowledge") for i in range(40)]
    assert len(extractive_summary(short)) <= SUMMARY_CHARS


def test_forgetting_an_unknown_id_syncs_once(ws_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with hashing_memory(ws_path) as mem:
        mem.add("Priya prefers green tea.", category="memory/preferences")
        calls: list[object] = []
        indexer = mem.indexer
        real = indexer.sync
        monkeypatch.setattr(indexer, "sync", lambda *a, **k: calls.append(1) or real(*a, **k))
        with pytest.raises(NotFoundError):
            mem.forget("nosuchid")
        assert len(calls) == 1


def test_a_spliced_write_and_a_full_sync_write_the_same_rows(ws_path: Path) -> None:
    """Both paths go through index/itemrows.py: the rows after a delta equal a rebuild's."""
    import sqlite3

    def rows(root: Path) -> list[tuple]:  # type: ignore[type-arg]
        conn = sqlite3.connect(root / ".memfs" / "index.sqlite3")
        try:
            items = sorted(conn.execute('SELECT id, path, category, kind, type, text, "when", src, seen, updated, '
                                        "line, text_hash, until, superseded_by FROM items"))
            files = sorted(conn.execute("SELECT path, hash, kind, title, summary, updated, items FROM files"))
            return items + files
        finally:
            conn.close()

    with hashing_memory(ws_path) as mem:
        for k in range(5):
            mem.add(f"Fact {k} about the deploy pipeline.", category="index/knowledge")
        first = mem.add("Fact 0 about the deploy pipeline.", category="index/knowledge")  # reinforced
        assert first.seen == 2
        spliced = rows(ws_path)
        mem.sync(rebuild=True)
        assert rows(ws_path) == spliced
