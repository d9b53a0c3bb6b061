"""Rows of the index as the entry files' items: the row-level helpers of entry/poolcache.py.

`item` makes one `EntryItem` from an index row, `learned` gives its learned date at the
store's horizon, and `spliced` applies a spliced write the index applied (index/delta.py)
to a file's previous rows without reading them back.
"""

from __future__ import annotations

import bisect
import functools
import os
from collections import Counter
from datetime import date
from typing import TYPE_CHECKING, Any

from memfs.entry.pool import EntryItem, learned_date, parse_day
from memfs.entry.partstore import MISS, PartStore
from memfs.index import repository
from memfs.index.db import IndexDB
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


def applied_items(d: FileDelta, marks: dict[str, list[str]], horizon: date) -> tuple[list[EntryItem], list[EntryItem]]:
    """The items the applied write `d` removed (as the index held them before it: a
    rewritten item's old version too) and the ones it wrote, at `horizon`."""
    removed = []
    for i in dict.fromkeys([*d.removed, *(it.id for it, _ in d.upserts)]):
        r = d.before_rows.get(i)
        if r is not None:
            row = (r.id, r.text, r.type, r.when, r.src, r.seen, r.updated, r.path, r.line or 0)
            removed.append(item(row, learned(learned_date(r.src, r.updated), r.when, horizon), marks.get(r.id)))
    added = [item(row, learned(learned_date(row[4], row[6]), row[3], horizon), marks.get(row[0]))
             for row in ((it.id, it.text, it.type, it.when, it.src, it.seen, it.updated, d.rel, line)
                         for it, line in d.upserts)]
    return removed, added


#: The part naming a file's learned days ({day: rows}): what the pool needs of every file
#: (the store's horizon is the newest of them) without reading its rows.
BASE_DAYS = ("base-days",)


def base_days(parts: PartStore, path: str, digest: str, count: int, marks: str,
              applied: FileDelta | None) -> dict[str, int] | None:
    """The persisted learned days of this content of the file, else those of the content the
    applied write started from plus its written rows minus the rows it replaced; None if
    neither is persisted (the caller reads the rows)."""
    any_day = date(2000, 1, 1)  # the part does not depend on the horizon
    got = parts.lookup(path, BASE_DAYS, digest, count, any_day, marks)
    if got is not MISS:
        return got  # type: ignore[no-any-return]
    if applied is None:
        return None
    base = parts.base(path, BASE_DAYS, applied.before_digest, any_day, marks)
    if base is None:
        return None
    out = Counter(base[1])
    gone = [r for i in dict.fromkeys([*applied.removed, *(it.id for it, _ in applied.upserts)])
            if (r := applied.before_rows.get(i)) is not None]
    for r in gone:
        if (b := learned_date(r.src, r.updated)) is not None:
            out[b] -= 1
    for it, _ in applied.upserts:
        if (b := learned_date(it.src, it.updated)) is not None:
            out[b] += 1
    if base[0] - len(gone) + len(applied.upserts) != count or any(n < 0 for n in out.values()):
        return None
    parts.derived += 1
    return dict(+out)


def index_identity(db: IndexDB) -> tuple[str, int, int, int]:
    """The index's `index_version` (bumped by every change of its items) and its file's
    identity: a rebuilt or healed index is another file, whatever its version says."""
    try:
        st = os.stat(db.path)
        ident = (st.st_dev, st.st_ino, st.st_ctime_ns)
    except OSError:
        ident = (0, 0, 0)
    return (db.get_meta("index_version") or "0", *ident)


#: db path -> (index_identity, repository.file_states) of the last call (file_states).
_STATES: dict[str, tuple[tuple[str, int, int, int], dict[str, tuple[str, int]]]] = {}


def file_states(db: IndexDB) -> dict[str, tuple[str, int]]:
    """repository.file_states, read once per index version (call inside a snapshot): a
    regeneration asks it twice, whether a file is over the split limit and the pool's
    refresh, and each is a GROUP BY over every item (~4 ms at 100,000 items)."""
    version = index_identity(db)
    got = _STATES.get(str(db.path))
    if got is None or got[0] != version:
        got = _STATES[str(db.path)] = (version, repository.file_states(db))
    return got[1]


@functools.lru_cache(maxsize=4096)
def dated(key: tuple[Any, ...]) -> bool:
    """Whether a memo key names a day (its value is then for that day only); cached, as a
    new day asks it of every file's keys (flat5)."""
    return any(isinstance(x, date) for x in key)
