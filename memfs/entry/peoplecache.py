"""The people of a regeneration, rebuilt only for the people whose files changed (issue #18 item 4).

incremental.people_in combines per-file parts, but still walks every (file, person) pair
to concatenate each person's facts: at 100,000 items (1,000 files, ~50 people) that was
~50,000 list extends per input, and index.md then counted each person's current facts
again. A new input changes a few files, so only the people those files name (before or
after the change) need their facts put together again; the others keep what the previous
regeneration assembled. The name counts that decide who is a person are kept as running
totals, changed by the files whose counts changed. The result is the one people_in gives
(tests/test_people_cache.py compares them after random changes).
"""

from __future__ import annotations

import bisect
from array import array
import hashlib
import math
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import reduce
from itertools import chain
from operator import add, attrgetter, itemgetter

from memfs.entry.incremental import CaseUses, People, WordsOf, _assign_delta, _lead_delta
from memfs.entry.keywords import WordCounts
from memfs.entry.people import PageFront, assignments, case_uses, lead_counts, ordered, people_of
from memfs.entry.pool import EntryItem
from memfs.entry.poolcache import Pool

Got = dict[str, tuple[list[EntryItem], list[EntryItem]]]  # person -> (facts about them, facts naming them)


@dataclass(frozen=True)
class _Part:
    """One file's share of one person, in the form their assembly sums (kept with the file)."""

    score: float
    superseded: list[EntryItem]
    current: int


_Chunk = tuple[list[EntryItem], list[EntryItem], _Part]


@dataclass(frozen=True)
class _Assembled:
    """One person's facts over every file, in path order (what people_in puts on a Person)."""

    paths: tuple[str, ...]
    subject: list[EntryItem]
    mentions: list[EntryItem]
    score: float
    superseded: list[EntryItem]
    current: int
    chunks: tuple["_Chunk", ...]  # per path: (facts about them, facts naming them, their _Part) there
    # Per path, flat (what `_splice` sums and adds up without visiting ~1,000 chunk objects
    # scattered over a big heap): the lengths of each chunk's facts, mentions and superseded
    # facts, and its score.
    lengths: tuple["array[int]", "array[int]", "array[int]"]
    scores: "array[float]"


