"""The memory item and the fixed vocabulary around it (types, kinds, folders)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

MemoryType = Literal["profile", "event", "knowledge", "behavior", "skill", "tool"]
MEMORY_TYPES: tuple[str, ...] = ("profile", "event", "knowledge", "behavior", "skill", "tool")

Kind = Literal["memory", "index", "skill"]
KINDS: tuple[str, ...] = ("memory", "index", "skill")

#: Which folder (kind) a memory type is filed under by default (docs/architecture.md).
KIND_OF_TYPE: dict[str, str] = {
    "profile": "memory",
    "event": "memory",
    "behavior": "memory",
    "knowledge": "index",
    "skill": "skill",
    "tool": "skill",
}
#: The type a hand-written line gets when its folder is all we know.
DEFAULT_TYPE_OF_KIND: dict[str, str] = {"memory": "profile", "index": "knowledge", "skill": "skill"}

_WS = re.compile(r"\s+")
#: NUL and the other control characters except tab, newline and carriage return.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: ASCII digits only (`\d` takes any script's: a "２０２６" date sorted after every real one), all of it.
_WHEN = re.compile(r"^[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?\Z")


def parse_when(value: str) -> str:
    """Check a `when` a person typed: YYYY, YYYY-MM or YYYY-MM-DD naming a real month or day.

    The item model only checks the shape (a hand-edited file with a typo still parses);
    input from the CLI and the API is held to the calendar as well."""
    import datetime as _dt

    value = value.strip()
    if not _WHEN.match(value):
        raise ValueError(f"expected YYYY, YYYY-MM or YYYY-MM-DD, got {value!r}")
    parts = [int(p) for p in value.split("-")]
    try:
        _dt.date(parts[0], parts[1] if len(parts) > 1 else 1, parts[2] if len(parts) > 2 else 1)
    except ValueError:
        raise ValueError(f"{value!r} is not a date in the calendar") from None
    return value


def normalize_text(text: str) -> str:
    """Fold an item's text into one safe Markdown line.

    An item is one list line, so newlines and runs of white space become one space.
    Three things would change the Markdown *structure* around the line, and are
    neutralised with a CommonMark backslash escape (rendered invisibly):
    a leading block marker (`#`, `>`, `-`, fences, `<div>`, `1.` ...), an HTML comment
    opener (it would swallow the metadata comment), and NUL/control characters.
    The result is a fixed point: normalize_text(normalize_text(t)) == normalize_text(t).
    """
    text = _CONTROL.sub(" ", text)
    text = _WS.sub(" ", text).strip()
    text = text.replace("<!--", "<\\!--")
    if text and text[0] in _LEADING_PUNCT:
        text = "\\" + text
    else:
        m = _ORDERED.match(text)
        if m:
            text = m.group(1) + "\\" + text[len(m.group(1)) :]
    # A trailing backslash would escape the space before the metadata comment's '<'.
    trailing = len(text) - len(text.rstrip("\\"))
    if trailing % 2:
        text += "\\"
    return text


#: Characters that can open a block (or a link definition) at the start of a line. A
#: leading backslash is already an escape, so it is not one of them (idempotence).
_LEADING_PUNCT = set("#>-+*=_`~<|[!:")
_ORDERED = re.compile(r"^(\d{1,9})[.)]")


class Item(BaseModel):
    """One memory item: a fact that reads on its own, plus the metadata that keeps it honest.

    `extra` keeps metadata keys this version does not know, so a file written by a newer
    memfs (or annotated by a person) survives a round trip through an older one.
    """

    model_config = ConfigDict(frozen=False, extra="forbid")

    id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    text: str
    type: MemoryType = "profile"
    when: str | None = None
    src: str | None = None
    seen: int = Field(1, ge=1)
    updated: str | None = None
    extra: dict[str, str] = Field(default_factory=dict)

    @field_validator("text")
    @classmethod
    def _text(cls, v: str) -> str:
        return normalize_text(v)

    @field_validator("when", "updated")
    @classmethod
    def _date(cls, v: str | None) -> str | None:
        if v is None or v == "":
            return None
        if not _WHEN.match(v):
            raise ValueError(f"date must be YYYY, YYYY-MM or YYYY-MM-DD, got {v!r}")
        return v
