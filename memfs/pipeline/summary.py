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


def render_results(results: "list[IngestResult]", as_json: bool) -> tuple[list[tuple[bool, str]], int]:
    """What `memfs ingest` prints for these results, in order: (to stderr?, line) pairs, and
    the exit code; the same whether this process or a running daemon did the ingest
    (memfs.warm_write), so a failed input's line stays where it was among the others."""
    import json

    code = 1 if any(r.status == "failed" for r in results) else 0
    if as_json:
        return [(False, json.dumps([r.model_dump() for r in results], ensure_ascii=False, indent=2))], code
    lines: list[tuple[bool, str]] = []
    for r in results:
        if r.status == "failed":
            lines.append((True, f"failed {r.name}: {r.error}"))
        elif r.status == "duplicate":
            lines.append((False, f"{r.name}: already memorized ({r.resource})"))
        elif r.status == "waiting":
            lines.append((False, f"{r.name}: not taken yet: {r.error}"))
        else:
            export = f" from {r.conversations} conversations" if r.conversations else ""
            replayed = f", {r.replayed} messages already memorized" if r.replayed else ""
            lines.append((False, f"{r.name}: {counts(r)}{export}{replayed} → {', '.join(r.files) or 'no items'}"))
            if llm := llm_line(r):
                lines.append((False, f"  {llm}"))
            for note in r.notes:
                lines.append((False, f"  note: {note}"))
        for w in r.warnings:  # (any result's: the last one carries the root files' own)
            lines.append((True, f"warning: {w}"))
    return lines, code
