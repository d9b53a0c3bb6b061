"""Embeddings from any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio ...)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from memfs.errors import MemfsError
from memfs.providers.normalize import normalize_rows

if TYPE_CHECKING:
    from memfs.config import EmbedderConfig


class OpenAIEmbedder:
    """The key is read from the environment variable the config names, never from a file."""

    def __init__(self, config: "EmbedderConfig") -> None:
        self.config = config
        self.name = f"openai:{config.model}"
        self.dim = 0  # known after the first call; recorded by the index
        self._client = None

    def _get_client(self):  # type: ignore[no-untyped-def]
        if self._client is None:
            from openai import OpenAI

            key = os.environ.get(self.config.api_key_env) or ("unused" if self.config.base_url else None)
            if not key:
                raise MemfsError(f"embedder provider is openai but ${self.config.api_key_env} is not set")
            self._client = OpenAI(api_key=key, base_url=self.config.base_url or os.environ.get("OPENAI_BASE_URL"),
                                  timeout=self.config.timeout, max_retries=3)
        return self._client

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim or 1), dtype=np.float32)
        client = self._get_client()
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.config.batch_size):
            batch = [t if t.strip() else "empty" for t in texts[start : start + self.config.batch_size]]
            try:
                resp = client.embeddings.create(model=self.config.model, input=batch)
            except Exception as err:  # openai raises many types; the message must not carry the key
                raise MemfsError(f"embedding request to {self.config.base_url or 'OpenAI'} failed: "
                                 f"{type(err).__name__}") from None
            data = sorted(resp.data, key=lambda d: d.index)
            rows.extend(d.embedding for d in data)
        mat = normalize_rows(np.asarray(rows, dtype=np.float32))
        self.dim = mat.shape[1]
        return mat
