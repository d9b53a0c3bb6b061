"""A file's salience ranking, walked from day-independent classes (entry/ranking.py), is
exactly the sort of its items by (-salience, line) on every day (issue #18 item 4)."""

from __future__ import annotations

import math
import random
from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from memfs.entry.pool import EntryItem
from memfs.entry.profile import salience
from memfs.entry.ranking import Classes, stream

TYPES = ["profile", "event", "knowledge", "preference", "plan"]


def _items(rng: random.Random, n: int, start: int = 0) -> list[EntryItem]:
    out = []
    for k in range(n):
        day = None if rng.random() < 0.2 else date(2024, 1, 1) + timedelta(days=rng.choice([0, 0, 3, 40, 400, 900]))
        out.append(EntryItem(id=f"i{start + k:05d}", text=f"Fact {k}.", type=rng.choice(TYPES), when=None,
                             src=None, seen=rng.choice([1, 1, 1, 2, 5]), updated=None, path="memory/x.md",
                             line=start + k, learned=day.isoformat() if day else None))
    return out


def _sorted(items: list[EntryItem], today: date, half_life: float) -> list[str]:
    return [it.id for it in sorted(items, key=lambda it: (-salience(it, today, half_life), it.line))]


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 60), st.integers(0, 10**6), st.sampled_from([30.0, 365.0]))
def test_the_stream_is_the_full_sort_on_any_day_and_after_changes(n: int, seed: int, half_life: float) -> None:
    rng = random.Random(seed)
    items = _items(rng, n)
    cls = Classes.of(items, salience, half_life)
    for step in range(4):
        today = date(2024, 1, 1) + timedelta(days=rng.choice([0, 50, 500, 1500, 4000]))
        got = [it.id for _, it in stream(cls, today, half_life, salience)]
        assert got == _sorted(items, today, half_life)
        removed = rng.sample(items, min(len(items), rng.randrange(4)))
        added = _items(rng, rng.randrange(4), start=1000 * (step + 1))
        changed = cls.changed(removed, added, salience, half_life)
        assert changed is not None
        items = sorted([it for it in items if it not in removed] + added, key=lambda it: it.line)
        cls = changed
        fresh = Classes.of(items, salience, half_life)
        assert (changed.members, changed.peak, changed.by_peak, changed.by_day) == (
            fresh.members, fresh.peak, fresh.by_peak, fresh.by_day)


def test_the_first_items_of_a_big_file_look_at_few_classes() -> None:
    rng = random.Random(1)
    items = _items(rng, 0)
    day0 = date(2020, 1, 1)
    items = [EntryItem(id=f"i{k:06d}", text="x", type="knowledge", when=None, src=None, seen=1, updated=None,
                       path="index/x.md", line=k, learned=(day0 + timedelta(days=k % 2000)).isoformat())
             for k in range(20000)]
    calls = []

    def counted(it: EntryItem, today: date, half_life: float) -> float:
        calls.append(1)
        return salience(it, today, half_life)

    cls = Classes.of(items, counted, 365.0)
    calls.clear()
    first = [it.id for _, (_, it) in zip(range(10), stream(cls, date(2026, 1, 1), 365.0, counted))]
    assert first == _sorted(items, date(2026, 1, 1), 365.0)[:10]
    assert len(calls) < 60  # 2,000 classes (one per day), a few dozen scored


def test_salience_is_its_age_0_score_times_a_recency_factor_that_grows_with_the_day() -> None:
    """What the threshold walk relies on (a change of core.salience's form must fail here)."""
    base = dict(text="x", when=None, src=None, updated=None, path="memory/x.md", line=1)
    today = date(2026, 6, 1)
    for day in (date(2026, 6, 1), date(2026, 1, 1), date(2020, 1, 1)):
        factors = []
        for seen in (1, 3):
            for typ in TYPES:
                it = EntryItem(id="a", type=typ, seen=seen, learned=day.isoformat(), **base)  # type: ignore[arg-type]
                factors.append(salience(it, today, 365.0) / salience(it, day, 365.0))
        assert all(math.isclose(f, factors[0], rel_tol=1e-12) for f in factors)
        assert factors[0] <= 1.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 40), max_size=30), st.integers(0, 10**6), st.one_of(st.none(), st.integers(1, 40)),
       st.booleans())
def test_lazy_floor_is_the_least_cost_from_each_position_on(costs: list[int], seed: int, extra: int | None,
                                                            as_lines: bool) -> None:
    """ranking.Lazy (one class for a file's ranked items and a person's facets): whatever the
    ranking's order, floor(at) is the least cost of the entries at `at` or after it (and
    never above `extra`, the cheapest entry the costs do not list), read in any order."""
    import operator
    from collections import namedtuple

    from memfs.entry.ranking import Lazy

    items = [EntryItem(id=f"{i:08x}", text="x", type="fact", when=None, src="s", seen=1, updated=None,
                       path="memory/a.md", line=i) for i in range(len(costs))]
    order = list(range(len(items)))
    random.Random(seed).shuffle(order)
    table = sorted((costs[i], ("memory/a.md", i), id(items[i])) for i in range(len(items)))
    line = namedtuple("line", "item")
    entries = [line(items[i]) if as_lines else (0.0, items[i]) for i in order]
    lazy = Lazy(iter(entries), table, operator.attrgetter("item") if as_lines else operator.itemgetter(1), extra)
    assert list(lazy) == entries and lazy.get(len(entries)) is None
    fresh = Lazy(iter(entries), table, operator.attrgetter("item") if as_lines else operator.itemgetter(1), extra)
    for at in range(len(entries), -1, -1) if seed % 2 else range(len(entries) + 1):
        fresh.get(at)
        rest = [costs[i] for i in order[at:]]
        want = min(rest + ([extra] if extra is not None else []), default=1 << 62)
        assert fresh.floor(at) == want
