"""Row normalisation shared by every embedder (cosine similarity becomes a dot product).

Its own module so the embedders need not import the factory that imports them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memfs.core.lazynp import lazy_numpy

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_numpy(globals())  # imported on first use (core/lazynp.py)


def normalize_rows(mat: np.ndarray) -> np.ndarray:
    mat = np.asarray(mat, dtype=np.float32)
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    return mat / np.clip(norms, 1e-12, None)
