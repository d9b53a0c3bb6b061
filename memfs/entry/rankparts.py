"""memory.md's per-file rankings in a form that can be persisted: ids and costs, not items.

`poolrank.ranked` walks each file's items most salient first (entry/ranking.py). Its
per-file parts held `EntryItem`s (the classes' members, every item's cost), so a fresh
process built every item of a 50,000-item file to rank it, although memory.md shows a
few of them. The parts are now plain values, persisted with the others
(entry/partstore.py):

- **members**: {(seen, type, day) class: ids of its current items in line order}; the
  classes are built from it with members that make an item only when the ranking reaches
  it (`LazyMembers`), so a fresh process builds the items it shows, not the file;
- **cost counts**: {token cost: how many items cost that}; the least cost of the items not
  yet given out (what `ranked` stops a file on) is the least cost whose count exceeds the
  number given out at that cost: the same value as walking every item's cost in order.

Both are derived after a write from the removed and added items like every other part.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from datetime import date
from typing import Any, overload

from memfs.entry.pool import EntryItem
from memfs.entry.ranking import ClassKey, Classes, Salience, _day_order, _peak, class_of

Members = dict[ClassKey, list[str]]


class LazyMembers(Sequence[EntryItem]):
    """One class's items in line order, each made on first access (ids held, items not)."""

    def __init__(self, ids: list[str], item_of: Callable[[str], EntryItem]) -> None:
        self.ids = ids
        self._item_of = item_of

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, i: int) -> EntryItem: ...
    @overload
    def __getitem__(self, i: slice) -> list[EntryItem]: ...

    def __getitem__(self, i: int | slice) -> EntryItem | list[EntryItem]:
        if isinstance(i, slice):
            return [self._item_of(x) for x in self.ids[i]]
        return self._item_of(self.ids[i])

    def __iter__(self) -> Iterator[EntryItem]:
        return (self._item_of(x) for x in self.ids)


def members_of(items: list[EntryItem]) -> Members:
    """The class members of `items` (one file's, wanted by the ranking), as ids in line order."""
    out: dict[ClassKey, list[EntryItem]] = {}
    for it in items:
        out.setdefault(class_of(it), []).append(it)
    return {k: [it.id for it in sorted(v, key=lambda it: (it.line, it.id))] for k, v in out.items()}


def members_delta(old: Members, removed: list[EntryItem], added: list[EntryItem],
                  line_of: Callable[[str], int], recompute: Any) -> Any:
    """`old` without `removed` and with `added` in line order (a new value; `recompute` when
    a removed item is not where its class says)."""
    out = dict(old)
    copied: set[ClassKey] = set()
    for it in removed:
        k = class_of(it)
        lst = out.get(k)
        if lst is None or it.id not in lst:
            return recompute
        if k not in copied:
            lst = list(lst)
            copied.add(k)
        lst.remove(it.id)
        out[k] = lst
    for it in added:
        k = class_of(it)
        lst = out.get(k, [])
        if k not in copied:
            lst = list(lst)
            copied.add(k)
        bisect.insort(lst, it.id, key=lambda i: (line_of(i), i))
        out[k] = lst
    return {k: v for k, v in out.items() if v}


def classes_of(members: Members, item_of: Callable[[str], EntryItem], salience: Salience,
               half_life: float) -> Classes:
    """Classes.of for members given as ids: the same classes, peaks and orders."""
    lazy = {k: LazyMembers(ids, item_of) for k, ids in members.items()}
    peak = {k: _peak(v[0], salience, half_life) for k, v in lazy.items()}
    return Classes(lazy, peak, sorted((-a, _day_order(k), k) for k, a in peak.items()),  # type: ignore[arg-type]
                   sorted((_day_order(k), k) for k in lazy))


def cost_counts(items: list[EntryItem], cost: Callable[[EntryItem], int]) -> Counter[int]:
    """{token cost: items of that cost} of one file's ranked items."""
    return Counter(cost(it) for it in items)


def cost_counts_delta(old: Counter[int], removed: list[EntryItem], added: list[EntryItem],
                      cost: Callable[[EntryItem], int], recompute: Any) -> Any:
    out = Counter(old)
    out.update(cost(it) for it in added)
    out.subtract(cost(it) for it in removed)
    return recompute if any(n < 0 for n in out.values()) else +out


def encode_members(value: Members) -> list[Any]:
    return [[k[0], k[1], k[2].isoformat() if k[2] else None, ids] for k, ids in value.items()]


def decode_members(raw: Any) -> Members:
    out: Members = {}
    for seen, typ, day, ids in raw:
        # (types compared at C speed: a big file's class holds 50,000 ids, read by every fresh add)
        if not isinstance(seen, int) or not isinstance(typ, str) or not isinstance(ids, list) \
                or not set(map(type, ids)) <= {str}:
            raise ValueError("not a class")
        out[(seen, typ, date.fromisoformat(day) if day is not None else None)] = list(ids)
    return out


class Floors:
    """The least cost of one file's ranked items from each position on (what `ranked` drops
    a file on), from the cost counts and the items given out so far."""

    def __init__(self, counts: Counter[int], cost: Callable[[EntryItem], int]) -> None:
        self._counts = counts
        self._keys = sorted(counts)
        self._cost = cost
        self._gone: Counter[int] = Counter()
        self._floors: list[int] = []
        self._ptr = 0

    def floor(self, at: int, given: list[tuple[float, EntryItem]]) -> int:
        while len(self._floors) <= at:
            k = len(self._floors)
            if k:
                self._gone[self._cost(given[k - 1][1])] += 1
            while self._ptr < len(self._keys) and self._gone[self._keys[self._ptr]] >= self._counts[self._keys[self._ptr]]:
                self._ptr += 1
            self._floors.append(self._keys[self._ptr] if self._ptr < len(self._keys) else 1 << 62)
        return self._floors[at]
