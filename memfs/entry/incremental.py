"""What the entry files need from the whole store, assembled from per-file parts.

Each function here gives exactly what its whole-store counterpart gives (people.find_people,
index.md's file rows; the keywords and ranked pools now live in entry/keywords.py and
entry/poolrank.py, built the same way), but computes the
part of one file once per content of that file (`Pool.memo`) and only combines the parts:
after a write, the work is the changed file's plus a pass over files and people.
"""

from __future__ import annotations

import hashlib
import heapq
import math
import operator
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date

from memfs.entry.keywords import WordCounts
from memfs.entry.people import PageFront, Person, assignments, case_uses, lead_counts, ordered, people_of
from memfs.entry.pool import EntryItem, parse_day
from memfs.entry.poolcache import Pool


@dataclass
class People:
    """The people of one regeneration, and which file's facts each is built from."""

    people: list[Person]
    signature: str  # a digest of the alias map the per-file assignments are keyed by
    sources: Mapping[str, tuple[tuple[str, int], ...]]  # person -> ((path, file serial), ...)
    alias_of: dict[str, str]  # name or alias -> person

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


#: A file's keyword counts (indexfile.file_words), where people_of reads how the store
#: writes a word (people.common_word). Handed in: indexfile imports this module.
WordsOf = Callable[[str], WordCounts]


class CaseUses(Mapping[str, tuple[int, int]]):
    """people_of's `case`: a word's (lower-case, capitalised) uses, summed over the files'
    keyword counts when first asked (people.case_uses)."""

    def __init__(self, files: list[WordCounts], got: dict[str, tuple[int, int]] | None = None) -> None:
        self._files, self._got = files, got if got is not None else {}

    def __getitem__(self, word: str) -> tuple[int, int]:
        got = self._got.get(word)
        if got is None:
            lower = capital = 0
            for words in self._files:
                a, b = case_uses(words, word)
                lower, capital = lower + a, capital + b
            got = self._got[word] = (lower, capital)
        return got

    def __iter__(self) -> Iterator[str]:
        return iter(self._got)

    def __len__(self) -> int:
        return len(self._got)


def people_in(pool: Pool, pages: list[PageFront], words_of: WordsOf | None = None) -> People:
    """people.find_people over the pool, per file."""
    counts: dict[str, int] = {}
    in_memory: set[str] = set()
    for path in pool.files:
        c, m = pool.memo(path, ("lead",), lead_counts, _lead_delta)
        for name, n in c.items():
            counts[name] = counts.get(name, 0) + n
        in_memory.update(m)
    case = CaseUses([words_of(path) for path in pool.files]) if words_of is not None else None
    people, alias_of = people_of(counts, in_memory, pages, case)
    signature = hashlib.sha1(repr(sorted(alias_of.items())).encode()).hexdigest()
    sources: dict[str, list[tuple[str, int]]] = {}
    if people:
        for path, fv in pool.files.items():
            got = pool.memo(path, ("assign", signature), lambda items: assignments(items, alias_of),
                            lambda old, removed, added: _assign_delta(old, removed, added, alias_of))
            parts = pool.memo(path, ("person-parts", signature), lambda items, got=got: _person_parts(got))
            for name, (subject, mentions) in got.items():
                person = people[name]
                person.subject.extend(subject)
                person.mentions.extend(mentions)
                score, old = parts[name]  # kept per file: a regeneration does not walk every fact
                person.subject_score = (person.subject_score or 0.0) + score
                person.superseded = (person.superseded or []) + old if old else (person.superseded or [])
                sources.setdefault(name, []).append((path, fv.serial))
    return People(ordered(people) if people else [], signature, {k: tuple(v) for k, v in sources.items()},
                  alias_of)


def _person_parts(got: dict[str, tuple[list[EntryItem], list[EntryItem]]]
                  ) -> dict[str, tuple[float, list[EntryItem]]]:
    """Per person, one file's part of Person.score and of their superseded facts."""
    return {name: (sum(1 + math.log(it.seen) for it in subj if it.current),
                   [it for it in subj + ment if not it.current]) for name, (subj, ment) in got.items()}


def _lead_delta(old: tuple[dict[str, int], dict[str, int]], removed: list[EntryItem],
                added: list[EntryItem]) -> tuple[dict[str, int], dict[str, int]]:
    into = (dict(old[0]), dict(old[1]))
    lead_counts(removed, -1, into)
    return lead_counts(added, +1, into)


