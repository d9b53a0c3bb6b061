"""Usage accounting and the token budget: what the LLM path cost, and when it stopped calling.

`Usage` counts per step and per model (calls, tokens, retries, errors, cache hits) and
the fallbacks per step with their reasons, so `memfs status` can show how much of the
memory came from the model and how much from the offline path. It is a pydantic model
(serialisable) and is merged into `.memfs/llm-usage.json` across runs.

`Budget` is one counter shared by every client of a process (one CLI command, or one
daemon from start to stop; it is not saved between processes): once the next request's
estimate would pass `llm.budget_tokens`, a call raises `BudgetExceeded` *before* anything
is sent, and the caller falls back offline.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel, Field, PrivateAttr, ValidationError

from memfs.fsutil import atomic_write
from memfs.llm.errors import BudgetExceeded

log = logging.getLogger(__name__)

USAGE_FILE = "llm-usage.json"  # under .memfs/


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive flock on ``path`` (created if needed) for one read-modify-write."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)  # as atomic_write does for the usage file itself
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def estimate_tokens(text: str) -> int:
    """~4 characters a token: used when a server reports no `usage`, and for budget checks."""
    return (len(text) + 3) // 4


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


class Counter(BaseModel):
    calls: int = Field(0, description="Requests that got an answer.")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated_tokens: int = Field(0, description="Part of the tokens estimated (server sent no usage).")
    retries: int = Field(0, description="Requests repeated after 429/5xx/timeout/connection errors.")
    errors: int = Field(0, description="Requests that failed for good.")
    repairs: int = Field(0, description="Extra turns asking the model to fix invalid output.")
    cached: int = Field(0, description="Answers served from the response cache, no request.")

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: "Counter") -> None:
        for name in Counter.model_fields:
            setattr(self, name, getattr(self, name) + getattr(other, name))


class Usage(BaseModel):
    """Thread-safe counters; `merge_into_json` persists them (and drains this object)."""

    steps: dict[str, Counter] = Field(default_factory=dict)
    models: dict[str, Counter] = Field(default_factory=dict)
    fallbacks: dict[str, dict[str, int]] = Field(default_factory=dict, description="step -> reason -> count")
    last_fallback: dict[str, str] = Field(default_factory=dict, description="step -> last fallback, one line")
    events: dict[str, dict[str, int]] = Field(default_factory=dict, description="step -> note -> count, e.g. "
                                              "'mode:json_object', 'coverage-split', 'dropped-uncited'")
    since: str | None = None
    updated: str | None = None

    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    # -- recording ---------------------------------------------------------------
    def _counters(self, step: str, model: str) -> Iterator[Counter]:
        if self.since is None:
            self.since = _now()
        self.updated = _now()
        yield self.steps.setdefault(step, Counter())
        yield self.models.setdefault(model, Counter())

    def record_call(self, step: str, model: str, prompt: int, completion: int, estimated: bool = False) -> None:
        with self._lock:
            for c in self._counters(step, model):
                c.calls += 1
                c.prompt_tokens += prompt
                c.completion_tokens += completion
                if estimated:
                    c.estimated_tokens += prompt + completion

    def _bump(self, step: str, model: str, field: str) -> None:
        with self._lock:
            for c in self._counters(step, model):
                setattr(c, field, getattr(c, field) + 1)

    def record_retry(self, step: str, model: str) -> None:
        self._bump(step, model, "retries")

    def record_error(self, step: str, model: str) -> None:
        self._bump(step, model, "errors")

    def record_repair(self, step: str, model: str) -> None:
        self._bump(step, model, "repairs")

    def record_cached(self, step: str, model: str) -> None:
        self._bump(step, model, "cached")

    def record_fallback(self, step: str, reason: str, detail: str = "") -> None:
        with self._lock:
            self.since = self.since or _now()
            self.updated = _now()
            per = self.fallbacks.setdefault(step, {})
            per[reason] = per.get(reason, 0) + 1
            self.last_fallback[step] = (f"{reason}: {detail}" if detail else reason)[:300]

    def record_event(self, step: str, note: str, n: int = 1) -> None:
        with self._lock:
            per = self.events.setdefault(step, {})
            per[note] = per.get(note, 0) + n

    # -- per-input deltas ------------------------------------------------------------
    def snapshot(self) -> "Usage":
        """A copy of the counts now (for `delta_since`)."""
        with self._lock:
            return Usage.model_validate(self.model_dump())

    def delta_since(self, before: "Usage") -> "Usage":
        """What was recorded after ``before`` was taken (counts only; never negative)."""
        now = self.snapshot()
        out = Usage()
        for name in ("steps", "models"):
            old: dict[str, Counter] = getattr(before, name)
            for key, c in getattr(now, name).items():
                prev = old.get(key, Counter())
                diff = Counter(**{f: max(0, getattr(c, f) - getattr(prev, f)) for f in Counter.model_fields})
                if any(getattr(diff, f) for f in Counter.model_fields):
                    getattr(out, name)[key] = diff
        for name in ("fallbacks", "events"):
            old2: dict[str, dict[str, int]] = getattr(before, name)
            for step, per in getattr(now, name).items():
                diff2 = {k: v - old2.get(step, {}).get(k, 0) for k, v in per.items()}
                diff2 = {k: v for k, v in diff2.items() if v > 0}
                if diff2:
                    getattr(out, name)[step] = diff2
        out.last_fallback = {k: v for k, v in now.last_fallback.items() if k in out.fallbacks}
        return out

    # -- reading -----------------------------------------------------------------
    @property
    def total_tokens(self) -> int:
        return sum(c.total_tokens for c in self.steps.values())

    @property
    def total_calls(self) -> int:
        return sum(c.calls for c in self.steps.values())

    def fallback_count(self, step: str | None = None) -> int:
        steps = [step] if step else list(self.fallbacks)
        return sum(sum(self.fallbacks.get(s, {}).values()) for s in steps)

    def summary_lines(self) -> list[str]:
        """Short lines for `memfs status`: one per step, then one per model."""
        lines: list[str] = []
        for step in sorted(set(self.steps) | set(self.fallbacks) | set(self.events)):
            c = self.steps.get(step, Counter())
            fb = self.fallbacks.get(step, {})
            fbs = ", ".join(f"{k} {v}" for k, v in sorted(fb.items()))
            ev = self.events.get(step, {})
            evs = ", ".join(f"{k} {v}" for k, v in sorted(ev.items()) if k != "batches")
            line = (f"{step}: {c.calls} calls, {c.prompt_tokens}+{c.completion_tokens} tokens"
                    + (f", {c.retries} retries" if c.retries else "")
                    + (f", {c.errors} errors" if c.errors else "")
                    + (f", {c.cached} cached" if c.cached else "")
                    + (f"; {ev['batches']} batches" if ev.get("batches") else "")
                    + (f"; fallbacks: {fbs}" if fbs else "")
                    + (f"; events: {evs}" if evs else ""))
            lines.append(line)
            if step in self.last_fallback:
                lines.append(f"{step}: last fallback: {self.last_fallback[step]}")
        for model in sorted(self.models):
            c = self.models[model]
            lines.append(f"model {model}: {c.calls} calls, {c.total_tokens} tokens")
        return lines

    # -- persisting ----------------------------------------------------------------
    def merged(self, other: "Usage") -> "Usage":
        """A new Usage: self + other (neither is changed)."""
        out = Usage.model_validate(self.model_dump())
        for name in ("steps", "models"):
            mine: dict[str, Counter] = getattr(out, name)
            for key, c in getattr(other, name).items():
                mine.setdefault(key, Counter()).add(c)
        for name in ("fallbacks", "events"):
            mine2: dict[str, dict[str, int]] = getattr(out, name)
            for step, per in getattr(other, name).items():
                dst = mine2.setdefault(step, {})
                for k, v in per.items():
                    dst[k] = dst.get(k, 0) + v
        out.last_fallback.update(other.last_fallback)
        out.since = min(filter(None, [self.since, other.since]), default=None)
        out.updated = max(filter(None, [self.updated, other.updated]), default=None)
        return out

    @classmethod
    def load_json(cls, path: Path) -> "Usage":
        """The persisted totals; an absent or unreadable file is an empty Usage (it is derived state)."""
        try:
            return cls.model_validate(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError, ValidationError):
            log.warning("ignoring unreadable %s", path.name)
            return cls()

    def merge_into_json(self, path: Path) -> "Usage":
        """Add these counts to the totals in ``path`` (atomic write), then zero this object.

        Draining makes repeated calls (after every input, in the daemon) count each call
        once. A lock file of its own serialises writers, so readers (`recall --mode llm`)
        may save their usage without the workspace's writer lock. Returns the new totals.
        """
        with self._lock:
            snapshot = Usage.model_validate(self.model_dump())
            for name in ("steps", "models", "fallbacks", "last_fallback", "events"):
                getattr(self, name).clear()
            self.since = self.updated = None
        with _file_lock(path.with_name(path.name + ".lock")):
            total = Usage.load_json(path).merged(snapshot)
            atomic_write(path, total.model_dump_json(indent=2) + "\n")
        return total


class Budget(BaseModel):
    """Tokens one process may spend; `None` = unlimited. Shared by every ChatClient."""

    limit_tokens: int | None = None
    used_tokens: int = 0

    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def exhausted(self) -> bool:
        return self.limit_tokens is not None and self.used_tokens >= self.limit_tokens

    def check(self, estimate: int = 0) -> None:
        """Raise BudgetExceeded if nothing is left, or the next request would (by estimate) overrun."""
        if self.limit_tokens is None:
            return
        if self.used_tokens >= self.limit_tokens or self.used_tokens + estimate > self.limit_tokens:
            raise BudgetExceeded(f"llm.budget_tokens reached: this process has used {self.used_tokens} of "
                                 f"{self.limit_tokens} tokens (prompt + completion) and the next request needs "
                                 f"about {estimate}; the rest of this command (or daemon run) is offline")

    def charge(self, tokens: int) -> None:
        with self._lock:
            self.used_tokens += max(0, tokens)
