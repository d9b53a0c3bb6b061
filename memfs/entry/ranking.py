"""One file's items most salient first, without re-scoring every item when the day moves
(issue #18 item 4: ingest slowed 10x at 100k items once each input came on a newer day).

memory.md ranks items by salience(item, today): reinforcement and type weights times a
recency factor of the item's day. Sorting a file's items by it had to be redone for every
file whenever "today" moved. Two facts make it cheap:

- Items of the same (seen, type, day) - a *class* - always score the same, and among
  themselves stay in line order, whatever the day.
- salience = A x g(day, today), with A the score at age 0 (reinforcement x type, no day)
  and g the recency factor, which grows with the day (core.salience's formula; a test
  checks it). So a class scores at most A of the best class not yet looked at, times g
  of the newest day not yet looked at.

`Classes` keeps, per file and independently of the day, the classes, their A, and two
orders of them (by A and by day). `stream` walks both orders from the top (Fagin's
threshold algorithm): a class is given out once its score beats what any class not yet
looked at could score, so the first items of a file cost a few classes, not the file.
The order given out is exactly that of sorting the file's items by (-salience, line).
"""

from __future__ import annotations

import bisect
import heapq
import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from typing import Generic, Protocol, TypeVar

from memfs.entry.pool import EntryItem, parse_day

ClassKey = tuple[int, str, "date | None"]  # (seen, type, day)
Salience = Callable[[EntryItem, date, float], float]
#: A class's score is compared with the bound only when clearly above it: the bound is a
#: product of two floats and may round below a score it equals.
_SLACK = 1e-9
T = TypeVar("T")
#: (cost, position, id(item)) of every entry of a ranking, cheapest first (`Lazy.floor`'s
#: input; the position breaks ties, so the id is never compared).
Costs = list[tuple[int, object, int]]
_NO_COST = 1 << 62  # the floor past the last entry: nothing is left to fit


def pos(it: EntryItem) -> tuple[str, int]:
    """Where an item is: its file, then its line (one file's items: line order). A class's
    members are kept in this order, so the classes of items from many files (a person's
    facts, entry/facetrank.py) give out the order of sorting by (-salience, path, line)."""
    return (it.path, it.line)


def class_of(it: EntryItem) -> ClassKey:
    return (it.seen, it.type, parse_day(it.learned or it.when))


def _day_order(key: ClassKey) -> tuple[int, int, int, str]:
    """Newest day first, undated (no decay: scores like age 0) before every date."""
    day = key[2]
    return (0 if day is None else 1, -(day.toordinal() if day else 0), key[0], key[1])


@dataclass(frozen=True)
class Classes:
    """The day-independent part of one file's ranking (never changed once built)."""

    members: dict[ClassKey, list[EntryItem]]  # each in (path, line) order
    peak: dict[ClassKey, float]  # A: the class's score at age 0
    by_peak: list[tuple[float, tuple[int, int, int, str], ClassKey]]  # (-A, day order, key), ascending
    by_day: list[tuple[tuple[int, int, int, str], ClassKey]]  # newest first

    @staticmethod
    def of(items: list[EntryItem], salience: Salience, half_life: float) -> "Classes":
        members: dict[ClassKey, list[EntryItem]] = {}
        for it in items:
            members.setdefault(class_of(it), []).append(it)
        for lst in members.values():
            lst.sort(key=pos)
        peak = {k: _peak(v[0], salience, half_life) for k, v in members.items()}
        return Classes(members, peak, sorted((-a, _day_order(k), k) for k, a in peak.items()),
                       sorted((_day_order(k), k) for k in members))

    def changed(self, removed: list[EntryItem], added: list[EntryItem], salience: Salience,
                half_life: float) -> "Classes | None":
        """These classes without `removed` and with `added` (a new value; None: rebuild)."""
        members = dict(self.members)
        peak, by_peak, by_day = self.peak, self.by_peak, self.by_day
        copied: set[ClassKey] = set()
        for it in removed:
            k = class_of(it)
            lst = members.get(k)
            at = -1 if lst is None else bisect.bisect_left(lst, pos(it), key=pos)
            if lst is None or at >= len(lst) or lst[at] is not it:
                return None
            if k not in copied:
                lst, copied = list(lst), copied | {k}
            del lst[at]
            members[k] = lst
        for it in added:
            k = class_of(it)
            lst = members.get(k, [])
            if k not in copied:
                lst, copied = list(lst), copied | {k}
            bisect.insort(lst, it, key=pos)
            members[k] = lst
        gone = [k for k in copied if not members[k]]
        new = [k for k in copied if members[k] and k not in peak]
        if gone or new:
            peak = dict(peak)
            by_peak, by_day = list(by_peak), list(by_day)
            for k in gone:
                del members[k]
                by_peak.remove((-peak.pop(k), _day_order(k), k))
                by_day.remove((_day_order(k), k))
            for k in new:
                peak[k] = _peak(members[k][0], salience, half_life)
                bisect.insort(by_peak, (-peak[k], _day_order(k), k))
                bisect.insort(by_day, (_day_order(k), k))
        return Classes(members, peak, by_peak, by_day)


def _peak(it: EntryItem, salience: Salience, half_life: float) -> float:
    day = parse_day(it.learned or it.when)
    return salience(it, day or date(2000, 1, 1), half_life)  # age 0 (an undated item never decays)


