"""index.md, memory.md and skill.md: deterministic views of the category files.

Only the block between the two marker comments is memfs': whatever a person writes above
or below it is kept as is. Same categories in → same bytes out, so a regenerate that has
nothing new to say leaves git clean. What the blocks say is rendered in memfs/entry/.
"""

from __future__ import annotations

import math

BEGIN = "<!-- memfs:begin generated: edit outside this block; memfs rewrites what is inside -->"
END = "<!-- memfs:end generated -->"


def approx_tokens(text: str) -> int:
    """~4 characters a token: close enough for a budget, and needs no tokenizer."""
    return max(1, math.ceil(len(text) / 4))


def merge_generated(existing: str | None, generated: str) -> str:
    """Put `generated` between the markers of `existing`, keeping everything outside them."""
    block = f"{BEGIN}\n{generated.rstrip()}\n{END}\n"
    if not existing:
        return block
    start = existing.find(BEGIN)
    end = existing.find(END, start + 1) if start >= 0 else -1
    if start < 0 or end < 0:
        sep = "" if existing.endswith("\n\n") else ("\n" if existing.endswith("\n") else "\n\n")
        return existing + sep + block
    tail = existing[end + len(END):]
    if tail.startswith("\n"):
        tail = tail[1:]
    return existing[:start] + block + tail
