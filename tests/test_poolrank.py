"""entry/poolrank.ranked (memory.md's ranked sections): files enter the merge by a bound of
their best score for the day and start their ranking only when it is reached (flat4); what a
budgeted reader takes is what it takes from sorting every item of every file."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memfs.entry.pool import EntryItem
from memfs.entry.poolrank import ranked
from memfs.entry.profile import salience

TYPES = ["profile", "event", "knowledge", "preference", "plan"]


class _View:
    """The part of poolcache.FileView that ranked reads: a line and an item by id."""

    def __init__(self, items: list[EntryItem]) -> None:
        self.items = items
        self._by = {it.id: it for it in items}

    def line_of(self, item_id: str) -> int:
        return self._by[item_id].line

    def item_of(self, horizon: Any) -> Any:
        return self._by.__getitem__


class _Pool:
    """The part of poolcache.Pool that ranked reads: files, per-file memos and derived parts."""

    horizon = None

    def __init__(self, files: dict[str, list[EntryItem]]) -> None:
        self.files = {p: _View(items) for p, items in files.items()}
        self._memo: dict[tuple[str, Any], Any] = {}
        self.started: set[str] = set()

    def memo(self, path: str, key: tuple[Any, ...], compute: Any, delta: Any = None) -> Any:
        if (path, key) not in self._memo:
            self._memo[(path, key)] = compute(self.files[path].items)
        return self._memo[(path, key)]

    def derived(self, path: str, key: tuple[Any, ...], compute: Any) -> Any:
        if (path, key) not in self._memo:
            self._memo[(path, key)] = compute()
        return self._memo[(path, key)]


def _files(rng: random.Random, n_files: int) -> dict[str, list[EntryItem]]:
    out = {}
    for f in range(n_files):
        path = f"{'memory' if f % 3 else 'index'}/f{f:02d}.md"
        items = []
        for line in range(rng.randint(0, 12)):
            day = None if rng.random() < 0.2 else date(2024, 1, 1) + timedelta(days=rng.choice([0, 3, 40, 400]))
            items.append(EntryItem(id=f"{f:02d}{line:03d}", text="x" * rng.randint(5, 60), type=rng.choice(TYPES),
                                   when=None, src=None, seen=rng.choice([1, 1, 2, 5]), updated=None, path=path,
                                   line=line + 1, learned=day.isoformat() if day else None))
        out[path] = items
    return dict(sorted(out.items()))


def _cost(it: EntryItem) -> int:
    return len(it.text) // 4 + 1


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 9), st.integers(0, 900), st.sampled_from([None, 5, 40, 200]))
def test_what_a_budget_takes_is_what_the_full_sort_gives(seed: int, n_files: int, days: int,
                                                         budget: int | None) -> None:
    rng = random.Random(seed)
    files = _files(rng, n_files)
    today, half_life = date(2024, 1, 1) + timedelta(days=days), 90.0
    for kind in ("memory", "index"):
        wanted = [it for p, items in files.items() if p.startswith(kind + "/") for it in items if it.current]
        full = sorted(wanted, key=lambda it: (-salience(it, today, half_life), it.path, it.line))
        if budget is None:
            got = list(ranked(_Pool(files), kind, today, half_life, salience, _cost, lambda: 1 << 40))
            assert [it.id for it in got] == [it.id for it in full]
            continue
        left = budget
        want = []
        for it in full:
            if _cost(it) <= left:
                left -= _cost(it)
                want.append(it.id)
        state = {"left": budget}
        taken = []
        for it in ranked(_Pool(files), kind, today, half_life, salience, _cost, lambda: state["left"]):
            if _cost(it) <= state["left"]:
                state["left"] -= _cost(it)
                taken.append(it.id)
        assert taken == want


def test_a_new_day_starts_the_rankings_of_few_files() -> None:
    """200 files, memory.md's first lines: only the files whose bound reaches the top start."""
    import memfs.entry.poolrank as poolrank

    rng = random.Random(5)
    files = _files(rng, 200)
    started = 0
    real = poolrank.stream

    def counting(*args: Any) -> Any:
        nonlocal started
        started += 1
        yield from real(*args)

    poolrank.stream = counting  # type: ignore[assignment]
    try:
        got = ranked(_Pool(files), "memory", date(2024, 6, 1), 90.0, salience, _cost, lambda: 1 << 40)
        first = [next(got) for _ in range(10)]
    finally:
        poolrank.stream = real  # type: ignore[assignment]
    assert len(first) == 10
    memory = sum(1 for p in files if p.startswith("memory/"))
    assert started <= 12 < memory  # the files of the 10 lines (and a tie or two), not all ~133


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10**6), st.integers(-30, 1500))
def test_the_skyline_holds_the_best_score_of_every_day(seed: int, days: int) -> None:
    """A file's (or a skill group's) best score on any day is one of its skyline classes'
    (the bound ranked enters a file by, and skill.md's group weight)."""
    from memfs.entry.poolrank import skyline
    from memfs.entry.ranking import Classes

    rng = random.Random(seed)
    items = [it for its in _files(rng, 3).values() for it in its]
    if not items:
        return
    today = date(2024, 1, 1) + timedelta(days=days)
    cls = Classes.of(items, salience, 90.0)
    best = max(salience(cls.members[k][0], today, 90.0) for k in skyline(cls))
    assert best == max(salience(it, today, 90.0) for it in items)
