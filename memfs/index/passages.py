"""Prose a person wrote, as searchable passages: paragraphs and sections with line anchors.

A note is more than its list lines: headings and paragraphs carry most of its words. They
are indexed (never rewritten, never stamped: invariant 5) as passages — the heading path
plus up to about `MAX_WORDS` words of consecutive paragraphs under one heading, split at
paragraph boundaries — each anchored to its lines (`path#L12-18`). Lines that belong to an
item (the list line and whatever is nested under it) are the item's, not a passage's.

A passage's id comes from its path and its own text, so an edit elsewhere in the file
leaves it (and its cached vector) alone.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: a reader (index.db) must not pay for yaml and mistune
    from memfs.core.categoryfile import CategoryDoc

#: Words per passage: about a paragraph or two, small enough that one match means something
#: and large enough that a section is a handful of passages, not hundreds.
MAX_WORDS = 120
#: Label offset of passages in the shared vector space (items keep their own labels below it).
PASSAGE_LABEL_BASE = 1 << 40

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_COMMENT_ONLY = re.compile(r"^\s*<!--.*-->\s*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")


@dataclass(frozen=True)
class Passage:
    id: str
    heading: str  # "Alpha > Networking", "" before the first heading
    text: str
    line_start: int  # 1-based lines of the file (front-matter counted)
    line_end: int

    def anchor(self, path: str) -> str:
        return f"{path}#L{self.line_start}-{self.line_end}" if self.line_end != self.line_start \
            else f"{path}#L{self.line_start}"

    @property
    def search_text(self) -> str:
        """What is embedded: the heading path gives a paragraph its subject."""
        return f"{self.heading}: {self.text}" if self.heading else self.text


def passage_id(path: str, text: str, salt: int = 0) -> str:
    digest = hashlib.sha1(f"{path}\x00{salt}\x00{text}".encode()).hexdigest()
    return "p" + digest[:11]


def _item_lines(doc: CategoryDoc) -> set[int]:
    taken: set[int] = set()
    for slot in doc.slots:
        if slot.start is not None and not slot.removed:
            taken.update(range(slot.start, slot.end if slot.end is not None else slot.start + 1))
    return taken


def _paragraphs(doc: CategoryDoc) -> list[tuple[str, list[tuple[int, str]]]]:
    """(heading path, [(body line, text)]) of each prose block."""
    taken = _item_lines(doc)
    stack: list[tuple[int, str]] = []
    out: list[tuple[str, list[tuple[int, str]]]] = []
    block: list[tuple[int, str]] = []
    fence: str | None = None

    def heading() -> str:
        return " > ".join(t for _, t in stack if t)

    def flush() -> None:
        nonlocal block
        if block:
            out.append((heading(), block))
        block = []

    for i, raw in enumerate(doc.lines):
        line = raw.rstrip("\r\n")
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
            if line.strip():
                block.append((i, line.strip()))
            continue
        if i in taken:
            flush()
            continue
        m = _FENCE.match(line)
        if m:
            fence = m.group(1)[0] * 3
            block.append((i, line.strip()))
            continue
        if not line.strip() or _COMMENT_ONLY.match(line):
            flush()
            continue
        h = _HEADING.match(line)
        if h:
            flush()
            level, title = len(h.group(1)), (h.group(2) or "").strip()
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            continue
        if block and _SETEXT.match(line):  # "Title\n=====": the block was a heading
            level = 1 if line.strip().startswith("=") else 2
            title = " ".join(t for _, t in block)
            block = []
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            continue
        block.append((i, line.strip()))
    flush()
    return out


def extract_passages(doc: CategoryDoc, front_lines: int) -> list[Passage]:
    """The passages of one parsed note; consecutive paragraphs under one heading are joined
    up to MAX_WORDS (a longer paragraph is split at its lines)."""
    out: list[Passage] = []
    counts: dict[str, int] = {}
    pending: list[tuple[int, int, str]] = []  # (first, last, text) chunks of one heading
    pending_heading = ""

    def emit() -> None:
        nonlocal pending
        if not pending:
            return
        text = " ".join(t for _, _, t in pending)
        salt = counts.get(text, 0)
        counts[text] = salt + 1
        out.append(Passage(passage_id(doc.path, pending_heading + "\x00" + text, salt), pending_heading, text,
                           pending[0][0] + front_lines + 1, pending[-1][1] + front_lines + 1))
        pending = []

    for head, lines in _paragraphs(doc):
        if head != pending_heading:
            emit()
            pending_heading = head
        for a, b, text in _chunks(lines):
            words = len(text.split())
            if pending and sum(len(t.split()) for _, _, t in pending) + words > MAX_WORDS:
                emit()
            pending.append((a, b, text))
            if words >= MAX_WORDS:
                emit()
        if sum(len(t.split()) for _, _, t in pending) >= MAX_WORDS * 2 // 3:
            emit()  # a paragraph boundary near the size: a good place to cut
    emit()
    return out


def _chunks(lines: list[tuple[int, str]]) -> list[tuple[int, int, str]]:
    """One paragraph as (first line, last line, text) pieces of at most MAX_WORDS words."""
    pieces: list[tuple[int, int, str]] = []
    cur: list[tuple[int, str]] = []
    count = 0
    for i, line in lines:
        w = len(line.split())
        if cur and count + w > MAX_WORDS:
            pieces.append((cur[0][0], cur[-1][0], " ".join(t for _, t in cur)))
            cur, count = [], 0
        cur.append((i, line))
        count += w
    if cur:
        pieces.append((cur[0][0], cur[-1][0], " ".join(t for _, t in cur)))
    return pieces
