"""The query path's stages: the dense search beside BM25 on the worker, and what a
Searcher keeps between queries (the vector count, BM25 hits) until the database changes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memfs.errors import MemfsError
from tests.support.workspace import hashing_memory

FACTS = ("Alice prefers green tea over coffee in the morning.", "Bob drinks espresso after lunch.",
         "Chloe plays chess on Sundays.", "Dev cycles to work along the river.", "Emma bakes sourdough bread.")


def _traced(searcher) -> list[str]:  # type: ignore[no-untyped-def]
    seen: list[str] = []
    searcher.db.conn.set_trace_callback(seen.append)
    return seen


def _labels(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [h.row.id for h in result.hits]


@pytest.mark.parametrize("exact_max", [10**6, 0])  # exact matrix, hnsw sidecar (+ pending vectors)
def test_worker_and_inline_dense_search_agree(ws_path: Path, exact_max: int) -> None:
    """A new query embeds and searches vectors on the worker; the same query again (its
    vector cached) does it inline: the same hits, scores and mode."""
    mem = hashing_memory(ws_path, exact_search_max=exact_max)
    try:
        for text in FACTS:
            mem.add(text)
        first = mem.search("what does Alice drink", k=5)
        searcher = mem.runtime.searcher
        assert searcher is not None and "embed" in first.timings_ms  # embedded on the worker
        searcher._bm_cache.clear()
        again = mem.search("what does Alice drink", k=5)
        assert "embed" not in again.timings_ms  # the cached vector: no worker
        assert _labels(first) == _labels(again) and first.mode == again.mode
        assert [h.score for h in first.hits] == [h.score for h in again.hits]
        assert first.mode == ("exact" if exact_max else "hnsw")
    finally:
        mem.close()


def test_count_and_bm25_are_kept_until_the_database_changes(ws_path: Path) -> None:
    mem = hashing_memory(ws_path)
    try:
        for text in FACTS[:3]:
            mem.add(text)
        mem.search("green tea", k=3)
        sql = _traced(mem.runtime.searcher)
        mem.search("green tea", k=3)
        assert not [s for s in sql if "count(*)" in s or "bm25(" in s], sql  # both kept
        mem.search("chess", k=3)
        assert [s for s in sql if "bm25(items_fts" in s] and not [s for s in sql if "count(*)" in s]
        mem.add("Farid drinks green tea with mint.")  # another connection commits
        sql.clear()
        hits = mem.search("green tea", k=5).hits
        assert [s for s in sql if "count(*)" in s] and [s for s in sql if "bm25(items_fts" in s]
        assert any(h.row.text.startswith("Farid drinks green tea") for h in hits)
    finally:
        mem.close()


def test_a_rewording_with_the_same_content_words_reuses_the_bm25_hits(ws_path: Path) -> None:
    """BM25 is keyed by the FTS5 expression: case, punctuation and stopwords do not count."""
    mem = hashing_memory(ws_path)
    try:
        for text in FACTS:
            mem.add(text)
        first = mem.search("What does Alice drink?", k=5)
        sql = _traced(mem.runtime.searcher)
        again = mem.search("alice DRINK", k=5)
        assert not [s for s in sql if "bm25(" in s], sql
        assert {h.row.id: h.bm25_rank for h in first.hits if h.bm25_rank} == \
            {h.row.id: h.bm25_rank for h in again.hits if h.bm25_rank}
        mem.search("Alice tea", k=5)
        assert [s for s in sql if "bm25(items_fts" in s]  # other words: searched
    finally:
        mem.close()


class _Failing:
    name = "hashing-1024"
    dim = 1024

    def __init__(self, inner) -> None:  # type: ignore[no-untyped-def]
        self.inner = inner
        self.fail = True

    def embed(self, texts: list[str]) -> np.ndarray:
        if self.fail:
            raise MemfsError("embedding server down")
        return self.inner.embed(texts)


def test_an_embedding_error_on_the_worker_is_the_queries_error(ws_path: Path) -> None:
    """The worker's failure reaches the caller (not a hang, not an empty vector stage), and
    the next query works."""
    mem = hashing_memory(ws_path)
    try:
        mem.add(FACTS[0])
        searcher_embedder = mem.search("tea", k=1) and mem.runtime.searcher.embedder
        failing = _Failing(searcher_embedder.inner)
        searcher_embedder.inner = failing
        with pytest.raises(MemfsError, match="embedding server down"):
            mem.search("what does Alice drink", k=1)
        failing.fail = False
        assert _labels(mem.search("what does Alice drink", k=1))
    finally:
        mem.close()


def test_warm_server_shortens_the_gil_switch_interval(ws_path: Path) -> None:
    """Serving recall beside a busy ingest thread: the daemon asks for the GIL back within
    0.5 ms, not Python's 5 ms (the figure is in docs/decisions.md, not timed here)."""
    import sys

    from memfs import warm

    before = sys.getswitchinterval()
    mem = hashing_memory(ws_path)
    mem.add(FACTS[0])
    server = warm.WarmServer(mem)
    try:
        sys.setswitchinterval(0.005)
        server.start()
        assert sys.getswitchinterval() == pytest.approx(warm.SWITCH_INTERVAL)
    finally:
        server.stop()
        mem.close()
        sys.setswitchinterval(before)
