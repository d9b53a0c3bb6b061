"""The postings sidecar through the real sync and search: built past MIN_ROWS, kept while
the change log is small (rows since its snapshot scored from the log), rebuilt when the log
grows or the file is damaged, dropped below MIN_ROWS; answers equal FTS5's path."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import memfs.index.search as search_mod
from memfs.core.itemline import render_item_line
from memfs.core.model import Item
from memfs.index import postings, postings_sync
from tests.support.workspace import hashing_memory

NAMES = ("Alice", "Bob", "Chloe", "Dev", "Emma", "Farid")
THINGS = ("green tea", "espresso", "chess", "cycling", "sourdough", "jazz", "hiking", "sushi")


def _write(root: Path, n: int, seed: int, name: str = "mixed") -> None:
    rng = random.Random(seed)
    items = [Item(id=f"{name[:2]}{i:05d}", text=f"{rng.choice(NAMES)} likes {rng.choice(THINGS)} and "
                  f"{rng.choice(THINGS)} {'a lot' * rng.randint(0, 2)} ({i}).") for i in range(n)]
    (root / "memory" / f"{name}.md").write_text(
        "---\ntitle: Mixed\nkind: memory\ndescription: test items\n---\n# Mixed\n\n"
        + "".join(render_item_line(it) + "\n" for it in items), encoding="utf-8")


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postings_sync, "MIN_ROWS", 50)
    monkeypatch.setattr(postings_sync, "REBUILD_MIN", 30)


def _answers(mem, queries: list[str], fast: bool) -> list[list[tuple]]:  # type: ignore[no-untyped-def, type-arg]
    if mem.runtime.searcher is None:
        mem.search("warm")
    searcher = mem.runtime.searcher
    searcher.fast_bm25 = fast
    searcher._bm_cache.clear()  # noqa: SLF001
    out = []
    for q in queries:
        res = mem.search(q, k=20)
        out.append([(h.row.id, h.score, h.bm25_rank, h.vector_rank) for h in res.hits])
    return out


def _meta(mem, key: str) -> str | None:  # type: ignore[no-untyped-def]
    return mem.runtime.indexer.db.get_meta(key)


def test_built_kept_rebuilt_and_searched_like_fts5(ws_path: Path, small: None,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _write(ws_path, 120, seed=1)
    mem = hashing_memory(ws_path)
    rng = random.Random(4)
    queries = [f"{rng.choice(NAMES)} {rng.choice(THINGS)}" for _ in range(15)] + ["a lot", "jazz"]
    try:
        mem.sync()
        state = ws_path / ".memfs"
        assert (state / postings.FILE_NAME).is_file()
        gen = _meta(mem, "bm25_generation")
        assert gen and gen != "0"
        slow = _answers(mem, queries, fast=False)

        def no_fts(*a, **k):  # type: ignore[no-untyped-def]
            raise AssertionError("FTS5 was asked although the sidecar can answer")
        with monkeypatch.context() as m:
            m.setattr(search_mod, "bm25_items", no_fts)
            assert _answers(mem, queries, fast=True) == slow

        # A few rows more: the sidecar stays, the log covers them, answers still FTS5's.
        _write(ws_path, 10, seed=2, name="extra")
        mem.sync()
        assert _meta(mem, "bm25_generation") == gen and postings_sync.pending(mem.runtime.indexer.db) == 10
        slow = _answers(mem, queries, fast=False)
        with monkeypatch.context() as m:
            m.setattr(search_mod, "bm25_items", no_fts)
            assert _answers(mem, queries, fast=True) == slow

        # Past REBUILD_MIN changed rows: rebuilt, log trimmed.
        _write(ws_path, 40, seed=3, name="more")
        mem.sync()
        assert _meta(mem, "bm25_generation") != gen and postings_sync.pending(mem.runtime.indexer.db) == 0
        assert _answers(mem, queries, fast=True) == _answers(mem, queries, fast=False)
    finally:
        mem.close()


def test_a_damaged_file_is_ignored_then_rebuilt_by_the_next_sync(ws_path: Path, small: None) -> None:
    _write(ws_path, 120, seed=5)
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        path = ws_path / ".memfs" / postings.FILE_NAME
        gen = _meta(mem, "bm25_generation")
        path.write_bytes(path.read_bytes()[:-100])  # truncated
        fresh = hashing_memory(ws_path)  # a new process: maps the file and finds it short
        try:
            assert _answers(fresh, ["Alice jazz"], fast=True) == _answers(fresh, ["Alice jazz"], fast=False)
            assert fresh.runtime.searcher._fast._view is None  # noqa: SLF001  (FTS5 answered)
        finally:
            fresh.close()
        mem.sync()
        assert _meta(mem, "bm25_generation") != gen
        postings.load(ws_path / ".memfs")  # sound again
    finally:
        mem.close()


def test_below_min_rows_there_is_no_sidecar_and_no_log(ws_path: Path, small: None) -> None:
    _write(ws_path, 120, seed=6)
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        assert (ws_path / ".memfs" / postings.FILE_NAME).is_file()
        _write(ws_path, 20, seed=6)  # the file now holds 20 items: below MIN_ROWS
        mem.sync()
        db = mem.runtime.indexer.db
        assert not (ws_path / ".memfs" / postings.FILE_NAME).exists()
        assert _meta(mem, "bm25_generation") == "0"
        assert db.conn.execute("SELECT count(*) FROM bm25_changed").fetchone()[0] == 0
        assert _answers(mem, ["Alice jazz"], fast=True)[0]
    finally:
        mem.close()


def test_a_purge_leaves_no_word_of_the_deleted_rows_in_the_sidecar(ws_path: Path, small: None) -> None:
    from memfs.index import repository

    _write(ws_path, 120, seed=7)
    (ws_path / "memory" / "secret.md").write_text(
        "---\ntitle: S\nkind: memory\ndescription: s\n---\n# S\n\n"
        + render_item_line(Item(id="zz00001", text="The zorbquux codename is private")) + "\n", encoding="utf-8")
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        path = ws_path / ".memfs" / postings.FILE_NAME
        assert b"zorbquux" in path.read_bytes()
        (ws_path / "memory" / "secret.md").unlink()
        mem.sync()
        db = mem.runtime.indexer.db
        repository.scrub_deleted(db)
        postings_sync.scrub(db, ws_path / ".memfs")
        assert path.is_file() and b"zorbquux" not in path.read_bytes()
        assert _answers(mem, ["zorbquux codename"], fast=True) == _answers(mem, ["zorbquux codename"], fast=False)
    finally:
        mem.close()


def test_spliced_writes_count_towards_a_rebuild(ws_path: Path, small: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's spliced writes index through `apply_deltas` (not the full sync): their
    logged rows must still trigger the rebuild, or the log would only grow."""
    from memfs.index import delta as delta_mod
    from memfs.store import CategoryStore

    monkeypatch.setattr(postings_sync, "REBUILD_MIN", 5)
    used: list[bool] = []
    real = delta_mod.apply_deltas
    monkeypatch.setattr(delta_mod, "apply_deltas", lambda ix, only: used.append(True) or real(ix, only))
    _write(ws_path, 120, seed=8)
    mem = hashing_memory(ws_path)
    store = CategoryStore(mem.ws, mem.config)
    rel = "memory/mixed.md"
    try:
        mem.sync()
        gen = _meta(mem, "bm25_generation")

        def add(i: int) -> None:
            item = Item(id=f"sp{i:05d}", text=f"Chloe adopted a kestrel named Pip number {i}")
            with mem.lock("test"):
                store.edit(rel, lambda doc: doc.add(item))
                mem.indexer.sync(only=[rel])
        for i in range(4):
            add(i)
        assert used and _meta(mem, "bm25_generation") == gen  # 4 logged rows: kept, the log covers them
        assert _answers(mem, ["kestrel Pip"], fast=True) == _answers(mem, ["kestrel Pip"], fast=False)
        for i in range(4, 8):
            add(i)
        assert _meta(mem, "bm25_generation") != gen  # past REBUILD_MIN: rebuilt after a spliced write
        assert postings_sync.pending(mem.runtime.indexer.db) < 5  # the log trimmed then
        assert _answers(mem, ["kestrel Pip"], fast=True) == _answers(mem, ["kestrel Pip"], fast=False)
    finally:
        mem.close()
