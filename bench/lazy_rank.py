"""entry/ranking.Lazy against the two classes it replaced (flat4), interleaved in one process.

    PYTHONPATH=. python bench/lazy_rank.py [--entries 2000] [--rounds 200]

`incremental._Lazy` (a file's ranked items) and `facetrank.LazyFacet` (a person's facet)
were one algorithm twice; `Lazy` is that algorithm once, with a key function naming an
entry's item. The baselines below are the previous code verbatim. Each round walks a
ranking of `--entries` entries the way memory.md does (get(i) then floor(i) at every
position); old and new alternate, and the minimum and median of the rounds are printed.
"""

from __future__ import annotations

import argparse
import operator
import statistics
import time
from typing import NamedTuple

from memfs.entry.pool import EntryItem
from memfs.entry.ranking import Lazy


class _OldLazy:  # entry/incremental.py before flat4
    def __init__(self, gen, costs) -> None:  # type: ignore[no-untyped-def]
        self.items: list = []  # type: ignore[type-arg]
        self._gen = gen
        self._costs = costs
        self._floors: list[int] = []
        self._gone: set[int] = set()
        self._ptr = 0

    def get(self, i):  # type: ignore[no-untyped-def]
        while len(self.items) <= i and self._gen is not None:
            got = next(self._gen, None)
            if got is None:
                self._gen = None
            else:
                self.items.append(got)
        return self.items[i] if i < len(self.items) else None

    def floor(self, at: int) -> int:
        while len(self._floors) <= at:
            k = len(self._floors)
            if k:
                self._gone.add(id(self.items[k - 1][1]))
            while self._ptr < len(self._costs) and id(self._costs[self._ptr][2]) in self._gone:
                self._ptr += 1
            self._floors.append(self._costs[self._ptr][0] if self._ptr < len(self._costs) else 1 << 62)
        return self._floors[at]


class _OldLazyFacet:  # entry/facetrank.py before flat4
    def __init__(self, gen, costs, extra=None) -> None:  # type: ignore[no-untyped-def]
        self.lines: list = []  # type: ignore[type-arg]
        self._gen = gen
        self._costs = costs
        self._extra = extra
        self._floors: list[int] = []
        self._gone: set[int] = set()
        self._ptr = 0

    def get(self, i):  # type: ignore[no-untyped-def]
        while len(self.lines) <= i and self._gen is not None:
            got = next(self._gen, None)
            if got is None:
                self._gen = None
            else:
                self.lines.append(got)
        return self.lines[i] if i < len(self.lines) else None

    def floor(self, at: int) -> int:
        while len(self._floors) <= at:
            k = len(self._floors)
            if k and k - 1 < len(self.lines):
                self._gone.add(id(self.lines[k - 1].item))
            while self._ptr < len(self._costs) and self._costs[self._ptr][2] in self._gone:
                self._ptr += 1
            low = self._costs[self._ptr][0] if self._ptr < len(self._costs) else 1 << 62
            self._floors.append(low if self._extra is None else min(low, self._extra))
        return self._floors[at]


class _Line(NamedTuple):
    item: EntryItem


def _walk(lazy, n: int) -> float:  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    for i in range(n):
        lazy.get(i)
        lazy.floor(i)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=200)
    args = ap.parse_args()
    n = args.entries
    items = [EntryItem(id=f"{i:08x}", text="x", type="fact", when=None, src="s", seen=1, updated=None,
                       path="memory/a.md", line=i) for i in range(n)]
    costs = sorted(((i % 37 + 5, ("memory/a.md", i), it) for i, it in enumerate(items)), key=lambda t: (t[0], t[1]))
    id_costs = [(c, p, id(it)) for c, p, it in costs]
    scored = [(0.0, it) for it in items]
    lines = [_Line(it) for it in items]
    makers: dict[str, object] = {
        "file ranking, previous (_Lazy)": lambda: _OldLazy(iter(scored), costs),
        "file ranking, Lazy": lambda: Lazy(iter(scored), id_costs, operator.itemgetter(1)),
        "person facet, previous (LazyFacet)": lambda: _OldLazyFacet(iter(lines), id_costs),
        "person facet, Lazy": lambda: Lazy(iter(lines), id_costs, operator.attrgetter("item")),
    }
    times: dict[str, list[float]] = {k: [] for k in makers}
    for _ in range(args.rounds):
        for name, make in makers.items():
            times[name].append(_walk(make(), n))  # type: ignore[operator]
    for name, got in times.items():
        print(f"{name:<36} min {min(got) * 1e3:.3f} ms  median {statistics.median(got) * 1e3:.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
