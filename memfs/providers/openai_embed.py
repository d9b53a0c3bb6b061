"""Embeddings from any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio ...).

The requests go through `memfs.llm.client.ChatClient.embed`, the one OpenAI client of
memfs: the same retries, circuit breaker, token budget and usage accounting as the chat
steps (usage under the step `embed`, saved with the LLM's in `.memfs/llm-usage.json`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from memfs.errors import MemfsError
from memfs.providers.normalize import normalize_rows

if TYPE_CHECKING:
    from memfs.config import EmbedderConfig
    from memfs.llm.client import ChatClient
    from memfs.llm.usage import Budget, Usage

#: Retries after the first attempt on connection errors, 429 and 5xx.
RETRIES = 3


class OpenAIEmbedder:
    """The key is read from the environment variable the config names, never from a file.

    `usage` and `budget` are shared with the LLM runtime when there is one (the runtime of
    the workspace wires them); otherwise the embedder keeps its own."""

    def __init__(self, config: "EmbedderConfig", usage: "Usage | None" = None, budget: "Budget | None" = None) -> None:
        from memfs.llm.usage import Budget, Usage

        self.config = config
        self.name = f"openai:{config.model}"
        self.dim = 0  # known after the first call; recorded by the index
        self.usage = usage if usage is not None else Usage()
        self.budget = budget if budget is not None else Budget()
        self._client: "ChatClient | None" = None

    def _get_client(self) -> "ChatClient":
        if self._client is None:
            from memfs.llm.client import ChatClient
            from memfs.llm.config import ProfileConfig

            if not os.environ.get(self.config.api_key_env) and not self.config.base_url:
                raise MemfsError(f"embedder provider is openai but ${self.config.api_key_env} is not set")
            profile = ProfileConfig(base_url=self.config.base_url or os.environ.get("OPENAI_BASE_URL"),
                                    model=self.config.model, timeout=self.config.timeout, retries=RETRIES,
                                    api_key_env=self.config.api_key_env)
            self._client = ChatClient(profile, self.usage, budget=self.budget)
        return self._client

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim or 1), dtype=np.float32)
        from memfs.llm.errors import LLMError

        client = self._get_client()
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.config.batch_size):
            batch = [t if t.strip() else "empty" for t in texts[start : start + self.config.batch_size]]
            try:
                rows.extend(client.embed(batch))
            except LLMError as err:  # one line, never the key (ChatClient scrubs it)
                raise MemfsError(f"embedding request to {self.config.base_url or 'OpenAI'} failed: {err}") from None
        mat = normalize_rows(np.asarray(rows, dtype=np.float32))
        self.dim = mat.shape[1]
        return mat
