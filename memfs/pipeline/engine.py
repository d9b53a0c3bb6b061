"""A small workflow engine after memU's WorkflowStep.

A step names the state keys it `requires` and `produces`. A pipeline is checked when it
is built (and after every insert/replace/remove): a step whose input no earlier step
produces is an error then, not a KeyError halfway through an ingestion. Hooks run before
and after each step and on its error, with the step name, the state and the timing; the
memorize pipeline uses one, `timing_hook`, for its per-stage seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from memfs.errors import MemfsError

State = MutableMapping[str, Any]


class PipelineError(MemfsError):
    """The pipeline's shape is wrong (a programming error, found before anything runs)."""


@dataclass(frozen=True)
class Step:
    name: str
    run: Callable[[State], None]
    requires: tuple[str, ...] = ()
    produces: tuple[str, ...] = ()


@dataclass
class StepEvent:
    pipeline: str
    step: str
    state: State
    seconds: float = 0.0
    error: BaseException | None = None


Hook = Callable[[StepEvent], None]


@dataclass
class Hooks:
    before: list[Hook] = field(default_factory=list)
    after: list[Hook] = field(default_factory=list)
    on_error: list[Hook] = field(default_factory=list)


class Stop(Exception):
    """Raised by a step to end the run early and cleanly (e.g. input already processed)."""


class Pipeline:
    def __init__(self, name: str, steps: Iterable[Step], initial: Iterable[str] = ()) -> None:
        self.name = name
        self.initial = tuple(initial)
        self.steps: list[Step] = list(steps)
        self.hooks = Hooks()
        self.validate()

    # -- shape ----------------------------------------------------------------
    def validate(self) -> None:
        names = [s.name for s in self.steps]
        dupes = {n for n in names if names.count(n) > 1}
        if dupes:
            raise PipelineError(f"pipeline {self.name}: duplicate step names {sorted(dupes)}")
        available = set(self.initial)
        for step in self.steps:
            missing = [k for k in step.requires if k not in available]
            if missing:
                raise PipelineError(f"pipeline {self.name}: step {step.name!r} requires {missing} "
                                    "but no earlier step produces it")
            available.update(step.produces)

    def _index(self, name: str) -> int:
        for i, step in enumerate(self.steps):
            if step.name == name:
                return i
        raise PipelineError(f"pipeline {self.name}: no step named {name!r}")

    def insert_after(self, name: str, step: Step) -> "Pipeline":
        self.steps.insert(self._index(name) + 1, step)
        self._revalidate_or_undo(lambda: self.steps.remove(step))
        return self

    def insert_before(self, name: str, step: Step) -> "Pipeline":
        self.steps.insert(self._index(name), step)
        self._revalidate_or_undo(lambda: self.steps.remove(step))
        return self

    def replace(self, name: str, step: Step) -> "Pipeline":
        i = self._index(name)
        old = self.steps[i]
        self.steps[i] = step
        self._revalidate_or_undo(lambda: self.steps.__setitem__(i, old))
        return self

    def remove(self, name: str) -> "Pipeline":
        i = self._index(name)
        old = self.steps.pop(i)
        self._revalidate_or_undo(lambda: self.steps.insert(i, old))
        return self

    def _revalidate_or_undo(self, undo: Callable[[], None]) -> None:
        try:
            self.validate()
        except PipelineError:
            undo()
            raise

    @property
    def step_names(self) -> list[str]:
        return [s.name for s in self.steps]

    # -- running ----------------------------------------------------------------
    def run(self, state: State) -> State:
        missing = [k for k in self.initial if k not in state]
        if missing:
            raise PipelineError(f"pipeline {self.name}: initial state lacks {missing}")
        for step in self.steps:
            event = StepEvent(self.name, step.name, state)
            for hook in self.hooks.before:
                hook(event)
            t0 = time.perf_counter()
            try:
                step.run(state)
            except Stop:
                event.seconds = time.perf_counter() - t0
                for hook in self.hooks.after:
                    hook(event)
                state["stopped_at"] = step.name
                return state
            except BaseException as err:
                event.seconds = time.perf_counter() - t0
                event.error = err
                for hook in self.hooks.on_error:
                    hook(event)
                raise
            event.seconds = time.perf_counter() - t0
            for hook in self.hooks.after:
                hook(event)
        return state


def timing_hook(totals: dict[str, float]) -> Hook:
    """An `after` hook that adds each step's seconds into `totals` (for stats and benchmarks)."""

    def hook(event: StepEvent) -> None:
        totals[event.step] = totals.get(event.step, 0.0) + event.seconds

    return hook
