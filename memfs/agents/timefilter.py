"""Time filters for recall (`since`, `until`, `as_of`), applied to each hit's `when`.

`Memory.recall` has no time filters yet (another branch adds them, with supersession);
until it does, the agent layer over-fetches and filters here, in one function, so the
merger can route `filter_hits` to `Memory.recall(since=, until=, as_of=)` later.

A `when` of `2026-03` is the whole of March: it passes `since=2026-03-15` (it ends after)
and `until=2026-03-02` (it starts before). Undated items have no place in time: a
`since`/`until` filter drops them, `as_of` keeps them (a timeless fact holds at any date).
An item that carries `until` (a supersession end, when that metadata lands) is dropped by
`as_of` at or after that date.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta
from typing import Protocol, TypeVar

from memfs.errors import MemfsError

_RELATIVE = re.compile(r"^\s*(\d{1,5})\s*(d|day|days|w|week|weeks|m|month|months|y|year|years|h|hour|hours)\s*$",
                       re.IGNORECASE)
_WHEN = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$")


class _Dated(Protocol):
    when: str | None


H = TypeVar("H", bound=_Dated)


def parse_time(spec: str | None, today: date | None = None) -> date | None:
    """'7d', '2w', '3 months', '1y' (ago), 'today', or an ISO date/datetime → a date."""
    if spec is None or not str(spec).strip():
        return None
    text = str(spec).strip()
    today = today or date.today()
    if text.lower() in ("today", "now"):
        return today
    if text.lower() == "yesterday":
        return today - timedelta(days=1)
    rel = _RELATIVE.match(text)
    if rel:
        n, unit = int(rel.group(1)), rel.group(2).lower()[0]
        if unit == "h":
            return (datetime.combine(today, datetime.min.time()) - timedelta(hours=n)).date()
        if unit == "d":
            return today - timedelta(days=n)
        if unit == "w":
            return today - timedelta(weeks=n)
        months = n if unit == "m" else 12 * n
        y, m = divmod(today.year * 12 + today.month - 1 - months, 12)
        return date(y, m + 1, min(today.day, calendar.monthrange(y, m + 1)[1]))
    span = when_span(text)
    if span is not None:
        return span[0]
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).date()
    except ValueError:
        raise MemfsError(f"bad time {spec!r}: use 7d, 2w, 3m, 1y, YYYY, YYYY-MM, YYYY-MM-DD or an ISO datetime") from None


def when_span(when: str | None) -> tuple[date, date] | None:
    """The first and last day a `when` (YYYY, YYYY-MM, YYYY-MM-DD) covers; None if undated or malformed."""
    if not when:
        return None
    m = _WHEN.match(when.strip())
    if not m:
        return None
    try:
        y = int(m.group(1))
        if m.group(3):
            d = date(y, int(m.group(2)), int(m.group(3)))
            return d, d
        if m.group(2):
            mo = int(m.group(2))
            return date(y, mo, 1), date(y, mo, calendar.monthrange(y, mo)[1])
        return date(y, 1, 1), date(y, 12, 31)
    except ValueError:
        return None


def filter_hits(hits: list[H], since: date | None = None, until: date | None = None,
                as_of: date | None = None) -> list[H]:
    """Keep the hits whose `when` overlaps [since, until] and that hold at `as_of`."""
    if since is None and until is None and as_of is None:
        return hits
    out: list[H] = []
    for hit in hits:
        span = when_span(hit.when)
        if since is not None or until is not None:
            if span is None:
                continue
            if since is not None and span[1] < since:
                continue
            if until is not None and span[0] > until:
                continue
        if as_of is not None:
            if span is not None and span[0] > as_of:
                continue
            ended = when_span(getattr(hit, "until", None))
            if ended is not None and ended[0] <= as_of:
                continue
        out.append(hit)
    return out
