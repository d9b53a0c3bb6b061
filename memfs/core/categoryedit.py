"""Write one change into a category file by splicing the lines it changes (issue #17, item 3).

A full render walks every line and the read-back check re-parses the whole result: linear
in the file, 20-40 s per `add` into a 50,000-item file on a busy 2-core machine. For a
body the line-local fast path read (core/bodyscan.py), the same text comes from splicing:
an added item's line goes in after the last item, a reinforced or superseded item's line
is replaced, a forgotten item's lines are cut. Whether the fast path accepts a line depends
only on that line and on whether the line before it is an item line, so checking the
spliced lines and the line after each splice proves the whole result reads back to the
intended items, exactly as a full parse would. Anything the splice cannot prove (a body
mistune read, warnings whose line numbers would move, nested lines under an item) returns
None: the caller renders and re-parses in full, as before.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from memfs.core.bodyscan import fast_line
from memfs.core.categoryfile import CategoryDoc, Slot, item_of_entry
from memfs.core.front import dump_front, edit_front
from memfs.core.itemline import render_item_line
from memfs.core.lineids import spliced
from memfs.core.model import DEFAULT_TYPE_OF_KIND


@dataclass
class Edit:
    """Body lines [a, b) of the file as read are replaced by `new` (a == b: an insertion)."""

    a: int
    b: int
    new: list[str]


@dataclass
class Splice:
    """A change as line edits: the new text, and what the index needs to follow it."""

    text: str
    head: str
    edits: list[Edit]
    #: Slots whose line(s) were written: new items and rewritten ones.
    written: list[Slot] = field(default_factory=list)
    removed: list[Slot] = field(default_factory=list)
    front_lines_before: int = 0
    front_lines_after: int = 0
    #: id(slot) -> the `updated` its item had as read, for each written slot that existed.
    updated_before: dict[int, str | None] = field(default_factory=dict)


def _head(doc: CategoryDoc) -> str:
    """The front-matter block as `render` writes it (edited line by line when it changed)."""
    if doc.front == doc._front_parsed:
        return doc.front_raw
    if not doc.front_raw:
        return dump_front(doc.front).replace("\n", doc.newline)
    return edit_front(doc.front_raw, doc._front_parsed, doc.front, doc.newline, doc.path)


def plan_splice(doc: CategoryDoc) -> Splice | None:
    """The change applied to `doc` as a splice of its lines, checked; None if it cannot be."""
    if not doc.fast or doc.warnings or doc.front_format == "toml" or doc.newline != "\n":
        return None
    lines = doc.lines
    edits: list[Edit] = []
    written: list[Slot] = []
    removed: list[Slot] = []
    new: list[Slot] = []
    insert_at: int | None = None  # the end of the last item as read: new items go there
    last: Slot | None = None
    slots = doc.slots
    # Every slot of a fast-path body is one "- " line (bodyscan._fast_entries; commit_splice
    # keeps it so), so only slots that may have changed need a look: new, removed, unstamped,
    # or whose item was replaced (a change replaces `slot.item`, never mutates it in place:
    # see `clone`). This filter is one cheap test per slot; the full walk was not. (A LazySlot
    # whose item was never built is the line as read: only `removed` is asked, nothing built.)
    maybe = [s for s in slots if s.removed or not (s.unbuilt or (s.stamped and not s.replaced()))]
    for slot in reversed(slots):  # slots are in file order, new ones (no line yet) last
        if slot.start is not None:
            last, insert_at = slot, slot.start + 1
            break
    for slot in maybe:
        start = slot.start
        if start is None:
            if not slot.removed:
                new.append(slot)
            continue
        if slot.end != start + 1 or slot.head != 1 or slot.prefix != "- ":
            return None
        if slot.removed:
            removed.append(slot)
            edits.append(Edit(start, start + 1, []))
        elif slot.changed:
            written.append(slot)
            edits.append(Edit(start, start + 1, [doc._line_of(slot)]))
    if insert_at and not lines[insert_at - 1].endswith("\n"):
        # The last item ends the file without a newline: `render` gives it one on any write.
        prev = next((e for e in edits if e.a == insert_at - 1), None)
        if prev is None:
            edits.append(Edit(insert_at - 1, insert_at, [lines[insert_at - 1] + "\n"]))
            written.append(last)  # type: ignore[arg-type]  # its line is written again
        elif prev.new and not prev.new[-1].endswith("\n"):
            prev.new[-1] += "\n"
    if new:
        added = [render_item_line(s.item) + "\n" for s in new]
        if insert_at is None:
            insert_at = len(lines)
            if lines and not lines[-1].endswith("\n"):
                edits.append(Edit(insert_at - 1, insert_at, [lines[-1] + "\n"]))
            if lines and lines[-1].strip():
                added.insert(0, "\n")  # after a heading or paragraph: a blank line first
        edits.append(Edit(insert_at, insert_at, added))
        written.extend(new)
    edits.sort(key=lambda e: (e.a, e.b))
    if not _reads_back(doc, edits, written):
        return None
    head = _head(doc)
    out: list[str] = []
    pos = 0
    for e in edits:
        out.append("".join(lines[pos:e.a]))
        out.extend(e.new)
        pos = e.b
    out.append("".join(lines[pos:]))
    text = ("\ufeff" if doc.bom else "") + head + "".join(out)
    return Splice(text, head, edits, written, removed, doc.front_raw.count("\n"), head.count("\n"),
                  {id(s): s.origin.updated for s in written if s.origin is not None})


def _reads_back(doc: CategoryDoc, edits: list[Edit], written: list[Slot]) -> bool:
    """True if the spliced body parses, under the fast path, to the intended items.

    Lines outside the edits keep their entries (line-local); the new lines, and the first
    untouched line after each edit (its predecessor changed), are classified again. Each
    written item's line must read back to its own id and text, and no id may appear twice."""
    lines = doc.lines
    default_type = DEFAULT_TYPE_OF_KIND.get(doc.kind, "profile")
    want = iter(written_sorted(written, edits))
    ids = doc.ids()
    seen: set[str] = set()
    for k, e in enumerate(edits):
        # Edits are disjoint and sorted; the line before this one is the last new line of an
        # adjacent edit ending here, else the untouched line before it.
        prev_line = _line_before(lines, edits, k)
        for line in e.new:
            got = fast_line(line, prev_line is not None and prev_line.startswith("- "))
            if got is None:
                return False
            if got is not True:
                expected = next(want, None)
                warnings: list[str] = []
                item, _ = item_of_entry(got[4], got[5], default_type, ids | seen, "", warnings,  # type: ignore[index]
                                     doc.path)
                # An id already in the file is another item's, unless this slot had it as read.
                taken = item is not None and item.id in ids and (
                    expected is None or expected.origin is None or expected.origin.id != item.id)
                if expected is None or item is None or warnings or (item.id, item.text) != (
                        expected.item.id, expected.item.text) or taken or item.id in seen:
                    return False
                seen.add(item.id)
            prev_line = line
        nxt = k + 1
        if e.b < len(lines) and not (nxt < len(edits) and edits[nxt].a == e.b):
            if fast_line(lines[e.b], prev_line is not None and prev_line.startswith("- ")) is None:
                return False
    return next(want, None) is None


