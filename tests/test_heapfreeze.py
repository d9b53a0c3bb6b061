"""The entry files' state of a big store is frozen out of full garbage collections once per
process (at its second regeneration), and a small store's never (entry/heapfreeze.py)."""

from __future__ import annotations

import gc

import pytest

from memfs.api import Memory
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
    assert calls == ["freeze"]


def test_a_settled_daemon_freezes_after_its_first_regeneration(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(heapfreeze, "_done", False)
    monkeypatch.setattr(heapfreeze, "_regenerations", 0)
    monkeypatch.setattr(heapfreeze, "_last_items", 0)
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(gc, "collect", lambda *a: calls.append("collect") or 0)
    assert not heapfreeze.settle_now()  # nothing regenerated yet: nothing to freeze
    heapfreeze.after_regeneration(heapfreeze.FREEZE_MIN_ITEMS - 1)
    assert not heapfreeze.settle_now() and calls == []  # a small store: never
    heapfreeze.after_regeneration(heapfreeze.FREEZE_MIN_ITEMS)
    assert heapfreeze.settle_now() and calls == ["collect", "freeze"]
    assert not heapfreeze.settle_now()  # once
    # the first input's regeneration then only freezes its survivors, no full collection
    assert not heapfreeze.after_regeneration(heapfreeze.FREEZE_MIN_ITEMS)
    assert calls == ["collect", "freeze", "freeze"]


def test_a_warmed_up_memory_has_loaded_what_dedupe_searches(mem: Memory) -> None:
    mem.add("Ola keeps her bicycle in the blue shed.")
    mem.warm_up()
    searcher = mem.runtime.memorizer.ctx.searcher
    assert searcher is not None and searcher._matrix_version is not None  # the exact matrix, loaded


def test_each_later_regeneration_freezes_its_survivors_and_a_grown_heap_is_collected(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """After the first freeze, what a regeneration left alive is frozen too (no collection
    walks it); once the heap grew by what the full freeze held, it is collected in full."""
    calls: list[str] = []
    young = [0]
    monkeypatch.setattr(heapfreeze, "_done", False)
    monkeypatch.setattr(heapfreeze, "_regenerations", 0)
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(gc, "unfreeze", lambda: calls.append("unfreeze"))
    monkeypatch.setattr(gc, "collect", lambda *a: calls.append("collect") or 0)
    monkeypatch.setattr(gc, "get_count", lambda: (young[0], 0, 0))
    big = heapfreeze.FREEZE_MIN_ITEMS
    frozen = big * heapfreeze.OBJECTS_PER_ITEM  # what the full freeze is taken to hold
    heapfreeze.after_regeneration(big)
    assert heapfreeze.after_regeneration(big)
    assert calls == ["collect", "freeze"]
    calls.clear()
    young[0] = frozen * 4 // 10
    assert not heapfreeze.after_regeneration(big)
    assert not heapfreeze.after_regeneration(big)
    assert calls == ["freeze", "freeze"]  # grown by 0.8 of it
    calls.clear()
    assert not heapfreeze.after_regeneration(big)
    assert calls == ["unfreeze", "collect", "freeze"]  # by 1.2 of it: collected in full once
    calls.clear()
    assert not heapfreeze.after_regeneration(big // 2)  # a small store's regeneration: nothing
    assert calls == []


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


def test_paused_turns_the_collector_off_and_restores_what_it_found() -> None:
    assert gc.isenabled()
    with heapfreeze.paused():
        assert not gc.isenabled()
        with heapfreeze.paused():  # nested: the inner block does not turn it back on
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with heapfreeze.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # it was off before: it stays off
    finally:
        gc.enable()


def test_paused_restores_the_collector_when_the_block_raises() -> None:
    with pytest.raises(RuntimeError):
        with heapfreeze.paused():
            raise RuntimeError("a regeneration failed")
    assert gc.isenabled()


def test_the_entry_files_are_regenerated_with_the_collector_off(
        mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Their short-lived objects set off no full collection of a big store's heap."""
    import memfs.services.runtime as runtime

    seen: list[bool] = []
    real = runtime.regenerate_root_files

    def spy(*args: object, **kwargs: object) -> list[str]:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(runtime, "regenerate_root_files", spy)
    mem.add("Priya lives in Leeds.")
    assert seen and not any(seen)
    assert gc.isenabled()
