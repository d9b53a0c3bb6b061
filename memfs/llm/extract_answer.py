"""What the LLM extractor's model answers, validated leniently, and the cleaning of each fact.

Apart from the extractor (memfs.llm.extract) so that the schema the model is asked for, and
what a wrong detail in it costs (nothing: an unknown type becomes none, "T3" becomes 3), can
be read on its own.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field, field_validator

from memfs.core.model import MEMORY_TYPES
from memfs.core.segment import MemoryTypeName

MAX_FACT_CHARS = 300
_TYPE_SYNONYMS = {
    "preference": "profile", "preferences": "profile", "identity": "profile", "relationship": "profile",
    "goal": "profile", "trait": "profile", "opinion": "profile", "personal": "profile",
    "events": "event", "activity": "event", "experience": "event", "plan": "event",
    "fact": "knowledge", "world": "knowledge", "information": "knowledge", "project": "knowledge",
    "habit": "behavior", "habits": "behavior", "routine": "behavior", "behaviour": "behavior",
    "procedure": "skill", "how-to": "skill", "howto": "skill", "instruction": "skill", "skills": "skill",
    "tools": "tool", "command": "tool", "api": "tool",
}
_WHEN_RE = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")
_TURN_RE = re.compile(r"\d+")
_WS_RE = re.compile(r"\s+")


class ExtractedFact(BaseModel):
    """One fact as the model states it; lenient where a wrong detail should not cost a repair turn."""

    text: str = Field(description="One standalone sentence; people by name.")
    type: MemoryTypeName | None = Field(None, description="profile | event | knowledge | behavior | skill | tool")
    when: str | None = Field(None, description="Absolute date of the fact: YYYY-MM-DD, YYYY-MM or YYYY.")
    turns: list[int] = Field(description="Bracketed numbers of the turns the fact is stated in.")
    category: str | None = None

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, v: Any) -> Any:
        if not isinstance(v, str):
            return None
        low = v.strip().lower()
        low = _TYPE_SYNONYMS.get(low, low)
        return low if low in MEMORY_TYPES else None

    @field_validator("when", "category", mode="before")
    @classmethod
    def _optional_str(cls, v: Any) -> Any:
        if v is None or isinstance(v, str):
            return v or None
        return str(v) if isinstance(v, int) else None

    @field_validator("turns", mode="before")
    @classmethod
    def _turns(cls, v: Any) -> Any:
        """Accept 3, "3", "T3", "#3", "[3]", "3-5" and lists of those."""
        items = v if isinstance(v, list) else [v]
        out: list[int] = []
        for item in items:
            if isinstance(item, bool):
                continue
            if isinstance(item, int):
                out.append(item)
            elif isinstance(item, str):
                nums = [int(n) for n in _TURN_RE.findall(item)]
                if "-" in item and len(nums) == 2 and 0 <= nums[1] - nums[0] <= 50:
                    nums = list(range(nums[0], nums[1] + 1))
                out.extend(nums)
        return out


class ExtractionAnswer(BaseModel):
    facts: list[ExtractedFact] = Field(description="Every fact worth remembering, in turn order.")


def _clean_when(value: str | None) -> str | None:
    if not value:
        return None
    m = _WHEN_RE.match(value.strip())
    if not m:
        return None
    year, month, day = m.group(1), m.group(2), m.group(3)
    if month and not 1 <= int(month) <= 12:
        return year
    if day and not 1 <= int(day) <= 31:
        return f"{year}-{month}"
    return "-".join(p for p in (year, month, day) if p)


def _clean_text(text: str) -> str:
    text = _WS_RE.sub(" ", text).strip().strip('"').strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    if text[-1] not in ".!?\"')`\u2026":
        text += "."
    if len(text) > MAX_FACT_CHARS:
        cut = text[: MAX_FACT_CHARS - 1]
        space = cut.rfind(" ")
        text = (cut[:space] if space > MAX_FACT_CHARS // 2 else cut).rstrip(" ,;:-") + "\u2026"
    return text


def _key(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".!?\u2026 ")
