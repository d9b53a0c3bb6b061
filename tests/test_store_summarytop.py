"""The files-row summary and newest stamp follow a spliced write from its changed slots
(core/summarytop.py) and always equal the whole-file functions (issue #17, item 3)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfs.core import summarytop
from memfs.core.categoryedit import commit_splice, plan_splice
from memfs.core.categoryfile import CategoryDoc, parse_category
from memfs.core.derived import extractive_summary, newest_stamp
from memfs.core.itemline import render_item_line
from memfs.core.model import Item
from memfs.core.summarytop import Ranked


def _doc(n: int, rng: random.Random) -> CategoryDoc:
    items = [Item(id=f"i{k:06d}", text=f"Fact {k} about thing {rng.randrange(50)}.", type="knowledge",
                  seen=rng.choice([1, 1, 1, 2, 3, 7]), updated=f"2024-0{rng.randrange(1, 10)}-1{rng.randrange(10)}")
             for k in range(n)]
    return parse_category("---\ntitle: T\n---\n# T\n\n" + "".join(render_item_line(it) + "\n" for it in items),
                          "index/t.md")


def _full_ranking(doc: CategoryDoc) -> list[str]:
    current = [s for s in doc.slots if not s.item.extra.get("superseded_by")]
    return [s.item.id for s in sorted(current, key=lambda s: (-s.item.seen, s.start))]


def _edit(doc: CategoryDoc, rng: random.Random, step: int) -> None:
    """One random write: reinforce, supersede, forget, re-date or add, a few at a time."""
    ids = [s.item.id for s in doc.slots]
    for _ in range(rng.randrange(1, 4)):
        what = rng.randrange(5)
        slot = doc.find(rng.choice(ids)) if ids else None
        if what == 0 and slot is not None:
            slot.item = slot.item.model_copy(update={"seen": slot.item.seen + rng.choice([1, 5])})
        elif what == 1 and slot is not None:
            slot.item = slot.item.model_copy(update={"extra": {"superseded_by": "x", "until": "2024-01-01"}})
        elif what == 2 and slot is not None:
            doc.remove(slot.item.id)
        elif what == 3 and slot is not None:
            slot.item = slot.item.model_copy(update={"updated": rng.choice([None, "2023-01-01", "2025-12-31"])})
        else:
            doc.add(Item(id=f"n{step:04d}{rng.randrange(10**6):06d}", text=f"New fact {step}.", type="knowledge",
                         seen=rng.choice([1, 9]), updated=rng.choice([None, "2024-05-05", "2026-01-01"])))


def _write(doc: CategoryDoc) -> None:
    """What the store and the index's delta do for one spliced write."""
    sp = plan_splice(doc)
    assert sp is not None
    commit_splice(doc, sp)
    doc._ranked = doc._ranked.after(doc.slots, sp.written, sp.removed, sp.updated_before)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.integers(0, 40), st.integers(0, 10**6))
def test_the_kept_head_is_always_a_prefix_of_the_whole_ranking(monkeypatch: pytest.MonkeyPatch, n: int,
                                                                seed: int) -> None:
    # A small head, so files of a few dozen items exercise every edge (short head, refill).
    monkeypatch.setattr(summarytop, "NEED", 3)
    monkeypatch.setattr(summarytop, "DEPTH", 6)
    rng = random.Random(seed)
    doc = _doc(n, rng)
    doc._ranked = Ranked.of(doc.slots)
    for step in range(12):
        _edit(doc, rng, step)
        if not doc.dirty:
            continue
        _write(doc)
        got, want = [s.item.id for s in doc._ranked.head], _full_ranking(doc)
        assert got == want[:len(got)]
        assert len(got) >= min(3, len(want))
        assert doc._ranked.complete == (len(got) == len(want)) or not doc._ranked.complete
        assert doc._ranked.newest == newest_stamp(doc.items)


def test_the_summary_of_a_big_file_equals_the_whole_file_summary_after_every_write() -> None:
    rng = random.Random(5)
    doc = _doc(1500, rng)  # past the head's depth: the head is only the top of the ranking
    doc._ranked = Ranked.of(doc.slots)
    assert not doc._ranked.complete
    for step in range(40):
        _edit(doc, rng, step)
        if doc.dirty:
            _write(doc)
        assert doc._ranked.summary() == extractive_summary(doc.items)
        assert doc._ranked.newest == newest_stamp(doc.items)
