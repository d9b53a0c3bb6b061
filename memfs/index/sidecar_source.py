"""The vectors an hnsw sidecar's graph is refilled with on load, as SQLite stores them.

A cold `recall` loads the sidecar (memfs.index.sidecar), and the graph-only file asks the
index for its vectors. Reading them per label (a join, 74,767 rows at 10,000 notes),
dequantising every row and quantising it again to fingerprint it took longer than the
old file's own copy. Here the cache is read once per distinct vector, the int8 codes are
kept as stored (fingerprinted without a round trip), and only the vectors the graph
needs are dequantised, by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memfs.index import quant
from memfs.index.db import IndexDB
from memfs.index.passages import PASSAGE_LABEL_BASE

_PAIRS = ("SELECT label, text_hash FROM items "
          f"UNION ALL SELECT label + {PASSAGE_LABEL_BASE}, text_hash FROM passages")


@dataclass(frozen=True)
class LabelCodes:
    """Label i has the vector `codes[rows[i]] * scales[rows[i]] / 127`."""

    labels: np.ndarray  # int64 (n,)
    rows: np.ndarray  # int64 (n,), into codes
    codes: np.ndarray  # int8 (u, dim)
    scales: np.ndarray  # float32 (u,)

    def write_vectors(self, which: np.ndarray, ok: np.ndarray, out: np.ndarray) -> None:
        """out[i] = the vector of row which[i] where ok[i]: dequantised straight into `out`
        (hnswlib's records), in blocks, without a float copy of every vector first."""
        factor = self.scales.astype(np.float32) / np.float32(127.0)
        for start in range(0, len(which), 4096):
            sel = np.flatnonzero(ok[start:start + 4096])
            if len(sel):
                rows = which[start:start + 4096][sel]
                out[start + sel] = self.codes[rows] * factor[rows, None]


def from_matrix(labels: np.ndarray, matrix: np.ndarray) -> LabelCodes:
    """(labels, float32 matrix), e.g. IndexDB.labeled_vectors, as codes (rounded as cached)."""
    codes, scales = quant.quantize(matrix) if len(labels) else (np.zeros((0, 0), np.int8), np.zeros(0, np.float32))
    return LabelCodes(np.asarray(labels, dtype=np.int64), np.arange(len(labels), dtype=np.int64), codes, scales)


def label_codes(db: IndexDB) -> LabelCodes:
    """Every item's and passage's vector in `db`'s current snapshot (call inside it); labels
    without a cached vector are left out, as IndexDB.labeled_vectors leaves them out."""
    dim = int(db.get_meta("embedder_dim") or 0)
    cached = db.conn.execute("SELECT text_hash, vec FROM embeddings").fetchall()
    width = dim + quant.SCALE_BYTES
    if dim and all(len(blob) == width for _, blob in cached):
        raw = np.frombuffer(b"".join(blob for _, blob in cached), dtype=np.uint8).reshape(len(cached), width)
        codes = raw[:, :dim].view(np.int8)
        scales = np.ascontiguousarray(raw[:, dim:]).view(np.float32).reshape(-1)
    else:  # rows of an older layout (float16/float32) beside int8 ones
        codes, scales = quant.quantize(quant.from_blobs([blob for _, blob in cached], dim)) if cached else \
            (np.zeros((0, dim), np.int8), np.zeros(0, np.float32))
    row_of = {h: i for i, (h, _) in enumerate(cached)}
    pairs = [(lab, row_of[h]) for lab, h in db.conn.execute(_PAIRS) if h in row_of]
    labels = np.fromiter((p[0] for p in pairs), dtype=np.int64, count=len(pairs))
    rows = np.fromiter((p[1] for p in pairs), dtype=np.int64, count=len(pairs))
    return LabelCodes(labels, rows, codes, scales)
