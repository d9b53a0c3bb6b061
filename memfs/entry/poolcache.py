"""The entry items, kept per category file between regenerations (issue #17 item 3, #18 item 4).

Regenerating the root files after every write used to load every item of the store and
recompute everything from them: seconds at 50,000 items, whatever the write. The pool is
now kept in this process, one `FileView` per category file, and a regeneration re-reads
only the files whose indexed content hash (or indexed item count) changed. Whatever the
entry files derive from one file alone (people's name counts, words, ranked candidates)
is memoized on its `FileView` under a key naming every global input it depends on, so a
view never serves a value computed for other inputs: the files come out byte-identical
to a regeneration from an empty pool (tests/test_views_incremental.py checks it).

What stays linear, at C speed or per file rather than per item: the per-file hash and
count query, the history cache's JSON, and a few passes over people's own facts.
"""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import date
from typing import Any

from memfs.entry import partstore, poolrows
from memfs.entry.partstore import MISS, PartStore, marks_digest
from memfs.entry.pool import EntryItem, history_marks, learned_date, parse_day, save_history
from memfs.index import entryparts, repository
from memfs.index.delta import FileDelta, take_applied
from memfs.index.db import IndexDB
from memfs.workspace import Workspace
from memfs.entry.poolrows import Row, dated as _dated
_SERIALS = itertools.count(1)
#: What a memo's `delta` returns when it cannot derive the new value: compute it afresh.
RECOMPUTE = object()


