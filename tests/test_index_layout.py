"""Index size, fourth pass (issue #18 item 6): schema 7 drops the unused items_recent index
and narrows items_seen; the hnsw sidecar's graph arrays are saved narrowed (graph/4). An
existing index and sidecar convert in place, nothing is embedded, and searches are the same."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np

from memfs.index import graphpack
from memfs.index.db import SCHEMA_VERSION, IndexDB
from memfs.index.hnswfile import FORMAT, HNSW_FILE, HNSW_META, freeze
from memfs.index.sidecar import HnswSidecar
from tests.support.cli import env, run
from tests.support.workspace import hashing_memory


def _notes(root: Path, files: int, per_file: int) -> None:
    for f in range(files):
        lines = "".join(f"- Fact {f}-{i} about topic{f % 7} and thing{i}. <!-- id=f{f:04d}i{i:03d} type=knowledge -->\n"
                        for i in range(per_file))
        (root / "index" / f"t{f:04d}.md").write_text(f"# T{f}\n\nA paragraph of prose about kestrel {f}.\n\n{lines}")


def _unit(n: int, dim: int, seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1)[:, None]


def _indexes(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    finally:
        conn.close()


def _as_schema_6(path: Path) -> None:
    """Give an index the layout schema 6 had: the two indexes back, items_seen_max gone."""
    conn = sqlite3.connect(path)
    conn.execute("DROP INDEX items_seen_max")
    conn.execute("CREATE INDEX items_seen ON items(seen DESC, id)")
    conn.execute("CREATE INDEX items_recent ON items(COALESCE(updated, \"when\", '') DESC, id)")
    conn.execute("UPDATE meta SET value='6' WHERE key='schema'")
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES('compacted', '1')")
    conn.commit()
    conn.close()


def test_a_schema_6_index_is_converted_in_place(ws_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    _notes(ws_path, 6, 5)
    with hashing_memory(ws_path) as mem:
        mem.sync()
    path = ws_path / ".memfs" / "index.sqlite3"
    _as_schema_6(path)
    conn = sqlite3.connect(path)
    before = conn.execute("SELECT label, id, text_hash FROM items ORDER BY label").fetchall()
    cached = conn.execute("SELECT count(*) FROM embeddings").fetchone()[0]
    conn.close()
    capsys.readouterr()
    db = IndexDB(path)
    try:
        assert db.get_meta("schema") == SCHEMA_VERSION == "7"
        assert db.get_meta("compacted") is None  # the next sync repacks the file once
        assert db.conn.execute("SELECT label, id, text_hash FROM items ORDER BY label").fetchall() == before
        assert db.conn.execute("SELECT count(*) FROM embeddings").fetchone()[0] == cached
    finally:
        db.close()
    assert "rebuilding" not in capsys.readouterr().err  # converted, not rebuilt from the Markdown
    names = _indexes(path)
    assert "items_seen_max" in names and not names & {"items_seen", "items_recent"}
    with hashing_memory(ws_path) as mem:
        report = mem.sync()
        assert report.embedded == 0
        hit = mem.search("Fact 3-2 about topic3 and thing2", k=3).hits[0]
        assert hit.row.id == "f0003i002"


def test_a_new_index_has_only_the_narrow_seen_index_and_recall_uses_it(ws_path: Path) -> None:
    _notes(ws_path, 3, 4)
    with hashing_memory(ws_path) as mem:
        mem.sync()
        plan = mem.indexer.db.conn.execute("EXPLAIN QUERY PLAN SELECT max(seen) FROM items").fetchall()
    assert any("items_seen_max" in str(row[-1]) for row in plan), plan  # one probe, not a scan per recall
    assert not _indexes(ws_path / ".memfs" / "index.sqlite3") & {"items_seen", "items_recent"}


def test_narrowest_picks_the_smallest_unsigned_type_and_leaves_the_rest() -> None:
    assert graphpack.narrowest(np.array([0, 255], np.int64)).dtype == np.uint8
    assert graphpack.narrowest(np.array([0, 65535], np.int64)).dtype == np.uint16
    assert graphpack.narrowest(np.array([70000], np.int64)).dtype == np.uint32
    assert graphpack.narrowest(np.array([1 << 40], np.int64)).dtype == np.uint64
    assert graphpack.narrowest(np.array([-1, 3], np.int64)).dtype == np.int64  # negative: as it was
    assert graphpack.narrowest(np.zeros(0, np.int64)).dtype == np.uint8


def _level0(index: object, dim: int) -> tuple[np.ndarray, int, int]:
    params = dict(index.__getstate__()[0])  # type: ignore[attr-defined]
    n, size, off = int(params["cur_element_count"]), int(params["size_data_per_element"]), int(params["offset_data"])
    rows = params["data_level0"][: n * size].view(np.uint8).reshape(n, size)
    return np.delete(rows, np.s_[off: off + 4 * dim], 1), n, off


def test_the_level0_records_round_trip_with_deleted_marks_and_stale_slots_zeroed() -> None:
    import hnswlib

    dim = 16
    x = _unit(400, dim)
    index = hnswlib.Index(space="ip", dim=dim)
    index.init_index(max_elements=500, M=16, ef_construction=100, allow_replace_deleted=True)
    index.add_items(x, np.arange(400))
    for lab in (3, 50, 399):
        index.mark_deleted(lab)  # sets byte 2 of the link header: the header no longer fits 16 bits
    graph0, n, off = _level0(index, dim)
    packed = graphpack.pack_level0(graph0, off)
    assert packed[graphpack.LINKS].dtype == np.uint16 and packed[graphpack.HEAD].dtype == np.uint32
    back = graphpack.unpack_level0(packed, n, off)  # type: ignore[arg-type]
    words, again = graph0[:, :off].copy().view(np.uint32), back[:, :off].view(np.uint32)
    count = words[:, 0] & 0xFFFF
    assert np.array_equal(again[:, 0], words[:, 0])  # counts and deleted marks
    for i in range(n):
        c = int(count[i])
        assert np.array_equal(again[i, 1:1 + c], words[i, 1:1 + c])  # every link hnswlib reads
        assert not again[i, 1 + c:].any()
    assert np.array_equal(back[:, off:], graph0[:, off:])  # labels
    assert sum(a.nbytes for a in packed.values()) < 0.55 * graph0.nbytes


def test_a_saved_sidecar_is_narrowed_and_searches_as_the_previous_file(tmp_path: Path) -> None:
    import shutil

    dim = 32
    x = _unit(600, dim, seed=1)
    labels = np.arange(600, dtype=np.int64)
    new, old = tmp_path / "new", tmp_path / "old"
    side = HnswSidecar(new, dim, "test")
    side.rebuild(labels, x)
    side.delete([5, 6])
    side.save(1)
    assert json.loads((new / HNSW_META).read_text())["format"] == FORMAT == "graph/4"
    with np.load(new / HNSW_FILE) as saved:
        assert "graph0" not in saved.files
        assert saved[graphpack.LINKS].dtype == np.uint16 and saved["slot_ids"].dtype == np.uint16
    shutil.copytree(new, old)
    _write_graph3(old, side)
    assert (new / HNSW_FILE).stat().st_size < 0.8 * (old / HNSW_FILE).stat().st_size
    loaded = []
    for folder in (new, old):
        again = HnswSidecar(folder, dim, "test")
        assert again.load(lambda: (labels, x))
        assert 5 not in again.labels and len(again.labels) == 598
        loaded.append(again)
    queries = _unit(30, dim, seed=2)
    assert [loaded[0].search(q, 10, 64) for q in queries] == [loaded[1].search(q, 10, 64) for q in queries]


def _write_graph3(folder: Path, side: HnswSidecar) -> None:
    """The sidecar as the previous memfs saved it (`graph/3`: graph0 whole, int64 arrays)."""
    arrays = freeze(side.index, side.dim, set(side._members))
    params = json.loads(str(arrays["params"]))
    graph0 = graphpack.unpack_level0(arrays, int(params["cur_element_count"]), int(params["offset_data"]))  # type: ignore[arg-type]
    for key in (graphpack.HEAD, graphpack.LINKS, graphpack.LABEL):
        arrays.pop(key)
    slots = np.fromiter(sorted(side._members), dtype=np.int64)
    groups = [side._members[int(s)] for s in slots]
    with open(folder / HNSW_FILE, "wb") as fh:
        np.savez(fh, **arrays, graph0=graph0, slot_ids=slots,
                 slot_prints=np.asarray([side._print_of[int(s)] for s in slots], dtype=np.uint64),
                 member_labels=np.asarray([lab for g in groups for lab in g], dtype=np.int64),
                 member_at=np.concatenate([[0], np.cumsum([len(g) for g in groups])]).astype(np.int64),
                 next_slot=np.array(side._next_slot, dtype=np.int64))
    meta = json.loads((folder / HNSW_META).read_text())
    (folder / HNSW_META).write_text(json.dumps({**meta, "format": "graph/3"}))


def test_a_graph3_sidecar_is_read_then_saved_narrowed_by_the_next_sync(ws_path: Path) -> None:
    _notes(ws_path, 20, 10)
    state = ws_path / ".memfs"
    query = "Fact 12-4 about topic5 and thing4"
    with hashing_memory(ws_path, exact_search_max=0) as mem:
        mem.sync()
        side = HnswSidecar(state, mem.embedder.dim, mem.embedder.name)
        assert side.load(mem.indexer.db)
        side._mutable()
        _write_graph3(state, side)
    old_bytes = (state / HNSW_FILE).stat().st_size
    with hashing_memory(ws_path, exact_search_max=0) as mem:
        before = mem.search(query, k=5)
        assert before.mode == "hnsw" and before.hits[0].row.id == "f0012i004"
    proc = run(["sync"], ws_path, env(MEMFS_RECALL_EXACT_SEARCH_MAX="0"))
    assert "0 embedded" in proc.stdout and "rebuilding" not in proc.stderr  # the same graph, saved again
    assert json.loads((state / HNSW_META).read_text())["format"] == FORMAT
    assert (state / HNSW_FILE).stat().st_size < 0.8 * old_bytes
    with hashing_memory(ws_path, exact_search_max=0) as mem:
        after = mem.search(query, k=5)
    assert after.mode == "hnsw"
    assert [(h.row.id, round(h.score, 6)) for h in after.hits] == [(h.row.id, round(h.score, 6)) for h in before.hits]
