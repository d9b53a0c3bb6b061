"""What a recall hit says about itself: an item (a list line) or a passage (prose)."""

from __future__ import annotations

from memfs.index.db import ItemRow, PassageRow


def hit_fields(row: ItemRow) -> dict[str, str | None]:
    """`hit`, `anchor` and `heading` for RecallHit: an item's anchor is `path#id`, a
    passage's `path#L<first>-<last>` (passages have no id to stamp on the file)."""
    if isinstance(row, PassageRow):
        return {"hit": "passage", "anchor": row.anchor, "heading": row.heading or None}
    return {"hit": "item", "anchor": f"{row.path}#{row.id}", "heading": None}