class PeopleCache:
    """people_in's result, kept per person between regenerations of one workspace."""

    def __init__(self) -> None:
        self._leads: dict[str, object] = {}  # path -> the lead counts added into the totals
        self._counts: Counter[str] = Counter()
        self._in_memory: Counter[str] = Counter()
        self._signature: str | None = None
        self._files: dict[str, tuple[int, Got]] = {}  # path -> (file serial, assignment) last assembled
        self._people: dict[str, _Assembled] = {}
        self._case_src: dict[str, WordCounts] = {}  # path -> its keyword counts last read
        self._watch: dict[str, tuple[int, int]] = {}  # word -> (lower-case, capitalised) uses, asked ones

    def find(self, pool: Pool, pages: list[PageFront], words_of: WordsOf | None = None) -> People:
        self._totals(pool)
        case = self._case(pool, words_of) if words_of is not None else None
        people, alias_of = people_of(dict(self._counts), set(self._in_memory), pages, case)
        signature = hashlib.sha1(repr(sorted(alias_of.items())).encode()).hexdigest()
        if not people:
            self._signature, self._files, self._people = signature, {}, {}
            return People([], signature, {}, alias_of)
        files: dict[str, tuple[int, Got]] = {}
        for path, fv in pool.files.items():
            got = pool.memo(path, ("assign", signature), lambda items: assignments(items, alias_of),
                            lambda old, removed, added: _assign_delta(old, removed, added, alias_of))
            files[path] = (fv.serial, got)
        fresh = signature != self._signature
        touched: dict[str, set[str]] = {}  # person -> changed files that name them now
        moved: set[str] = set()  # people whose facts are the same, in a file with a new serial
        changed: set[str] = set()  # files whose assignment or serial changed, or that are gone
        if not fresh:
            for path, (serial, got) in files.items():
                old = self._files.get(path)
                if old is not None and old[0] == serial and old[1] is got:
                    continue
                changed.add(path)
                was = old[1] if old is not None else {}
                for name, facts in got.items():
                    if was.get(name) == facts:  # the same items (identity first: C speed)
                        moved.add(name)
                    else:
                        touched.setdefault(name, set()).add(path)
                for name in was:
                    if name not in got:
                        touched.setdefault(name, set())
            for path in set(self._files) - set(files):
                changed.add(path)
                for name in self._files[path][1]:
                    touched.setdefault(name, set())
        order = {p: i for i, p in enumerate(files)} if fresh or touched else {}
        by_name: dict[str, list[str]] = {}
        if fresh:
            for path, (_, got) in files.items():
                for name in got:
                    by_name.setdefault(name, []).append(path)
        assembled: dict[str, _Assembled] = {}
        for name in people:
            prev = self._people.get(name)
            if not fresh and prev is not None and name not in touched:
                assembled[name] = prev  # its files' serials are read when asked (_Sources)
                continue
            reuse: dict[str, _Chunk] = {}
            if fresh:
                paths = by_name.get(name, [])
            else:
                mine = touched.get(name, set())
                keep = set(prev.paths) if prev is not None else set()
                # Only a changed file can have stopped naming them (C-speed set passes, not one per file).
                gone = {p for p in keep & changed if p not in files or name not in files[p][1]}
                if prev is not None and len(mine) + len(gone) <= _SPLICE_MAX:
                    assembled[name] = self._splice(pool, name, prev, sorted(mine | gone), files, signature)
                    continue
                paths = sorted((keep - gone) | mine, key=order.__getitem__)
                if prev is not None:
                    reuse = dict(zip(prev.paths, prev.chunks))
                    for p in mine:
                        reuse.pop(p, None)
            assembled[name] = self._assemble(pool, name, paths, files, signature, reuse)
        self._signature, self._files, self._people = signature, files, assembled
        sources: dict[str, tuple[str, ...]] = {}
        for name, person in people.items():
            a = assembled[name]
            if not a.paths:
                continue  # a page-only person: people_in leaves them as people_of made them
            # The assembled lists themselves, never changed after (a change assembles new
            # ones): a person whose files did not change gets the very lists of the last
            # regeneration, which FacetCache then knows unchanged by identity, not by a copy
            # and a comparison of their ~2,000 facts (issue #18 item 4).
            person.subject, person.mentions = a.subject, a.mentions
            person.subject_score, person.superseded, person.current_count = a.score, a.superseded, a.current
            sources[name] = a.paths
        return People(ordered(people), signature, _Sources(sources, files), alias_of)

    def _totals(self, pool: Pool) -> None:
        """Bring the name counts up to the pool, file by file (people_in sums every file's)."""
        seen = set()
        for path in pool.files:
            got = pool.memo(path, ("lead",), lead_counts, _lead_delta)
            seen.add(path)
            old = self._leads.get(path)
            if old is got:
                continue
            if old is not None:
                self._add(old, -1)  # type: ignore[arg-type]
            self._add(got, +1)
            self._leads[path] = got
        for path in set(self._leads) - seen:
            self._add(self._leads.pop(path), -1)  # type: ignore[arg-type]

    def _case(self, pool: Pool, words_of: WordsOf) -> CaseUses:
        """How the store writes the words people.common_word asks about: each word's uses are
        summed over the files once, when first asked, then kept up to date by the files
        whose keyword counts changed (the same objects: C speed)."""
        files, watch = self._case_src, self._watch
        for path in pool.files:
            words = words_of(path)
            old = files.get(path)
            if old is words:
                continue
            files[path] = words
            for w, (lower, capital) in watch.items():
                a, b = case_uses(words, w)
                c, d = case_uses(old, w) if old is not None else (0, 0)
                watch[w] = (lower + a - c, capital + b - d)
        for path in set(files) - set(pool.files):
            old = files.pop(path)
            for w, (lower, capital) in watch.items():
                c, d = case_uses(old, w)
                watch[w] = (lower - c, capital - d)
        return CaseUses(list(files.values()), watch)

    def _add(self, part: tuple[dict[str, int], dict[str, int]], sign: int) -> None:
        for into, counts in ((self._counts, part[0]), (self._in_memory, part[1])):
            for name, n in counts.items():
                into[name] += sign * n
                if not into[name]:
                    del into[name]

    @staticmethod
    def _assemble(pool: Pool, name: str, paths: list[str], files: dict[str, tuple[int, Got]], signature: str,
                  reuse: dict[str, _Chunk]) -> _Assembled:
        """One person's facts from the files that name them, in path order (an unchanged
        file's share is taken from `reuse`); sums in the order people_in sums them, so the
        score is the same float."""
        def chunk_of(path: str) -> _Chunk:
            got = files[path][1]
            parts = pool.memo(path, ("person-parts+", signature), lambda items: _parts(got))
            return (*got[name], parts[name])

        get = reuse.get
        chunks = [get(p) or chunk_of(p) for p in paths]
        # Concatenated and summed in path order by C-level passes (map, chain, reduce): the
        # score is the same float as people_in's running sum (0.0 + each file's, in order).
        parts = list(map(_third, chunks))
        scores = array("d", map(_score, parts))
        return _Assembled(tuple(paths), list(chain.from_iterable(map(_first, chunks))),
                          list(chain.from_iterable(map(_second, chunks))), reduce(add, scores, 0.0),
                          list(chain.from_iterable(map(_superseded, parts))), sum(map(_current, parts)),
                          tuple(chunks), (array("q", map(len, map(_first, chunks))),
                                          array("q", map(len, map(_second, chunks))),
                                          array("q", map(len, map(_superseded, parts)))), scores)


    @staticmethod
    def _splice(pool: Pool, name: str, prev: _Assembled, edits: list[str], files: dict[str, tuple[int, Got]],
                signature: str) -> _Assembled:
        """`_assemble`'s result from the previous one, with the shares of the files in
        `edits` (path order) replaced, added or removed in place: a person named in a few
        changed files costs those files' facts and C-speed copies, not a pass over their
        ~1,000 files (flat5). Files are in path order, which is the pool's (the index's)."""
        paths, chunks = list(prev.paths), list(prev.chunks)
        subject, mentions, superseded = list(prev.subject), list(prev.mentions), list(prev.superseded)
        lens = tuple(array("q", a) for a in prev.lengths)
        scores, current = array("d", prev.scores), prev.current
        for path in reversed(edits):  # from the last: the offsets before it stay valid
            at = bisect.bisect_left(paths, path)
            here = at < len(paths) and paths[at] == path
            starts = [sum(a[:at]) for a in lens]
            ends = [start + a[at] if here else start for start, a in zip(starts, lens)]
            if here:
                current -= chunks[at][2].current
            got = files[path][1] if path in files else {}
            if name in got:
                parts = pool.memo(path, ("person-parts+", signature), lambda items, got=got: _parts(got))
                new: _Chunk = (*got[name], parts[name])
                part = new[2]
                subject[starts[0]:ends[0]], mentions[starts[1]:ends[1]] = new[0], new[1]
                superseded[starts[2]:ends[2]] = part.superseded
                sizes = (len(new[0]), len(new[1]), len(part.superseded))
                current += part.current
                if here:
                    chunks[at], scores[at] = new, part.score
                    for a, n in zip(lens, sizes):
                        a[at] = n
                else:
                    chunks.insert(at, new)
                    paths.insert(at, path)
                    scores.insert(at, part.score)
                    for a, n in zip(lens, sizes):
                        a.insert(at, n)
            elif here:
                del subject[starts[0]:ends[0]], mentions[starts[1]:ends[1]], superseded[starts[2]:ends[2]]
                del chunks[at], paths[at], scores[at]
                for a in lens:
                    del a[at]
        # The score is summed again in path order (the same float as people_in's running sum);
        # the count of current facts is an int, kept by difference.
        return _Assembled(tuple(paths), subject, mentions, reduce(add, scores, 0.0), superseded, current,
                          tuple(chunks), lens, scores)  # type: ignore[arg-type]


