"""One input's outcome as the lines `memfs ingest`, the daemon log and the commit message show.

One formatter for all three, so they never disagree: the counts of what changed in the
Markdown (added / reinforced / updated / superseded), then, in LLM mode, what the model
did and where memfs fell back offline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memfs.pipeline.memorize import IngestResult


def _count(value: object) -> int:
    if isinstance(value, int):
        return value
    try:
        return len(value)  # type: ignore[arg-type]
    except TypeError:
        return 0


def counts(result: "IngestResult") -> str:
    """`+3 added, 1 reinforced, 1 updated, 0 superseded`"""
    superseded = _count(getattr(result, "superseded", 0))
    return (f"+{len(result.added)} added, {len(result.reinforced)} reinforced, {len(result.updated)} updated, "
            f"{superseded} superseded")


def commit_counts(result: "IngestResult") -> str:
    """`added 3, reinforced 1, updated 1, superseded 0` (the commit message's form)."""
    superseded = _count(getattr(result, "superseded", 0))
    return (f"added {len(result.added)}, reinforced {len(result.reinforced)}, updated {len(result.updated)}, "
            f"superseded {superseded}")


def llm_line(result: "IngestResult") -> str | None:
    """`llm: fell back offline for N of M batches (reason n); ...`, or None offline."""
    return result.llm.line() if result.llm is not None else None
