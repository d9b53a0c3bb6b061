"""Row normalisation shared by every embedder (cosine similarity becomes a dot product).

Its own module so the embedders need not import the factory that imports them.
"""

from __future__ import annotations

import numpy as np


def normalize_rows(mat: np.ndarray) -> np.ndarray:
    mat = np.asarray(mat, dtype=np.float32)
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    return mat / np.clip(norms, 1e-12, None)
