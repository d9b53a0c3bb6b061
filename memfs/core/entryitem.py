"""A stamped line whose id its file already holds: a copy a person made, read as an item of
its own (split from core/categoryfile.py, which parses the file around it)."""

from __future__ import annotations

from typing import Any

from memfs.core.itemline import item_from_meta, parse_meta, text_id
from memfs.core.model import Item
from memfs.core.slot import Slot


def copied_line(text: str, meta: dict[str, str] | str, default_type: str, seen_ids: Any,
                where: str, warnings: list[str], path: str) -> Item:
    """A stamped line whose id the file already holds (a person copied the line): an item of
    its own, its metadata kept, under the id an unstamped line with its text would get.

    It was ignored before, so a pasted copy was in no index and a sub-bullet nested under
    it had no item; its new id is stamped on memfs' next write of the file."""
    fields = (parse_meta(meta) or {}) if isinstance(meta, str) else meta
    salt = path
    new_id = text_id(text, salt)
    while new_id in seen_ids:
        salt += "+"
        new_id = text_id(text, salt)
    warnings.append(f"{where}: item id {fields.get('id')} appears twice in the file; "
                    f"the later copy is a new item ({new_id})")
    try:
        return item_from_meta(text, fields, default_type).model_copy(update={"id": new_id})
    except (ValueError, KeyError):
        return Item(id=new_id, text=text, type=default_type)  # type: ignore[arg-type]


def copied_slot(by_id: dict[str, Slot], slots: list[Slot], text: str, meta: dict[str, str] | str,
                default_type: str, i: int, raw: str, warnings: list[str], path: str) -> None:
    """Add the slot of a copied stamped line (see `copied_line`) to a lazy parse."""
    item = copied_line(text, meta, default_type, by_id.keys(), f"{path}:{i + 1}", warnings, path)
    by_id[item.id] = slot = Slot(item=item, start=i, end=i + 1, raw=raw, parsed=item.model_copy(), origin=item)
    slots.append(slot)
