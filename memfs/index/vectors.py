"""The vector half of `.memfs/`: an hnswlib sidecar keyed by the items' integer labels.

SQLite's embedding cache is the vectors' source of truth; this file only makes large
collections fast. Below `exact_search_max` vectors, exact numpy search is as fast and
needs no sidecar at all (crossover measured in bench/perf.py). The sidecar is saved via
temp file + rename, so a reader loads the old or the new index, never half of one, and
labels it returns are filtered against the reader's SQLite snapshot.
"""

from __future__ import annotations

import json
import os
import pickle
import zipfile
from pathlib import Path

import numpy as np

from memfs.fsutil import atomic_write
from memfs.index.quant import dequantize, quantize

HNSW_FILE = "vectors.hnsw"
HNSW_META = "vectors.json"
HNSW_GEN = "vectors.gen"  # the generation alone: read on every sync, so kept tiny
#: The sidecar's layout: hnswlib's graph as its own arrays, the vectors in it as int8 codes
#: with a scale each (memfs.index.quant) instead of hnswlib's float32 copy, a quarter of
#: the space, each distinct vector once. A file without this marker (hnswlib's own save
#: format, or an older one of ours) is not loaded; the next sync rebuilds it.
FORMAT = "graph+int8/2"


def sidecar_generation(folder: Path) -> int | None:
    try:
        return int((folder / HNSW_GEN).read_text().strip())
    except (OSError, ValueError):
        return None


#: Rows per mat·vec call in exact search. OpenBLAS splits a bigger sgemv across threads,
#: and on a busy 2-core machine waiting for the second thread cost 8-20 ms at p90 for a
#: 2,000 × 384 matrix (single-threaded: 0.07 ms); blocks this size stay on one thread.
EXACT_BLOCK = 1024


