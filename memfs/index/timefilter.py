"""Time in recall: `since`/`until`/`as_of` windows on an item's `when`, history, and
the queries that ask about the present.

An item's `when` has its own precision (`2026`, `2026-10`, `2026-10-03`), so it is an
interval, and a window keeps it when the two overlap: `since=2026-10-15` keeps an item
dated `2026-10` (it may have happened after the 15th). Undated items cannot be placed:
`since`/`until` leave them out, `as_of` keeps them (a timeless fact is true then too).

Superseded items (`superseded_by=` on their line) are history: left out unless
`history=True`, or `as_of` asks about a date inside their validity (`when` ≤ as_of <
`until`).
"""

from __future__ import annotations

from pydantic import BaseModel, ValidationError, field_validator

from memfs.core.stamps import stamp_range
from memfs.errors import MemfsError
from memfs.index.present import is_present_query  # noqa: F401 - its home before; no pydantic there


class TimeFilter(BaseModel):
    """What `recall --since/--until/--as-of/--history` asks for (validated at the boundary)."""

    since: str | None = None
    until: str | None = None
    as_of: str | None = None
    history: bool = False

    @field_validator("since", "until", "as_of")
    @classmethod
    def _stamp(cls, v: str | None) -> str | None:
        if v is None or v == "":
            return None
        v = v.strip()
        if stamp_range(v) is None:
            raise ValueError(f"expected a date YYYY, YYYY-MM or YYYY-MM-DD, got {v!r}")
        return v

    @classmethod
    def of(cls, since: str | None = None, until: str | None = None, as_of: str | None = None,
           history: bool = False) -> "TimeFilter":
        """Build one, turning a bad date into a one-line MemfsError."""
        try:
            return cls(since=since, until=until, as_of=as_of, history=history)
        except ValidationError as err:
            first = err.errors()[0]
            field = ".".join(str(x) for x in first.get("loc", ())).replace("as_of", "as-of")
            msg = str(first.get("msg", "invalid date")).replace("Value error, ", "")
            raise MemfsError(f"--{field}: {msg}") from None

    @property
    def active(self) -> bool:
        return bool(self.since or self.until or self.as_of or self.history)

    def keep(self, when: str | None, until: str | None, superseded_by: str | None) -> bool:
        """Does an item with this `when`, `until` and `superseded_by` answer the query?"""
        span = stamp_range(when)
        if self.since or self.until:
            if span is None:
                return False
            lo = stamp_range(self.since)
            hi = stamp_range(self.until)
            if lo is not None and span[1] < lo[0]:
                return False
            if hi is not None and span[0] > hi[1]:
                return False
        if self.as_of:
            ref = stamp_range(self.as_of)
            assert ref is not None
            moment = ref[1]  # as of 2026-10: by the end of October
            if span is not None and span[0] > moment:
                return False  # not yet true (or not yet said)
            end = stamp_range(until)
            if end is not None and end[0] <= moment:
                return False  # no longer true by then
            if superseded_by and end is None:
                return False  # superseded at an unknown time: not trustworthy as of any date
            return True
        if superseded_by and not self.history:
            return False
        return True
