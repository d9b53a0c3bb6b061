"""Rows of the index as the entry files' items: the row-level helpers of entry/poolcache.py.

`item` makes one `EntryItem` from an index row, `learned` gives its learned date at the
store's horizon, and `spliced` applies a spliced write the index applied (index/delta.py)
to a file's previous rows without reading them back.
"""

from __future__ import annotations

import bisect
from datetime import date
from typing import TYPE_CHECKING

from memfs.entry.pool import EntryItem, parse_day
from memfs.index.delta import FileDelta, effective_shifts

if TYPE_CHECKING:
    from memfs.entry.poolcache import FileView

Row = tuple  # (id, text, type, when, src, seen, updated, path, line), as repository.entry_rows


def spliced(old: "FileView", d: FileDelta | None, digest: str, count: int) -> tuple[list[Row], list[int | None]] | None:
    """The file's rows after the spliced write `d` the index applied, from the previous
    rows (what the index holds, without reading it back), and for each row the index of
    the unchanged previous row it is; None unless `d` is the step from `old` to `digest`."""
    if d is None or d.before_digest != old.digest or d.after_digest != digest:
        return None
    gone = set(d.removed) | {it.id for it, _ in d.upserts}
    shifts = effective_shifts(d)
    rows: list[Row] = []
    reuse: list[int | None] = []
    k, shift = 0, 0
    for j, r in enumerate(old.rows):
        if r[0] in gone:
            continue
        line = r[8]
        while k < len(shifts) and shifts[k][0] <= line:
            shift = shifts[k][1]
            k += 1
        if shift:
            rows.append((*r[:8], line + shift))
            reuse.append(None)
        else:
            rows.append(r)
            reuse.append(j)
    if len(rows) + len(d.upserts) != count:
        return None
    for it, line in d.upserts:  # each into its place: rows stay in (line, id) order
        row = (it.id, it.text, it.type, it.when, it.src, it.seen, it.updated, d.rel, line)
        at = bisect.bisect_left(rows, (line, it.id), key=lambda r: (r[8], r[0]))
        rows.insert(at, row)
        reuse.insert(at, None)
    return rows, reuse


def learned(base: str | None, when: str | None, horizon: date) -> str | None:
    """pool.learned_dates for one item, given the store's horizon."""
    day = parse_day(base)
    if day is None:
        return None
    said = parse_day(when)
    if said is not None and day < said <= horizon:
        day = said
    return min(day, horizon).isoformat()


_new = object.__new__


def item(r: Row, learned: str | None, mark: list[str] | None) -> EntryItem:
    # The frozen dataclass's __init__ sets each field through object.__setattr__: filling
    # the instance dict directly gives the same object at a third of the cost (50,000 rows
    # per big file in a fresh process).
    it = _new(EntryItem)
    it.__dict__.update(id=r[0], text=r[1], type=r[2], when=r[3], src=r[4], seen=int(r[5]), updated=r[6], path=r[7],
                       line=int(r[8]), learned=learned, until=(mark[0] or None) if mark else None,
                       superseded_by=(mark[1] or None) if mark else None)
    return it
