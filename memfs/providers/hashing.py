"""Feature-hashing embedder: word 1-2 grams and char 3-5 grams into a signed vector.

No model, no download, ~thousands of sentences a second: the zero-dependency fallback.
It only matches shared surface forms (no "drink" ~ "tea"), which is why it is not the
default (see docs/decisions.md and the shared embedder survey).
"""

from __future__ import annotations

import math
import re
import zlib
from functools import lru_cache
from typing import TYPE_CHECKING

from memfs.core.lazynp import lazy_numpy
from memfs.providers.normalize import normalize_rows

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_numpy(globals())  # imported on first use (core/lazynp.py)

_WORD = re.compile(r"[\w']+", re.UNICODE)


@lru_cache(maxsize=200_000)
def _bucket(feature: str, dim: int) -> int:
    h = zlib.crc32(feature.encode("utf-8"))
    # Low bits pick the bucket, the top bit the sign (encoded as a negative index).
    idx = h % dim
    return idx if (h >> 31) & 1 else -idx - 1


class HashingEmbedder:
    """Deterministic across processes and machines (crc32, not Python's salted hash)."""

    def __init__(self, dim: int = 1024) -> None:
        self.dim = dim
        self.name = f"hashing-v1-{dim}"

    def _features(self, text: str) -> dict[int, float]:
        words = [w.lower() for w in _WORD.findall(text)]
        counts: dict[int, float] = {}

        def add(feature: str, weight: float) -> None:
            b = _bucket(feature, self.dim)
            counts[b] = counts.get(b, 0.0) + weight

        for w in words:
            add("w:" + w, 1.0)
        for a, b in zip(words, words[1:]):
            add("b:" + a + " " + b, 0.7)
        for w in words:
            padded = f"<{w}>"
            for n in (3, 4, 5):
                for i in range(len(padded) - n + 1):
                    add("c:" + padded[i : i + n], 0.25)
        return counts

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for b, c in self._features(text).items():
                idx, sign = (b, 1.0) if b >= 0 else (-b - 1, -1.0)
                out[row, idx] += sign * math.sqrt(c)  # sublinear term frequency
        return normalize_rows(out)
