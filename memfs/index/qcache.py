"""A small LRU of query vectors in front of an embedder.

The query embedding is most of a warm recall (MiniLM: 3-6 ms of a ~8 ms answer), and the
same question comes back often (an agent re-asks each turn, a person retries). A vector
depends only on the embedder and the text, so a cache entry never goes stale while the
embedder object lives. Only single-text calls are cached: batches are ingestion, where
every text is new.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from memfs.providers.embedding import Embedder

DEFAULT_SIZE = 512


class CachingEmbedder:
    """Wraps an embedder; `embed([q])` of a recent `q` costs a dict lookup. Thread-safe:
    the daemon's recall threads share one."""

    def __init__(self, inner: Embedder, size: int = DEFAULT_SIZE) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.size = size
        self.hits = 0
        self.misses = 0
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def peek(self, text: str) -> np.ndarray | None:
        """The cached vector of `text` (1-D, read-only), or None; never embeds."""
        with self._lock:
            vec = self._cache.get(text)
            if vec is not None:
                self._cache.move_to_end(text)
                self.hits += 1
            return vec

    def embed(self, texts: list[str]) -> np.ndarray:
        if len(texts) != 1 or self.size <= 0:
            return self.inner.embed(texts)
        text = texts[0]
        with self._lock:
            vec = self._cache.get(text)
            if vec is not None:
                self._cache.move_to_end(text)
                self.hits += 1
                return vec[None, :]
        vec = np.array(self.inner.embed([text])[0], dtype=np.float32)  # outside the lock: others go on
        vec.setflags(write=False)  # shared between callers: nobody may scribble on it
        with self._lock:
            self.misses += 1
            self._cache[text] = vec
            self._cache.move_to_end(text)
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)
        return vec[None, :]
