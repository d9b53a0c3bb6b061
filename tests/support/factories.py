"""Inputs several tests feed memfs: memfs.conversation/1 documents, parsed conversations
(what a reader hands the extractor) and chat files in the OpenAI messages shape."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from memfs.core.segment import ParsedSource, Segment

PEOPLE = ["Ana", "Ben", "Chloe", "Dev", "Emma", "Farid", "Gita", "Hugo", "Ines", "Jon", "Kai", "Lena"]


def conversation(n: int, turns: int = 5) -> dict:
    """A small memfs.conversation/1 input whose facts are unique to n (plus one shared fact)."""
    p = PEOPLE[n % len(PEOPLE)]
    lines = [
        f"I adopted a dog named Rex{n} from the shelter last week.",
        "That's wonderful news!",
        f"I work as a nurse at the hospital in town number {n}.",
        f"My favourite book is Dune, I reread it every {n + 2} years.",
        "I usually go swimming on Saturday mornings.",
        f"My sister Mia{n} lives in Porto and teaches chemistry.",
        f"I am allergic to peanuts since I was {n % 30 + 3}.",
        f"I bought a red bicycle called Zoom{n} in March.",
    ]
    speakers = [p, "Sam", p, p, p, p, p, p]
    return {"format": "memfs.conversation/1", "participants": [p, "Sam"], "sessions": [{
        "id": "S1", "time": f"2024-0{1 + n % 9}-1{n % 10}T10:00:00", "turns": [
            {"id": f"D1:{i + 1}", "speaker": speakers[i], "text": lines[i]} for i in range(min(turns, len(lines)))
        ]}]}


def parsed_conversation(turns: Sequence[tuple[str, str]], *, when: datetime | None = None,
                        participants: Sequence[str] | None = None, fmt: str = "test", anchor: str = "D1:{i}",
                        session: str | None = None) -> ParsedSource:
    """A conversation as a reader parses it: one segment per (speaker, text) turn, anchors
    numbered from 1 through `anchor` ("D1:{i}" like LoCoMo, "m{i}" like a messages file)."""
    segs = [Segment(anchor=anchor.format(i=i), speaker=speaker, text=text, time=when, session=session)
            for i, (speaker, text) in enumerate(turns, 1)]
    return ParsedSource(kind="conversation", format=fmt, time=when, segments=segs,
                        participants=list(participants) if participants is not None else [])


def chat_file(path: Path, messages: Sequence[dict[str, Any]], **fields: Any) -> Path:
    """Write an OpenAI-messages chat (`{"messages": [...], **fields}`) to `path`."""
    path.write_text(json.dumps({"messages": list(messages), **fields}))
    return path