_SPLICE_MAX = 16  # changed files of one person spliced into their facts; more: assembled again
_first, _second, _third = itemgetter(0), itemgetter(1), itemgetter(2)
_score, _superseded, _current = attrgetter("score"), attrgetter("superseded"), attrgetter("current")


class _Sources(Mapping[str, tuple[tuple[str, int], ...]]):
    """People.sources, made when asked: ((path, file serial), ...) per person. Nothing in a
    regeneration reads it, and making it for every person whose file got a new serial was
    a pass over ~1,000 files a person at 100,000 items (flat5)."""

    def __init__(self, paths: dict[str, tuple[str, ...]], files: dict[str, tuple[int, Got]]) -> None:
        self._paths, self._files = paths, files

    def __getitem__(self, name: str) -> tuple[tuple[str, int], ...]:
        paths = self._paths[name]
        return tuple(zip(paths, map(_first, map(self._files.__getitem__, paths))))

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


def _parts(got: Got) -> dict[str, _Part]:
    """Per person, one file's part of Person.score, of their superseded facts and of the
    count of their current facts (index.md's "Priya (6 facts)")."""
    return {name: _Part(sum(1 + math.log(it.seen) for it in subj if it.current),
                        [it for it in subj + ment if not it.current], sum(1 for it in subj if it.current))
            for name, (subj, ment) in got.items()}
