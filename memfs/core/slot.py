"""Where an item sits in a category file's body, and a slot whose Item is built on first use.

A one-shot `memfs add` into a 50,000-item file parsed the whole file into 50,000 pydantic
`Item`s (and a copy of each, to tell a changed item later), of which the write touches one
(issue #10 item 11, #17 item 3). The store's parse now gives `LazySlot`s for the lines memfs
stamped: the line's text and metadata are kept, and the `Item` is built (by the same
`item_from_meta`) only when something asks for it. The splice, the id checks and the
files-row summary read what they need (ids, `seen`, `updated`, `superseded_by`) without
building items, by the accessors below, which give exactly what the built Item would.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

from memfs.core.itemline import _ID, item_from_meta, parse_meta, when_ok
from memfs.core.model import Item


@dataclass
class Slot:
    """Where an item sits in the body: lines [start, end), and the bytes it had."""

    item: Item
    start: int | None
    end: int | None
    raw: str = ""
    stamped: bool = False
    parsed: Item | None = None
    removed: bool = False
    #: How many lines the item's own text spans; the lines after them up to `end`
    #: (sub-bullets, continuation paragraphs, code) are a person's and kept verbatim.
    head: int = 1
    #: The marker as written (indent, `-`/`*`/`1.`, spacing), kept when the line is rewritten.
    prefix: str = "- "

    #: The Item object as read (its id is the one the file had, whatever a change did).
    origin: Item | None = None
    #: A LazySlot whose Item was never built: the line as read, unchanged (a class value).
    unbuilt: ClassVar[bool] = False

    @property
    def changed(self) -> bool:
        """The line must be written anew: its item changed, or memfs never stamped it."""
        return not self.stamped or self.modified()

    def modified(self) -> bool:
        """A change altered the item as read (stamped or not): what makes a file dirty.

        Field by field, as pydantic's == does for Item, but at C speed (50k slots per
        write); an item changed in place is caught too, since `parsed` is a copy."""
        item, parsed = self.item, self.parsed
        return parsed is None or type(item) is not type(parsed) or item.__dict__ != parsed.__dict__

    # Accessors that a LazySlot answers without building its Item.
    def item_id(self) -> str:
        """The id of the slot's item now."""
        return self.item.id

    def origin_id(self) -> str:
        """The id the file had for this slot as read (whatever a change did since)."""
        return (self.origin or self.item).id

    def replaced(self) -> bool:
        """The item may differ from the one read: replaced, or never parsed from the file."""
        return self.item is not self.origin or self.parsed is None

    def rank_fields(self) -> tuple[int, str | None, bool]:
        """(seen, updated, superseded) of the item: what the files-row summary ranks by."""
        item = self.item
        return item.seen, item.updated, bool(item.extra.get("superseded_by"))

    def copy(self) -> "Slot":
        return dataclasses.replace(self)


def lazy_ok(meta: dict[str, str]) -> bool:
    """True if `item_from_meta` cannot fail on this metadata (what a LazySlot may defer):
    the id is valid, and `seen`, if given, is ASCII digits (int() of some Unicode digits
    raises). Anything else is built at once, so its warning is given where it always was."""
    seen = meta.get("seen")
    return _ID.match(meta["id"]) is not None and (seen is None or (seen.isascii() and seen.isdigit()))


class LazySlot(Slot):
    """A stamped slot read from the file whose Item (and its copy) is built on first access.

    Until then the item is exactly the line as read, so it is unchanged and not replaced;
    reading `item`, `parsed` or `origin`, or assigning any of them, builds it first.
    `meta` is the parsed metadata, or the comment itself (`bodyscan.LAZY_ITEM` matched the
    line, so `parse_meta` of it gives `item_id`), parsed on first use."""

    def __init__(self, item_id: str, text: str, meta: dict[str, str] | str, default_type: str,
                 start: int, end: int, raw: str, head: int = 1, prefix: str = "- ") -> None:
        # (50,000 of these per parse of a big file: what equals a class default is not set)
        self._id, self._text, self._meta, self._type = item_id, text, meta, default_type
        self.start, self.end, self.raw = start, end, raw
        if head != 1 or prefix != "- ":
            self.head, self.prefix = head, prefix

    #: Class defaults, read until set on the instance (Slot's dataclass defaults give
    #: `removed`, `head` and `prefix`): not built, a stamped line.
    _item: Item | None = None
    _parsed: Item | None = None
    _origin: Item | None = None
    stamped = True
    unbuilt = True

    def _fields(self) -> dict[str, str]:
        meta = self._meta
        if isinstance(meta, str):
            meta = self._meta = parse_meta(meta)  # type: ignore[assignment]
        return meta  # type: ignore[return-value]

    def _build(self) -> None:
        if self._item is None:
            item = item_from_meta(self._text, self._fields(), self._type)
            self._item, self._origin, self._parsed = item, item, item.model_copy()
            self.unbuilt = False

    def _get_item(self) -> Item:
        self._build()
        return self._item  # type: ignore[return-value]

    def _set_item(self, value: Item) -> None:
        self._build()
        self._item = value

    def _get_parsed(self) -> Item | None:
        self._build()
        return self._parsed

    def _set_parsed(self, value: Item | None) -> None:
        self._build()
        self._parsed = value

    def _get_origin(self) -> Item | None:
        self._build()
        return self._origin

    def _set_origin(self, value: Item | None) -> None:
        self._build()
        self._origin = value

    item = property(_get_item, _set_item)  # type: ignore[assignment]
    parsed = property(_get_parsed, _set_parsed)  # type: ignore[assignment]
    origin = property(_get_origin, _set_origin)  # type: ignore[assignment]

    @property
    def built(self) -> bool:
        return self._item is not None

    @property
    def changed(self) -> bool:
        return self._item is not None and Slot.modified(self)

    def modified(self) -> bool:
        return self._item is not None and Slot.modified(self)

    def item_id(self) -> str:
        return self._id if self._item is None else self._item.id

    def origin_id(self) -> str:
        return self._id if self._item is None else (self._origin or self._item).id

    def replaced(self) -> bool:
        return self._item is not None and (self._item is not self._origin or self._parsed is None)

    def rank_fields(self) -> tuple[int, str | None, bool]:
        if self._item is not None:
            return Slot.rank_fields(self)
        meta = self._fields()  # as item_from_meta reads it (lazy_ok: `seen` is ASCII digits)
        seen = int(meta["seen"]) if "seen" in meta and int(meta["seen"]) >= 1 else 1
        updated = meta.get("updated")
        return seen, updated if updated is not None and when_ok(updated) else None, \
            bool(meta.get("superseded_by"))

    def copy(self) -> "Slot":
        if self._item is not None:
            return Slot(item=self._item, start=self.start, end=self.end, raw=self.raw, stamped=self.stamped,
                        parsed=self._parsed, removed=self.removed, head=self.head, prefix=self.prefix,
                        origin=self._origin)
        twin = LazySlot(self._id, self._text, self._meta, self._type, self.start, self.end,  # type: ignore[arg-type]
                        self.raw, self.head, self.prefix)
        twin.removed = self.removed
        return twin

