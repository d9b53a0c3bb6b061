"""What the entry files need from the whole store, assembled from per-file parts.

Each function here gives exactly what its whole-store counterpart gives (people.find_people,
the word counts of indexfile.keywords, the ranked pools of memoryfile), but computes the
part of one file once per content of that file (`Pool.memo`) and only combines the parts:
after a write, the work is the changed file's plus a pass over files and people.
"""

from __future__ import annotations

import hashlib
import heapq
import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date

from memfs.entry.people import PageFront, Person, assignments, lead_counts, ordered, people_of
from memfs.entry.pool import EntryItem, parse_day
from memfs.entry.poolcache import Pool
from memfs.entry.profile import Line, person_facets


@dataclass
class People:
    """The people of one regeneration, and which file's facts each is built from."""

    people: list[Person]
    signature: str  # a digest of the alias map the per-file assignments are keyed by
    sources: dict[str, tuple[tuple[str, int], ...]]  # person -> ((path, file serial), ...)

    def subjects_in(self, pool: Pool, path: str) -> set[str]:
        """Ids of the facts in `path` that are about someone."""
        if not self.people:
            return set()
        got = pool.memo(path, ("assign", self.signature), lambda items: None)
        return pool.memo(path, ("subject-ids", self.signature),
                         lambda items: {it.id for subj, _ in (got or {}).values() for it in subj})

    def about_counts(self, pool: Pool, path: str) -> Counter[str]:
        """{person: current facts about them} in `path` (index.md's "About Priya (6)")."""
        if not self.people:
            return Counter()
        got = pool.memo(path, ("assign", self.signature), lambda items: None) or {}
        return pool.memo(path, ("about", self.signature), lambda items: Counter(
            {name: n for name, (subj, _) in got.items() if (n := sum(1 for it in subj if it.current))}))


def people_in(pool: Pool, pages: list[PageFront]) -> People:
    """people.find_people over the pool, per file."""
    counts: dict[str, int] = {}
    in_memory: set[str] = set()
    for path in pool.files:
        c, m = pool.memo(path, ("lead",), lead_counts)
        for name, n in c.items():
            counts[name] = counts.get(name, 0) + n
        in_memory |= m
    people, alias_of = people_of(counts, in_memory, pages)
    signature = hashlib.sha1(repr(sorted(alias_of.items())).encode()).hexdigest()
    sources: dict[str, list[tuple[str, int]]] = {}
    if people:
        for path, fv in pool.files.items():
            got = pool.memo(path, ("assign", signature), lambda items: assignments(items, alias_of))
            for name, (subject, mentions) in got.items():
                people[name].subject.extend(subject)
                people[name].mentions.extend(mentions)
                sources.setdefault(name, []).append((path, fv.serial))
    return People(ordered(people) if people else [], signature, {k: tuple(v) for k, v in sources.items()})


@dataclass(frozen=True)
class FileStats:
    """What index.md's row of one file says, apart from the words that set it apart."""

    items: int
    current: int
    learned: str | None
    span: str
    newest_day: date | None


def file_stats(pool: Pool, path: str) -> FileStats:
    def compute(items: list[EntryItem]) -> FileStats:
        current = [it for it in items if it.current]
        days = sorted({it.when[:7] for it in current if it.when})
        span = "" if not days else (f"dated {days[0]}" if days[0] == days[-1] else f"dated {days[0]} to {days[-1]}")
        newest = [d for it in items if (d := parse_day(it.learned)) is not None]
        return FileStats(len(items), len(current), max((it.learned for it in items if it.learned), default=None),
                         span, max(newest) if newest else None)

    return pool.memo(path, ("stats",), compute)


