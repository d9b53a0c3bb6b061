"""The vector half of `.memfs/`: exact search, and the hnswlib sidecar's files.

SQLite's embedding cache is the vectors' source of truth; this file only makes large
collections fast. Below `exact_search_max` vectors, exact numpy search is as fast and
needs no sidecar at all (crossover measured in bench/perf.py). The sidecar is saved via
temp file + rename, so a reader loads the old or the new index, never half of one, and
labels it returns are filtered against the reader's SQLite snapshot.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from memfs.core.lazynp import lazy_numpy

#: The sidecar (memfs.index.sidecar) and its layout (memfs.index.hnswfile): hnswlib's graph
#: over each distinct vector once, without the vectors, which are SQLite's. A file of the
#: previous layout (LEGACY_FORMAT) is still read, and rebuilt by the next sync; anything
#: else (hnswlib's own save format, a damaged file) is not loaded and the next sync rebuilds it.
from memfs.index.hnswfile import FORMAT, HNSW_FILE, HNSW_GEN, HNSW_META, LEGACY_FORMAT  # noqa: F401
from memfs.index.sidecar import HnswSidecar  # noqa: F401 - importable from here, as before

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_numpy(globals())  # imported on first use (core/lazynp.py)


def sidecar_format(folder: Path) -> str | None:
    """The saved sidecar's layout (FORMAT, LEGACY_FORMAT, ...), None without one."""
    try:
        return str(json.loads((folder / HNSW_META).read_text()).get("format"))
    except (OSError, ValueError, AttributeError):
        return None


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