def _line_before(lines: list[str], edits: list[Edit], k: int) -> str | None:
    """The line the spliced text has just before edit k's new lines."""
    j = k
    a = edits[k].a
    while j > 0 and edits[j - 1].b == a:
        if edits[j - 1].new:
            return edits[j - 1].new[-1]
        j -= 1
        a = edits[j].a
    return lines[a - 1] if a > 0 else None


def written_sorted(written: list[Slot], edits: list[Edit]) -> list[Slot]:
    """Written slots in the order their lines appear in the spliced text."""
    old = sorted((s for s in written if s.start is not None), key=lambda s: s.start)  # type: ignore[arg-type,return-value]
    new = [s for s in written if s.start is None]
    insert_at = next((e.a for e in edits if e.a == e.b and e.new), None)
    before = [s for s in old if insert_at is None or s.start < insert_at]  # type: ignore[operator]
    after = [s for s in old if insert_at is not None and s.start >= insert_at]  # type: ignore[operator]
    return before + new + after


def commit_splice(doc: CategoryDoc, sp: Splice) -> None:
    """Make `doc` the parse of the text just written (its next edit starts from it, unparsed).

    Slots after an edit move by the lines it added or cut; written slots take their new
    line as read. Linear only in the slots after the first edit (none, for an append)."""
    gone = {id(s) for s in sp.removed}
    order = written_sorted(sp.written, sp.edits)
    new_lines: list[str] = []
    pos = 0
    line_of: dict[int, int] = {}  # id(slot) -> new start
    shifts: list[tuple[int, int]] = []  # (old line from which, cumulative shift)
    delta = 0
    want = iter(order)
    for e in sp.edits:
        new_lines.extend(doc.lines[pos:e.a])
        for line in e.new:
            if line.startswith("- "):
                slot = next(want)
                line_of[id(slot)] = len(new_lines)
            new_lines.append(line)
        delta += len(e.new) - (e.b - e.a)
        shifts.append((e.b, delta))
        pos = e.b
    new_lines.extend(doc.lines[pos:])
    if doc._line_ids is not None:  # (LAZY_ITEM reads one line alone: only the written ones change)
        doc._line_ids = spliced(doc._line_ids, sp.edits) if len(doc._line_ids) == len(doc.lines) else None
    doc.lines = new_lines
    first = sp.edits[0].a if sp.edits else len(new_lines)
    ids = doc._ids
    for slot in sp.written:
        if ids is not None and slot.origin is not None:
            ids.discard(slot.origin.id)
        start = line_of[id(slot)]
        slot.start, slot.end, slot.head, slot.prefix = start, start + 1, 1, "- "
        slot.raw, slot.stamped, slot.parsed, slot.origin = new_lines[start], True, slot.item.model_copy(), slot.item
        if ids is not None:
            ids.add(slot.item.id)
    # A slot added and removed again before this write (never written: no line) goes too;
    # left behind, its missing line stopped the shift below before the slots above it moved
    # (the next splice then wrote at a stale line). New slots are last: look at the tail only.
    tail = len(doc.slots)
    while tail and (doc.slots[tail - 1].start is None or id(doc.slots[tail - 1]) in line_of):
        tail -= 1
    unwritten = any(s.removed and s.start is None for s in doc.slots[tail:])
    if gone or unwritten:
        doc.slots = [s for s in doc.slots if id(s) not in gone and not (s.removed and s.start is None)]
        if ids is not None:
            ids.difference_update(s.item.id for s in sp.removed)
            ids.difference_update(s.origin.id for s in sp.removed if s.origin is not None)
    # Slots are in file order, new ones last: only the tail past the first edit moves
    # (for an append, none but the new ones, already placed above).
    for slot in reversed(doc.slots):
        if id(slot) in line_of or slot.start is None:
            continue
        if slot.start < first:
            break
        shift = 0
        for at, cum in shifts:
            if slot.start >= at:
                shift = cum
        slot.start += shift
        slot.end = slot.start + 1
    doc.front_raw = sp.head
    doc._front_parsed = copy.deepcopy(doc.front)
