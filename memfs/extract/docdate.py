"""A document's own date: front-matter, else a dated header line, else its file name.

Relative dates in a document ("next Friday", "last week") mean something only against
the day it was written. The reader takes `date:` from front-matter; this fills in the
rest, in that order of trust:

- a dated header line: the title or one of the first three lines, when it carries a full
  date ("Weekly sync - 24 November 2026", "Note from 2026-12-01", "Minutes, Nov 24, 2026");
- the file name: `2026-11-24-sync.md`, `notes_20261124.txt`, `sync 24-11-2026.md`.

Only day-precision dates count (a header "Q3 2026 roadmap" dates nothing).
"""

from __future__ import annotations

import re
from datetime import date, datetime

from memfs.core.segment import ParsedSource
from memfs.extract.dates import resolve_dates

_HEADER_LINES = 3
_HEADER_MAX_CHARS = 120
_NAME_ISO = re.compile(r"(?<!\d)((?:19|20)\d{2})[-_.]?(0[1-9]|1[0-2])[-_.]?(0[1-9]|[12]\d|3[01])(?!\d)")
_NAME_DMY = re.compile(r"(?<!\d)(0[1-9]|[12]\d|3[01])[-_.](0[1-9]|1[0-2])[-_.]((?:19|20)\d{2})(?!\d)")


def header_date(source: ParsedSource) -> date | None:
    """A full date in the title or the first lines of the first segment."""
    lines: list[str] = [source.title] if source.title else []
    if source.segments:
        first = source.segments[0]
        if first.heading:
            lines.append(first.heading)
        lines.extend(first.text.split("\n")[:_HEADER_LINES])
    for line in lines:
        line = (line or "").strip().lstrip("#").strip()
        if not line or len(line) > _HEADER_MAX_CHARS:
            continue
        _, when = resolve_dates(line, None)
        if when and len(when) == 10:
            return date.fromisoformat(when)
    return None


def name_date(filename: str) -> date | None:
    """`2026-11-24-sync.md`, `notes_20261124.txt`, `sync 24-11-2026.md`."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    for pat, order in ((_NAME_ISO, (0, 1, 2)), (_NAME_DMY, (2, 1, 0))):
        m = pat.search(base)
        if m:
            parts = m.groups()
            try:
                return date(int(parts[order[0]]), int(parts[order[1]]), int(parts[order[2]]))
            except ValueError:
                continue
    return None


def date_document(source: ParsedSource, filename: str) -> ParsedSource:
    """Give an undated document its own date (and its undated segments with it)."""
    if source.kind != "document" or source.time is not None:
        return source
    day = header_date(source) or name_date(filename)
    if day is None:
        return source
    moment = datetime(day.year, day.month, day.day, 12, 0)
    segments = [s if s.time is not None else s.model_copy(update={"time": moment}) for s in source.segments]
    return source.model_copy(update={"time": moment, "segments": segments})
