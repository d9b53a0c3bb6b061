"""The exact-search copies of the vectors (all of them below `exact_search_max`, the pending
ones beside the hnsw sidecar), refreshed by their changed middle (issue #18 item 4): after
any sequence of changes each is exactly a full reload, `IndexDB.labeled_vectors()` in
label order, and reads only the blobs of pairs it does not hold."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from memfs.index.db import IndexDB
from memfs.index.passages import PASSAGE_LABEL_BASE
from memfs.index.vcache import VectorCopy

DIM = 8


def _vec(rng: random.Random) -> np.ndarray:
    v = np.array([rng.uniform(-1, 1) for _ in range(DIM)], dtype=np.float32)
    return v / np.linalg.norm(v)


class _Store:
    """Items, passages and vectors written straight into an index, as sync and vecfill leave them."""

    def __init__(self, path: Path, rng: random.Random) -> None:
        self.db = IndexDB(path)
        self.rng = rng
        self.n = 0
        with self.db.transaction():
            self.db.set_meta("embedder", "test")
            self.db.set_meta("embedder_dim", str(DIM))

    def _hash(self, with_vector: bool) -> str:
        self.n += 1
        h = f"h{self.n:06d}"
        if with_vector:
            self.db.store_vectors([(h, _vec(self.rng))])
        return h

    def step(self) -> None:
        rng, c = self.rng, self.db.conn
        items = [r[0] for r in c.execute("SELECT id FROM items")]
        kind = rng.choice(["add", "add", "add", "forget", "edit", "passage", "unpassage", "vector", "same",
                           "pend", "pend", "saved"])
        with self.db.transaction():
            if kind == "add" or not items and kind in ("forget", "edit"):
                for _ in range(rng.randint(1, 4)):
                    h = self._hash(rng.random() < 0.85)  # some wait for their vector (vecfill)
                    c.execute("INSERT INTO items(id, path, category, kind, type, text, seen, text_hash) "
                              "VALUES(?, 'index/a.md', 'a', 'index', 'fact', ?, 1, ?)", (f"i{self.n}", f"t{self.n}", h))
            elif kind == "forget":
                c.execute("DELETE FROM items WHERE id=?", (rng.choice(items),))
            elif kind == "edit":  # new text, same label: a new hash
                c.execute("UPDATE items SET text_hash=? WHERE id=?", (self._hash(rng.random() < 0.9), rng.choice(items)))
            elif kind == "passage":
                h = self._hash(rng.random() < 0.9)
                c.execute("INSERT INTO passages(id, path, category, kind, heading, text, line_start, line_end, "
                          "text_hash) VALUES(?, 'index/a.md', 'a', 'index', '', 'p', 1, 2, ?)", (f"p{self.n}", h))
            elif kind == "unpassage":
                c.execute("DELETE FROM passages WHERE label=(SELECT min(label) FROM passages)")
            elif kind == "pend":  # new or changed vectors wait beside the hnsw sidecar (sync._update_sidecar)
                labels = [r[0] for r in c.execute("SELECT label FROM items UNION ALL SELECT label + ? FROM passages",
                                                  (PASSAGE_LABEL_BASE,))]
                c.executemany("INSERT OR IGNORE INTO vec_pending(label) VALUES(?)",
                              [(lab,) for lab in rng.sample(labels, min(len(labels), rng.randint(1, 5)))])
            elif kind == "saved":  # the sidecar took them in
                c.execute("DELETE FROM vec_pending")
            elif kind == "vector":  # vectors arrive for what had none
                for (h,) in c.execute("SELECT text_hash FROM items WHERE text_hash NOT IN "
                                      "(SELECT text_hash FROM embeddings)").fetchall()[:3]:
                    self.db.store_vectors([(h, _vec(rng))])


def _same_as_reload(copy: VectorCopy, db: IndexDB) -> None:
    with db.snapshot():
        copy.refresh(db)
        labels, matrix = db.labeled_vectors(pending_only=copy.pending_only)
    order = np.argsort(labels, kind="stable")
    assert np.array_equal(copy.labels, labels[order])
    if len(labels):
        assert np.array_equal(copy.matrix, matrix[order])
    else:
        assert copy.matrix.size == 0


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("pending", [False, True])
def test_the_copy_equals_a_full_reload_after_any_changes(tmp_path: Path, seed: int, pending: bool) -> None:
    store = _Store(tmp_path / "index.sqlite3", random.Random(seed))
    copy = VectorCopy(pending_only=pending)
    for _ in range(120):
        store.step()
        _same_as_reload(copy, store.db)
    store.db.close()


def test_only_new_pairs_are_read_and_an_embedder_change_drops_what_was_kept(tmp_path: Path) -> None:
    store = _Store(tmp_path / "index.sqlite3", random.Random(7))
    copy = VectorCopy()
    for _ in range(40):
        store.step()
    _same_as_reload(copy, store.db)
    reads: list[int] = []
    real = store.db.cached_vectors
    store.db.cached_vectors = lambda hashes: reads.append(len(hashes)) or real(hashes)  # type: ignore[method-assign]
    with store.db.transaction():  # everything has its vector
        for (h,) in store.db.conn.execute("SELECT text_hash FROM items UNION SELECT text_hash FROM passages "
                                          "EXCEPT SELECT text_hash FROM embeddings").fetchall():
            store.db.store_vectors([(h, _vec(store.rng))])
    _same_as_reload(copy, store.db)
    reads.clear()
    _same_as_reload(copy, store.db)
    assert reads == []  # nothing changed: no blob read
    with store.db.transaction():
        store.db.conn.execute("INSERT INTO items(id, path, category, kind, type, text, seen, text_hash) "
                              "VALUES('new', 'index/a.md', 'a', 'index', 'fact', 'new', 1, ?)", (store._hash(True),))
    _same_as_reload(copy, store.db)
    assert sum(reads) == 1  # the new item's vector alone
    with store.db.transaction():  # another embedder: its vectors replace every one (Indexer._embedder_changed)
        store.db.conn.execute("DELETE FROM embeddings")
        store.db.set_meta("embedder", "other")
    _same_as_reload(copy, store.db)
    assert len(copy.labels) == 0
    store.db.close()
