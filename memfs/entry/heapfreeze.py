"""Keep a big store's entry-file state out of Python's full garbage collections.

A long-lived process (the daemon, an agent's Memory) keeps the entry files' state between
regenerations: ~1,000,000 objects at 100,000 items. Python's cyclic collector walks every
tracked object at each full (generation 2) collection, and one fired every other input at
that size: 2-4 s each, half of what was left of a new-day input (issue #18 item 4).
`gc.freeze()` moves the objects alive now to a permanent generation the collector skips;
reference counting still frees them when they go. It is done once per process, after the
first regeneration of a big store: that state is the bulk of the heap, and most of it
(the pool's unchanged items and per-file parts) lives as long as the process. What is
frozen and later dropped inside a reference cycle is not reclaimed; the entry state breaks
its own cycles when it replaces a part (facetrank.FacetCache), so what can leak is bounded
by that first state, not by the process's lifetime.
"""

from __future__ import annotations

import gc

#: Below this many items a full collection is cheap (tens of ms): nothing is frozen.
FREEZE_MIN_ITEMS = 20_000
_done = False


def after_first_regeneration(items: int) -> bool:
    """Freeze the heap once, the first time a regeneration covered `items` >= FREEZE_MIN_ITEMS."""
    global _done
    if _done or items < FREEZE_MIN_ITEMS:
        return False
    _done = True
    gc.collect()  # what is garbage already is freed, not frozen
    gc.freeze()
    return True
