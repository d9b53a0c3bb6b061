"""What memfs has learned about each endpoint and model: the structured-output mode it
accepts, and whether its circuit breaker is open.

Keyed by ``base_url|model``, shared by every client of a process (the extract, merge,
summarize and recall steps of one model trip one breaker and learn one mode), and kept in
``.memfs/llm-state.json`` so that the next CLI command neither re-discovers that a server
rejects ``json_schema`` nor hammers a server that just failed. Derived state: deleting the
file only costs one rejected request or one more failure.

The breaker: after ``failures`` consecutive failed calls (endpoint errors, timeouts,
answers that stayed invalid) the endpoint is *open*: no request is sent for the rest of
the current input, nor until ``cooldown`` seconds have passed. Then one call is let
through (half-open); a success closes the breaker, a failure opens it again at once.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, Field

from memfs.fsutil import atomic_write

log = logging.getLogger(__name__)

STATE_FILE = "llm-state.json"  # under .memfs/
MODES = ("json_schema", "json_object", "text")


class _Persisted(BaseModel):
    modes: dict[str, str] = Field(default_factory=dict, description="endpoint|model -> accepted mode")
    open_until: dict[str, float] = Field(default_factory=dict, description="endpoint|model -> unix time")


def endpoint_key(base_url: str | None, model: str) -> str:
    return f"{(base_url or 'https://api.openai.com/v1').rstrip('/')}|{model}"


class EndpointState:
    """Thread-safe; every change to a mode or an open breaker is written through to disk."""

    def __init__(self, path: Path | None = None, *, failures: int = 3, cooldown: float = 300.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.failures = max(1, failures)
        self.cooldown = max(0.0, cooldown)
        self._clock = clock
        self._lock = threading.Lock()
        self._data = self._load()
        self._streak: dict[str, int] = {}
        self._held: set[str] = set()  # tripped during the current input

    def _load(self) -> _Persisted:
        if self.path is None:
            return _Persisted()
        try:
            return _Persisted.model_validate(json.loads(self.path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            return _Persisted()
        except (OSError, ValueError):
            log.warning("ignoring unreadable %s", self.path.name)
            return _Persisted()

    def _save(self) -> None:
        if self.path is None:
            return
        try:
            atomic_write(self.path, self._data.model_dump_json(indent=2) + "\n")
        except OSError as err:  # derived state: never fail a call over it
            log.debug("could not write %s: %s", self.path.name, type(err).__name__)

    # -- structured-output mode -----------------------------------------------------
    def mode(self, key: str) -> str:
        with self._lock:
            mode = self._data.modes.get(key, MODES[0])
            return mode if mode in MODES else MODES[0]

    def set_mode(self, key: str, mode: str) -> None:
        with self._lock:
            if self._data.modes.get(key) == mode:
                return
            self._data.modes[key] = mode
            self._save()

    # -- circuit breaker ---------------------------------------------------------------
    def begin_input(self) -> None:
        """A new input starts: a breaker that tripped during the last one may cool down now."""
        with self._lock:
            self._held.clear()

    def open_reason(self, key: str) -> str | None:
        """Why no request may go to ``key`` now, or None if one may."""
        with self._lock:
            if key in self._held:
                return f"{self.failures} consecutive failures during this input"
            until = self._data.open_until.get(key, 0.0)
            left = until - self._clock()
            if left > 0:
                return f"{self.failures} consecutive failures; cooling down for {left:.0f} more s"
            return None

    def is_open(self, key: str) -> bool:
        return self.open_reason(key) is not None

    def success(self, key: str) -> None:
        with self._lock:
            self._streak[key] = 0
            if self._data.open_until.pop(key, None) is not None:
                self._save()

    def failure(self, key: str) -> bool:
        """Count one failed call; True if this one opened the breaker."""
        with self._lock:
            half_open = key in self._data.open_until  # the call after a cool-down failed too
            streak = self._streak.get(key, 0) + 1
            self._streak[key] = streak
            if streak < self.failures and not half_open:
                return False
            self._streak[key] = 0
            self._held.add(key)
            self._data.open_until[key] = self._clock() + self.cooldown
            self._save()
            return True


def describe_state(path: Path, clock: Callable[[], float] = time.time) -> list[str]:
    """Lines for `memfs status`: each endpoint's learned mode and any open breaker."""
    state = EndpointState(path)
    now = clock()
    lines = []
    for key in sorted(set(state._data.modes) | set(state._data.open_until)):
        parts = []
        mode = state._data.modes.get(key)
        if mode and mode != MODES[0]:
            parts.append(f"structured output {mode}")
        left = state._data.open_until.get(key, 0.0) - now
        if left > 0:
            parts.append(f"circuit open for {left:.0f} more s")
        if parts:
            lines.append(f"{key}: " + ", ".join(parts))
    return lines
