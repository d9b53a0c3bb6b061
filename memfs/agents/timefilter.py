"""Times as agents send them (`7d`, `2 weeks`, `yesterday`, an ISO date or datetime) turned
into dates for `Memory.recall(since=, until=, as_of=)`, which does the filtering
(memfs/index/timefilter.py: a `when` of `2026-03` is the whole of March).
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta

from memfs.errors import MemfsError
from memfs.index.timefilter import stamp_range as when_span  # one parser of `when` stamps

_RELATIVE = re.compile(r"^\s*(\d{1,5})\s*(d|day|days|w|week|weeks|m|month|months|y|year|years|h|hour|hours)\s*$",
                       re.IGNORECASE)


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