class FileView:
    """One category file's items as the entry files see them, and what is derived from them.

    Built from the file's previous view (`prev`), it reuses the items of unchanged rows and
    offers each memo its previous value with the items removed and added (`memo`'s
    `delta`), so a write into a 50,000-item file costs its few changed items, not 50,000."""

    def __init__(self, path: str, digest: str, count: int, rows: list[Row] | None, marks: dict[str, list[str]],
                 prev: "FileView | None" = None, reuse: list[int | None] | None = None,
                 base_days: dict[str, int] | None = None) -> None:
        self.path = path
        self.serial = next(_SERIALS)  # names this content of the file in keys built from several files
        self.digest = digest
        self.count = count
        self._rows = rows
        self.db: IndexDB | None = None  # where rows not read yet are read from (set at every refresh)
        self.marks = marks
        if prev is not None and reuse is None and rows is not None:  # which rows are unchanged: compare them all
            old = {r: i for i, r in enumerate(prev.rows)}
            reuse = [old.get(r) for r in rows]
        self._prev, self._reuse = prev, reuse or []
        self._base: list[str | None] | None = None
        if rows is None:  # the rows are read when first needed; the newest day is the persisted part's
            assert base_days is not None
            self.base_days = base_days
        else:
            self._base = [prev.base[j] if j is not None else learned_date(r[4], r[6])  # type: ignore[union-attr]
                          for r, j in zip(rows, self._reuse)] if prev is not None else [
                              learned_date(r[4], r[6]) for r in rows]
            self.base_days = dict(Counter(b for b in self._base if b is not None))
        days = [d for b in self.base_days if (d := parse_day(b)) is not None]
        self.base_max: date | None = max(days) if days else None
        self._items_for: date | None = None
        self._said: list[date] | None = None  # rows' own dates after their base day, sorted (_same_for)
        self._items: list[EntryItem] = []
        self._memo: dict[tuple[Any, ...], Any] = {}
        self._prev_memo: dict[tuple[Any, ...], Any] | None = None
        self.delta: tuple[list[EntryItem], list[EntryItem]] | None = None
        # Persisted parts (entry/partstore.py), for a view built without a previous one:
        self.parts_loaded = False
        self.applied: FileDelta | None = None  # the write the index applied to reach this content
        self.served: dict[tuple[Any, ...], Any] = {}  # (key, horizon) -> value read or derived
        self._derived_for: date | None = None  # the horizon `served` was last pruned for
        self._marks_digest: str | None = None
        self._row_at: dict[str, int] | None = None
        self._made: dict[date, dict[str, EntryItem]] = {}  # items made one by one (item_of)
        self._one: dict[str, Row] = {}  # rows read one by one (_row)

    def items(self, horizon: date) -> list[EntryItem]:
        """The file's items, learned dates clamped to the store's `horizon` (pool.learned_dates).

        The items of the previous view (or of this one at another horizon) are reused where
        the row, its supersession marks and its learned date are the same; the rest are
        offered to the memos as removed and added."""
        if self._items_for != horizon and self._items_for is not None and self._same_for(self._items_for, horizon):
            return self._moved_horizon(horizon)
        if self._items_for != horizon:
            same_day = False  # the old items were made for this horizon (a reused row's date is theirs)
            if self._items_for is not None:  # the store's horizon moved: this view again
                old_items, old_memo, old_marks = self._items, self._memo, self.marks
                old_of: list[int | None] = list(range(len(self._items)))
            elif (prev := self._prev) is not None and prev._items_for is not None:
                old_items, old_memo, old_marks, old_of = prev._items, prev._memo, prev.marks, self._reuse
                same_day = prev._items_for == horizon
            else:
                old_items, old_memo, old_marks, old_of = [], {}, {}, []
            same_marks = old_marks == self.marks
            out: list[EntryItem] = []
            added: list[EntryItem] = []
            kept: set[int] = set()
            for r, b, i in zip(self.rows, self.base, old_of or itertools.repeat(None)):
                learned = None
                if i is not None and (same_marks or old_marks.get(r[0]) == self.marks.get(r[0])):
                    old = old_items[i]
                    if same_day or old.learned == (learned := poolrows.learned(b, r[3], horizon)):
                        out.append(old)
                        kept.add(i)
                        continue
                learned = learned or poolrows.learned(b, r[3], horizon)
                it = poolrows.item(r, learned, self.marks.get(r[0]))
                out.append(it)
                added.append(it)
            if self._items_for is not None and not added and len(kept) == len(old_items):
                return self._moved_horizon(horizon)
            self._items, self._items_for = out, horizon
            self._memo = {k: v for (k, h), v in self.served.items() if h == horizon}
            self._prev_memo, self.delta = None, None
            if old_items and len(added) + len(old_items) - len(kept) <= max(8, len(out) // 4):
                removed = [it for i, it in enumerate(old_items) if i not in kept]
                self._prev_memo, self.delta = old_memo, (removed, added)
            self._prev, self._reuse = None, []
            self.serial = next(_SERIALS)
        return self._items

    def _moved_horizon(self, horizon: date) -> list[EntryItem]:
        """The horizon moved (a newer day) but no item's learned date did: the same items,
        so the same memos (and serial). Only keys naming the day recompute; the rest stay
        the very objects they were, so whatever is combined from them across files is not
        redone for every file of the store (issue #18 item 4)."""
        self._items_for = horizon
        self._prev_memo, self.delta, self._prev, self._reuse = None, None, None, []
        # Values for another day are not needed again: a daemon running for months must
        # not keep one per day per file.
        if any(map(_dated, self._memo)):  # most files keep no value for a day (a C-speed check)
            self._memo = {k: v for k, v in self._memo.items() if not _dated(k)}
        return self._items

    def _same_for(self, a: date, b: date) -> bool:
        """True if `_learned` gives every row the same date at horizons `a` and `b`: no
        row's base day past the earlier one (min() clamps none) and no row's own date
        between them (so `day < said <= horizon` holds at both or neither). Decided from
        two per-file facts, not a pass over the rows, so a new day costs nothing per file."""
        lo, hi = min(a, b), max(a, b)
        if self.base_max is not None and self.base_max > lo:
            return False
        if self._said is None:
            said = []
            for r, base in zip(self.rows, self.base):
                day, when = parse_day(base), parse_day(r[3])
                if day is not None and when is not None and day < when:
                    said.append(when)
            self._said = sorted(said)
        at = bisect.bisect_right(self._said, lo)
        return at == len(self._said) or self._said[at] > hi

    def memo(self, key: tuple[Any, ...], compute: Callable[[], Any],
             delta: Callable[[Any, list[EntryItem], list[EntryItem]], Any] | None = None) -> Any:
        """`compute()` once per key for the current items (the key names its global inputs);
        with `delta`, from the previous view's value and the items removed and added instead,
        when the previous view had one. `delta` returns a new value, never changes its input."""
        if key not in self._memo:
            if delta is not None and self.delta is not None and self._prev_memo is not None \
                    and key in self._prev_memo:
                value = delta(self._prev_memo[key], *self.delta)
                self._memo[key] = compute() if value is RECOMPUTE else value
            else:
                self._memo[key] = compute()
        return self._memo[key]

    @property
    def rows(self) -> list[Row]:
        if self._rows is None:
            assert self.db is not None
            self._rows = repository.entry_rows_of(self.db, self.path)
        return self._rows

    @property
    def base(self) -> list[str | None]:
        """Each row's learned date before the horizon clamps it (pool.learned_date)."""
        if self._base is None:
            self._base = [learned_date(r[4], r[6]) for r in self.rows]
        return self._base

    def _row(self, item_id: str) -> Row:
        """One row by id, read alone while the rows are not read (a ranking's few items)."""
        if self._rows is None and self.db is not None:
            got = self._one.get(item_id) or entryparts.entry_row_of(self.db, self.path, item_id)
            if got is not None:
                self._one[item_id] = got
                return got
        return self.rows[self.row_at()[item_id]]

    def line_of(self, item_id: str) -> int:
        """The line of one of the file's current rows."""
        return int(self._row(item_id)[8])

    def row_at(self) -> dict[str, int]:
        if self._row_at is None:
            self._row_at = {r[0]: k for k, r in enumerate(self.rows)}
        return self._row_at

    def item_of(self, horizon: date) -> Callable[[str], EntryItem]:
        """The file's item of an id at `horizon`: the built item if the items are built,
        else one made from its row alone (a ranking shows a few items of a big file)."""
        if self._items_for == horizon:
            items, at = self._items, self.row_at()
            return lambda item_id: items[at[item_id]]
        made = self._made.setdefault(horizon, {})

        def make(item_id: str) -> EntryItem:
            it = made.get(item_id)
            if it is None:
                r = self._row(item_id)
                it = made[item_id] = poolrows.item(r, poolrows.learned(learned_date(r[4], r[6]), r[3], horizon),
                                                   self.marks.get(r[0]))
            return it
        return make

    def marks_digest(self) -> str:
        if self._marks_digest is None:
            self._marks_digest = marks_digest(self.marks)
        return self._marks_digest

    def derived(self, key: tuple[Any, ...], horizon: date, compute: Callable[[], Any]) -> Any:
        """`compute()` kept for `horizon`, and carried over a horizon move that moved no
        learned date (`_same_for`) when its key names no day, as the memos are: else each new
        day recomputed every file's stats and ranking classes (+0.5 s an input at 100k)."""
        at = (key, horizon)
        if at in self.served:
            return self.served[at]
        last = self._derived_for
        if last != horizon:
            keep = last is not None and self._same_for(last, horizon)
            self.served = {(k, h) if h == horizon else (k, horizon): v for (k, h), v in self.served.items()
                           if h == horizon or (keep and h == last and not _dated(k))}
            self._derived_for = horizon
            if at in self.served:
                return self.served[at]
        value = self.served[at] = compute()
        return value

    def persisted(self, parts: PartStore, key: tuple[Any, ...], horizon: date,
                  delta: Callable[[Any, list[EntryItem], list[EntryItem]], Any] | None) -> Any:
        """The value of `key` from the index's persisted parts without building the items:
        the row of this very content, else (with `delta`) the row of the content the applied
        write started from plus the items it removed and added; MISS otherwise."""
        at = (key, horizon)
        if at in self.served:
            return self.served[at]
        marks = self.marks_digest()
        value = parts.lookup(self.path, key, self.digest, self.count, horizon, marks)
        if value is MISS and delta is not None and self.applied is not None:
            got = parts.base(self.path, key, self.applied.before_digest, horizon, marks)
            if got is not None:
                removed, added = poolrows.applied_items(self.applied, self.marks, horizon)
                if got[0] - len(removed) + len(added) == self.count:
                    value = delta(got[1], removed, added)
                    if value is RECOMPUTE:
                        value = MISS
                    else:
                        parts.derived += 1
                        parts.offer(self.path, key, self.digest, self.count, horizon, marks, value)
        if value is not MISS:
            self.served[at] = value
            if self._items_for == horizon:
                self._memo.setdefault(key, value)
        return value


class Pool:
    """Every indexed item, grouped by file in path order (the order `load_items` gives)."""

    def __init__(self) -> None:
        self.files: dict[str, FileView] = {}
        self.horizon = date(2000, 1, 1)
        self.changed: set[str] = set()
        self.version: tuple[str, int, int, int] | None = None  # the index (version, file) last refreshed from
        self.parts = PartStore()

    def refresh(self, ws: Workspace, db: IndexDB, today: date | None = None) -> "str | None":
        """Bring the pool up to the index (call inside a snapshot). Returns the history cache
        to save with `pool.save_history`, or None when it did not change."""
        today = today or date.today()
        version = poolrows.index_identity(db)
        for fv in self.files.values():  # rows not read yet are read from this handle
            fv.db = db
        if version == self.version and self.files:  # every change of the items bumps it
            self.changed = set()
            days = [fv.base_max for fv in self.files.values() if fv.base_max is not None]
            self.horizon = min(max(days), today) if days else today
            return None
        state = poolrows.file_states(db)
        marks, cache = history_marks(ws, db)
        fresh: dict[str, FileView] = {}
        self.changed = set()
        for path, (digest, count) in state.items():
            old = self.files.get(path)
            if old is not None and old.digest == digest and old.count == count and old.marks == marks.get(path, {}):
                fresh[path] = old
                continue
            applied = take_applied(str(ws.root / path))
            big = count >= partstore.MIN_ITEMS
            if old is not None and (old._rows is None or (big and old._items_for is None)):
                # Its rows were never read (the index now holds the new ones), or its parts
                # came from the index, not its items: derive the new parts from those.
                old = None
            spliced = poolrows.spliced(old, applied, digest, count) if old is not None else None
            if spliced is not None:
                fv = FileView(path, digest, count, spliced[0], marks.get(path, {}), prev=old, reuse=spliced[1])
            elif big:  # nothing here to derive its parts from: the index may have them
                fv = self._persisted_view(db, path, digest, count, marks.get(path, {}), old, applied)
            else:
                fv = FileView(path, digest, count, repository.entry_rows_of(db, path), marks.get(path, {}), prev=old)
            fresh[path], fv.db = fv, db
            if big:  # what a later process needs of this file without its rows
                self.parts.offer(path, poolrows.BASE_DAYS, digest, count, today, fv.marks_digest(), fv.base_days)
            self.changed.add(path)
        self.changed |= set(self.files) - set(fresh)
        self.files = fresh
        self.version = version
        days = [fv.base_max for fv in fresh.values() if fv.base_max is not None]
        self.horizon = min(max(days), today) if days else today
        return cache

    def _persisted_view(self, db: IndexDB, path: str, digest: str, count: int, marks: dict[str, list[str]],
                        old: FileView | None, applied: FileDelta | None) -> FileView:
        """A big file's view whose parts the index may hold: without reading its rows when
        its learned days (all the pool needs of every file) are persisted, or derived from
        the applied write; the rows are then read only if a part must be computed."""
        self.parts.load(db, path)
        applied = applied if applied is not None and applied.after_digest == digest else None
        md = marks_digest(marks)
        days = poolrows.base_days(self.parts, path, digest, count, md, applied)
        if days is not None:
            fv = FileView(path, digest, count, None, marks, base_days=days)
        else:
            fv = FileView(path, digest, count, repository.entry_rows_of(db, path), marks, prev=old)
        fv.parts_loaded, fv.applied, fv._marks_digest = True, applied, md
        return fv

    def by_file(self) -> Iterator[tuple[str, list[EntryItem]]]:
        for path, fv in self.files.items():
            yield path, fv.items(self.horizon)

    def items(self) -> list[EntryItem]:
        """All items in (path, line) order."""
        return list(itertools.chain.from_iterable(items for _, items in self.by_file()))

    def memo(self, path: str, key: tuple[Any, ...], compute: Callable[[list[EntryItem]], Any],
             delta: Callable[[Any, list[EntryItem], list[EntryItem]], Any] | None = None) -> Any:
        fv = self.files[path]
        if fv._items_for == self.horizon and key in fv._memo:
            return fv._memo[key]
        if fv.parts_loaded and key[0] in partstore.PERSISTED:  # without building the file's items
            got = fv.persisted(self.parts, key, self.horizon, delta)
            if got is not MISS:
                return got
        items = fv.items(self.horizon)
        value = fv.memo(key, lambda: compute(items), delta)
        if fv.count >= partstore.MIN_ITEMS and key[0] in partstore.PERSISTED:
            self.parts.offer(path, key, fv.digest, fv.count, self.horizon, fv.marks_digest(), value)
        return value

    def derived(self, path: str, key: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
        """A value computed from other parts of the file, not its items (kept with the view
        for this horizon, and across a horizon move that changed no learned date)."""
        return self.files[path].derived(key, self.horizon, compute)

    def persist(self, db: IndexDB) -> None:
        """Write the parts computed since the last call to the index (entry/partstore.py)."""
        self.parts.flush(db, set(self.files))


#: One pool per workspace root, for the life of the process (a daemon, a bench, a test).
_POOLS: dict[str, Pool] = {}


def pool_for(ws: Workspace) -> Pool:
    return _POOLS.setdefault(str(ws.root), Pool())


def persist_parts(ws: Workspace, db: IndexDB) -> None:
    """After a regeneration: keep its per-file parts in the index for the next process."""
    pool = _POOLS.get(str(ws.root))
    if pool is not None:
        pool.persist(db)


def forget_pools() -> None:
    """Drop every cached pool (tests compare a cached regeneration with one from nothing)."""
    _POOLS.clear()

__all__ = ["RECOMPUTE", "FileView", "Pool", "forget_pools", "persist_parts", "pool_for", "save_history"]
