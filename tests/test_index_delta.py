"""Issue #17 item 3: the index follows a spliced write from the lines it changed.

After every kind of write the store makes (add, reinforce, supersede, forget, an item
before others, a front-matter rewrite that moves every line), the index built from the
delta must equal, row for row, an index rebuilt from the Markdown alone; and the delta
must really have been used (or refused, when a person's save makes it wrong)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memfs.core.model import Item
from memfs.index import delta as delta_mod
from memfs.store import CategoryStore
from tests.conftest import hashing_memory

COLS = ('id, path, category, kind, type, text, "when", src, seen, updated, line, text_hash, context, until, '
        "superseded_by")
FILE_COLS = "path, size, mtime_ns, hash, kind, title, description, summary, updated, items, warnings, passages"


def _rows(mem):  # type: ignore[no-untyped-def]
    items = mem.indexer.db.conn.execute(f"SELECT {COLS} FROM items ORDER BY id").fetchall()
    files = mem.indexer.db.conn.execute(f"SELECT {FILE_COLS} FROM files ORDER BY path").fetchall()
    fts = mem.indexer.db.conn.execute(
        "SELECT i.id FROM items_fts f JOIN items i ON i.label = f.rowid WHERE items_fts MATCH 'delta' ORDER BY i.id"
    ).fetchall()
    passages = mem.indexer.db.conn.execute(
        "SELECT id, heading, text, line_start, line_end FROM passages ORDER BY id").fetchall()
    return items, [(f[0], f[1], *f[3:]) for f in files], fts, passages  # mtime: a copy's own


def _rebuilt(root: Path, tmp: Path):  # type: ignore[no-untyped-def]
    copy = tmp / f"copy{len(list(tmp.iterdir()))}"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".memfs"))
    other = hashing_memory(copy)
    try:
        other.indexer.sync(rebuild=True)
        rows = _rows(other)
    finally:
        other.close()
    return rows


@pytest.fixture
def used(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    calls: list[bool] = []
    real = delta_mod.apply_deltas

    def spy(indexer, only):  # type: ignore[no-untyped-def]
        got = real(indexer, only)
        calls.append(got is not None)
        return got

    monkeypatch.setattr(delta_mod, "apply_deltas", spy)
    return calls


def test_every_kind_of_spliced_write_indexes_as_a_rebuild_would(ws_path: Path, tmp_path: Path,
                                                                 used: list[bool]) -> None:
    rel = "memory/notes.md"
    body = "".join(f"- Delta fact {i} about the lake. <!-- id=d{i:04d} type=profile -->\n" for i in range(30))
    (ws_path / rel).write_text("---\ntitle: Notes\nitems: 30\nupdated: 2024-01-01\n---\n# Notes\n\n"
                               + body + "\n## Later\n\nA paragraph a person wrote.\n")
    mem = hashing_memory(ws_path)
    mem.sync()
    store = CategoryStore(mem.ws, mem.config)

    def bump(item_id: str, **update: object):  # type: ignore[no-untyped-def]
        def change(doc) -> None:  # type: ignore[no-untyped-def]
            slot = doc.find(item_id)
            slot.item = slot.item.model_copy(update=update)
        return change

    def drop(item_id: str):  # type: ignore[no-untyped-def]
        return lambda doc: doc.remove(item_id)

    changes = [
        lambda doc: doc.add(Item(id="n0001", text="Delta new fact one.", type="profile", src="x#1")),  # + front rewrite
        bump("d0003", seen=4),
        drop("d0010"),  # lines after it move up
        bump("d0020", extra={"until": "2025-01-01", "superseded_by": "n0001"}),
        bump("d0005", text="Delta fact five, reworded."),
        lambda doc: [doc.remove("d0001"), doc.add(Item(id="n0002", text="Delta new fact two.", type="profile"))],
    ]
    try:
        for change in changes:
            with mem.lock("test"):
                store.edit(rel, change)
                mem.indexer.sync(only=[rel])
            assert _rows(mem) == _rebuilt(ws_path, tmp_path)
        assert used == [True] * len(changes)
        # The Markdown holds exactly the expected lines: the person's prose is untouched.
        text = (ws_path / rel).read_text()
        assert text.endswith("\n## Later\n\nA paragraph a person wrote.\n")
        assert "items:" not in text and "d0010" not in text and "d0001" not in text
    finally:
        mem.close()


def test_a_save_between_the_write_and_the_index_update_falls_back_to_a_full_sync(
        ws_path: Path, tmp_path: Path, used: list[bool]) -> None:
    rel = "memory/notes.md"
    (ws_path / rel).write_text("# Notes\n\n- Delta one. <!-- id=a0001 type=profile -->\n")
    mem = hashing_memory(ws_path)
    mem.sync()
    try:
        with mem.lock("test"):
            CategoryStore(mem.ws, mem.config).edit(
                rel, lambda doc: doc.add(Item(id="a0002", text="Delta two.", type="profile")))
            path = ws_path / rel
            path.write_text(path.read_text() + "- Delta three, by a person.\n")
            mem.indexer.sync(only=[rel])
        assert used == [False]
        assert _rows(mem) == _rebuilt(ws_path, tmp_path)
        assert len(_rows(mem)[0]) == 3
    finally:
        mem.close()


def test_an_add_through_the_api_takes_the_delta_path(mem, used: list[bool]) -> None:  # type: ignore[no-untyped-def]
    mem.add("The delta path is used by add.", category="preferences")
    mem.add("A second delta fact.", category="preferences")  # the file exists now: spliced
    assert used[-1] is True
    assert {h.text for h in mem.recall("delta fact", k=5)} >= {"A second delta fact."}


def test_exact_duplicates_are_found_by_an_index_probe_not_a_scan(mem) -> None:  # type: ignore[no-untyped-def]
    mem.add("A fact to look up by its hash.", category="preferences")
    plan = " ".join(str(r) for r in mem.indexer.db.conn.execute(
        "EXPLAIN QUERY PLAN SELECT id, src FROM items WHERE text_hash=? LIMIT 1", ("x",)))
    assert "items_text_hash" in plan


def test_batched_near_duplicate_search_equals_one_search_per_fact(mem) -> None:  # type: ignore[no-untyped-def]
    import numpy as np

    from memfs.index.search import Searcher

    for i in range(12):
        mem.add(f"Delta neighbour fact number {i} about boats and {i * 3} lakes.", category="preferences")
    searcher = Searcher(mem.indexer.db, mem.embedder, mem.ws.state, mem.config.recall)
    vecs = mem.embedder.embed([f"boats and {i} lakes" for i in range(5)])
    batched = searcher.nearest(np.asarray(vecs), 3)
    count = mem.indexer.db.count_items()
    single = [searcher._dense(v, count, 3)[0] for v in vecs]
    # The same neighbours up to ties (a matrix product sums in another order than a
    # vector product, so equal scores may break differently): the same scores, and every
    # batched hit is a hit of the single search or ties with its last one.
    for row_b, row_s in zip(batched, single):
        floor = row_s[-1][1]
        assert all(lab in {x for x, _ in row_s} or abs(score - floor) < 1e-5 for lab, score in row_b)
    assert np.allclose([[s for _, s in row] for row in batched], [[s for _, s in row] for row in single], atol=1e-5)


def test_an_add_at_the_end_of_a_file_shifts_no_rows(ws_path: Path, tmp_path: Path, used: list[bool]) -> None:
    """Nothing lies past an append: the line-shift UPDATE scanned all of a 50,000-item file's
    rows for none (~6 ms of a one-shot add, issue #17 item 3)."""
    rel = "memory/notes.md"
    (ws_path / rel).write_text("# Notes\n\n" + "".join(
        f"- Delta fact {i} about the lake. <!-- id=d{i:04d} type=profile -->\n" for i in range(20)))
    mem = hashing_memory(ws_path)
    mem.sync()
    sql: list[str] = []
    try:
        for k in range(2):  # the first write also gives the file memfs's front-matter (all lines move)
            if k:
                mem.indexer.db.conn.set_trace_callback(sql.append)
            with mem.lock("test"):
                CategoryStore(mem.ws, mem.config).edit(rel, lambda doc: doc.add(Item(id=f"n000{k}", type="profile",
                                                                                     text=f"Delta new {k}.")))
                mem.indexer.sync(only=[rel])
        mem.indexer.db.conn.set_trace_callback(None)
        assert used == [True, True] and not [s for s in sql if s.lstrip().upper().startswith("UPDATE ITEMS SET LINE")]
        assert _rows(mem) == _rebuilt(ws_path, tmp_path)
    finally:
        mem.close()
