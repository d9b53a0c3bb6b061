"""Recall results as Markdown an agent can paste into its prompt."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memfs.api import RecallHit


def render_recall_markdown(query: str, hits: "list[RecallHit]") -> str:
    lines = [f"## Memory recall: {query}", ""]
    if not hits:
        lines.append("_No matching memory._")
        return "\n".join(lines)
    for h in hits:
        when = f"({h.when}) " if h.when and h.when not in h.text else ""
        cite = f"{h.path}:{h.line}" if h.line else h.path
        src = f"; source {h.source}" if h.source else ""
        lines.append(f"- {when}{h.text} [{cite}; id {h.id}{src}]")
    return "\n".join(lines)