def _assign_delta(old: dict[str, tuple[list[EntryItem], list[EntryItem]]], removed: list[EntryItem],
                  added: list[EntryItem], alias_of: dict[str, str]) -> dict[str, tuple[list[EntryItem], list[EntryItem]]]:
    """The previous assignment without the removed items, merged in line order with the added ones'."""
    gone = {it.id for it in removed}
    new = assignments(added, alias_of)
    out: dict[str, tuple[list[EntryItem], list[EntryItem]]] = {}
    for name in set(old) | set(new):
        parts = []
        for k in (0, 1):
            kept = [it for it in old[name][k] if it.id not in gone] if name in old and gone else (
                old[name][k] if name in old else [])
            more = new[name][k] if name in new else []
            parts.append(list(heapq.merge(kept, more, key=lambda it: it.line)) if more else list(kept))
        if parts[0] or parts[1]:
            out[name] = (parts[0], parts[1])
    return out


@dataclass(frozen=True)
class FileStats:
    """What index.md's row of one file says, apart from the words that set it apart."""

    items: int
    current: int
    learned: str | None
    span: str
    newest_day: date | None


def file_stats(pool: Pool, path: str) -> FileStats:
    """One file's FileStats, kept with its content (every regeneration asks for every file's)."""
    return pool.derived(path, ("file-stats",), lambda: _file_stats(pool, path))  # type: ignore[no-any-return]


def _file_stats(pool: Pool, path: str) -> FileStats:
    def count(items: list[EntryItem], sign: int = 1, into: tuple | None = None) -> tuple:  # type: ignore[type-arg]
        n, current, learned, months = into if into is not None else (0, 0, Counter(), Counter())
        for it in items:
            n += sign
            if it.learned:
                learned[it.learned] += sign
            if it.current:
                current += sign
                if it.when:
                    months[it.when[:7]] += sign
        return n, current, +learned, +months  # unary plus drops counts that reached 0

    def delta(old: tuple, removed: list[EntryItem], added: list[EntryItem]) -> tuple:  # type: ignore[type-arg]
        return count(added, +1, count(removed, -1, (old[0], old[1], Counter(old[2]), Counter(old[3]))))

    n, current, learned, months = pool.memo(path, ("stats-parts",), count, delta)
    days = sorted(months)
    span = "" if not days else (f"dated {days[0]}" if days[0] == days[-1] else f"dated {days[0]} to {days[-1]}")
    newest = [d for d in (parse_day(s) for s in learned) if d is not None]
    return FileStats(n, current, max(learned, default=None), span, max(newest) if newest else None)


def counts(pool: Pool, path: str) -> tuple[int, int, int]:
    """(current non-skill, superseded non-skill, current skill) items of one file."""
    def count(items: list[EntryItem]) -> tuple[int, int, int]:
        return (sum(1 for it in items if it.current and not it.is_skill),
                sum(1 for it in items if not it.current and not it.is_skill),
                sum(1 for it in items if it.current and it.is_skill))

    def delta(old: tuple[int, int, int], removed: list[EntryItem], added: list[EntryItem]) -> tuple[int, int, int]:
        a, r = count(added), count(removed)
        return (old[0] + a[0] - r[0], old[1] + a[1] - r[1], old[2] + a[2] - r[2])

    return pool.memo(path, ("counts",), count, delta)  # type: ignore[no-any-return]


class NewestDay:
    """The pool's newest learned day (views.reference_day from each file's stats), each
    file's kept with its view object: a file's stats are a function of its view and the
    horizon, so only the views replaced since the last call are asked again (a memo lookup
    per file over ~1,000 files was ~8 ms an input at 100,000 items). A new day (the horizon
    moved) keeps a view's day when its rows are learned on the same days at both horizons,
    the test `FileView.derived` carries its stats over by."""

    def __init__(self) -> None:
        self._views: list[object] = []
        self._days: list[date | None] = []
        self._horizon: date | None = None

    def get(self, pool: Pool) -> date:
        views = list(pool.files.values())
        days, h0, h1 = self._days, self._horizon, pool.horizon
        if h0 is None or len(views) != len(self._views):
            days = [file_stats(pool, fv.path).newest_day for fv in views]
        elif h0 != h1:  # a new day: a kept view's rows learned on the same days at both (_same_for)
            days = [d if v is o and v._same_for(h0, h1) else file_stats(pool, v.path).newest_day  # type: ignore[attr-defined]
                    for v, o, d in zip(views, self._views, days)]
        elif not all(map(operator.is_, views, self._views)):
            days = [d if v is o else file_stats(pool, v.path).newest_day  # type: ignore[attr-defined]
                    for v, o, d in zip(views, self._views, days)]
        self._views, self._days, self._horizon = views, days, h1
        return max(filter(None, days), default=date(2000, 1, 1))
