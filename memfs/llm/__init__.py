"""The LLM path: chat-model extraction, merge decisions, summaries and recall helpers.

Importing `memfs.llm` (or `memfs.llm.config`) is cheap and does not import the openai
package; the runtime and clients load on first attribute access.
"""

from __future__ import annotations

from typing import Any

from memfs.llm.config import LLMConfig, ProfileConfig, ProfileOverride, llm_config_from_env

_LAZY = {
    "LLMRuntime": "memfs.llm.runtime", "load_usage": "memfs.llm.runtime",
    "ChatClient": "memfs.llm.client", "ResponseCache": "memfs.llm.client",
    "LLMExtractor": "memfs.llm.extract", "decide_merges": "memfs.llm.merge", "MergeDecision": "memfs.llm.merge",
    "summarize_category": "memfs.llm.summarize", "summarize_memory": "memfs.llm.summarize",
    "rewrite_query": "memfs.llm.recall", "rerank": "memfs.llm.recall", "sufficient": "memfs.llm.recall",
    "Usage": "memfs.llm.usage", "Budget": "memfs.llm.usage",
    "LLMError": "memfs.llm.errors", "LLMOutputError": "memfs.llm.errors", "LLMUnavailable": "memfs.llm.errors",
    "BudgetExceeded": "memfs.llm.errors",
}

__all__ = ["LLMConfig", "ProfileConfig", "ProfileOverride", "llm_config_from_env", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'memfs.llm' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
