"""A person's facts by facet, ranked for any day without re-ranking them all (issue #18 item 4).

profile.person_facets classifies every fact of a person and sorts each facet by the day's
salience. memory.md and the person pages did that for every person whenever the reference
day moved: ~60% of an input at 100,000 items. Here:

- each fact is classified once (`Base`, kept while the item object and the people's names
  stay): the day only decides whether a plan whose day has passed is an event now, and
  whether a future plan is still upcoming;
- memory.md's order (profile.order, exactly) is given out lazily: plans in a fixed order;
  home, work, identity and events newest stamp first, the few facts of one stamp sorted by
  the day's salience when they are reached; the other facets from salience classes kept
  across days, walked with the threshold algorithm of entry/ranking.py. memory.md reads a
  few lines per facet, so a day costs a few classes per facet, not the person's facts;
- a page lists facts in an order that does not depend on the day (`page_facets`), so it is
  rebuilt (and written) only when the person's facts change or a plan's day passes;
- when a person's facts change, what is kept per facet (page order, classes, stamps,
  costs) is updated by the facts removed and added (`PersonRank.changed`), not rebuilt
  from their ~1,000 facts at 100,000 items (flat5).
"""

from __future__ import annotations

import bisect
import heapq
import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date

from memfs.entry.classseed import ClassSeed, classes
from memfs.entry.facets import FACETS
from memfs.entry.people import Person
from memfs.entry.pool import EntryItem, parse_day
from memfs.entry.profile import Line, salience, stamp
from memfs.entry.ranking import Classes, Collision, Costs, Lazy, pos, put, stream, take

#: Facets profile.order sorts newest stamp first (salience breaks ties), and plans' own order.
STAMP_FACETS = frozenset({"home", "work", "identity", "events"})
Cost = Callable[[Line], int]
_NO_DAY = date(2000, 1, 1)


def _first(entry: tuple) -> object:  # type: ignore[type-arg]
    return entry[0]


def neg(s: str) -> tuple[int, ...]:
    """A key that sorts strings descending (profile.order's newest-first)."""
    return tuple(-ord(c) for c in s)


def plan_key(it: EntryItem) -> tuple[bool, str, str, int]:
    return (it.when is None, it.when or "", it.path, it.line)


@dataclass(frozen=True)
class Base:
    """What classify() says of a fact on any day, computed once."""

    item: EntryItem
    facet: str  # the main facet before the day moves a plan to events
    also: tuple[str, ...]
    filler: bool
    future: bool  # dated after it was learned: a plan, upcoming while its day is to come
    when: date | None
    movable: bool  # a plan of type event: an event once its day has passed
    filler_moved: bool
    peak: float  # salience at age 0 (reinforcement x type): the page's "most seen"
    stamp_key: tuple[int, ...]  # neg(stamp): newest first
    day_ord: int  # the salience day's ordinal (0: undated)
    fixed: Line | None  # the line on every day (neither a future plan nor one that becomes an event)

    @staticmethod
    def of(it: EntryItem, names: tuple[str, ...], half_life: float, seed: ClassSeed | None = None) -> "Base":
        when, learned = parse_day(it.when), parse_day(it.learned)
        future = when is not None and learned is not None and when > learned
        (facet, *also), filler, moved_filler = classes(seed, it.text, it.category, it.type, future, names,
                                                       when is not None and it.type == "event")
        movable = facet == "plans" and when is not None and it.type == "event"
        day = parse_day(it.learned or it.when)
        peak = salience(it, day or _NO_DAY, half_life)
        fixed = None if future or movable else Line(it, facet, filler, False, tuple(f for f in also if f != facet))
        return Base(it, facet, tuple(also), filler, future, when, movable, moved_filler, peak,
                    neg(stamp(it)), day.toordinal() if day else 0, fixed)

    def moved(self, today: date) -> bool:
        return self.movable and self.when is not None and self.when < today

    def line(self, today: date) -> Line:
        """classify(item, names, today), from what does not depend on the day."""
        if self.fixed is not None:
            return self.fixed
        moved = self.moved(today)
        facet = "events" if moved else self.facet
        upcoming = self.future and self.when is not None and self.when >= today
        return Line(self.item, facet, self.filler_moved if moved else self.filler, upcoming,
                    tuple(f for f in self.also if f != facet))

    @property
    def facets(self) -> tuple[str, ...]:
        return (self.facet, *self.also)


