"""The vectors an hnsw sidecar's graph is refilled with on load, as SQLite stores them.

A cold `recall` loads the sidecar (memfs.index.sidecar), and the graph-only file asks the
index for its vectors. Reading them per label (a join, 74,767 rows at 10,000 notes),
dequantising every row and quantising it again to fingerprint it took longer than the old
file's own copy. Here the cache is read once, blobs only (48,106 rows), the int8 codes
are fingerprinted as stored, and only the vectors the graph needs are dequantised,
straight into hnswlib's records; which labels sit on which vector is the sidecar file's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from memfs.core.lazynp import lazy_numpy
from memfs.index import quant
from memfs.index.db import IndexDB

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_numpy(globals())  # imported on first use (core/lazynp.py)


@dataclass(frozen=True)
class CachedCodes:
    """Row i is the vector `codes[i] * scales[i] / 127`."""

    codes: np.ndarray  # int8 (u, dim)
    scales: np.ndarray  # float32 (u,)

    def write_vectors(self, which: np.ndarray, ok: np.ndarray, out: np.ndarray) -> None:
        """out[i] = row which[i] where ok[i]: dequantised straight into `out` (hnswlib's
        records), in blocks, without a float copy of every vector first."""
        factor = self.scales.astype(np.float32) / np.float32(127.0)
        for start in range(0, len(which), 4096):
            sel = np.flatnonzero(ok[start:start + 4096])
            if len(sel):
                rows = which[start:start + 4096][sel]
                out[start + sel] = self.codes[rows] * factor[rows, None]


def from_matrix(matrix: np.ndarray) -> CachedCodes:
    """A float32 matrix (e.g. IndexDB.labeled_vectors'), rounded as the cache stores it."""
    mat = np.asarray(matrix, dtype=np.float32)
    if not len(mat):
        return CachedCodes(np.zeros((0, mat.shape[1] if mat.ndim == 2 else 0), np.int8), np.zeros(0, np.float32))
    return CachedCodes(*quant.quantize(mat))


def cached_codes(db: IndexDB) -> CachedCodes:
    """Every vector in `db`'s embedding cache (call inside the caller's snapshot)."""
    dim = int(db.get_meta("embedder_dim") or 0)
    blobs = [r[0] for r in db.conn.execute("SELECT vec FROM embeddings")]
    width = dim + quant.SCALE_BYTES
    raw = b"".join(blobs)
    # Every layout's row is at least `width` bytes, so this total means: all rows int8.
    if dim and len(raw) == width * len(blobs):
        rows = np.frombuffer(raw, dtype=np.uint8).reshape(len(blobs), width)
        return CachedCodes(rows[:, :dim].view(np.int8), np.ascontiguousarray(rows[:, dim:]).view(np.float32).reshape(-1))
    return from_matrix(quant.from_blobs(blobs, dim)) if blobs else from_matrix(np.zeros((0, dim), np.float32))
