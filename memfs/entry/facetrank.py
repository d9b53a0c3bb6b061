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
  rebuilt (and written) only when the person's facts change or a plan's day passes.
"""

from __future__ import annotations

import bisect
import heapq
import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date

from memfs.entry.facets import FACETS, facets_of, is_filler
from memfs.entry.people import Person
from memfs.entry.pool import EntryItem, parse_day
from memfs.entry.profile import Line, is_quoted, salience, stamp
from memfs.entry.ranking import Classes, Costs, Lazy, pos, stream

#: Facets profile.order sorts newest stamp first (salience breaks ties), and plans' own order.
STAMP_FACETS = frozenset({"home", "work", "identity", "events"})
Cost = Callable[[Line], int]
_NO_DAY = date(2000, 1, 1)


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
    def of(it: EntryItem, names: tuple[str, ...], half_life: float) -> "Base":
        when, learned = parse_day(it.when), parse_day(it.learned)
        future = when is not None and learned is not None and when > learned
        facet, *also = facets_of(it.text, it.category, it.type, future)
        quoted = is_quoted(it.text, names)
        movable = facet == "plans" and when is not None and it.type == "event"
        moved_filler = is_filler(it.text, "events", quoted, names) if movable else False
        day = parse_day(it.learned or it.when)
        peak = salience(it, day or _NO_DAY, half_life)
        filler = is_filler(it.text, facet, quoted, names)
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


class PersonRank:
    """The day-independent part of one person's facets (rebuilt when their facts change,
    reusing each unchanged fact's `Base`)."""

    def __init__(self, subject: tuple[EntryItem, ...], names: tuple[str, ...], half_life: float,
                 old: "PersonRank | None" = None) -> None:
        self.key = (subject, names, half_life)
        self.half_life = half_life
        reuse = old.bases if old is not None and old.key[1:] == (names, half_life) else {}
        self.bases: dict[int, Base] = {}
        for it in subject:
            if it.current:
                hit = reuse.get(id(it))
                self.bases[id(it)] = hit if hit is not None and hit.item is it else Base.of(it, names, half_life)
        members: dict[str, list[Base]] = {name: [] for name, _ in FACETS}
        for b in self.bases.values():
            for f in b.facets:
                members[f].append(b)
        self.members = members
        self.plans = sorted(members["plans"], key=lambda b: plan_key(b.item))
        # Per stamp facet: its stamps newest first, each with the salience classes of its facts.
        # (a stamp alone on its day needs no classes: most do, and a person has thousands)
        self.stamped: dict[str, list[tuple[tuple[int, ...], EntryItem, Classes | None]]] = {}
        for f in STAMP_FACETS:
            by_stamp: dict[tuple[int, ...], list[EntryItem]] = {}
            for b in members[f]:
                by_stamp.setdefault(b.stamp_key, []).append(b.item)
            self.stamped[f] = sorted((k, v[0], Classes.of(v, salience, half_life) if len(v) > 1 else None)
                                     for k, v in by_stamp.items())
        self.classes = {f: Classes.of([b.item for b in members[f]], salience, half_life)
                        for f, _ in FACETS if f not in STAMP_FACETS and f != "plans"}
        self.movable = sorted((b for b in members["plans"] if b.movable and b.facet == "plans"),
                              key=lambda b: (b.when, pos(b.item)))
        self._moves_on = [b.when for b in self.movable]
        self._costs: dict[str, Costs] | None = None
        self._cost_of: dict[int, int] = {}
        self._day: tuple[date, dict[str, Lazy[Line]]] | None = None

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
        if self._costs is None:
            self._cost_of = {k: cost(b.line(_NO_DAY)) for k, b in self.bases.items()}  # the day never changes a cost
            self._costs = {f: sorted((self._cost_of[id(b.item)], pos(b.item), id(b.item)) for b in lst)
                           for f, lst in self.members.items()}
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
        event, as in memory.md."""
        def day_key(b: Base) -> tuple[float, int, str, int]:
            return (-b.peak, -b.day_ord, b.item.path, b.item.line)

        moved = set(id(b.item) for b in self.movable[: self.moved_count(today)])
        out: dict[str, list[Line]] = {}
        for f, _ in FACETS:
            lst = [b for b in self.members[f] if not (f == "plans" and id(b.item) in moved)]
            if f == "events":
                lst += [self.bases[k] for k in moved]
            if f == "plans":
                lst.sort(key=lambda b: plan_key(b.item))
            elif f in STAMP_FACETS:
                lst.sort(key=lambda b: (b.stamp_key, -b.peak, b.item.path, b.item.line))
            else:
                lst.sort(key=day_key)
            out[f] = [b.line(today) for b in lst]
        return out


class FacetCache:
    """One PersonRank per person, kept while the facts, the names and the half-life it was
    built from stay the same; memory.md and the pages of a process share it."""

    def __init__(self) -> None:
        self._by_person: dict[str, PersonRank] = {}

    def rank(self, person: Person, names: tuple[str, ...], half_life: float) -> PersonRank:
        names = tuple(sorted(set(names)))  # their order does not matter to a classification
        key = (tuple(person.subject), names, half_life)
        hit = self._by_person.get(person.name)
        if hit is None or hit.key != key:
            old, hit = hit, PersonRank(key[0], names, half_life, hit)
            if old is not None:
                old.release()
            self._by_person[person.name] = hit
        return hit

    def facets(self, person: Person, names: tuple[str, ...], today: date, half_life: float,
               cost: Cost) -> dict[str, Lazy[Line]]:
        return self.rank(person, names, half_life).facets(today, cost)

    def keep_only(self, people: list[Person]) -> None:
        live = {p.name for p in people}
        for name in set(self._by_person) - live:
            self._by_person.pop(name).release()