_line_item = operator.attrgetter("item")  # Lazy's key function: the item a Line stands for


def _stamp_page_key(b: Base) -> tuple:  # type: ignore[type-arg]
    return (b.stamp_key, -b.peak, b.item.path, b.item.line)


def _peak_page_key(b: Base) -> tuple:  # type: ignore[type-arg]
    return (-b.peak, -b.day_ord, b.item.path, b.item.line)


def _plan_page_key(b: Base) -> tuple:  # type: ignore[type-arg]
    return plan_key(b.item)


#: Each facet's page order (day-independent): the order its members are kept in.
PAGE_KEYS: dict[str, Callable[[Base], tuple]] = {  # type: ignore[type-arg]
    f: _plan_page_key if f == "plans" else _stamp_page_key if f in STAMP_FACETS else _peak_page_key
    for f, _ in FACETS}


def _movable_key(b: Base) -> tuple:  # type: ignore[type-arg]
    return (b.when, pos(b.item))




class PersonRank:
    """The day-independent part of one person's facets (rebuilt when their facts change,
    reusing each unchanged fact's `Base`)."""

    def __init__(self, subject: tuple[EntryItem, ...], names: tuple[str, ...], half_life: float,
                 old: "PersonRank | None" = None, seed: ClassSeed | None = None) -> None:
        self.key = (subject, names, half_life)
        self.half_life, self.seed = half_life, seed
        reuse = old.bases if old is not None and old.key[1:] == (names, half_life) else {}
        self.bases: dict[int, Base] = {}
        for it in subject:
            if it.current:
                hit = reuse.get(id(it))
                self.bases[id(it)] = hit if hit is not None and hit.item is it else Base.of(it, names, half_life, seed)
        members: dict[str, list[Base]] = {name: [] for name, _ in FACETS}
        for b in self.bases.values():
            for f in b.facets:
                members[f].append(b)
        for f, lst in members.items():
            lst.sort(key=PAGE_KEYS[f])  # the page's order (plans: plan_key, memory.md's too)
        self.members = members
        # Per stamp facet: its stamps newest first, each with the salience classes of its facts.
        # (a stamp alone on its day needs no classes: most do, and a person has thousands)
        self.stamped: dict[str, list[tuple[tuple[int, ...], EntryItem, Classes | None]]] = {}
        self.by_stamp: dict[str, dict[tuple[int, ...], list[EntryItem]]] = {}
        for f in STAMP_FACETS:
            by_stamp: dict[tuple[int, ...], list[EntryItem]] = {}
            for b in members[f]:
                by_stamp.setdefault(b.stamp_key, []).append(b.item)
            self.by_stamp[f] = by_stamp
            self.stamped[f] = sorted((self._group(k, v) for k, v in by_stamp.items()), key=_first)
        self.classes = {f: Classes.of([b.item for b in members[f]], salience, half_life)
                        for f, _ in FACETS if f not in STAMP_FACETS and f != "plans"}
        self.movable = sorted((b for b in members["plans"] if b.movable and b.facet == "plans"), key=_movable_key)
        self._moves_on = [b.when for b in self.movable]
        self._costs: dict[str, Costs] | None = None
        self._cost_fn: Cost | None = None
        self._cost_of: dict[int, int] = {}
        self._day: tuple[date, dict[str, Lazy[Line]]] | None = None
        self._page: tuple[date, dict[str, list[Line]]] | None = None

    @property
    def plans(self) -> list[Base]:
        return self.members["plans"]

    def _group(self, k: tuple[int, ...], v: list[EntryItem], old: Classes | None = None,
               removed: list[EntryItem] = (), added: list[EntryItem] = ()  # type: ignore[assignment]
               ) -> tuple[tuple[int, ...], EntryItem, Classes | None]:
        if len(v) == 1:
            return (k, v[0], None)
        cls = old.changed(removed, added, salience, self.half_life) if old is not None else None
        return (k, v[0], cls if cls is not None else Classes.of(v, salience, self.half_life))

    def changed(self, subject: tuple[EntryItem, ...], removed: list[EntryItem],
                added: list[EntryItem]) -> "PersonRank | None":
        """This rank for `subject`, which is its facts without `removed` and with `added`:
        each kept structure copied and updated by the facts that changed (None: rebuild)."""
        new = object.__new__(PersonRank)
        new.key, new.half_life, new.seed = (subject, *self.key[1:]), self.half_life, self.seed
        bases = dict(self.bases)
        gone = [b for it in removed if (b := bases.pop(id(it), None)) is not None]
        names = self.key[1]
        fresh = [Base.of(it, names, self.half_life, self.seed) for it in added if it.current and id(it) not in bases]
        for b in fresh:
            bases[id(b.item)] = b
        new.bases = bases
        touched = {f for b in gone + fresh for f in b.facets}
        try:
            new.members = dict(self.members)
            for f in touched:
                lst = new.members[f] = list(self.members[f])
                for b in gone:
                    if f in b.facets:
                        take(lst, b, PAGE_KEYS[f])
                for b in fresh:
                    if f in b.facets:
                        put(lst, b, PAGE_KEYS[f])
            new.stamped, new.by_stamp = dict(self.stamped), dict(self.by_stamp)
            for f in touched & STAMP_FACETS:
                new._restamp(f, [b for b in gone if f in b.facets], [b for b in fresh if f in b.facets],
                             self.stamped[f])
            new.classes = dict(self.classes)
            for f in touched & set(self.classes):
                rem = [b.item for b in gone if f in b.facets]
                add = [b.item for b in fresh if f in b.facets]
                cls = self.classes[f].changed(rem, add, salience, self.half_life)
                new.classes[f] = cls if cls is not None else Classes.of(
                    [b.item for b in new.members[f]], salience, self.half_life)
            new.movable = list(self.movable)
            for b in gone:
                if b.movable and b.facet == "plans":
                    take(new.movable, b, _movable_key)
            for b in fresh:
                if b.movable and b.facet == "plans":
                    put(new.movable, b, _movable_key)
            new._moves_on = [b.when for b in new.movable]
            new._costs, new._cost_fn, new._cost_of = None, None, {}
            if self._costs is not None and self._cost_fn is not None:
                new._carry_costs(self, gone, fresh, touched)
        except Collision:
            return None
        new._day = new._page = None
        return new

    def _restamp(self, f: str, gone: list[Base], fresh: list[Base],
                 old: list[tuple[tuple[int, ...], EntryItem, Classes | None]]) -> None:
        """Stamp facet `f`'s groups after the change (only the stamps it touched)."""
        groups = self.by_stamp[f] = dict(self.by_stamp[f])
        rem: dict[tuple[int, ...], list[EntryItem]] = {}
        add: dict[tuple[int, ...], list[EntryItem]] = {}
        for b in gone:
            rem.setdefault(b.stamp_key, []).append(b.item)
            groups[b.stamp_key] = [it for it in groups[b.stamp_key] if it is not b.item]
        for b in fresh:
            add.setdefault(b.stamp_key, []).append(b.item)
            groups[b.stamp_key] = [*groups.get(b.stamp_key, []), b.item]
        stamped = self.stamped[f] = list(old)
        for k in set(rem) | set(add):
            at = bisect.bisect_left(stamped, k, key=_first)
            here = at < len(stamped) and stamped[at][0] == k
            v = groups[k]
            if not v:
                del groups[k]
                if here:
                    del stamped[at]
                continue
            was = stamped[at][2] if here else None
            entry = self._group(k, v, was, rem.get(k, []), add.get(k, []))
            if here:
                stamped[at] = entry
            else:
                stamped.insert(at, entry)

    def _carry_costs(self, old: "PersonRank", gone: list[Base], fresh: list[Base], touched: set[str]) -> None:
        cost = old._cost_fn
        assert cost is not None and old._costs is not None
        cost_of = dict(old._cost_of)
        for b in gone:
            cost_of.pop(id(b.item), None)
        for b in fresh:
            cost_of[id(b.item)] = cost(b.line(_NO_DAY))
        costs = dict(old._costs)
        for f in touched:
            lst = costs[f] = list(costs[f])
            for b in gone:
                if f in b.facets:
                    entry = (old._cost_of[id(b.item)], pos(b.item), id(b.item))
                    at = bisect.bisect_left(lst, entry)
                    if at >= len(lst) or lst[at] != entry:
                        raise Collision
                    del lst[at]
            for b in fresh:
                if f in b.facets:
                    bisect.insort(lst, (cost_of[id(b.item)], pos(b.item), id(b.item)))
        self._costs, self._cost_fn, self._cost_of = costs, cost, cost_of

    def release(self) -> None:
        """Drop the day's lazy facets: their generators refer back to this object (a cycle
        that reference counting alone would not free; see entry/heapfreeze.py)."""
        self._day = None

    def moved_count(self, today: date) -> int:
        """How many plans have become events by `today` (the only way the day changes a page)."""
        return bisect.bisect_left(self._moves_on, today)

    def facets(self, today: date, cost: Cost) -> dict[str, Lazy[Line]]:
        """{facet: lines in profile.order's order} for `today`, produced as far as read."""
        if self._day is not None and self._day[0] == today:
            return self._day[1]
        self.release()
        if self._costs is None or self._cost_fn is not cost:
            self._cost_of = {k: cost(b.line(_NO_DAY)) for k, b in self.bases.items()}  # the day never changes a cost
            self._costs = {f: sorted((self._cost_of[id(b.item)], pos(b.item), id(b.item)) for b in lst)
                           for f, lst in self.members.items()}
            self._cost_fn = cost
        moved = self.movable[: self.moved_count(today)]
        out: dict[str, Lazy[Line]] = {}
        for f, _ in FACETS:
            extra = None
            if f == "plans":
                gen = (b.line(today) for b in self.plans if not b.moved(today))
            elif f in STAMP_FACETS:
                gen = self._stamped(f, today, moved if f == "events" else [])
                if f == "events" and moved:
                    extra = min(self._cost_of[id(b.item)] for b in moved)
            else:
                by_id = self.bases
                gen = (by_id[id(it)].line(today) for _, it in stream(self.classes[f], today, self.half_life, salience))
            out[f] = Lazy(gen, self._costs[f], _line_item, extra)
        self._day = (today, out)
        return out

    def _stamped(self, facet: str, today: date, moved: list[Base]) -> Iterator[Line]:
        """Newest stamp first; within a stamp, the day's salience (its classes, walked lazily)."""
        def groups() -> Iterator[tuple[tuple, EntryItem]]:  # type: ignore[type-arg]
            for key, first, cls in self.stamped[facet]:
                if cls is None:
                    yield (key, -salience(first, today, self.half_life), pos(first)), first
                    continue
                for score, it in stream(cls, today, self.half_life, salience):
                    yield (key, score, pos(it)), it

        def key(b: Base) -> tuple:  # type: ignore[type-arg]
            return (neg(stamp(b.item)), -salience(b.item, today, self.half_life), pos(b.item))

        merged = heapq.merge(groups(), sorted(((key(b), b.item) for b in moved), key=lambda kb: kb[0]),
                             key=lambda kb: kb[0]) if moved else groups()
        for _, it in merged:
            yield self.bases[id(it)].line(today)

    def page_facets(self, today: date) -> dict[str, list[Line]]:
        """{facet: every line} in the page's order, which the day does not change: home,
        work, identity and events newest first, then most seen; plans soonest first; the
        rest most seen (reinforcement and type), then newest. A plan whose day passed is an
        event, as in memory.md. (Members are kept in this order: nothing is sorted here.)"""
        if self._page is not None and self._page[0] == today:
            return self._page[1]
        out = {f: [b.line(today) for b in lst] for f, lst in self.page_bases(today).items()}
        self._page = (today, out)
        return out

    def page_bases(self, today: date) -> dict[str, list[Base] | Iterator[Base]]:
        """page_facets' facts as their Bases, each facet iterable once (no Line made)."""
        moved = self.movable[: self.moved_count(today)]
        out: dict[str, list[Base] | Iterator[Base]] = {}
        for f, _ in FACETS:
            lst: list[Base] | Iterator[Base] = self.members[f]
            if moved and f == "plans":
                gone = {id(b) for b in moved}
                lst = [b for b in lst if id(b) not in gone]
            elif moved and f == "events":
                key = PAGE_KEYS["events"]
                lst = heapq.merge(lst, sorted(moved, key=key), key=key)
            out[f] = lst
        return out
