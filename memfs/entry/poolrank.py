"""The pool's current items most salient first, over every file (memory.md's ranked sections).

Each file's ranking is walked lazily from classes kept across days (entry/ranking.py), and
the files' rankings are merged by a heap. The heap used to start every file's ranking to
learn its first item: on a new day that was a stream (a few salience scores) per file of
the store, ~1,000 at 100,000 items, although memory.md reads a few dozen lines. Now a file
enters the heap by its best score for the day (the best of its few skyline classes, kept
with its classes), and its ranking starts only once that score reaches the top of the heap:
the order given out is the same, and only the files whose best items are read start.
"""

from __future__ import annotations

import heapq
import operator
from collections.abc import Callable, Iterator
from datetime import date

from memfs.entry import rankparts
from memfs.entry.pool import EntryItem
from memfs.entry.poolcache import RECOMPUTE, FileView, Pool
from memfs.entry.ranking import ClassKey, Classes, Lazy, Salience, stream

_NOTHING = 1 << 62  # Floors' floor when no item is left
_second = operator.itemgetter(1)  # Lazy's item_of: the item of a (score, item) entry


def skyline(cls: Classes) -> list[ClassKey]:
    """The classes no other class beats on both peak and day: on any day the file's best
    score is one of theirs (salience is its peak times a recency factor that grows with the
    day, entry/ranking.py). Usually a handful, kept with the file's classes."""
    out: list[ClassKey] = []
    newest: tuple[int, int] | None = None
    for _, order, key in cls.by_peak:  # best peak first
        if newest is None or order[:2] < newest:  # newer than every class of a higher peak
            out.append(key)
            newest = order[:2]
    return out


def best_bound(cls: Classes, sky: list[ClassKey], today: date, half_life: float, salience: Salience,
               scores: dict[ClassKey, float] | None = None) -> float:
    """The best score of the file's items on `today`: exactly its first item's, so a tie
    with another file's item is broken by path as in the full sort. (A class off the
    skyline scores no more than one on it: the same (seen, type) with an older day computes
    the same product with a smaller recency factor, and different peaks are too far apart
    for rounding to matter.)"""
    if scores is None:
        return max(salience(cls.members[k][0], today, half_life) for k in sky)
    # A class's score is that of any of its members (one seen, type and day), so one per
    # class key serves every file of the store that has the class (flat5): a new day then
    # scores a few hundred keys, not every file's skyline (nor builds its items).
    best = None
    for k in sky:
        got = scores.get(k)
        if got is None:
            got = scores[k] = salience(cls.members[k][0], today, half_life)
        if best is None or got > best:
            best = got
    assert best is not None
    return best


def ranked(pool: Pool, kind: str, today: date, half_life: float, salience: Salience,
           cost: Callable[[EntryItem], int], room: Callable[[], int]) -> Iterator[EntryItem]:
    """Current non-skill items under `kind`/, most salient first, file order breaking ties:
    the per-file rankings merged (the order of sorting the whole pool). A file is left out
    as soon as none of its remaining items fits in `room()` tokens by `cost` (the budget
    only shrinks), so a spent budget does not walk every item of the store."""
    files: list[Lazy[tuple[float, EntryItem]] | Callable[[], Lazy[tuple[float, EntryItem]]]] = []
    scores: dict[ClassKey, float] = {}
    lowest: list[int] = []  # per file, the least cost of its items (its floor before it starts)
    heap: list[tuple[tuple[float, str, int], int, int]] = []
    for p in pool.files:
        if p.split("/", 1)[0] != kind:
            continue
        fv = pool.files[p]
        # What the day does not change, kept with the file's content (one lookup a file: this
        # loop visits every file of the kind, ~1,000 at 100,000 items, at every regeneration).
        parts = pool.derived(p, ("rank-parts", kind, half_life), lambda p=p, fv=fv: _parts_of(
            pool, p, fv, kind, half_life, salience, cost))
        if parts is None:
            continue
        cls, sky, costs, low = parts
        bound = best_bound(cls, sky, today, half_life, salience, scores)
        # At position -1 (the file's ranking not started): its bound, before any of its items
        # that could tie with it; an item of an earlier file at the same score still comes first.
        heap.append(((-bound, p, -1), len(files), -1))
        # The day's ranking of the file is made (and kept for the day) only when its bound
        # reaches the top: most files' never do (flat5).
        files.append(lambda p=p, cls=cls, costs=costs: pool.derived(
            p, ("rank-lazy", kind, today, half_life), lambda: Lazy(
                stream(cls, today, half_life, salience), [], _second, floors=rankparts.Floors(costs, cost))))
        lowest.append(low)
    heapq.heapify(heap)
    while heap:
        _, n, at = heap[0]
        lazy = files[n]
        if not isinstance(lazy, Lazy):
            if room() < lowest[n]:  # nothing of the file fits: dropped without making its ranking
                heapq.heappop(heap)
                continue
            lazy = files[n] = lazy()
        if room() < lazy.floor(max(at, 0)):
            heapq.heappop(heap)
            continue
        nxt = lazy.get(at + 1)
        if nxt is not None:
            heapq.heapreplace(heap, ((nxt[0], nxt[1].path, nxt[1].line), n, at + 1))
        else:
            heapq.heappop(heap)
        if at >= 0:
            yield lazy.got[at][1]


def _parts_of(pool: Pool, p: str, fv: FileView, kind: str, half_life: float, salience: Salience,
              cost: Callable[[EntryItem], int]) -> tuple[Classes, list[ClassKey], dict[int, int], int] | None:
    """A file's ranking parts that do not depend on the day: its classes, their skyline, its
    items' cost counts and the least of them (Floors.floor(0)); None if it has no item to
    rank. The classes' members and the items' costs are kept as ids and counts
    (entry/rankparts.py), so a file whose parts the index holds is ranked without building
    its items; the classes, skyline and the day's ranking derive from them."""
    def wanted(items: list[EntryItem]) -> list[EntryItem]:
        return [it for it in items if it.current and not it.is_skill and it.kind == kind]

    members = pool.memo(p, ("rank-members", kind), lambda items: rankparts.members_of(wanted(items)),
                        lambda old, removed, added: rankparts.members_delta(
                            old, wanted(removed), wanted(added), fv.line_of, RECOMPUTE))
    if not members:
        return None
    cls = rankparts.classes_of(members, fv.item_of(pool.horizon), salience, half_life)
    costs = pool.memo(p, ("rank-cost-counts", kind), lambda items: rankparts.cost_counts(wanted(items), cost),
                      lambda old, removed, added: rankparts.cost_counts_delta(
                          old, wanted(removed), wanted(added), cost, RECOMPUTE))
    return cls, skyline(cls), costs, min((k for k, v in costs.items() if v > 0), default=_NOTHING)
