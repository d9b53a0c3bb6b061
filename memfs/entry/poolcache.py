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

import itertools
from collections.abc import Callable, Iterator
from datetime import date
from typing import Any

from memfs.entry.pool import EntryItem, history_marks, learned_date, parse_day, save_history
from memfs.index import repository
from memfs.index.db import IndexDB
from memfs.workspace import Workspace

Row = tuple  # (id, text, type, when, src, seen, updated, path, line), as repository.entry_rows
_SERIALS = itertools.count(1)


class FileView:
    """One category file's items as the entry files see them, and what is derived from them."""

    def __init__(self, path: str, digest: str, count: int, rows: list[Row], marks: dict[str, list[str]]) -> None:
        self.path = path
        self.serial = next(_SERIALS)  # names this content of the file in keys built from several files
        self.digest = digest
        self.count = count
        self.rows = rows
        self.marks = marks
        self.base = [learned_date(r[4], r[6]) for r in rows]
        days = [d for b in self.base if (d := parse_day(b)) is not None]
        self.base_max: date | None = max(days) if days else None
        self._items_for: date | None = None
        self._items: list[EntryItem] = []
        self._memo: dict[tuple[Any, ...], Any] = {}

    def items(self, horizon: date) -> list[EntryItem]:
        """The file's items, learned dates clamped to the store's `horizon` (pool.learned_dates)."""
        if self._items_for != horizon:
            out: list[EntryItem] = []
            for r, b in zip(self.rows, self.base):
                day = parse_day(b)
                learned = None
                if day is not None:
                    said = parse_day(r[3])
                    if said is not None and day < said <= horizon:
                        day = said
                    learned = min(day, horizon).isoformat()
                mark = self.marks.get(r[0])
                out.append(EntryItem(id=r[0], text=r[1], type=r[2], when=r[3], src=r[4], seen=int(r[5]),
                                     updated=r[6], path=r[7], line=int(r[8]), learned=learned,
                                     until=(mark[0] or None) if mark else None,
                                     superseded_by=(mark[1] or None) if mark else None))
            self._items, self._items_for = out, horizon
            self._memo.clear()
            self.serial = next(_SERIALS)
        return self._items

    def memo(self, key: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
        """`compute()` once per key for the current items (the key names its global inputs)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]


class Pool:
    """Every indexed item, grouped by file in path order (the order `load_items` gives)."""

    def __init__(self) -> None:
        self.files: dict[str, FileView] = {}
        self.horizon = date(2000, 1, 1)
        self.changed: set[str] = set()

    def refresh(self, ws: Workspace, db: IndexDB, today: date | None = None) -> "str | None":
        """Bring the pool up to the index (call inside a snapshot). Returns the history cache
        to save with `pool.save_history`, or None when it did not change."""
        today = today or date.today()
        state = repository.file_states(db)
        marks, cache = history_marks(ws, db)
        fresh: dict[str, FileView] = {}
        self.changed = set()
        for path, (digest, count) in state.items():
            old = self.files.get(path)
            if old is not None and old.digest == digest and old.count == count and old.marks == marks.get(path, {}):
                fresh[path] = old
                continue
            fresh[path] = FileView(path, digest, count, repository.entry_rows_of(db, path), marks.get(path, {}))
            self.changed.add(path)
        self.changed |= set(self.files) - set(fresh)
        self.files = fresh
        days = [fv.base_max for fv in fresh.values() if fv.base_max is not None]
        self.horizon = min(max(days), today) if days else today
        return cache

    def by_file(self) -> Iterator[tuple[str, list[EntryItem]]]:
        for path, fv in self.files.items():
            yield path, fv.items(self.horizon)

    def items(self) -> list[EntryItem]:
        """All items in (path, line) order."""
        return list(itertools.chain.from_iterable(items for _, items in self.by_file()))

    def memo(self, path: str, key: tuple[Any, ...], compute: Callable[[list[EntryItem]], Any]) -> Any:
        fv = self.files[path]
        items = fv.items(self.horizon)
        return fv.memo(key, lambda: compute(items))


#: One pool per workspace root, for the life of the process (a daemon, a bench, a test).
_POOLS: dict[str, Pool] = {}


def pool_for(ws: Workspace) -> Pool:
    return _POOLS.setdefault(str(ws.root), Pool())


def forget_pools() -> None:
    """Drop every cached pool (tests compare a cached regeneration with one from nothing)."""
    _POOLS.clear()


__all__ = ["FileView", "Pool", "forget_pools", "pool_for", "save_history"]
