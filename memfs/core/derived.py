"""What a category file's front-matter no longer stores, because it can be derived.

`summary`, `items` and `updated` changed on every write, so two clones that each filed a
fact into the same category always conflicted on those lines (issue #10, item 13). They
are now computed from the items whenever the file is indexed, and the same items always
give the same values, on any machine and any day.
"""

from __future__ import annotations

import heapq

from memfs.core.model import Item

SUMMARY_CHARS = 240


def extractive_summary(items: list[Item], max_chars: int = SUMMARY_CHARS) -> str:
    """The most reinforced items first (file order breaks ties), joined until the budget.

    Deliberately free of today's date, so the same items always give the same summary."""
    current = [it for it in items if not it.extra.get("superseded_by")]  # history is not summarised
    # Each item taken costs at least 2 of the budget, so no more than this many are ever
    # used: the top of the ranking is enough (linear, where a sort of 50k items was not).
    ranked = heapq.nsmallest(max_chars // 2 + 2, [(-it.seen, i) for i, it in enumerate(current)])
    out: list[str] = []
    used = 0
    for _, i in ranked:
        item = current[i]
        text = item.text.rstrip(".")
        if used + len(text) + 2 > max_chars and out:
            break
        out.append(text[: max_chars - used - 1])  # the closing "." is within the budget too
        used += len(text) + 2
    return "; ".join(out) + ("." if out else "")


def newest_stamp(items: list[Item]) -> str | None:
    """The latest `updated` of any item: when memfs last learned something here. An item's
    `when` is not used — a plan's date lies in the future (ISO strings sort by date)."""
    return max((it.updated for it in items if it.updated), default=None)
