"""Splitting a category file that grew past what an agent wants to read in one go.

A file with more than `memory.split_items` items (200 by default) is split by topic into
parts beside it, `<name>--<topic>.md` (index.md lists the parts under their parent):

- under memory/, the topic is the person a fact is about ("events--priya.md"), or the
  year when the file is about one person only ("events--2026.md");
- under index/ and skill/, the heading a fact was filed under ("Stack: ..."), else the
  document it came from.

Only topics with at least `MIN_PART` items get a part; the rest stay in the parent. A
move is the same as a person moving lines between files: the item keeps its id, text
and metadata (a category change). An item with content nested under it (sub-bullets,
code) stays where it is, so nothing a person wrote under a line is lost. Parts are
written first, then the items are removed from the parent, each write with
CategoryStore's read-verify-write. A crash in between leaves an item in both files;
sync reports the duplicate and indexes one copy, and the next split of that file removes
the parent's copy. Splitting runs under the writer lock, after the index is current.
"""

from __future__ import annotations

import re
from collections import Counter

from memfs.config import Config
from memfs.core.categoryfile import CategoryDoc, Slot
from memfs.entry.indexfile import PART_SEP
from memfs.entry.people import find_people, read_pages
from memfs.entry.pool import EntryItem
from memfs.index.db import IndexDB
from memfs.index.sync import read_category
from memfs.store import CategoryStore, title_of
from memfs.workspace import Workspace, slugify

MIN_PART = 20
_HEADING = re.compile(r"^([^:]{2,40}): ")
_RESOURCE = re.compile(r"^resources/\d{4}/\d{2}/\d{2}-(.+)-[0-9a-f]{16}\.\w+")


def topic_of(item: EntryItem, person: str | None) -> str | None:
    """The topic an item would be filed under in a split (None: it stays in the parent)."""
    if item.kind == "memory":
        return person
    m = _HEADING.match(item.text)
    if m and not m.group(1).strip().startswith(("http", "`")):
        return m.group(1).strip()
    src = _RESOURCE.match(item.src or "")
    return src.group(1) if src else None


def plan_split(items: list[EntryItem], subject_of: dict[str, str], min_part: int = MIN_PART) -> dict[str, list[str]]:
    """{part slug: item ids} for one oversized file; empty when no topic is big enough.
    A memory file about one person only (a personal memory) is split by year instead."""
    plan = _plan(items, {it.id: topic_of(it, subject_of.get(it.id)) for it in items}, min_part)
    if not plan and items and items[0].kind == "memory":
        plan = _plan(items, {it.id: (it.when or it.learned or "")[:4] or None for it in items}, min_part)
    return plan


def _plan(items: list[EntryItem], topics: dict[str, str | None], min_part: int) -> dict[str, list[str]]:
    sizes = Counter(slugify(t) for t in topics.values() if t)
    keep = {slug for slug, n in sizes.items() if n >= min_part}
    if not keep or (len(keep) == 1 and sizes[next(iter(keep))] == len(items)):
        return {}  # one topic holds everything: a split would only rename the file
    out: dict[str, list[str]] = {}
    for it in items:
        t = topics[it.id]
        if t and slugify(t) in keep:
            out.setdefault(slugify(t), []).append(it.id)
    return out


def split_large(ws: Workspace, db: IndexDB, config: Config, items: list[EntryItem]) -> list[str]:
    """Split every file past the limit; return the files written (to re-index)."""
    limit = config.memory.split_items
    if limit <= 0:
        return []
    counts = Counter(it.path for it in items)
    big = sorted(p for p, n in counts.items() if n > limit and PART_SEP not in p.rsplit("/", 1)[-1])
    if not big:
        return []
    people = find_people(items, read_pages(ws))
    subject_of = {it.id: p.name for p in people for it in p.subject}
    store = CategoryStore(ws, config)
    touched: list[str] = []
    for rel in big:
        plan = plan_split([it for it in items if it.path == rel], subject_of)
        if plan:
            touched += _move(ws, store, rel, plan)
    return sorted(set(touched))


def _movable(slot: Slot) -> bool:
    """Single-line items only: whatever a person nested under a line stays with it."""
    return slot.start is not None and slot.end is not None and slot.end - slot.start == 1


def _move(ws: Workspace, store: CategoryStore, rel: str, plan: dict[str, list[str]]) -> list[str]:
    doc, _ = read_category(ws.root / rel, rel)
    if doc.front_error:
        return []
    slots = {s.item.id: s for s in doc.slots if not s.removed}
    folder, name = rel.rsplit("/", 1)
    stem = name[:-3]
    parent_title = str(doc.front.get("title") or title_of(stem))
    touched: list[str] = []
    moved: set[str] = set()
    for slug, ids in sorted(plan.items()):
        items = [slots[i].item for i in ids if i in slots and _movable(slots[i])]
        if not items:
            continue
        part = f"{folder}/{stem}{PART_SEP}{slug}.md"
        topic = slug.replace("-", " ")

        def add(part_doc: CategoryDoc, items=items, topic=topic) -> None:  # type: ignore[no-untyped-def]
            part_doc.front.setdefault("title", f"{parent_title}: {topic}")
            part_doc.front.setdefault("description", f"{parent_title} about {topic} (split from {rel}).")
            for item in items:
                if part_doc.find(item.id) is None:
                    part_doc.add(item)

        store.edit(part, add)
        touched.append(part)
        moved.update(it.id for it in items)
    if moved:
        def remove(parent: CategoryDoc) -> None:
            for item_id in sorted(moved):
                slot = parent.find(item_id)
                if slot is not None and _movable(slot):
                    parent.remove(item_id)

        store.edit(rel, remove)
        touched.append(rel)
    return touched
