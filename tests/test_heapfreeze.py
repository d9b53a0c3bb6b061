"""The entry files' state of a big store is frozen out of full garbage collections once per
process (at its second regeneration), and a small store's never (entry/heapfreeze.py)."""

from __future__ import annotations

import gc

import pytest

from memfs.entry import heapfreeze
from memfs.entry.facetrank import PersonRank


def test_frozen_once_and_only_for_a_big_store(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(heapfreeze, "_done", False)
    monkeypatch.setattr(heapfreeze, "_regenerations", 0)
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    assert not heapfreeze.after_regeneration(heapfreeze.FREEZE_MIN_ITEMS - 1)
    assert not heapfreeze.after_regeneration(heapfreeze.FREEZE_MIN_ITEMS - 1)
    assert calls == []
    # Not at the first big regeneration (a one-shot process has no second), at the second.
    assert not heapfreeze.after_regeneration(heapfreeze.FREEZE_MIN_ITEMS)
    assert calls == []
    assert heapfreeze.after_regeneration(heapfreeze.FREEZE_MIN_ITEMS)
    assert not heapfreeze.after_regeneration(10 * heapfreeze.FREEZE_MIN_ITEMS)
    assert calls == ["freeze"]


def test_a_replaced_person_rank_is_freed_without_the_collector() -> None:
    import weakref
    from datetime import date

    rank = PersonRank((), ("Priya",), 365.0)
    rank.facets(date(2026, 1, 1), lambda line: 1)
    ref = weakref.ref(rank)
    gc.disable()
    try:
        rank.release()
        del rank
        assert ref() is None  # no cycle left: reference counting freed it
    finally:
        gc.enable()
