"""memory.md's rankings kept as ids and cost counts (entry/rankparts.py) give exactly what
the item-holding parts gave: the same classes, the same stream on any day, the same
floors, and after removed and added items the same value as computing afresh."""

from __future__ import annotations

import random
from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from memfs.entry import rankparts
from memfs.entry.profile import salience
from memfs.entry.ranking import Classes, stream
from tests.test_entry_ranking import _items

RECOMPUTE = object()


def _cost(it) -> int:  # type: ignore[no-untyped-def]
    return 3 + len(it.text) + it.seen % 3


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 60), st.integers(0, 10**6), st.sampled_from([30.0, 365.0]))
def test_classes_from_ids_rank_like_classes_of_items(n: int, seed: int, half_life: float) -> None:
    rng = random.Random(seed)
    items = _items(rng, n)
    rng.shuffle(items)  # members are kept in line order whatever order the items come in
    by_id = {it.id: it for it in items}
    members = rankparts.members_of(items)
    lazy = rankparts.classes_of(members, by_id.__getitem__, salience, half_life)
    full = Classes.of(items, salience, half_life)
    assert {k: list(v) for k, v in lazy.members.items()} == full.members
    assert (lazy.peak, lazy.by_peak, lazy.by_day) == (full.peak, full.by_peak, full.by_day)
    for _ in range(3):
        today = date(2024, 1, 1) + timedelta(days=rng.choice([0, 50, 500, 1500, 4000]))
        assert [it.id for _, it in stream(lazy, today, half_life, salience)] == [
            it.id for _, it in stream(full, today, half_life, salience)]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 60), st.integers(0, 10**6))
def test_members_and_cost_counts_after_a_change_equal_a_fresh_count(n: int, seed: int) -> None:
    rng = random.Random(seed)
    items = _items(rng, n)
    members, costs = rankparts.members_of(items), rankparts.cost_counts(items, _cost)
    for step in range(4):
        removed = rng.sample(items, min(len(items), rng.randrange(4)))
        added = _items(rng, rng.randrange(4), start=1000 * (step + 1))
        items = sorted([it for it in items if it not in removed] + added, key=lambda it: it.line)
        lines = {it.id: it.line for it in items}
        members = rankparts.members_delta(members, removed, added, lines.__getitem__, RECOMPUTE)
        costs = rankparts.cost_counts_delta(costs, removed, added, _cost, RECOMPUTE)
        assert members == rankparts.members_of(items)
        assert costs == rankparts.cost_counts(items, _cost)
        assert rankparts.decode_members(rankparts.encode_members(members)) == members


def test_a_removed_item_its_class_does_not_hold_asks_for_a_recompute() -> None:
    items = _items(random.Random(3), 5)
    members = rankparts.members_of(items[:3])
    assert rankparts.members_delta(members, [items[4]], [], {}.__getitem__, RECOMPUTE) is RECOMPUTE
    from collections import Counter

    assert rankparts.cost_counts_delta(Counter({999: 1}), items[:1], [], _cost, RECOMPUTE) is RECOMPUTE


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(0, 10**6))
def test_floors_are_the_least_cost_of_the_items_not_given_out(n: int, seed: int) -> None:
    rng = random.Random(seed)
    items = _items(rng, n)
    cls = Classes.of(items, salience, 30.0)
    given_out = list(stream(cls, date(2025, 6, 1), 30.0, salience))
    floors = rankparts.Floors(rankparts.cost_counts(items, _cost), _cost)
    for at in range(len(given_out)):  # what the old per-item cost list gave
        left = [_cost(it) for _, it in given_out[at:]]
        assert floors.floor(at, given_out) == min(left)
