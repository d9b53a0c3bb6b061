"""The `[llm]` section of memfs.toml: which chat endpoint, which model per step, how much to spend.

TOML shape (every key optional; the default is ``provider = "local"``: no network, the
offline extractor)::

    [llm]
    provider = "openai"          # "local" | "openai" (any OpenAI-compatible endpoint)
    model = "gpt-4o-mini"        # default model for every step
    base_url = "http://localhost:11434/v1"   # Ollama, vLLM, LM Studio, llama.cpp ...; omit for OpenAI
    api_key_env = "OPENAI_API_KEY"           # the *name* of the variable holding the key
    timeout = 60                 # seconds for a whole answer; past it the request is cancelled
    retries = 2                  # retries of 429/5xx/connection errors (never of timeouts)
    budget_tokens = 2000000      # tokens one process (a CLI command, a daemon run) may spend
    batch_turns = 40             # conversation turns per extraction call
    breaker_failures = 3         # consecutive failed calls that switch the model off ...
    breaker_cooldown = 300       # ... for the rest of the input and this many seconds
    min_turn_coverage = 1.0      # share of content-bearing turns the model's facts must cite

    [llm.profiles.summarize]     # per step: extract, merge, summarize, recall, vision
    model = "gpt-4o"

    [llm.profiles.vision]
    model = "gpt-4o"
    max_tokens = 800

A profile lists only what differs from the defaults at the top of ``[llm]``; a key left
out (or set to nothing) inherits. Secrets are never read from the file: only the name
of the environment variable that holds the key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memfs.errors import ConfigError

StepName = Literal["extract", "merge", "summarize", "recall", "vision"]
STEPS: tuple[str, ...] = ("extract", "merge", "summarize", "recall", "vision")
DEFAULT_MODEL = "gpt-4o-mini"
#: Completion tokens per step when no `max_tokens` is configured: a bound on a runaway
#: generation (a single-slot local server is blocked while it lasts), each well above what
#: a good answer of that step needs.
DEFAULT_MAX_TOKENS: dict[str, int] = {"extract": 2048, "merge": 1024, "summarize": 1024, "recall": 256,
                                      "vision": 800}


class _Section(BaseModel):
    # allow_inf_nan=False: `inf`/`nan` are valid TOML floats but no setting means them, and
    # a NaN weight turns every recall score into NaN (invalid JSON out of `recall --json`).
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)


class ProfileConfig(_Section):
    """Everything one ChatClient needs: the resolved settings for one step."""

    base_url: str | None = None
    model: str = DEFAULT_MODEL
    timeout: float = Field(60.0, gt=0)
    retries: int = Field(2, ge=0, le=10, description="Retries after the first attempt on 429/5xx/timeouts.")
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = Field(0.0, ge=0, le=2)
    max_tokens: int | None = Field(None, ge=1)


class ProfileOverride(_Section):
    """A partial profile under ``[llm.profiles.<step>]``: None means "inherit the default"."""

    base_url: str | None = None
    model: str | None = None
    timeout: float | None = Field(None, gt=0)
    retries: int | None = Field(None, ge=0, le=10)
    api_key_env: str | None = None
    temperature: float | None = Field(None, ge=0, le=2)
    max_tokens: int | None = Field(None, ge=1)


class LLMConfig(_Section):
    """Defaults for every step at the top level; per-step overrides in ``profiles``."""

    provider: Literal["local", "openai"] = Field(
        "local", description="local: offline extractor, no network; openai: any OpenAI-compatible chat endpoint.")
    model: str = DEFAULT_MODEL
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = Field(60.0, gt=0)
    retries: int = Field(2, ge=0, le=10)
    temperature: float = Field(0.0, ge=0, le=2)
    max_tokens: int | None = Field(None, ge=1)
    profiles: dict[StepName, ProfileOverride] = Field(default_factory=dict)
    budget_tokens: int | None = Field(None, ge=0, description="Tokens (prompt + completion, as the server "
                                      "reports them) one process may spend: one CLI command, or one daemon from "
                                      "start to stop. Past it every step falls back offline until the next process.")
    batch_turns: int = Field(40, ge=2, le=1000, description="Conversation turns (or document sections) "
                             "per extraction call.")
    batch_chars: int = Field(24_000, ge=1000, description="Upper bound on the text of one extraction call.")
    breaker_failures: int = Field(3, ge=1, le=100, description="Consecutive failed calls after which an endpoint "
                                  "and model get no request for the rest of the input and the cool-down.")
    breaker_cooldown: float = Field(300.0, ge=0, description="Seconds an open circuit breaker stays open.")
    min_turn_coverage: float = Field(1.0, ge=0, le=1, description="Share of a batch's content-bearing turns "
                                     "that grounded facts must cite; the turns left uncited are extracted offline.")

    @property
    def enabled(self) -> bool:
        return self.provider == "openai"

    def profile(self, step: str) -> ProfileConfig:
        """The effective settings for ``step``: defaults, then that step's non-empty overrides."""
        base = {name: getattr(self, name) for name in ProfileConfig.model_fields}
        override = self.profiles.get(step)  # type: ignore[call-overload]
        if override is not None:
            base.update({k: v for k, v in override.model_dump().items() if v is not None})
        if base.get("max_tokens") is None:
            base["max_tokens"] = DEFAULT_MAX_TOKENS.get(step, 1024)
        return ProfileConfig.model_validate(base)


_TRUE = {"openai", "on", "1", "true", "yes"}
_FALSE = {"local", "off", "0", "false", "no", ""}


def llm_config_from_env(base: LLMConfig, environ: Mapping[str, str] | None = None) -> LLMConfig:
    """Apply the environment on top of the file's ``[llm]``.

    - ``MEMFS_LLM=openai`` turns the LLM path on (``local``/``off`` turns it off);
    - ``MEMFS_LLM_MODEL`` sets the default model;
    - ``OPENAI_BASE_URL`` sets ``base_url`` when the file does not;
    - the key itself is read later, by the client, from ``$<api_key_env>``
      (``OPENAI_API_KEY`` unless configured): it never enters a config object.
    """
    env = os.environ if environ is None else environ
    update: dict[str, object] = {}
    switch = env.get("MEMFS_LLM")
    if switch is not None:
        low = switch.strip().lower()
        if low in _TRUE:
            update["provider"] = "openai"
        elif low in _FALSE:
            update["provider"] = "local"
        else:
            raise ConfigError(f"environment MEMFS_LLM: expected 'openai' or 'local' (got {switch!r})")
    model = env.get("MEMFS_LLM_MODEL")
    if model and model.strip():
        update["model"] = model.strip()
    if base.base_url is None and env.get("OPENAI_BASE_URL", "").strip():
        update["base_url"] = env["OPENAI_BASE_URL"].strip()
    if not update:
        return base
    try:
        return LLMConfig.model_validate({**base.model_dump(), **update})
    except ValidationError as err:  # pragma: no cover - the values above are all valid strings
        raise ConfigError(f"environment: llm: {err.errors()[0]['msg']}") from None
