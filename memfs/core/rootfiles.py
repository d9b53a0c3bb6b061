"""index.md, memory.md and skill.md: deterministic views of the category files.

Only the block between the two marker comments is memfs': whatever a person writes above
or below it is kept as is. Same categories in → same bytes out, so a regenerate that has
nothing new to say leaves git clean. What the blocks say is rendered in memfs/entry/.
"""

from __future__ import annotations

import math
import re

from memfs.errors import MemfsError

BEGIN = "<!-- memfs:begin generated: edit outside this block; memfs rewrites what is inside -->"
END = "<!-- memfs:end generated -->"


_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]")


def one_line(text: str) -> str:
    """Text for one Markdown line: line breaks and control characters become spaces."""
    return _CONTROL.sub(" ", text) if _CONTROL.search(text) else text


def link_path(path: str) -> str:
    """A path for a link or a citation: control characters percent-encoded, so the link
    still names the real file and a line of index.md cannot be broken (#10, item 11)."""
    return _CONTROL.sub(lambda m: "".join(f"%{b:02X}" for b in m.group(0).encode()), path) \
        if _CONTROL.search(path) else path


def approx_tokens(text: str) -> int:
    """~4 characters a token: close enough for a budget, and needs no tokenizer."""
    return max(1, math.ceil(len(text) / 4))


class MarkerError(MemfsError, ValueError):
    """The root file's generated block cannot be located unambiguously."""


def merge_generated(existing: str | None, generated: str) -> str:
    """`existing` with its generated block replaced by `generated`; raises MarkerError.

    No markers at all: the block is appended (nothing of the person's is touched). One
    marker without the other, either one twice, or the end before the begin: refused,
    because any guess could delete what the person wrote after the begin marker."""
    newline = "\r\n" if existing and "\r\n" in existing.split("\n", 1)[0] + "\n" else "\n"
    block = f"{BEGIN}\n{generated.rstrip()}\n{END}\n".replace("\n", newline)
    if not existing:
        return block
    begins, ends = existing.count(BEGIN), existing.count(END)
    if begins == 0 and ends == 0:
        sep = "" if existing.endswith(newline * 2) else (newline if existing.endswith("\n") else newline * 2)
        return existing + sep + block
    start, end = existing.find(BEGIN), existing.find(END)
    if begins != 1 or ends != 1 or end < start:
        what = ("the begin marker is missing" if begins == 0 else "the end marker is missing" if ends == 0
                else "a marker appears twice" if begins > 1 or ends > 1 else "the end marker comes before the begin")
        raise MarkerError(what)
    tail = existing[end + len(END):]
    if tail.startswith("\r\n"):
        tail = tail[2:]
    elif tail.startswith("\n"):
        tail = tail[1:]
    return existing[:start] + block + tail
