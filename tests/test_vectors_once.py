"""Each vector stored once (issue #18 item 6): the hnsw sidecar holds the graph, SQLite the vectors;
a cold build is repacked; a sidecar of the previous layout keeps working and is rewritten."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np

from memfs.api import Memory
from memfs.config import load_config
from memfs.index import quant
from memfs.index.hnswfile import FORMAT, LEGACY_FORMAT
from memfs.index.vectors import HNSW_FILE, HNSW_META, HnswSidecar
from tests.support.cli import env, run
from tests.support.workspace import hashing_memory


def _unit(n: int, dim: int, seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1)[:, None]


def _notes(root: Path, files: int, per_file: int) -> None:
    for f in range(files):
        lines = "".join(f"- Fact {f}-{i} about topic{f % 7} and thing{i}. <!-- id=f{f:04d}i{i:03d} type=knowledge -->\n"
                        for i in range(per_file))
        (root / "index" / f"t{f:04d}.md").write_text(f"# T{f}\n\nA paragraph of prose about kestrel {f}.\n\n{lines}")


def _write_legacy(folder: Path, labels: np.ndarray, matrix: np.ndarray) -> None:
    """The sidecar as the previous memfs saved it (`graph+int8/2`: one graph node per label,
    the vectors in the file)."""
    import hnswlib

    dim = matrix.shape[1]
    index = hnswlib.Index(space="ip", dim=dim)
    index.init_index(max_elements=len(labels) + 1024, M=16, ef_construction=200, allow_replace_deleted=True)
    index.add_items(matrix, labels)
    params = dict(index.__getstate__()[0])
    level0 = params.pop("data_level0")
    n, size, off = int(params["cur_element_count"]), int(params["size_data_per_element"]), int(params["offset_data"])
    rows = level0[: n * size].view(np.uint8).reshape(n, size)
    codes, scales = quant.quantize(np.ascontiguousarray(rows[:, off: off + 4 * dim]).view(np.float32))
    arrays = {k: params.pop(k) for k in [k for k, v in params.items() if isinstance(v, np.ndarray)]}
    with open(folder / HNSW_FILE, "wb") as fh:
        np.savez(fh, **arrays, params=np.array(json.dumps(params)), graph0=np.delete(rows, np.s_[off: off + 4 * dim], 1),
                 vectors=np.concatenate([codes.view(np.uint8), scales[:, None].view(np.uint8)], axis=1),
                 which=np.arange(n, dtype=np.int32), live=np.sort(labels))
    meta = json.loads((folder / HNSW_META).read_text())
    (folder / HNSW_META).write_text(json.dumps({**meta, "format": LEGACY_FORMAT}))


def test_the_sidecar_file_holds_the_graph_not_the_vectors(ws_path: Path) -> None:
    _notes(ws_path, 20, 10)
    with hashing_memory(ws_path, exact_search_max=0) as mem:
        mem.sync()
        dim = mem.embedder.dim
        vectors = mem.indexer.db.count_vectors()
        assert json.loads((ws_path / ".memfs" / HNSW_META).read_text())["format"] == FORMAT
        with np.load(ws_path / ".memfs" / HNSW_FILE) as saved:
            assert saved["orphan_codes"].shape == (0, dim)  # nothing deleted: no vector kept at all
            assert all(saved[k].nbytes < vectors * dim for k in saved.files)
        assert (ws_path / ".memfs" / HNSW_FILE).stat().st_size < vectors * (dim + 4)  # less than the vectors alone
        result = mem.search("Fact 5-3 about topic5 and thing3", k=3)
        assert result.mode == "hnsw" and result.hits[0].row.id == "f0005i003"
        assert result.hits[0].vector_rank == 1  # the dense ranker found it through the sidecar


def test_a_live_label_without_a_vector_is_never_a_sidecar_hit(tmp_path: Path) -> None:
    """A text whose vector comes later (ingest's vectors after the write): its stale graph node is
    marked deleted in the loaded copy, not answered with a zero vector's score."""
    x = _unit(300, 32)
    labels = np.arange(300, dtype=np.int64)
    side = HnswSidecar(tmp_path, 32, "test")
    side.rebuild(labels, x)
    side.save(1)
    keep = labels != 7
    again = HnswSidecar(tmp_path, 32, "test")
    assert again.load(lambda: (labels[keep], x[keep]))
    assert 7 not in again.labels and len(again.labels) == 299
    assert 7 not in [lab for lab, _ in again.search(x[7], 20, 64)]
    assert again.search(x[8], 1, 64)[0][0] == 8


def test_a_sidecar_of_the_previous_layout_is_searched_then_rebuilt(ws_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    _notes(ws_path, 20, 10)
    state = ws_path / ".memfs"
    with hashing_memory(ws_path, exact_search_max=0) as mem:
        mem.sync()
        _write_legacy(state, *mem.indexer.db.labeled_vectors())
    legacy_bytes = (state / HNSW_FILE).stat().st_size
    with hashing_memory(ws_path, exact_search_max=0) as mem:
        before = mem.search("Fact 12-4 about topic5 and thing4", k=3)
        assert before.mode == "hnsw" and before.hits[0].row.id == "f0012i004"
        report = mem.sync()  # nothing changed in the Markdown: only the file's layout
        assert report.embedded == 0  # the graph is rebuilt from the cached vectors
        said = [line for line in capsys.readouterr().err.splitlines() if "vectors.hnsw" in line]
        assert len(said) == 1 and "previous layout" in said[0]  # one line says why the sync took longer
        assert json.loads((state / HNSW_META).read_text())["format"] == FORMAT
        assert (state / HNSW_FILE).stat().st_size < 0.6 * legacy_bytes
    with hashing_memory(ws_path, exact_search_max=0) as mem:
        after = mem.search("Fact 12-4 about topic5 and thing4", k=3)
        assert after.mode == "hnsw" and after.hits[0].row.id == "f0012i004"


def _minilm_sized(root: Path) -> Memory:
    """Hashing vectors of MiniLM's size (384: rows fit in a page, as the default embedder's do)."""
    return Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing",
                                                         "MEMFS_EMBEDDER_DIM": "384"}))