def exact_search(query: np.ndarray, labels: np.ndarray, matrix: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Top-k by inner product (= cosine on normalised rows)."""
    if len(labels) == 0 or k <= 0:
        return []
    q = query.astype(np.float32)
    scores = np.empty(matrix.shape[0], dtype=np.float32)
    for start in range(0, matrix.shape[0], EXACT_BLOCK):
        np.dot(matrix[start : start + EXACT_BLOCK], q, out=scores[start : start + EXACT_BLOCK])
    return exact_search_scores(labels, scores, k)


def exact_search_scores(labels: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Top-k of scores already computed (one column of a batched matrix product)."""
    if len(labels) == 0 or k <= 0:
        return []
    k = min(k, len(scores))
    top = np.argpartition(-scores, k - 1)[:k]
    top = top[np.argsort(-scores[top], kind="stable")]
    return [(int(labels[i]), float(scores[i])) for i in top]


class HnswSidecar:
    """An hnswlib index with mark_deleted/resize handled, and atomic save/load."""

    def __init__(self, folder: Path, dim: int, space_name: str, m: int = 16, ef_construction: int = 200) -> None:
        self.folder = folder
        self.dim = dim
        self.space_name = space_name
        self.m = m
        self.ef_construction = ef_construction
        self.index = None
        self.labels: set[int] = set()

    def _new(self, capacity: int) -> None:
        import hnswlib

        self.index = hnswlib.Index(space="ip", dim=self.dim)
        self.index.init_index(max_elements=max(capacity, 1024), M=self.m, ef_construction=self.ef_construction,
                              allow_replace_deleted=True)
        self.labels = set()

    def load(self) -> bool:
        """Load the saved sidecar if it matches this embedder; False if absent or stale."""
        meta_path, data_path = self.folder / HNSW_META, self.folder / HNSW_FILE
        try:
            meta = json.loads(meta_path.read_text())
        except (OSError, ValueError):
            return False
        if (meta.get("space") != self.space_name or meta.get("dim") != self.dim
                or meta.get("format") != FORMAT or not data_path.exists()):
            return False
        try:
            with np.load(data_path, allow_pickle=False) as saved:
                index, labels = _thaw(saved, self.dim)
        except (RuntimeError, OSError, ValueError, KeyError, TypeError, EOFError, pickle.UnpicklingError,
                zipfile.BadZipFile):  # absent, damaged or foreign: rebuilt by the next sync
            return False
        self.index = index
        self.labels = set(labels.tolist())
        return True

    def rebuild(self, labels: np.ndarray, matrix: np.ndarray) -> None:
        self._new(int(len(labels) * 1.3) + 1024)
        if len(labels):
            self.index.add_items(matrix, labels)  # type: ignore[union-attr]
            self.labels = set(int(x) for x in labels)

    def upsert(self, labels: list[int], matrix: np.ndarray) -> None:
        if self.index is None:
            self._new(len(labels) + 1024)
        idx = self.index
        need = idx.get_current_count() + len(labels)
        if need > idx.get_max_elements():
            idx.resize_index(max(need, int(idx.get_max_elements() * 1.5)))
        fresh = [i for i, lab in enumerate(labels) if lab not in self.labels]
        again = [i for i, lab in enumerate(labels) if lab in self.labels]
        if again:  # re-adding a live label overwrites its vector in place
            idx.add_items(matrix[again], np.asarray([labels[i] for i in again]))
        if fresh:
            idx.add_items(matrix[fresh], np.asarray([labels[i] for i in fresh]), replace_deleted=True)
        self.labels.update(labels)

    def delete(self, labels: list[int]) -> None:
        if self.index is None:
            return
        for lab in labels:
            if lab in self.labels:
                self.index.mark_deleted(lab)
                self.labels.discard(lab)

    def search(self, query: np.ndarray, k: int, ef: int) -> list[tuple[int, float]]:
        if self.index is None or not self.labels:
            return []
        k = min(k, len(self.labels))
        self.index.set_ef(max(ef, k))
        labs, dists = self.index.knn_query(query.reshape(1, -1).astype(np.float32), k=k)
        return [(int(lab), 1.0 - float(d)) for lab, d in zip(labs[0], dists[0])]

    def save(self, generation: int) -> None:
        if self.index is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f".{HNSW_FILE}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            np.savez(fh, **_freeze(self.index, self.dim, self.labels))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.folder / HNSW_FILE)
        atomic_write(self.folder / HNSW_META, json.dumps(
            {"space": self.space_name, "dim": self.dim, "generation": generation, "format": FORMAT}))
        atomic_write(self.folder / HNSW_GEN, str(generation))

    def remove_files(self) -> None:
        for name in (HNSW_FILE, HNSW_META, HNSW_GEN):
            try:
                (self.folder / name).unlink()
            except FileNotFoundError:
                pass


def _freeze(index: object, dim: int, labels: set[int]) -> dict[str, np.ndarray]:
    """hnswlib's state (its pickle form) as plain arrays, the float32 vectors in the
    level-0 records cut out and stored as int8 codes + scales."""
    params = dict(index.__getstate__()[0])  # type: ignore[attr-defined]
    level0 = params.pop("data_level0")
    n, size, off = int(params["cur_element_count"]), int(params["size_data_per_element"]), int(params["offset_data"])
    rows = level0[: n * size].view(np.uint8).reshape(n, size)
    vectors = np.ascontiguousarray(rows[:, off : off + 4 * dim]).view(np.float32)
    codes, scales = quantize(vectors)
    # A line shared by many notes is one vector under many labels: each distinct code row once.
    packed = np.concatenate([codes.view(np.uint8), scales[:, None].view(np.uint8)], axis=1)
    distinct, which = _distinct_rows(packed)
    arrays = {k: params.pop(k) for k in [k for k, v in params.items() if isinstance(v, np.ndarray)]}
    return {**arrays, "params": np.array(json.dumps(params)), "graph0": np.delete(rows, np.s_[off : off + 4 * dim], 1),
            "vectors": distinct, "which": which,
            "live": np.fromiter(sorted(labels), dtype=np.int64, count=len(labels))}


def _distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(each distinct row once; which of them each row is). Rows are grouped by a 64-bit
    fingerprint and the grouping is then checked byte for byte (a collision falls back to
    a dict of row bytes); `np.unique(axis=0)` sorts void records: 10 s at 75,000 rows."""
    if len(rows) and rows.shape[1] % 4 == 0:
        words = np.ascontiguousarray(rows).view(np.uint32).astype(np.uint64)
        weights = np.random.default_rng(18).integers(1, 2**63, size=words.shape[1], dtype=np.uint64) | np.uint64(1)
        with np.errstate(over="ignore"):
            prints = (words * weights).sum(axis=1)
        _, first, which = np.unique(prints, return_index=True, return_inverse=True)
        distinct = rows[first]
        if np.array_equal(distinct[which.reshape(-1)], rows):
            return distinct, which.reshape(-1).astype(np.int32)
    seen: dict[bytes, int] = {}
    order: list[int] = []
    out = np.empty(len(rows), dtype=np.int32)
    for i, key in enumerate(map(bytes, rows)):
        j = seen.get(key)
        if j is None:
            j = seen[key] = len(order)
            order.append(i)
        out[i] = j
    return rows[np.asarray(order, dtype=np.int64)], out


def _thaw(saved: "np.lib.npyio.NpzFile", dim: int) -> tuple[object, np.ndarray]:
    """The index `_freeze` saved (vectors dequantised back into their records), and its live labels."""
    import copyreg

    import hnswlib

    params = json.loads(str(saved["params"]))
    n, size, off = int(params["cur_element_count"]), int(params["size_data_per_element"]), int(params["offset_data"])
    graph0, distinct, which = saved["graph0"], saved["vectors"], saved["which"]
    if graph0.shape != (n, size - 4 * dim) or distinct.shape[1:] != (dim + 4,) or which.shape != (n,):
        raise ValueError("sidecar arrays do not match its parameters")
    packed = distinct[which]
    codes, scales = packed[:, :dim].view(np.int8), np.ascontiguousarray(packed[:, dim:]).view(np.float32)[:, 0]
    rows = np.empty((n, size), dtype=np.uint8)
    rows[:, :off] = graph0[:, :off]
    rows[:, off + 4 * dim :] = graph0[:, off:]
    rows[:, off : off + 4 * dim] = dequantize(codes, scales).view(np.uint8)
    state = {**params, "data_level0": rows.reshape(-1).view(np.int8)}
    for key in saved.files:
        if key not in ("params", "graph0", "vectors", "which", "live"):
            state[key] = saved[key]
    index = copyreg.__newobj__(hnswlib.Index)  # type: ignore[attr-defined]
    index.__setstate__((state,))
    return index, saved["live"]
