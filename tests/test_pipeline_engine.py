"""The workflow engine: shape checked at build time, edits by name, hooks."""

from __future__ import annotations

import pytest

from memfs.pipeline.engine import Pipeline, PipelineError, Step, Stop, timing_hook


def _step(name: str, requires: tuple[str, ...], produces: tuple[str, ...], value: object = 1) -> Step:
    def run(state):  # type: ignore[no-untyped-def]
        for key in produces:
            state[key] = value

    return Step(name, run, requires, produces)


def test_missing_input_is_a_build_error() -> None:
    with pytest.raises(PipelineError, match="'b' requires \\['x'\\]"):
        Pipeline("p", [_step("a", ("in",), ("y",)), _step("b", ("x",), ("z",))], initial=("in",))


def test_insert_replace_remove_by_name_and_revalidate() -> None:
    p = Pipeline("p", [_step("a", ("in",), ("x",)), _step("c", ("x",), ("z",))], initial=("in",))
    p.insert_after("a", _step("b", ("x",), ("y",)))
    assert p.step_names == ["a", "b", "c"]
    p.replace("b", _step("b", ("x",), ("y", "w")))
    p.insert_before("c", _step("b2", ("w",), ()))
    with pytest.raises(PipelineError):
        p.remove("a")  # c and b need x
    assert p.step_names == ["a", "b", "b2", "c"]  # a failed edit is undone
    with pytest.raises(PipelineError):
        p.remove("nope")


def test_hooks_timing_errors_and_stop() -> None:
    seen: list[str] = []
    totals: dict[str, float] = {}

    def boom(state):  # type: ignore[no-untyped-def]
        raise ValueError("bad")

    p = Pipeline("p", [_step("a", (), ("x",)), Step("b", boom, ("x",), ())])
    p.hooks.before.append(lambda e: seen.append(f"before {e.step}"))
    p.hooks.after.append(timing_hook(totals))
    p.hooks.on_error.append(lambda e: seen.append(f"error {e.step} {e.error}"))
    with pytest.raises(ValueError):
        p.run({})
    assert seen == ["before a", "before b", "error b bad"] and set(totals) == {"a"}

    def stop(state):  # type: ignore[no-untyped-def]
        raise Stop()

    q = Pipeline("q", [Step("s", stop, (), ("x",)), _step("never", ("x",), ("y",))])
    out = q.run({})
    assert out["stopped_at"] == "s" and "y" not in out


def test_memorize_pipeline_shape() -> None:
    from memfs.pipeline.memorize import Memorizer

    names = Memorizer.build(Memorizer.__new__(Memorizer)).step_names
    assert names == ["ingest", "segment", "extract", "dedupe", "categorize", "persist", "remember", "index",
                     "summarize"]