class Keywords:
    """indexfile.keywords, kept up to date file by file: each file's word counts, the number
    of files holding each word (df) and the surface forms, plus each file's top words, which
    are recomputed only when the file, the number of files, the names or the df of one of
    its words changed."""

    def __init__(self) -> None:
        self.counts: dict[str, tuple[Counter[str], dict[str, Counter[str]]]] = {}
        self.df: Counter[str] = Counter()
        self.surface: dict[str, Counter[str]] = {}
        self.top: dict[str, tuple[int, frozenset[str], list[str]]] = {}

    def words(self, pool: Pool, paths: list[str], names: set[str], count_words, best_surface,  # type: ignore[no-untyped-def]
              top: int = 5) -> dict[str, list[str]]:
        fresh = {p: pool.memo(p, ("words",), lambda items: count_words([it for it in items if it.current]))
                 if p in pool.files else (Counter(), {}) for p in paths}
        dirty: set[str] = set()
        for p in set(self.counts) | set(fresh):
            old, new = self.counts.get(p), fresh.get(p)
            if old is new:
                continue
            if old is not None:
                self._add(old, -1)
            if new is not None:
                self._add(new, +1)
            # A word in both the old and the new counts of a file kept its df; the rest changed.
            dirty |= (old[0].keys() if old else set()) ^ (new[0].keys() if new else set())
            self.top.pop(p, None)
        self.counts = fresh
        n = max(1, len(fresh))
        frozen = frozenset(names)
        out: dict[str, list[str]] = {}
        for p, (c, _) in fresh.items():
            hit = self.top.get(p)
            if hit is None or hit[0] != n or hit[1] != frozen or any(w in c for w in dirty):
                usable = [w for w in c if w not in names]
                scored = sorted(usable, key=lambda w: (-(c[w] * math.log(1 + n / self.df[w])), w))
                hit = (n, frozen, scored[:top])
                self.top[p] = hit
            out[p] = [best_surface(self.surface[w]) for w in hit[2]]
        for p in set(self.top) - set(fresh):
            del self.top[p]
        return out

    def _add(self, part: tuple[Counter[str], dict[str, Counter[str]]], sign: int) -> None:
        c, surf = part
        for w in c:
            self.df[w] += sign
            if self.df[w] <= 0:
                del self.df[w]
        for w, forms in surf.items():
            into = self.surface.setdefault(w, Counter())
            for form, k in forms.items():
                into[form] += sign * k
                if into[form] <= 0:
                    del into[form]
            if not into:
                del self.surface[w]


def ranked(pool: Pool, kind: str, today: date, half_life: float, salience, cost, room) -> Iterator[EntryItem]:  # type: ignore[no-untyped-def]
    """Current non-skill items under `kind`/, most salient first, file order breaking ties:
    the per-file rankings merged (the order of sorting the whole pool). A file is left out
    as soon as none of its remaining items fits in `room()` tokens by `cost` (the budget
    only shrinks), so a spent budget does not walk every item of the store."""
    def rank(items: list[EntryItem]) -> tuple[list[tuple[tuple[float, str, int], EntryItem]], list[int]]:
        pool_ = [it for it in items if it.current and not it.is_skill and it.kind == kind]
        order = sorted(((-salience(it, today, half_life), it.path, it.line), it) for it in pool_)
        floor = [0] * len(order)
        low = None
        for i in range(len(order) - 1, -1, -1):
            c = cost(order[i][1])
            low = c if low is None else min(low, c)
            floor[i] = low
        return order, floor

    lists = [pool.memo(p, ("ranked", kind, today, half_life), rank) for p in pool.files
             if p.split("/", 1)[0] == kind]
    heap = [(order[0][0], n, 0) for n, (order, _) in enumerate(lists) if order]
    heapq.heapify(heap)
    while heap:
        _, n, at = heap[0]
        order, floor = lists[n]
        if room() < floor[at]:
            heapq.heappop(heap)
            continue
        if at + 1 < len(order):
            heapq.heapreplace(heap, (order[at + 1][0], n, at + 1))
        else:
            heapq.heappop(heap)
        yield order[at][1]


def counts(pool: Pool, path: str) -> tuple[int, int, int]:
    """(current non-skill, superseded non-skill, current skill) items of one file."""
    return pool.memo(path, ("counts",), lambda items: (
        sum(1 for it in items if it.current and not it.is_skill),
        sum(1 for it in items if not it.current and not it.is_skill),
        sum(1 for it in items if it.current and it.is_skill)))


class FacetCache:
    """profile.person_facets per person, kept while the facts it was built from (the files
    they come from, the alias map, the names, the day and the half-life) stay the same."""

    def __init__(self) -> None:
        #: person -> [key, facets, floors of those facets or None]
        self._by_person: dict[str, list] = {}  # type: ignore[type-arg]

    def facets(self, person: Person, found: People, names: tuple[str, ...], today: date,
               half_life: float) -> dict[str, list[Line]]:
        key = (person.aliases, found.signature, found.sources.get(person.name, ()), names, today, half_life)
        hit = self._by_person.get(person.name)
        if hit is None or hit[0] != key:
            hit = [key, person_facets(person, names, today, half_life), None]
            self._by_person[person.name] = hit
        return hit[1]  # type: ignore[no-any-return]

    def floors(self, name: str, cost) -> dict[str, list[int]]:  # type: ignore[no-untyped-def]
        """Per facet of the person's last `facets`, the least `cost` of each line or any after it."""
        hit = self._by_person[name]
        if hit[2] is None:
            out: dict[str, list[int]] = {}
            for facet, lines in hit[1].items():
                floor = [0] * len(lines)
                low = None
                for i in range(len(lines) - 1, -1, -1):
                    c = cost(lines[i])
                    low = c if low is None else min(low, c)
                    floor[i] = low
                out[facet] = floor
            hit[2] = out
        return hit[2]  # type: ignore[no-any-return]

    def keep_only(self, people: list[Person]) -> None:
        live = {p.name for p in people}
        for name in set(self._by_person) - live:
            del self._by_person[name]
