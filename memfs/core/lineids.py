"""A file's line-id table: which body lines `bodyscan.LAZY_ITEM` matches, and their ids.

A fresh process's `memfs add` into a 50,000-item file spent ~35 ms of its parse matching
every line with LAZY_ITEM and taking each match apart (issue #17 item 3), for a file memfs
itself wrote a moment before and had read the same way. The table (one id, or None, per
body line) is the only thing the lazy parse takes from those matches; given the table of
exactly these bytes, `table_slots` builds the same slots with no match per line: an
item's text and comment are read from its line when something asks (`LineSlot`).

The table is content-addressed: the index keeps it with the SHA-1 of the file it describes
(memfs/index/delta.py writes it with each spliced write; `commit_splice` keeps it in step
with the lines), and the store uses it only for a file with exactly that digest. LAZY_ITEM
reads one line alone, so a splice changes the table only at the lines it writes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from memfs.core.bodyscan import LAZY_ITEM, fast_entry
from memfs.core.entryitem import copied_slot
from memfs.core.slot import LazySlot, Slot, lazy_ok
from memfs.errors import MemfsError

LineIds = list  # list[str | None], one entry per body line


def line_id(line: str) -> str | None:
    """The id LAZY_ITEM reads from `line`, or None (not a line it matches)."""
    m = LAZY_ITEM(line)
    return None if m is None else m.group(3)


def spliced(ids: LineIds, edits: Iterable[Any]) -> LineIds:
    """The table after `edits` (categoryedit.Edit: body lines [a, b) replaced by `new`,
    in order) of the lines `ids` described."""
    out: LineIds = []
    pos = 0
    for e in edits:
        out.extend(ids[pos:e.a])
        out.extend(map(line_id, e.new))
        pos = e.b
    out.extend(ids[pos:])
    return out


class StaleTable(MemfsError):
    """The table does not describe these lines (a damaged cache): they are matched instead
    (the store and the parse catch it; it never reaches a person)."""


#: How many lines, spread over the file, are matched to check a table before it is used.
SPOT_CHECKS = 32


def plausible(ids: LineIds, lines: list[str]) -> bool:
    """The table has a line per line and agrees with LAZY_ITEM on a sample spread over the
    file (its first and last lines among them): a damaged or stray row that still names
    this digest is matched line by line instead, never trusted (issue #10, damaged caches)."""
    n = len(lines)
    if len(ids) != n:
        return False
    step = max(1, n // SPOT_CHECKS)
    return all(line_id(lines[i]) == ids[i] for i in {*range(0, n, step), n - 1} if i >= 0)


class LineSlot(LazySlot):
    """A LazySlot whose text and comment are read from its line on first use (the line-id
    table gave its id; LAZY_ITEM matched the line when the table was made)."""

    def __init__(self, item_id: str, default_type: str, start: int, raw: str) -> None:
        self._id, self._type, self.start, self.end, self.raw, self._line = item_id, default_type, start, start + 1, raw, raw

    def _groups(self) -> tuple[str, str, str]:
        m = LAZY_ITEM(self._line)
        if m is None or m.group(3) != self._id:  # (never: the table was made from this very line)
            raise StaleTable(f"line-id table does not describe line {self.start + 1}")
        return m.groups()  # type: ignore[return-value]

    @property  # type: ignore[override]
    def _text(self) -> str:
        return self._groups()[0].strip()

    @property  # type: ignore[override]
    def _meta(self) -> dict[str, str] | str:
        kept = self.__dict__.get("_meta_read")
        return self._groups()[1] if kept is None else kept

    @_meta.setter
    def _meta(self, value: dict[str, str] | str) -> None:
        self.__dict__["_meta_read"] = value


def table_slots(lines: list[str], ids: LineIds, path: str, default_type: str,
                item_of_entry: Callable[..., tuple[Any, bool]]
                ) -> tuple[list[Slot], list[str], dict[str, Slot]] | None:
    """What `categoryfile._lazy_slots` gives for `lines`, read from their table `ids`
    instead of matching each line (None where it gives None: a line off the fast path)."""
    slots: list[Slot] = []
    warnings: list[str] = []
    by_id: dict[str, Slot] = {}
    seen_ids = by_id.keys()
    prev_item = False
    for i, item_id in enumerate(ids):
        if item_id is not None:
            prev_item = True
            if item_id in by_id:  # a copy (rare): both lines must say so, or the table is wrong
                m, held = LAZY_ITEM(lines[i]), by_id[item_id]
                if m is None or m.group(3) != item_id:
                    raise StaleTable(f"line {i + 1}")
                if isinstance(held, LineSlot):
                    held._groups()  # (raises StaleTable if the first line does not say so either)
                text, comment, _ = m.groups()
                copied_slot(by_id, slots, text.strip(), comment, default_type, i, lines[i], warnings, path)
                continue
            slot = by_id[item_id] = LineSlot(item_id, default_type, i, lines[i])
            slots.append(slot)
            continue
        got = fast_entry(lines[i], prev_item)
        if got is None:
            return None
        prev_item = got is not True
        if got is True:
            continue
        text, meta = got  # type: ignore[misc]
        if meta is not None and lazy_ok(meta) and meta["id"] not in by_id:
            slot = by_id[meta["id"]] = LazySlot(meta["id"], text, meta, default_type, i, i + 1, lines[i])
            slots.append(slot)
            continue
        item, stamped = item_of_entry(text, meta, default_type, seen_ids, f"{path}:{i + 1}", warnings, path)
        if item is None:
            continue
        if item.id in by_id:
            copied_slot(by_id, slots, text, meta, default_type, i, lines[i], warnings, path)
            continue
        slot = by_id[item.id] = Slot(item=item, start=i, end=i + 1, raw=lines[i], stamped=stamped,
                                     parsed=item.model_copy(), origin=item)
        slots.append(slot)
    return slots, warnings, by_id
