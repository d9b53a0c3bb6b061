"""How `.memfs/` stores a vector: int8 codes and one float32 scale per vector.

Vectors were most of `.memfs/` (issue #18: 17.8x the Markdown at 1,000 notes, the hnsw
sidecar's float32 copies 56 % of it and the float16 cache 22 %). Scalar quantisation to
int8 with a per-vector scale (`max |v|`, so the largest component is exact) keeps a
vector in `dim + 4` bytes, a quarter of float32: the cosine of two stored unit vectors
moves by well under 1e-2 and rankings by noise (bench/notes.py and bench/locomo.py
before/after in bench/README.md). Fresh vectors are rounded the same way
(`round_trip`), so a vector is the same fresh or cached.

Cache rows written before this layout (float16 `2*dim` bytes, float32 `4*dim` bytes) are
still read, by their length, and converted once when the index layout changes
(`migrate_cache`).
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from memfs.core.lazynp import lazy_numpy
from memfs.core.hashing import TEXT_HASH_LEN

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_numpy(globals())  # imported on first use (core/lazynp.py)

SCALE_BYTES = 4


def quantize(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes int8 of matrix's shape, scales float32 per row) with row ≈ codes * scale / 127."""
    mat = np.atleast_2d(np.asarray(matrix, dtype=np.float32))
    scales = np.abs(mat).max(axis=1) if mat.size else np.zeros(len(mat), np.float32)
    scales = np.where(scales > 0, scales, 1.0).astype(np.float32)
    codes = np.rint(mat * (127.0 / scales)[:, None]).clip(-127, 127).astype(np.int8)
    return codes, scales


def dequantize(codes: np.ndarray, scales: np.ndarray) -> np.ndarray:
    return codes.astype(np.float32) * (scales.astype(np.float32) / np.float32(127.0))[:, None]


def round_trip(matrix: np.ndarray) -> np.ndarray:
    """`matrix` as it reads back from the cache (float32 rows)."""
    return dequantize(*quantize(matrix))


def to_blob(vector: np.ndarray) -> bytes:
    codes, scales = quantize(vector)
    return codes[0].tobytes() + scales[:1].tobytes()


def _layout(nbytes: int, dim: int) -> type:
    """Which layout wrote a blob of `nbytes` (int8 rows first: they are what is written now)."""
    if nbytes == dim + SCALE_BYTES or not dim:
        return np.int8
    if nbytes == 4 * dim:
        return np.float32
    return np.float16 if nbytes == 2 * dim else np.int8


def from_blob(blob: bytes, dim: int) -> np.ndarray:
    """One cached vector as float32, whichever layout wrote it (known by its length)."""
    return from_blobs([blob], dim)[0]


def from_blobs(blobs: list[bytes], dim: int) -> np.ndarray:
    """Cached vectors as one float32 matrix (one numpy pass per layout)."""
    if not blobs:
        return np.zeros((0, dim), dtype=np.float32)
    sizes = {len(b) for b in blobs}
    if len(sizes) > 1:  # rows of an older layout beside int8 ones
        return np.stack([from_blobs([b], dim)[0] for b in blobs])
    n = sizes.pop()
    layout = _layout(n, dim)
    raw = b"".join(blobs)
    if layout is not np.int8:
        return np.frombuffer(raw, dtype=layout).reshape(len(blobs), -1).astype(np.float32)
    rows = np.frombuffer(raw, dtype=np.uint8).reshape(len(blobs), n)
    codes = rows[:, : n - SCALE_BYTES].view(np.int8)
    scales = np.ascontiguousarray(rows[:, n - SCALE_BYTES :]).view(np.float32)[:, 0]
    return dequantize(codes, scales)


def migrate_cache(conn: sqlite3.Connection, dim: int) -> int:
    """Bring a kept embedding cache to this layout in one transaction: 16-character keys
    (`core.hashing.text_hash`), a WITHOUT ROWID table, int8 rows. Returns rows converted."""
    table = conn.execute("SELECT sql FROM sqlite_master WHERE type='table' AND name='embeddings'").fetchone()
    if not table:
        return 0
    conn.execute("BEGIN IMMEDIATE")
    try:
        if "WITHOUT ROWID" not in table[0].upper() or conn.execute(
                "SELECT 1 FROM embeddings WHERE length(text_hash) != ? LIMIT 1", (TEXT_HASH_LEN,)).fetchone():
            conn.execute("CREATE TABLE embeddings_new (text_hash TEXT PRIMARY KEY, vec BLOB NOT NULL) WITHOUT ROWID")
            conn.execute("INSERT OR IGNORE INTO embeddings_new SELECT substr(text_hash, 1, ?), vec FROM embeddings",
                         (TEXT_HASH_LEN,))
            conn.execute("DROP TABLE embeddings")
            conn.execute("ALTER TABLE embeddings_new RENAME TO embeddings")
        rows = conn.execute("SELECT text_hash, vec FROM embeddings WHERE length(vec) != ?",
                            (dim + SCALE_BYTES,)).fetchall() if dim else []
        conn.executemany("UPDATE embeddings SET vec=? WHERE text_hash=?",
                         ((to_blob(from_blob(blob, dim)), h) for h, blob in rows))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return len(rows)
