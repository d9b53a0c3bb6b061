"""The files-row summary of a category file, kept across spliced writes (issue #17, item 3).

`derived.extractive_summary` ranks every current item by (-seen, file order) and joins
the first few; `newest_stamp` takes the latest `updated` of every item. Both walked all
items on every write: ~0.3 s of a write into a 50,000-item file. `Ranked` keeps the head
of that ranking (slots, not items: a slot's position moves with the lines, its order
among the others does not) and the newest stamp, and updates them from the slots a
splice wrote and removed, so a write costs its changed slots. Whatever it cannot prove
from those (the head ran short, the newest stamp's item went away) is computed afresh,
so the values are always exactly those of the whole-file functions.
"""

from __future__ import annotations

from dataclasses import dataclass

from memfs.core.categoryfile import Slot
from memfs.core.derived import SUMMARY_CHARS, extractive_summary

#: How many slots the head keeps: the summary reads at most SUMMARY_CHARS // 2 + 2 of
#: them; the rest is slack, so removals from the head seldom force a fresh ranking.
NEED = SUMMARY_CHARS // 2 + 2
DEPTH = 4 * NEED


def _current(slot: Slot) -> bool:
    return not slot.removed and not slot.rank_fields()[2]  # (a LazySlot's item stays unbuilt)


def _key(slot: Slot) -> tuple[int, int]:
    return (-slot.rank_fields()[0], slot.start if slot.start is not None else 1 << 60)


def _newest(slots: list[Slot]) -> str | None:
    """derived.newest_stamp of the slots' items, read without building a LazySlot's item."""
    return max((u for s in slots if not s.removed and (u := s.rank_fields()[1])), default=None)


@dataclass
class Ranked:
    """The first slots of the ranking of one file's current items, and its newest stamp."""

    head: list[Slot]
    complete: bool  # `head` holds every current slot (the file has fewer than DEPTH)
    newest: str | None

    @staticmethod
    def of(slots: list[Slot]) -> "Ranked":
        current = [s for s in slots if _current(s)]
        head = sorted(current, key=_key)[:DEPTH] if len(current) <= 4 * DEPTH else _nsmallest(current)
        return Ranked(head, len(current) <= DEPTH, _newest(slots))

    def after(self, slots: list[Slot], written: list[Slot], removed: list[Slot],
              before: dict[int, str | None]) -> "Ranked":
        """This ranking after a committed splice that wrote `written` and cut `removed`
        (`slots`: the file's slots now); `before`: id(slot) -> the `updated` of each
        written slot's item as it was read (commit_splice replaces `origin`)."""
        gone = [before.get(id(s)) for s in written] + [(s.origin or s.item).updated for s in removed]
        new = [u for s in written if (u := s.item.updated)]
        newest = self.newest
        if newest is not None and newest in gone and not any(u >= newest for u in new):
            newest = _newest(slots)  # its item changed: afresh
        elif new:
            newest = max([*new, *([newest] if newest else [])])
        touched = {id(s) for s in written} | {id(s) for s in removed}
        kept = [s for s in self.head if id(s) not in touched]  # still in ranking order
        fresh = [s for s in written if _current(s)]
        if not self.complete:
            # Every slot outside the head ranks after the last kept one (their order among
            # themselves does not change as lines move), so the head stays a prefix of the
            # ranking if it takes only the written slots that rank before that one.
            if not kept:
                return Ranked.of(slots)
            edge = _key(kept[-1])
            fresh = [s for s in fresh if _key(s) < edge]
        head = sorted(kept + fresh, key=_key)
        if not self.complete and len(head) < NEED:
            return Ranked.of(slots)
        complete = self.complete
        if len(head) > DEPTH:
            head, complete = head[:DEPTH], False
        return Ranked(head, complete, newest)

    def summary(self) -> str:
        return extractive_summary([s.item for s in self.head[:NEED]])


def _nsmallest(current: list[Slot]) -> list[Slot]:
    import heapq

    return heapq.nsmallest(DEPTH, current, key=_key)
