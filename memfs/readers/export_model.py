"""What the export readers produce: conversations (and project documents) pulled out of one
export file, each of which becomes its own input and its own resource.

An export is never archived as it came: each conversation is written as a
``memfs.conversation/1`` document holding only what is memorized (the people's and the
assistant's text, message ids, speakers, times, the title). Tool calls, tool output and
hidden messages, which carry file contents and secrets, never reach ``resources/``; the
provenance anchor of every item is the message id in the export (``#<message-id>``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from datetime import datetime

from pydantic import BaseModel, Field, PrivateAttr

from memfs.readers.conversation import FORMAT_ID
from memfs.readers.errors import ReadError
from memfs.readers.text import clean, one_line

# The same rule memfs.conversation/1 applies to turn ids (they end up inside an HTML comment).
_ID_OK = re.compile(r"[^\s#<>\"'`\x00-\x1f\x7f]{1,100}")
_SLUG = re.compile(r"[^a-z0-9]+")


def safe_id(value: object, fallback: str) -> str:
    """A message id usable as an anchor: the export's own id when it is one, else a stable
    derived one (``h`` + 12 hex digits of the raw id, or the fallback)."""
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        raw = clean(str(value))
        if _ID_OK.fullmatch(raw):
            return raw
        if raw:
            return "h" + hashlib.sha256(raw.encode("utf-8", "replace")).hexdigest()[:12]
    return fallback


class ExportError(ReadError):
    """A file of a known export shape that is damaged: the message names the format."""

    def __init__(self, label: str, message: str) -> None:
        super().__init__(f"{label}: {message}")
        self.label = label


class Turn(BaseModel):
    id: str
    speaker: str
    text: str
    time: datetime | None = None


class Conversation(BaseModel):
    """One conversation of an export, already reduced to what memfs memorizes."""

    format: str = Field(description="Reader id, e.g. 'chatgpt-export'.")
    label: str = Field(description="Human name of the format for messages, e.g. 'ChatGPT export'.")
    id: str | None = None
    title: str | None = None
    created: datetime | None = None
    updated: datetime | None = None
    turns: list[Turn] = Field(default_factory=list)
    skipped: Counter[str] = Field(default_factory=Counter, description="What was left out, by kind.")
    _used: set[str] = PrivateAttr(default_factory=set)

    def add(self, turn_id: str, speaker: str, text: object, time: datetime | None) -> None:
        """Append a turn (blank text is dropped; an id seen before gets a -2, -3 suffix)."""
        body = clean(text) if isinstance(text, str) else ""
        if not body:
            return
        ident, n = turn_id, 1
        while ident in self._used:
            n += 1
            ident = f"{turn_id}-{n}"
        self._used.add(ident)
        self.turns.append(Turn(id=ident, speaker=speaker, text=body, time=time))

    def document(self) -> bytes:
        """The conversation as memfs.conversation/1 bytes: deterministic, so the same
        conversation exported twice has the same content hash (and is a duplicate)."""
        session: dict[str, object] = {"id": safe_id(self.id, "S1") if self.id else "S1"}
        if self.created:
            session["time"] = self.created.isoformat()
        session["turns"] = [
            {"id": t.id, "speaker": t.speaker, "text": t.text, **({"time": t.time.isoformat()} if t.time else {})}
            for t in self.turns
        ]
        origin: dict[str, object] = {"format": self.format}
        if self.id:
            origin["conversation"] = self.id
        if self.created:
            origin["created"] = self.created.isoformat()
        if self.updated:
            origin["updated"] = self.updated.isoformat()
        if self.skipped:
            origin["skipped"] = dict(sorted(self.skipped.items()))
        doc: dict[str, object] = {"format": FORMAT_ID}
        if self.title:
            doc["title"] = self.title
        doc["participants"] = list(dict.fromkeys(t.speaker for t in self.turns))
        doc["source"] = origin
        doc["sessions"] = [session]
        return (json.dumps(doc, ensure_ascii=False, indent=1) + "\n").encode("utf-8")

    def file_name(self) -> str:
        """A name for the input (only its slug reaches resources/): format + title."""
        return f"{_prefix(self.format)}-{slug(self.title or self.id or 'conversation')}.json"


class Document(BaseModel):
    """A document inside an export (a Claude project's knowledge file or instructions)."""

    format: str
    label: str
    title: str
    text: str
    time: datetime | None = None

    def document(self) -> bytes:
        """Markdown with the title (and date) in front-matter."""
        title = json.dumps(" ".join(self.title.split()), ensure_ascii=False)
        date = f"date: {self.time.date().isoformat()}\n" if self.time else ""
        return f"---\ntitle: {title}\n{date}---\n{self.text.rstrip()}\n".encode("utf-8")

    def file_name(self) -> str:
        return f"{_prefix(self.format)}-{slug(self.title)}.md"


def _prefix(fmt: str) -> str:
    """'claude-code-session' -> 'claude-code', 'chatgpt-export' -> 'chatgpt'."""
    for suffix in ("-export", "-session", "-chat"):
        fmt = fmt.removesuffix(suffix)
    return slug(fmt)


def slug(text: str, limit: int = 40) -> str:
    return _SLUG.sub("-", text.lower()).strip("-")[:limit].strip("-") or "untitled"


class Part(BaseModel):
    """One input cut out of an export: the bytes that are run through the pipeline."""

    name: str
    data: bytes
    title: str | None = None


class Unpacked(BaseModel):
    """An export read whole: its parts, and notes on what was left out."""

    label: str
    parts: list[Part] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


def describe_skipped(label: str, items: list[Conversation]) -> list[str]:
    """One note line for everything the readers left out, e.g. 'skipped 4 tool messages'."""
    total: Counter[str] = Counter()
    for conv in items:
        total.update(conv.skipped)
    if not total:
        return []
    parts = ", ".join(f"{n} {kind}" for kind, n in sorted(total.items()))
    return [f"{label}: skipped {parts}"]


def name_of(value: object, limit: int = 40) -> str:
    """A conversation's title or id, quoted for an error message."""
    return repr(one_line(str(value), limit))
