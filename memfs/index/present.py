"""What a plain recall needs of memfs.index.timefilter, without pydantic.

`TimeFilter` is a pydantic model (it validates `--since/--until/--as-of` at the boundary),
and importing pydantic is ~0.1-0.2 s of a cold `memfs recall` that asks for no window at
all. So the present-tense test and the default window (no dates, no history) live here;
timefilter re-exports `is_present_query`, and a test keeps `DEFAULT_WINDOW` answering as
`TimeFilter()` does.
"""

from __future__ import annotations

import re

_PRESENT = re.compile(r"\b(?:now|currently|current|these days|nowadays|at the moment|at present|"
                      r"presently|anymore|any more|right now)\b", re.IGNORECASE)


def is_present_query(query: str) -> bool:
    """'where does Priya live now', 'what is she currently reading', 'these days'."""
    return bool(_PRESENT.search(query))


class _NoWindow:
    """`TimeFilter()`: every date, current items only (a superseded line is history)."""

    since: str | None = None
    until: str | None = None
    as_of: str | None = None
    history = False
    active = False

    def keep(self, when: str | None, until: str | None, superseded_by: str | None) -> bool:
        return not superseded_by


DEFAULT_WINDOW = _NoWindow()
