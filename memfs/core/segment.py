"""What readers produce and extractors consume: a source split into anchored segments.

Kept apart from the category-file model because it describes *raw input*, not memory:
a segment is one conversation turn or one document section, with the anchor that
provenance later points at (``resources/...#<anchor>``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from memfs.core.model import MemoryType


class Segment(BaseModel):
    """One addressable piece of an input: a conversation turn or a document section."""

    anchor: str = Field(description="Stable address inside the resource: turn id ('D1:12'), "
                        "heading path ('setup/install') or line range ('L10-14').")
    text: str
    speaker: str | None = None
    time: datetime | None = Field(None, description="When this turn was said / the section dated, "
                                  "used to resolve relative dates ('last Saturday').")
    session: str | None = None
    heading: str | None = None


class ParsedSource(BaseModel):
    """A whole input after reading: what kind it is and its segments in order."""

    kind: Literal["conversation", "document"]
    format: str = Field(description="Reader that produced it, e.g. 'openai-messages', 'markdown'.")
    title: str | None = None
    participants: list[str] = Field(default_factory=list)
    time: datetime | None = Field(None, description="Session / document time if known.")
    segments: list[Segment] = Field(default_factory=list)


MemoryTypeName = MemoryType  # the one list of types is core.model's


class Fact(BaseModel):
    """A candidate memory item produced by an extractor, before dedupe and filing."""

    text: str
    type: MemoryTypeName
    when: str | None = Field(None, description="ISO date (YYYY, YYYY-MM or YYYY-MM-DD) the fact "
                             "happened or was stated, if known.")
    anchor: str = Field(description="Anchor of the segment the fact came from.")
    speaker: str | None = None
    category_hint: str | None = Field(None, description="Optional category slug suggested by the "
                                      "extractor; the categorize step has the final say.")
    stated: str | None = Field(None, description="ISO day the fact was said (the turn's or document's "
                               "date), when known; a superseded fact's `until` is never later.")