def _old_4k_index(root: Path) -> Path:
    """An index file as memfs made them before 8 KiB pages (WAL, 4 KiB)."""
    path = root / ".memfs" / "index.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA page_size=4096")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.commit()
    conn.close()
    return path


def _page_size(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("PRAGMA page_size").fetchone()[0])
    finally:
        conn.close()


def test_a_cold_build_is_repacked_and_a_later_sync_is_not(ws_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import memfs.index.compact as compact_mod
    import memfs.index.sync as sync_mod

    calls: list[bool] = []
    monkeypatch.setattr(compact_mod, "COMPACT_MIN_ROWS", 100)
    monkeypatch.setattr(sync_mod, "compact", lambda db: calls.append(compact_mod.compact(db)) or calls[-1])
    _notes(ws_path, 60, 12)
    with _minilm_sized(ws_path) as mem:
        mem.sync()
        assert calls == [True]
        assert _page_size(ws_path / ".memfs" / "index.sqlite3") == 8192  # a new index: 8 KiB pages
        (ws_path / "index" / "t0003.md").write_text("# T3\n\n- One new fact about herons.\n")
        mem.sync()
        assert calls == [True]  # an incremental sync never pays for a VACUUM


def test_an_index_never_repacked_is_repacked_once_into_8k_pages(ws_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import memfs.index.compact as compact_mod

    path = _old_4k_index(ws_path)
    _notes(ws_path, 60, 12)
    monkeypatch.setattr(compact_mod, "COMPACT_MIN_ROWS", 10**9)
    with _minilm_sized(ws_path) as mem:
        mem.sync()  # built by "an older memfs": not repacked
    assert _page_size(path) == 4096
    monkeypatch.setattr(compact_mod, "COMPACT_MIN_ROWS", 100)
    (ws_path / "index" / "t0003.md").write_text("# T3\n\n- One new fact about herons.\n")
    with _minilm_sized(ws_path) as mem:
        mem.sync()
        assert _page_size(path) == 8192
        assert mem.indexer.db.get_meta("compacted") == "1"
        assert mem.search("One new fact about herons", k=1).hits[0].row.path == "index/t0003.md"


def test_a_reader_open_makes_the_page_size_wait_not_the_sync(ws_path: Path) -> None:
    import time

    from memfs.index.compact import compact

    path = _old_4k_index(ws_path)
    _notes(ws_path, 30, 12)
    with _minilm_sized(ws_path) as mem:
        mem.sync()
        reader = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM items").fetchone()  # a snapshot held open
        t0 = time.perf_counter()
        assert compact(mem.indexer.db)  # a plain VACUUM; no 30 s wait for the reader
        assert time.perf_counter() - t0 < 10
        assert _page_size(path) == 4096
        reader.rollback()
        reader.close()
        assert compact(mem.indexer.db) and _page_size(path) == 8192  # alone: the page size too


def test_compacting_gives_free_and_half_empty_pages_back(ws_path: Path) -> None:
    from memfs.index.compact import compact

    _notes(ws_path, 60, 12)
    path = ws_path / ".memfs" / "index.sqlite3"
    with _minilm_sized(ws_path) as mem:
        mem.sync()
        db = mem.indexer.db
        with db.transaction() as c:  # what a rebuild or a big forget leaves: pages on the free list
            c.execute("DELETE FROM embeddings WHERE text_hash IN (SELECT text_hash FROM embeddings LIMIT 500)")
        db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert db.conn.execute("PRAGMA freelist_count").fetchone()[0] > 20
        before = path.stat().st_size
        assert compact(db)
        assert db.conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
        assert path.stat().st_size < before - 20 * 4096
        assert (ws_path / ".memfs" / "index.sqlite3-wal").stat().st_size < 64 << 10  # the WAL folded back
        assert mem.search("Fact 5-3 about topic5 and thing3", k=1).hits[0].row.id == "f0005i003"


def test_the_cli_recalls_through_a_graph_only_sidecar(ws_path: Path) -> None:
    """End to end: `memfs sync` writes the graph-only file, a cold `memfs recall` loads it."""
    _notes(ws_path, 20, 10)
    e = env(MEMFS_RECALL_EXACT_SEARCH_MAX="0")
    run(["sync"], ws_path, e)
    assert json.loads((ws_path / ".memfs" / HNSW_META).read_text())["format"] == FORMAT
    hits = json.loads(run(["recall", "Fact 17-2 about topic3 and thing2", "--json", "--k", "3"], ws_path, e).stdout)
    assert hits[0]["id"] == "f0017i002"


def test_labels_that_share_a_vector_share_one_graph_node(tmp_path: Path) -> None:
    """A line repeated in many notes is one node: thousands of equal points cut hnsw's recall
    to about half of the exact top 10 on the 10,000-note vault (bench/README.md)."""
    x = quant.round_trip(_unit(300, 32))
    copies = np.arange(1000, 1600, dtype=np.int64)  # 200 copies each of x[0], x[1], x[2]
    labels = np.concatenate([np.arange(300, dtype=np.int64), copies])
    matrix = np.concatenate([x, np.repeat(x[:3], 200, axis=0)])
    side = HnswSidecar(tmp_path, 32, "test")
    side.rebuild(labels, matrix)
    assert side.index.get_current_count() == 300 and len(side.labels) == 900  # type: ignore[union-attr]
    group0 = {0, *range(1000, 1200)}
    hits = side.search(x[0], 50, 64)
    assert len(hits) == 50 and {lab for lab, _ in hits} <= group0 and min(s for _, s in hits) > 0.99
    side.delete(sorted({1, *range(1200, 1400)}))  # every label of x[1]: its node leaves the graph
    assert 1 not in [lab for lab, _ in side.search(x[1], 5, 64)]
    side.upsert([5000], x[2:3])  # a new note with a shared line joins the line's node
    assert side.index.get_current_count() == 300  # type: ignore[union-attr]
    side.save(1)
    again = HnswSidecar(tmp_path, 32, "test")
    assert again.load(lambda: (np.concatenate([labels, [5000]]), np.concatenate([matrix, x[2:3]])))
    assert set(again.labels) == set(side.labels)
    assert {lab for lab, _ in again.search(x[2], 202, 64)} == {2, 5000, *range(1400, 1600)}
    assert again.search(x[7], 1, 64)[0][0] == 7
