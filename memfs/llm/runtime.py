"""One object per process that the pipelines, the daemon and `memfs status` talk to.

It resolves `[llm]` plus the environment, builds a ChatClient per step lazily (clients
of steps with the same profile are shared), shares one Usage, one Budget and one
EndpointState (learned structured-output modes and circuit breakers, per endpoint and
model, persisted in `.memfs/llm-state.json`) across them, and persists usage to
`.memfs/llm-usage.json`. `LLMRuntime.from_config` returns None when the provider is
"local": callers then use the offline paths and never import the openai package.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from memfs.extract.offline import extract_offline
from memfs.llm.client import ChatClient, ResponseCache
from memfs.llm.config import LLMConfig, ProfileConfig, llm_config_from_env
from memfs.llm.endpoint import STATE_FILE, EndpointState
from memfs.llm.extract import LLMExtractor
from memfs.llm.merge import MergeDecision, Neighbour, decide_merges
from memfs.llm.recall import rerank, rewrite_query, sufficient
from memfs.llm.summarize import summarize_category, summarize_memory, try_summarize_memory
from memfs.llm.usage import USAGE_FILE, Budget, Usage

CACHE_DIR = "llm-cache"  # under .memfs/


class LLMRuntime:
    def __init__(self, config: LLMConfig, *, environ: Mapping[str, str] | None = None,
                 state_dir: Path | None = None, usage: Usage | None = None, budget: Budget | None = None,
                 backoff_base: float = 1.0, state: EndpointState | None = None) -> None:
        self.config = config
        self.environ = environ
        self.state_dir = state_dir
        self.usage = usage if usage is not None else Usage()
        self.budget = budget if budget is not None else Budget(limit_tokens=config.budget_tokens)
        self.cache = ResponseCache(state_dir / CACHE_DIR) if state_dir is not None else None
        self.backoff_base = backoff_base
        self.state = state if state is not None else EndpointState(
            state_dir / STATE_FILE if state_dir is not None else None,
            failures=config.breaker_failures, cooldown=config.breaker_cooldown)
        self._clients: dict[str, ChatClient] = {}
        self._by_profile: dict[str, ChatClient] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_config(cls, config: LLMConfig, environ: Mapping[str, str] | None = None,
                    state_dir: Path | None = None, **kwargs: object) -> "LLMRuntime | None":
        """None for provider "local". Raises ConfigError now (not mid-ingest) if the key is missing."""
        config = llm_config_from_env(config, environ)
        if not config.enabled:
            return None
        runtime = cls(config, environ=environ, state_dir=state_dir, **kwargs)  # type: ignore[arg-type]
        runtime.client("extract")
        return runtime

    def __repr__(self) -> str:
        return f"LLMRuntime(provider={self.config.provider!r}, model={self.config.model!r})"

    def profile(self, step: str) -> ProfileConfig:
        return self.config.profile(step)

    def client(self, step: str) -> ChatClient:
        with self._lock:
            if step not in self._clients:
                profile = self.config.profile(step)
                key = profile.model_dump_json()
                if key not in self._by_profile:
                    self._by_profile[key] = ChatClient(profile, self.usage, budget=self.budget, environ=self.environ,
                                                       backoff_base=self.backoff_base, cache=self.cache,
                                                       state=self.state)
                self._clients[step] = self._by_profile[key]
            return self._clients[step]

    def begin_input(self) -> None:
        """A new input starts (ingest, daemon): breakers tripped by the last input may cool down."""
        self.state.begin_input()

    # -- the steps -------------------------------------------------------------------
    def extractor(self, categories: Sequence[str] | None = None) -> LLMExtractor:
        return LLMExtractor(self.client("extract"), extract_offline, batch_turns=self.config.batch_turns,
                            batch_chars=self.config.batch_chars, categories=categories,
                            min_turn_coverage=self.config.min_turn_coverage)

    def decide_merges(self, new_facts: list[str], neighbours: Sequence[Sequence[Neighbour]]) -> list[MergeDecision]:
        return decide_merges(self.client("merge"), new_facts, neighbours)

    def summarize_category(self, title: str, items: list[str], max_chars: int) -> str:
        return summarize_category(self.client("summarize"), title, items, max_chars)

    def summarize_memory(self, items: list[str], token_budget: int) -> str:
        return summarize_memory(self.client("summarize"), items, token_budget)

    def try_summarize_memory(self, items: list[str], token_budget: int) -> str | None:
        """The model's memory.md body, or None if it fell back (the caller keeps its own)."""
        return try_summarize_memory(self.client("summarize"), items, token_budget)

    def rewrite_query(self, query: str) -> list[str]:
        return rewrite_query(self.client("recall"), query)

    def rerank(self, query: str, candidates: list[tuple[str, str]]) -> list[str]:
        return rerank(self.client("recall"), query, candidates)

    def sufficient(self, query: str, texts: list[str]) -> bool:
        return sufficient(self.client("recall"), query, texts)

    # -- usage -----------------------------------------------------------------------
    def persist_usage(self, state_dir: Path | None = None) -> Usage | None:
        """Drain this process's counts into `.memfs/llm-usage.json`; call under the writer lock."""
        folder = state_dir or self.state_dir
        if folder is None:
            return None
        return self.usage.merge_into_json(folder / USAGE_FILE)


def load_usage(state_dir: Path) -> Usage:
    """The persisted usage totals for `memfs status` (empty if none yet)."""
    return Usage.load_json(state_dir / USAGE_FILE)
