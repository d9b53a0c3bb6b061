"""What can go wrong on the LLM path; every caller catches `LLMError` and falls back offline.

Messages are one line and never carry the API key or the model's raw answer beyond a
short, scrubbed excerpt: they end up in logs, `memfs status` and inbox/failed/ notes.
"""

from __future__ import annotations

from memfs.errors import MemfsError


class LLMError(MemfsError):
    """Base: the LLM could not give a usable answer; the caller degrades, never drops input."""

    reason = "error"


class LLMOutputError(LLMError):
    """The model answered, but not with valid JSON for the schema, even after one repair turn."""

    reason = "output"


class LLMUnavailable(LLMError):
    """The endpoint failed: connection, timeout, HTTP error, after the configured retries."""

    reason = "unavailable"


class LLMTimeout(LLMUnavailable):
    """No complete answer within `timeout` seconds; the connection was closed (not retried:
    a single-slot server may still be generating the abandoned answer)."""

    reason = "timeout"


class LLMTruncated(LLMOutputError):
    """The answer hit `max_tokens` before its JSON was complete (a runaway generation)."""

    reason = "truncated"


class CircuitOpen(LLMUnavailable):
    """Too many consecutive failures: no request is sent until the cool-down ends."""

    reason = "circuit-open"


class BudgetExceeded(LLMError):
    """The token budget is spent: raised *before* a request, so nothing is sent."""

    reason = "budget"


def fallback_reason(err: BaseException) -> str:
    """A short, stable key for counting fallbacks per reason in `Usage`."""
    return err.reason if isinstance(err, LLMError) else "error"
