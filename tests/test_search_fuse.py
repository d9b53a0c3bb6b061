"""Fusion reads candidates' rows in fused order and stops once no unread candidate can beat
the k-th hit: the answer must be the one reading every candidate gives."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from memfs.core.itemline import render_item_line
from memfs.core.model import Item
from tests.support.workspace import hashing_memory

NAMES = ("Alice", "Bob", "Chloe", "Dev", "Emma", "Farid")
THINGS = ("green tea", "espresso", "chess", "cycling", "sourdough", "jazz", "hiking", "sushi")
TYPES = ("profile", "event", "behavior", "knowledge")


def _write(root: Path, n: int, seed: int) -> None:
    """n items with varied seen counts (1-40: the salience bound matters), dates, types and
    some superseded lines (one pointing at an id that does not exist: current again)."""
    rng = random.Random(seed)
    items = []
    for i in range(n):
        extra = {}
        if i % 17 == 5:
            extra["superseded_by"] = f"it{i + 1:05d}"
        elif i % 29 == 3:
            extra["superseded_by"] = "gone0000"
        items.append(Item(id=f"it{i:05d}", text=f"{rng.choice(NAMES)} mentioned {rng.choice(THINGS)} and "
                          f"{rng.choice(THINGS)} on occasion {i}.", type=rng.choice(TYPES),
                          seen=rng.choice((1, 1, 1, 2, 3, 8, 40)),
                          when=rng.choice((None, "2019", "2023-04", "2025-11-02")), extra=extra))
    body = "".join(render_item_line(it) + "\n" for it in items)
    (root / "memory" / "mixed.md").write_text(
        "---\ntitle: Mixed\nkind: memory\ndescription: test items\n---\n# Mixed\n\n" + body, encoding="utf-8")


@pytest.mark.parametrize("exact_max", [10**6, 0])
def test_early_stop_equals_reading_every_candidate(ws_path: Path, exact_max: int) -> None:
    _write(ws_path, 400, seed=3)
    mem = hashing_memory(ws_path, exact_search_max=exact_max, reinforcement_weight=0.5)
    try:
        mem.sync()
        rng = random.Random(9)
        queries = [f"{rng.choice(NAMES)} {rng.choice(THINGS)}" for _ in range(25)] + ["jazz", "occasion 7"]
        searcher = None
        for q in queries:
            for k, types in ((10, None), (3, None), (10, {"event"}), (50, {"profile", "behavior"})):
                runs = []
                for full in (True, False):
                    if searcher is not None:
                        searcher.full_fuse = full
                    res = mem.search(q, k=k, types=types)
                    searcher = mem.runtime.searcher
                    assert searcher is not None
                    if full and not searcher.full_fuse:  # the first call built the searcher: redo
                        searcher.full_fuse = True
                        res = mem.search(q, k=k, types=types)
                    runs.append([(h.row.id, h.score, h.bm25_rank, h.vector_rank) for h in res.hits])
                assert runs[0] == runs[1], (q, k, types)
                assert len(runs[0]) == min(k, len(runs[0])) and runs[0]
    finally:
        mem.close()


def test_early_stop_reads_fewer_rows(ws_path: Path) -> None:
    """The point of it: a top 3 reads a first batch of rows, not all ~200 candidates."""
    _write(ws_path, 400, seed=4)
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        mem.search("Alice jazz", k=3)
        searcher = mem.runtime.searcher
        assert searcher is not None
        traced: list[str] = []
        searcher.db.conn.set_trace_callback(traced.append)
        for full in (False, True):
            searcher.full_fuse = full
            traced.clear()
            mem.search("Alice jazz espresso", k=3)
            fetched = sum(s.split("IN (", 1)[1].count(",") + 1 for s in traced if "FROM items WHERE label IN" in s)
            if full:
                assert fetched >= 2 * few
            else:
                few = fetched
        searcher.db.conn.set_trace_callback(None)
    finally:
        mem.close()
