"""Progress for long CLI work: shown on stderr only when it is a terminal, only after a second.

Short commands print nothing extra, and neither do pipes, logs and CI (stderr not a
tty). rich (already installed with typer) draws the bar; nothing here writes escapes.
"""

from __future__ import annotations

import os
import sys
import time
from types import TracebackType
from typing import Any

#: Seconds of work before a bar appears (MEMFS_PROGRESS_DELAY overrides; tests use 0).
DEFAULT_DELAY = 1.0


class Progress:
    """`with Progress("memorizing", unit="files") as p: p.update(done, total, items=n)`.

    A no-op unless stderr is a terminal; the bar starts once the work has taken longer
    than the delay, so a fast command leaves the terminal exactly as before."""

    def __init__(self, label: str, unit: str = "files", delay: float | None = None,
                 stream: Any = None) -> None:
        self.label = label
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        env = os.environ.get("MEMFS_PROGRESS_DELAY")
        self.delay = float(env) if delay is None and env else (DEFAULT_DELAY if delay is None else delay)
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self._t0 = time.monotonic()
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> "Progress":
        self._t0 = time.monotonic()
        return self

    def update(self, done: int, total: int | None, unit: str | None = None, **counts: int) -> None:
        """`unit` switches what is counted (a sync scans files, then embeds texts)."""
        if not self.enabled:
            return
        if unit is not None and unit != self.unit:
            self.unit = unit
            self._t0 = time.monotonic() - self.delay  # a new stage: its own rate, shown at once
            if self._bar is not None:
                self._bar.reset(self._task, total=total, info="")
        elapsed = time.monotonic() - self._t0
        if self._bar is None:
            if elapsed < self.delay:
                return
            self._start(total)
        rate = done / elapsed if elapsed > 0 else 0.0
        extra = "  ".join(f"{v} {k}" for k, v in counts.items())
        self._bar.update(self._task, completed=done, total=total,
                         info=f"{self.unit}  {extra}  {rate:.1f}/s".strip())

    def _start(self, total: int | None) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as RichProgress

        console = Console(file=self.stream, stderr=self.stream is sys.stderr)
        self._bar = RichProgress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), TextColumn("{task.fields[info]}"),
                                 console=console, transient=False)
        self._bar.start()
        self._task = self._bar.add_task(self.label, total=total, info="")

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.stop()
