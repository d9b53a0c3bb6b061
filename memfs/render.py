"""Recall results as Markdown an agent can paste into its prompt."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def render_recall_markdown(query: str, hits: list[Mapping[str, Any]]) -> str:
    """`hits` are `RecallHit.model_dump()` dicts (what the warm daemon sends, too)."""
    lines = [f"## Memory recall: {query}", ""]
    if not hits:
        lines.append("_No matching memory._")
        return "\n".join(lines)
    for h in hits:
        if h.get("hit") == "passage":  # prose a person wrote: cited by its lines, no id
            where = h.get("anchor") or h["path"]
            under = f"; under {h['heading']}" if h.get("heading") else ""
            lines.append(f"- (passage) {h['text']} [{where}{under}]")
            continue
        when = f"({h['when']}) " if h.get("when") and h["when"] not in h["text"] else ""
        cite = f"{h['path']}:{h['line']}" if h.get("line") else h["path"]
        src = f"; source {h['source']}" if h.get("source") else ""
        old = f"; until {h.get('until') or '?'}, superseded by {h['superseded_by']}" if h.get("superseded_by") else ""
        lines.append(f"- {when}{h['text']} [{cite}; id {h['id']}{src}{old}]")
        if h.get("passage"):
            lines.append(f"  > {h['passage']}")
    return "\n".join(lines)
