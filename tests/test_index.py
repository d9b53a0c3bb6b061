"""The index: incremental sync, rebuild, embedder changes, hnsw vs exact, readers vs a writer."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from memfs.api import Memory
from memfs.index.search import rrf
from memfs.index.vectors import HnswSidecar, exact_search
from tests.support.workspace import hashing_memory


def _fill(root: Path, files: int, per_file: int) -> None:
    for f in range(files):
        lines = "".join(f"- Fact {f}-{i} about topic{f % 7} and thing{i}. <!-- id=f{f:04d}i{i:03d} type=knowledge -->\n"
                        for i in range(per_file))
        (root / "index" / f"t{f:04d}.md").write_text(f"# T{f}\n\n{lines}")


def test_sync_skips_unchanged_and_reads_only_changed(mem: Memory, ws_path: Path) -> None:
    _fill(ws_path, 20, 5)
    first = mem.sync()
    assert first.items_added == 100 and first.embedded == 100
    again = mem.sync()
    assert again.files_parsed == 0 and not again.changed
    target = ws_path / "index" / "t0003.md"
    target.write_text(target.read_text().replace("Fact 3-1 ", "Fact three-one "))
    one = mem.sync()
    assert one.files_parsed == 1 and one.items_updated == 1 and one.embedded == 1
    # Touch without change: re-hashed, not re-parsed.
    os.utime(ws_path / "index" / "t0004.md", None)
    touched = mem.sync()
    assert touched.files_parsed == 0 and not touched.changed


def test_rebuild_from_markdown_alone(ws_path: Path) -> None:
    m = hashing_memory(ws_path)
    _fill(ws_path, 5, 4)
    m.sync()
    before = sorted((h.id, h.path) for h in m.recall("topic3 thing2", k=20))
    m.close()
    shutil.rmtree(ws_path / ".memfs")
    m2 = hashing_memory(ws_path)
    report = m2.sync(rebuild=True)
    assert report.items_added == 20
    assert sorted((h.id, h.path) for h in m2.recall("topic3 thing2", k=20)) == before
    m2.close()


def test_embedder_change_reembeds_everything(ws_path: Path) -> None:
    m = hashing_memory(ws_path)
    _fill(ws_path, 3, 3)
    m.sync()
    m.close()
    m2 = hashing_memory(ws_path)
    m2.config.embedder.dim = 512
    m2._embedder = None
    report = m2.sync()
    assert report.reembedded_all and report.embedded == 9
    assert m2.status().embedder == "hashing-v1-512"
    m2.close()


def test_hnsw_sidecar_agrees_with_exact_search(ws_path: Path) -> None:
    _fill(ws_path, 30, 10)
    exact = hashing_memory(ws_path, exact_search_max=10**6)
    exact.sync()
    queries = ["topic3 thing4", "Fact 12-7", "thing9 topic1"]
    want = [exact.search(q, k=5) for q in queries]
    assert all(r.mode == "exact" for r in want)
    exact.close()
    ann = hashing_memory(ws_path, exact_search_max=0)
    ann.sync(rebuild=True)
    assert (ws_path / ".memfs" / "vectors.hnsw").exists()
    got = [ann.search(q, k=5) for q in queries]
    assert all(r.mode == "hnsw" for r in got)
    for w, g in zip(want, got):
        assert w.hits[0].row.id == g.hits[0].row.id
    # Deleting a file marks its labels deleted in the sidecar.
    (ws_path / "index" / "t0012.md").unlink()
    ann.sync()
    assert all(not h.row.path.endswith("t0012.md") for h in ann.search("Fact 12-7", k=10).hits)
    ann.close()


def test_hnsw_sidecar_grows_and_deletes(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(3000, 16)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    side = HnswSidecar(tmp_path, 16, "test")
    side.upsert(list(range(1, 1001)), vecs[:1000])
    side.upsert(list(range(1001, 3001)), vecs[1000:])  # past the initial capacity: resize
    side.delete([5, 5, 6])  # deleting twice is harmless
    side.save(1)
    again = HnswSidecar(tmp_path, 16, "test")
    assert again.load(lambda: (np.arange(1, 3001), vecs))
    assert again.search(vecs[4], k=1, ef=100)[0][0] != 5  # label 5 (vecs[4]) is deleted
    assert 5 not in [h[0] for h in again.search(vecs[4], k=50, ef=200)]
    top = exact_search(vecs[100], np.arange(1, 3001), vecs, 1)
    assert top[0][0] == 101


def test_rrf_prefers_items_both_rankers_like() -> None:
    fused = rrf([([1, 2, 3], 1.0), ([3, 4, 1], 1.0)], k=60)
    assert max(fused, key=fused.__getitem__) in (1, 3)
    assert fused[1] > fused[2] and fused[3] > fused[4]


def test_readers_get_consistent_answers_while_a_writer_syncs(ws_path: Path) -> None:
    """Another process recalls in a loop while this one rewrites and syncs: no errors."""
    _fill(ws_path, 10, 10)
    m = hashing_memory(ws_path)
    m.sync()
    script = (
        "import sys, time\n"
        "from tests.support.workspace import hashing_memory\n"
        "from pathlib import Path\n"
        "m = hashing_memory(Path(sys.argv[1]))\n"
        "n = 0\n"
        "end = time.time() + 3\n"
        "while time.time() < end:\n"
        "    hits = m.recall('topic3 thing4', k=5)\n"
        "    assert all(h.text.startswith('Fact') for h in hits), hits\n"
        "    n += 1\n"
        "print(n)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    reader = subprocess.Popen([sys.executable, "-c", script, str(ws_path)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env)
    end = time.time() + 2.5
    k = 0
    while time.time() < end:
        k += 1
        target = ws_path / "index" / f"t{k % 10:04d}.md"
        target.write_text(target.read_text().replace("thing1.", f"thing1 v{k}."))
        m.sync()
    out, err = reader.communicate(timeout=30)
    assert reader.returncode == 0, err
    assert int(out.strip()) > 10
    m.close()


def test_small_changes_go_to_the_pending_delta_not_the_sidecar(ws_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import memfs.index.sync as sync_mod

    _fill(ws_path, 20, 10)
    m = hashing_memory(ws_path, exact_search_max=0)
    m.sync()
    side = ws_path / ".memfs" / "vectors.hnsw"
    stamp = side.stat().st_mtime_ns
    target = ws_path / "index" / "t0005.md"
    target.write_text(target.read_text().replace("Fact 5-3 ", "Zanzibar ferry timetable "))
    m.sync()
    assert side.stat().st_mtime_ns == stamp  # the 1-line change did not rewrite the sidecar
    pending = m.indexer.db.conn.execute("SELECT count(*) FROM vec_pending").fetchone()[0]
    assert pending == 1
    result = m.search("Zanzibar ferry timetable", k=3)
    assert result.mode == "hnsw" and result.hits[0].row.id == "f0005i003"
    assert result.hits[0].vector_rank == 1  # found by the vector ranker, via the pending delta
    # Past the delta's limit the sidecar absorbs it and the delta empties.
    monkeypatch.setattr(sync_mod, "PENDING_MAX", 0)
    target.write_text(target.read_text().replace("Fact 5-4 ", "Kilimanjaro summit permit "))
    m.sync()
    assert side.stat().st_mtime_ns != stamp
    assert m.indexer.db.conn.execute("SELECT count(*) FROM vec_pending").fetchone()[0] == 0
    assert m.search("Kilimanjaro summit permit", k=1).hits[0].row.id == "f0005i004"
    m.close()


def test_an_older_index_layout_is_rebuilt_without_re_embedding(ws_path: Path) -> None:
    import sqlite3

    _fill(ws_path, 3, 4)
    m = hashing_memory(ws_path)
    m.sync()
    m.close()
    conn = sqlite3.connect(ws_path / ".memfs" / "index.sqlite3")
    conn.execute("UPDATE meta SET value='0' WHERE key='schema'")
    conn.commit()
    conn.close()
    m2 = hashing_memory(ws_path)
    report = m2.sync()  # opening the index notices the old layout and drops it
    assert report.items_added == 12
    assert report.embedded == 0  # ... but the embedding cache survived the layout change
    assert m2.recall("topic1 thing2", k=3)
    m2.close()
