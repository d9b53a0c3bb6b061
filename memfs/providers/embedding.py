"""The embedder protocol and the factory that picks one from config.

Every embedder returns L2-normalised float32 rows, so cosine similarity is a dot product
and the vector index can use inner product throughout. `name` identifies the vector
space: the index records it and re-embeds everything when it changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from memfs.core.lazynp import lazy_numpy
from memfs.providers.normalize import normalize_rows

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_numpy(globals())  # imported on first use (core/lazynp.py)

__all__ = ["Embedder", "make_embedder", "normalize_rows"]

if TYPE_CHECKING:
    from memfs.config import EmbedderConfig


@runtime_checkable
class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """(len(texts), dim) float32, rows L2-normalised."""
        ...


def make_embedder(config: "EmbedderConfig") -> Embedder:
    """Build the configured embedder; imports its heavy dependencies only now."""
    if config.provider == "hashing":
        from memfs.providers.hashing import HashingEmbedder

        return HashingEmbedder(dim=config.dim)
    if config.provider == "minilm":
        from memfs.providers.minilm import MiniLMEmbedder

        return MiniLMEmbedder(threads=config.threads, batch_size=config.batch_size)
    from memfs.providers.openai_embed import OpenAIEmbedder

    return OpenAIEmbedder(config)
