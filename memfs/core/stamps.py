"""`when` stamps (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`) read as days: the one parser outside extraction.

Recall's time windows, supersession, the entry files' ordering and salience's age all ask
here; `core.model.parse_when` checks a stamp a person typed, and `extract/dates.py` finds
dates in prose (a different job).
"""

from __future__ import annotations

import calendar
import re
from datetime import date
from functools import lru_cache

_STAMP = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$")


def stamp_range(stamp: str | None) -> tuple[date, date] | None:
    """The first and last day a `YYYY[-MM[-DD]]` stamp covers; None if it is not one."""
    if not stamp:
        return None
    m = _STAMP.match(stamp.strip())
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


@lru_cache(maxsize=1 << 14)  # pure, and few distinct stamps: asked ~8 times an item when a process regenerates
def first_day(stamp: str | None) -> date | None:
    """The first day an exact stamp can mean ('2026' is 2026-01-01); None if it is not one."""
    if not stamp or stamp != stamp.strip():
        return None
    span = stamp_range(stamp)
    return span[0] if span else None


def age_days(stamp: str | None, today: date) -> float | None:
    """Whole days from a stamp's first day to `today` (0 if in the future); None if undated."""
    day = first_day(stamp)
    return None if day is None else max(0.0, float((today - day).days))