def stream(cls: Classes, today: date, half_life: float, salience: Salience) -> Iterator[tuple[float, EntryItem]]:
    """(-salience, item) of the file's items, most salient first, then in line order."""
    computed: dict[ClassKey, float] = {}
    seen: set[ClassKey] = set()
    heap: list[tuple[float, int, ClassKey]] = []
    i1 = i2 = 0
    n = len(cls.members)
    flip = False

    def score(k: ClassKey) -> float:
        got = computed.get(k)
        if got is None:
            got = computed[k] = salience(cls.members[k][0], today, half_life)
        return got

    while True:
        while i1 < n and cls.by_peak[i1][2] in seen:
            i1 += 1
        while i2 < n and cls.by_day[i2][1] in seen:
            i2 += 1
        bound: float | None = None  # None: every class is scored
        if i1 < n and i2 < n:
            k1, k2 = cls.by_peak[i1][2], cls.by_day[i2][1]
            # No class left scores above the best A left times the recency of the newest day left.
            s2 = score(k2)
            bound = max(cls.peak[k1] * (s2 / cls.peak[k2]) if cls.peak[k2] > 0 else cls.peak[k1], s2)
        if heap and (bound is None or -heap[0][0] > bound * (1 + _SLACK) + 1e-300):
            top = heap[0][0]
            group = []
            while heap and heap[0][0] == top:
                group.append(cls.members[heapq.heappop(heap)[2]])
            for it in (heapq.merge(*group, key=pos) if len(group) > 1 else group[0]):
                yield top, it
            continue
        if bound is None:
            return
        k = k1 if flip else k2
        flip = not flip
        seen.add(k)
        heapq.heappush(heap, (-score(k), len(seen), k))


class FloorsOf(Protocol[T]):
    """Floors computed elsewhere from the entries given out so far (rankparts.Floors)."""

    def floor(self, at: int, given: list[T]) -> int: ...


class Lazy(Generic[T]):
    """The prefix of a lazily produced ranking given out so far, and `floor(at)`: the least
    cost of the entries from position `at` on, so a reader with a budget stops walking as
    soon as nothing left fits. Kept for the day: the next regeneration reads it again and
    goes on where it stopped. One class for every such ranking (a file's items in
    memory.md's ranked sections, a person's facet in its profile): `item_of` says which
    item an entry stands for, and `extra` is the least cost of entries that `costs` does
    not list (plans moved to events by the day)."""

    def __init__(self, gen: Iterator[T], costs: Costs, item_of: Callable[[T], EntryItem],
                 extra: int | None = None, floors: "FloorsOf[T] | None" = None) -> None:
        self.got: list[T] = []
        self._gen: Iterator[T] | None = gen
        self._costs = costs
        self._item_of = item_of
        self._extra = _NO_COST if extra is None else extra
        self._floors: list[int] = []
        self._gone: set[int] = set()
        self._ptr = 0
        #: Floors kept as cost counts instead of `costs` (entry/rankparts.Floors: parts that
        #: a fresh process reads from the index, with no item per cost).
        self._counted = floors

    def get(self, i: int) -> T | None:
        """The entry at position `i`, produced as far as needed (None past the end)."""
        got = self.got
        while len(got) <= i and self._gen is not None:
            nxt = next(self._gen, None)
            if nxt is None:
                self._gen = None
            else:
                got.append(nxt)
        return got[i] if i < len(got) else None

    def __iter__(self) -> Iterator[T]:
        i = 0
        while (entry := self.get(i)) is not None:
            yield entry
            i += 1

    def floor(self, at: int) -> int:
        """The least cost of the entries at position `at` of the ranking or after it."""
        if self._counted is not None:
            return self._counted.floor(at, self.got)
        while len(self._floors) <= at:
            k = len(self._floors)
            if k and k - 1 < len(self.got):
                self._gone.add(id(self._item_of(self.got[k - 1])))
            while self._ptr < len(self._costs) and self._costs[self._ptr][2] in self._gone:
                self._ptr += 1
            low = self._costs[self._ptr][0] if self._ptr < len(self._costs) else _NO_COST
            self._floors.append(low if low < self._extra else self._extra)
        return self._floors[at]


# Sorted lists changed by a delta (entry/facetrank.py's PersonRank.changed, flat5).

def diff(old: tuple[EntryItem, ...], new: tuple[EntryItem, ...]) -> tuple[list[EntryItem], list[EntryItem]]:
    """(removed, added) between two lists of items, by identity (C-speed passes; an item
    the pool re-made is both). The common head and tail (most of a person's facts, when a
    few files changed) are skipped first, by identity, without a dict of every item: exact
    for lists that hold no item twice (a person's facts or mentions, in (path, line) order)."""
    same = list(map(operator.is_, old, new))
    head = same.index(False) if False in same else len(same)
    if head == len(old) == len(new):
        return [], []
    same = list(map(operator.is_, reversed(old[head:]), reversed(new[head:])))
    tail = same.index(False) if False in same else len(same)
    a_mid, b_mid = old[head:len(old) - tail], new[head:len(new) - tail]
    a, b = dict(zip(map(id, a_mid), a_mid)), dict(zip(map(id, b_mid), b_mid))
    return [a[k] for k in a.keys() - b.keys()], [b[k] for k in b.keys() - a.keys()]


def small(removed: list[EntryItem], added: list[EntryItem], size: int) -> bool:
    """Whether a change is worth applying by delta rather than rebuilding."""
    return len(removed) + len(added) <= max(8, size // 4)


class Collision(Exception):
    """Two entries with the same sort key: the delta cannot place one (rebuild instead)."""


def take(lst: list, entry: object, key: Callable[[object], object]) -> None:  # type: ignore[type-arg]
    at = bisect.bisect_left(lst, key(entry), key=key)
    if at >= len(lst) or lst[at] is not entry:
        raise Collision
    del lst[at]


def put(lst: list, entry: object, key: Callable[[object], object]) -> None:  # type: ignore[type-arg]
    k = key(entry)
    at = bisect.bisect_left(lst, k, key=key)
    if at < len(lst) and key(lst[at]) == k:
        raise Collision
    lst.insert(at, entry)
