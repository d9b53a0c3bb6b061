"""Keep a big store's entry-file state out of Python's full garbage collections.

A long-lived process (the daemon, an agent's Memory) keeps the entry files' state between
regenerations: ~1,000,000 objects at 100,000 items. Python's cyclic collector walks every
tracked object at each full (generation 2) collection, and one fired every other input at
that size: 2-4 s each, half of what was left of a new-day input (issue #18 item 4).
`gc.freeze()` moves the objects alive now to a permanent generation the collector skips;
reference counting still frees them when they go. It is done once per process, after the
second regeneration of a big store: that state is the bulk of the heap, and most of it
(the pool's unchanged items and per-file parts) lives as long as the process. What is
frozen and later dropped inside a reference cycle is not reclaimed; the entry state breaks
its own cycles when it replaces a part (facetrank.FacetCache), so what can leak is bounded
by the state frozen once, not by the process's lifetime.

After that first freeze, every later regeneration of the big store freezes what it left
alive too: the collector was off during it (`paused`), so its ~25,000 surviving objects
(new items, parts, the people's lists) were all young, and the first collection after it
walked them and everything they refer to: ~10 ms an input at 100,000 items, plus a
generation-1 collection every few inputs. Freezing them costs nothing. What a cycle among
them would leak is bounded: the collector's young count (objects made minus objects
freed since the last freeze) is summed over the freezes, and once the heap has grown by
about as many objects as the last full collection left alive (OBJECTS_PER_ITEM a store
item: ~250 inputs at 100,000 items, which grow it by ~4,000 objects each), it is
unfrozen and collected in full once (~0.5 s).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: Below this many items a full collection is cheap (tens of ms): nothing is frozen.
FREEZE_MIN_ITEMS = 20_000
#: Tracked objects a big store's state holds per item (~1,080,000 at 100,000 items).
OBJECTS_PER_ITEM = 10
_done = False
_regenerations = 0  # regenerations of a big store in this process so far
_frozen_base = 0  # objects frozen by the last full collection and freeze
_grown = 0  # young objects frozen since then (made minus freed: the heap's growth)
_last_items = 0  # the store's size at the last regeneration


def after_regeneration(items: int) -> bool:
    """Freeze the heap at the second regeneration in this process that covered `items`
    >= FREEZE_MIN_ITEMS (True then), and what each later one left alive. Not at the first:
    a one-shot `memfs add` has no second, and its `gc.collect()` over the parsed file and
    the imports was ~70 ms of a 0.5 s add that ends right after; a long-lived process
    freezes one regeneration later, with the same state."""
    global _done, _regenerations, _grown, _last_items
    _last_items = items
    if items < FREEZE_MIN_ITEMS:
        return False
    if _done:
        _grown += gc.get_count()[0]
        if _grown > _frozen_base:  # the heap doubled (or leaked cycles): collect in full once
            gc.unfreeze()
            _full_freeze(items)
        else:
            gc.freeze()  # this regeneration's survivors, young since the collector was paused
        return False
    _regenerations += 1
    if _regenerations < 2:
        return False
    _done = True
    _full_freeze(items)
    return True


def settle_now() -> bool:
    """Freeze now what the process's first regeneration of a big store left alive (True
    then), not at its next one: a daemon that has just started and refreshed its entry
    files has nothing else to do, while its first input would wait ~0.5 s at 100,000 items
    for the full collection. Nothing when the store is small, nothing was regenerated, or
    the freeze is done."""
    global _done
    if _done or _regenerations < 1 or _last_items < FREEZE_MIN_ITEMS:
        return False
    _done = True
    _full_freeze(_last_items)
    return True


def _full_freeze(items: int) -> None:
    global _frozen_base, _grown
    gc.collect()  # what is garbage already is freed, not frozen
    gc.freeze()
    # What it froze, estimated from the store (gc.get_freeze_count() walks every frozen
    # object: ~75 ms at 100,000 items, ~1,080,000 objects then).
    _frozen_base, _grown = items * OBJECTS_PER_ITEM, 0


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block; the collector's previous state after it.

    A regeneration allocates many short-lived objects (lines, tuples, sort keys), enough to
    set off a generation-2 collection now and then, which at 100,000 items walks the whole
    unfrozen heap (~25 ms, issue #18 item 4); a one-shot `memfs add` into a 50,000-item file
    allocates some 100,000 objects that live until it ends, whose collections look for
    cycles it never makes (issue #17 item 3). What the block drops is freed by reference
    counting; cycles it leaves are collected after the block, as before. Nested use is safe:
    only the outermost block that found the collector on turns it back on."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
