"""What a process keeps per person between regenerations (issue #18 item 4): their facets'
ranking (entry/facetrank.PersonRank) and the order of what mentions them on their page.

Both are kept while the person's facts (or mentions) stay the same objects; when a few
change, the kept structures are updated by the facts removed and added (found by identity,
C-speed passes) instead of being rebuilt from the person's ~1,000 facts at 100,000 items,
which an input naming a dozen people paid for each of them (flat5). More than a quarter
changed, a collision of sort keys, other names or another half-life: rebuilt as before
(reusing each unchanged fact's classification). The result is the rebuild's, tested
(tests/test_facetrank.py) on random changes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from memfs.entry.classseed import ClassSeed
from memfs.entry.facetrank import Cost, PersonRank
from memfs.entry.people import Person
from memfs.entry.pool import EntryItem
from memfs.entry.profile import Line, stamp
from memfs.entry.ranking import Collision, Lazy, diff, put, small, take


def desc(s: str) -> tuple[int, ...]:
    """A key that sorts strings in exactly descending order (a prefix after its extensions)."""
    return (*(-ord(c) for c in s), 1)


def mention_key(it: EntryItem) -> tuple:  # type: ignore[type-arg]
    """A page's "Mentioned in" order: newest stamp first, then file order."""
    return (desc(stamp(it)), it.path, it.line)


def mentions_order(mentions: list[EntryItem]) -> list[EntryItem]:
    """The current items of `mentions` in a page's order (the reference: pages.render_page's sorts)."""
    return sorted((it for it in mentions if it.current), key=mention_key)


class FacetCache:
    """One PersonRank per person, kept while the facts, the names and the half-life it was
    built from stay the same; memory.md and the pages of a process share it.

    A person's `subject` and `mentions` lists are kept as they are, not copied: a list
    handed to it must not change afterwards (a change makes a new list, as
    entry/peoplecache.py and incremental.people_in do). Copying them was ~4,000 items a
    person whose facts changed, at 100,000 items, for a dozen people an input."""

    def __init__(self) -> None:
        self._by_person: dict[str, PersonRank] = {}
        self._mentions: dict[str, tuple[list[EntryItem], list[EntryItem]]] = {}
        self._blocks: dict[str, tuple[PersonRank, int, list[str]]] = {}
        self._names: tuple[tuple[str, ...] | None, tuple[str, ...]] = (None, ())
        # person -> (subject list, mentions list) last asked about: the very objects, kept
        # alive here so no other list can take their identity. A regeneration hands an
        # unchanged person the same lists (entry/peoplecache.py), never changed after.
        self._lists: dict[str, tuple[list[EntryItem], list[EntryItem]]] = {}
        self.seed = ClassSeed()  # each fact's classification, kept in the index for the next process

    def rank(self, person: Person, names: tuple[str, ...], half_life: float) -> PersonRank:
        # Their order does not matter to a classification. Sorted once per `names` object: a
        # regeneration asks with the same tuple for every person (held here, so `is` is exact).
        if names is not self._names[0]:
            self._names = (names, tuple(sorted(set(names))))
        names = self._names[1]
        hit = self._by_person.get(person.name)
        if hit is not None and self._same(person, 0) and hit.key[1] == names and hit.key[2] == half_life:
            return hit
        key = (person.subject, names, half_life)  # the list itself: never changed once handed out
        if hit is None or hit.key != key:
            new = None
            if hit is not None and hit.key[1:] == key[1:]:
                removed, added = diff(hit.key[0], key[0])
                if small(removed, added, len(hit.bases)):
                    new = hit.changed(key[0], removed, added)
            if new is None:
                new = PersonRank(key[0], names, half_life, hit, self.seed)
            if hit is not None:
                hit.release()
            self._by_person[person.name] = hit = new
        self._keep(person, 0)
        return hit

    def _same(self, person: Person, which: int) -> bool:
        """Whether the person's facts (0) or mentions (1) are the list last asked about."""
        got = self._lists.get(person.name)
        return got is not None and got[which] is (person.mentions if which else person.subject)

    def _keep(self, person: Person, which: int) -> None:
        got = self._lists.get(person.name, ([], []))
        self._lists[person.name] = (person.subject, got[1]) if which == 0 else (got[0], person.mentions)

    def facets(self, person: Person, names: tuple[str, ...], today: date, half_life: float,
               cost: Cost) -> dict[str, Lazy[Line]]:
        return self.rank(person, names, half_life).facets(today, cost)

    def mentions(self, person: Person) -> list[EntryItem]:
        """The person's current mentions, newest first (`mentions_order`), kept and updated."""
        hit = self._mentions.get(person.name)
        if hit is not None and self._same(person, 1):
            return hit[1]
        key = person.mentions
        if hit is not None and hit[0] == key:
            self._keep(person, 1)
            return hit[1]
        order = None
        if hit is not None:
            removed, added = diff(hit[0], key)
            if small(removed, added, len(hit[1])):
                order = list(hit[1])
                try:
                    for it in removed:
                        if it.current:
                            take(order, it, mention_key)
                    for it in added:
                        if it.current:
                            put(order, it, mention_key)
                except Collision:
                    order = None
        if order is None:
            order = mentions_order(person.mentions)
        self._mentions[person.name] = (key, order)
        self._keep(person, 1)
        return order

    def mentions_key(self, person: Person) -> list[EntryItem]:
        """person.mentions, as the object kept with their order (`mentions`)."""
        self.mentions(person)
        return self._mentions[person.name][0]

    def block(self, name: str, rank: PersonRank, today: date, build: Callable[[], list[str]]) -> list[str]:
        """The page's facts sections (`build()`), kept while the person's rank is the same
        object and no plan moved to the events since: a page whose person is only mentioned
        anew formats its mentions, not their facts (flat5)."""
        moved = rank.moved_count(today)
        hit = self._blocks.get(name)
        if hit is None or hit[0] is not rank or hit[1] != moved:
            hit = self._blocks[name] = (rank, moved, build())
        return hit[2]

    def keep_only(self, people: list[Person]) -> None:
        live = {p.name for p in people}
        for name in set(self._blocks) - live:
            del self._blocks[name]
        for name in set(self._by_person) - live:
            self._by_person.pop(name).release()
        for name in set(self._mentions) - live:
            del self._mentions[name]
        for name in set(self._lists) - live:
            del self._lists[name]
