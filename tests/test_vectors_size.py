"""How `.memfs/` stores vectors (issue #18 item 6): int8 in the cache and in the hnsw sidecar."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from memfs.core.hashing import text_hash
from memfs.index import quant
from memfs.index.db import SCHEMA_VERSION, IndexDB
from memfs.index.vectors import HNSW_FILE, HNSW_META, HnswSidecar
from tests.support.workspace import hashing_memory


def _unit(n: int, dim: int, seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1)[:, None]


def test_int8_round_trip_keeps_cosines_and_is_idempotent() -> None:
    x = _unit(200, 384)
    back = quant.round_trip(x)
    assert np.abs((back * x).sum(1) - 1).max() < 5e-3  # cosine with the original
    assert np.array_equal(quant.round_trip(back), back)  # cached and fresh agree
    blob = quant.to_blob(x[0])
    assert len(blob) == 384 + quant.SCALE_BYTES
    assert np.array_equal(quant.from_blob(blob, 384), back[0])
    assert np.array_equal(quant.from_blob(quant.to_blob(np.zeros(384)), 384), np.zeros(384))


def test_rows_of_older_layouts_still_read() -> None:
    v = _unit(3, 8)
    f16, f32, i8 = v[0].astype(np.float16).tobytes(), v[1].tobytes(), quant.to_blob(v[2])
    mixed = quant.from_blobs([f16, f32, i8], 8)
    assert np.allclose(mixed, v, atol=4e-3)
    assert np.allclose(quant.from_blobs([f16, f16], 8), v[[0, 0]], atol=1e-3)


def test_a_layout_change_converts_the_cache_and_gives_space_back(tmp_path: Path) -> None:
    """An older memfs's cache (rowid table, 40-character SHA-1 keys, float16 rows) is kept
    across the layout change, converted: short keys, WITHOUT ROWID, int8; then vacuumed."""
    path = tmp_path / "index.sqlite3"
    db = IndexDB(path)
    db.set_meta("embedder_dim", "384")
    x = _unit(2000, 384)
    with db.transaction() as c:
        c.execute("DROP TABLE embeddings")
        c.execute("CREATE TABLE embeddings (text_hash TEXT PRIMARY KEY, vec BLOB NOT NULL)")
        c.executemany("INSERT INTO embeddings(text_hash, vec) VALUES(?, ?)",
                      ((hashlib.sha1(f"t{i}".encode()).hexdigest(), x[i].astype(np.float16).tobytes())
                       for i in range(len(x))))
    db.set_meta("schema", "4")
    db.close()
    before = path.stat().st_size
    db = IndexDB(path)
    try:
        assert db.get_meta("schema") == SCHEMA_VERSION
        sql = db.conn.execute("SELECT sql FROM sqlite_master WHERE name='embeddings'").fetchone()[0]
        assert "WITHOUT ROWID" in sql.upper()
        rows = db.conn.execute("SELECT length(text_hash), length(vec), count(*) FROM embeddings GROUP BY 1, 2")
        assert rows.fetchall() == [(16, 384 + quant.SCALE_BYTES, 2000)]
        got = db.cached_vectors([text_hash("t0"), text_hash("t1999")])
        assert np.allclose(got[text_hash("t0")], x[0], atol=4e-3)
        assert np.allclose(got[text_hash("t1999")], x[1999], atol=4e-3)
    finally:
        db.close()
    assert path.stat().st_size < 0.6 * before  # vacuumed: the old pages are not kept


def test_the_sidecar_keeps_its_graph_and_takes_the_vectors_from_the_index(tmp_path: Path) -> None:
    x = _unit(2000, 128, seed=1)
    labels = np.arange(2000, dtype=np.int64) + (1 << 40)
    side = HnswSidecar(tmp_path, 128, "test")
    side.rebuild(labels, x)
    side.delete([int(labels[5])])
    side.save(1)
    native = tmp_path / "native.bin"
    side.index.save_index(str(native))  # type: ignore[union-attr]
    # The graph only (links, labels, one int8 vector for the deleted element): the vectors are SQLite's.
    assert (tmp_path / HNSW_FILE).stat().st_size < 0.3 * native.stat().st_size

    again = HnswSidecar(tmp_path, 128, "test")
    assert again.load(lambda: (labels, quant.round_trip(x)))
    assert again.labels == side.labels and int(labels[5]) not in again.labels
    queries = x[:40] + 0.05 * _unit(40, 128, seed=2)
    top1 = [again.search(q, 1, 64)[0][0] for q in queries]
    assert top1[5] != int(labels[5])  # still deleted after the round trip
    assert sum(t == int(labels[i]) for i, t in enumerate(top1)) >= 38
    again.upsert([int(labels[5])], x[5:6])  # reuses the deleted slot, as before the save
    assert again.search(x[5], 1, 64)[0][0] == int(labels[5])

    # hnswlib's own save format (what older memfs wrote) is not loaded: sync rebuilds it.
    native.replace(tmp_path / HNSW_FILE)
    assert not HnswSidecar(tmp_path, 128, "test").load()
    meta = json.loads((tmp_path / HNSW_META).read_text())
    (tmp_path / HNSW_META).write_text(json.dumps({k: v for k, v in meta.items() if k != "format"}))
    assert not HnswSidecar(tmp_path, 128, "test").load()


@pytest.mark.parametrize("damage", [b"", b"not an npz file at all"])
def test_a_damaged_sidecar_is_not_loaded(tmp_path: Path, damage: bytes) -> None:
    side = HnswSidecar(tmp_path, 16, "test")
    side.rebuild(np.arange(50, dtype=np.int64), _unit(50, 16))
    side.save(1)
    (tmp_path / HNSW_FILE).write_bytes(damage)
    assert not HnswSidecar(tmp_path, 16, "test").load(lambda: (np.arange(50, dtype=np.int64), _unit(50, 16)))


def test_a_sync_caches_int8_rows(ws_path: Path) -> None:
    """Through the real indexer: every cached vector is dim + 4 bytes."""
    ws = ws_path
    (ws / "index" / "deep").mkdir(parents=True, exist_ok=True)
    (ws / "index" / "deep" / "notes.md").write_text("# Notes\n\nA paragraph about kestrel timeouts.\n\n- A fact.\n")
    mem = hashing_memory(ws)
    try:
        mem.sync()
        conn = sqlite3.connect(ws / ".memfs" / "index.sqlite3")
        sizes = {r[0] for r in conn.execute("SELECT length(vec) FROM embeddings")}
        conn.close()
        assert sizes == {mem.embedder.dim + quant.SCALE_BYTES}
    finally:
        mem.close()


def test_a_long_lived_writer_does_not_keep_a_big_wal(tmp_path: Path) -> None:
    from memfs.index.db import WAL_LIMIT

    db = IndexDB(tmp_path / "index.sqlite3")
    try:
        blob = bytes(1000)
        with db.transaction() as c:  # one big write: the WAL grows past the limit
            c.executemany("INSERT INTO embeddings(text_hash, vec) VALUES(?, ?)",
                          ((f"{i:016x}", blob) for i in range(3 * WAL_LIMIT // 1000)))
        wal = tmp_path / "index.sqlite3-wal"
        assert wal.stat().st_size > WAL_LIMIT
        db.conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        with db.transaction():
            db.set_meta("touch", "1")
        assert wal.stat().st_size <= WAL_LIMIT  # truncated back while the connection stays open
    finally:
        db.close()
