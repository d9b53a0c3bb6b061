"""A category file (`memory/<cat>.md`, `index/<topic>.md`, `skill/<name>.md`) in memory.

Parsing keeps every byte it does not understand: the front-matter block and every body
line that is not an item are carried verbatim, and an item line memfs wrote is re-emitted
as it was unless the item changed. So rendering a file that was only read gives back the
same bytes, and a write touches only the lines whose meaning changed (invariant 5, docs/architecture.md).

The parts live apart (issue #17): front-matter in core/front.py, reading the body's items
in core/bodyscan.py (a line-local fast path, else mistune's block AST), and the splice
that writes one change without re-rendering the file in core/categoryedit.py. This module
holds the document model, its full render, and the parse that ties them together.
"""

from __future__ import annotations

import copy
import gc
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memfs.core.bodyscan import MARKER as _MARKER
from memfs.core.bodyscan import LAZY_ITEM, _fast_entries, _mistune_entries, open_fence
from memfs.core.front import (  # noqa: F401  (re-exported: the names this module always had)
    FRONT_KEYS, FRONT_MAX_VALUES, dump_front, edit_front, load_front, raise_front, split_front, split_lines,
)
from memfs.core.entryitem import copied_line
from memfs.core.itemline import item_from_meta, render_item_line, text_id
from memfs.core.lineids import StaleTable, plausible, table_slots
from memfs.core.model import DEFAULT_TYPE_OF_KIND, Item
from memfs.core.slot import LazySlot, Slot, lazy_ok
from memfs.fsutil import read_regular

__all__ = ["CategoryDoc", "LazySlot", "Slot", "clone", "dump_front", "hand_off", "parse_category", "split_lines",
           "_fast_entries", "_mistune_entries", "FRONT_KEYS"]


@dataclass
class CategoryDoc:
    """A parsed category file. `path` is relative to the workspace, e.g. 'memory/preferences.md'."""

    path: str
    front: dict[str, Any]
    front_raw: str
    lines: list[str]
    slots: list[Slot]
    warnings: list[str] = field(default_factory=list)
    front_error: str | None = None
    _front_parsed: dict[str, Any] = field(default_factory=dict)
    #: A UTF-8 byte-order mark the file began with (kept on every write).
    bom: bool = False
    #: The file's line ending: lines memfs writes use the same one ("\r\n" for a CRLF file).
    newline: str = "\n"
    #: "yaml" (`---`), "toml" (`+++`, read but never edited) or "" (no front-matter).
    front_format: str = ""
    #: The body was read by the line-local fast path (core/bodyscan.py), so a change can be
    #: spliced in and re-checked line by line (core/categoryedit.py).
    fast: bool = False

    #: The ids of the file as last read or written (core/categoryedit.py keeps it current).
    _ids: set[str] | None = None
    #: The head of the files-row summary's ranking for the doc as it is (core/summarytop.py),
    #: set by the index's delta after each spliced write; None: not known, rank afresh.
    _ranked: Any = None
    #: The body's line-id table (core/lineids.py) when the lazy parse read it, kept in step
    #: by each splice (categoryedit.commit_splice); None: not known.
    _line_ids: list[str | None] | None = None
    #: The slots by id as the store's lazy parse read them (`_lazy_slots`), for the store's
    #: first look right after the parse (store._kept_head takes it); None once taken.
    _read_by_id: dict[str, Slot] | None = None

    def ids(self) -> set[str]:
        """Every item id the file holds as read (cached: an edit checks new ids against it)."""
        if self._ids is None:
            self._ids = {s.origin_id() for s in self.slots if s.start is not None}
        return self._ids

    @property
    def kind(self) -> str:
        return self.path.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1][:-3]

    @property
    def items(self) -> list[Item]:
        return [s.item for s in self.slots if not s.removed]

    def find(self, item_id: str) -> Slot | None:
        for slot in self.slots:
            if not slot.removed and slot.item_id() == item_id:  # (a LazySlot's item stays unbuilt)
                return slot
        return None

    def add(self, item: Item) -> None:
        self.slots.append(Slot(item=item, start=None, end=None))

    def remove(self, item_id: str) -> bool:
        slot = self.find(item_id)
        if slot is None:
            return False
        slot.removed = True
        return True

    @property
    def dirty(self) -> bool:
        return self.front != self._front_parsed or any(
            # From the end: new items are appended there, so an add is found at once. An
            # unstamped line is always written anew when the file is, but alone makes no
            # write; a change to its item does (it was reported done, yet not written).
            s.removed or (s.start is None) or s.modified() for s in reversed(self.slots)
        )

    def render(self) -> str:
        """The file's text. Untouched parts come back byte for byte.

        A changed front-matter is edited line by line (only the keys whose value changed),
        so a person's comments, flow lists and key order survive (issue #10, item 11)."""
        if self.front == self._front_parsed:
            head = self.front_raw
        elif not self.front_raw:
            head = dump_front(self.front).replace("\n", self.newline)
        else:
            head = edit_front(self.front_raw, self._front_parsed, self.front, self.newline, self.path)
        return ("\ufeff" if self.bom else "") + head + self._render_body()

    def _line_of(self, slot: Slot) -> str:
        """A changed item's text line(s), with the marker the person used and the file's newline."""
        return slot.prefix + render_item_line(slot.item)[2:] + self.newline

    def _render_body(self) -> str:
        existing = [s for s in self.slots if s.start is not None]
        new = [s for s in self.slots if s.start is None and not s.removed]
        by_start = {s.start: s for s in existing}
        insert_at = max((s.end for s in existing if s.end is not None), default=None)
        out: list[str] = []
        i = 0
        n = len(self.lines)
        nl = self.newline
        while i < n:
            slot = by_start.get(i)
            if slot is not None:
                end = slot.end if slot.end is not None else i + 1
                if not slot.removed:
                    if not slot.changed:
                        out.append(slot.raw)
                    else:
                        # Only the item's own line(s) change; what a person nested under
                        # it (sub-bullets, paragraphs, code) is carried byte for byte.
                        out.append(self._line_of(slot))
                        out.extend(self.lines[i + slot.head:end])
                i = end
                if i == insert_at:
                    if out and not out[-1].endswith("\n"):
                        out[-1] += nl
                    out.extend(render_item_line(s.item) + nl for s in new)
                    new = []
                continue
            out.append(self.lines[i])
            i += 1
        if new:
            if out and not out[-1].endswith("\n"):
                out[-1] += nl
            fence = open_fence(out)
            if fence:
                # Hardening fix: the body ends inside a code fence a person left open. An
                # unclosed fence runs to the end of the file, so appended items would be
                # swallowed as code (written, but never read back). Closing it keeps the
                # code block exactly as it was and puts the items after it.
                out.append(fence + nl)
            if out and out[-1].strip() and not _MARKER.match(out[-1]):
                out.append(nl)
            out.extend(render_item_line(s.item) + nl for s in new)
        return "".join(out)



#: One parsed document, handed to the next parse of exactly the same (path, text). The
#: store parses what it is about to write (to check it reads back); the index then reads
#: that very file: the second parse of a 50k-item file is skipped (issue #10, item 11).
#: Taken, not shared: whoever receives it owns it, so a mutation can never leak.
_HANDOFF: dict[tuple[str, str], CategoryDoc] = {}


def clone(doc: CategoryDoc) -> CategoryDoc:
    """An independent copy to apply a change to. Items are shared: a change replaces
    `slot.item` (model_copy) and never mutates an Item in place."""
    return CategoryDoc(
        path=doc.path, front=copy.deepcopy(doc.front), front_raw=doc.front_raw, lines=list(doc.lines),
        slots=[s.copy() for s in doc.slots], warnings=list(doc.warnings), front_error=doc.front_error,
        _front_parsed=copy.deepcopy(doc._front_parsed), bom=doc.bom, newline=doc.newline,
        front_format=doc.front_format, fast=doc.fast)


def hand_off(doc: CategoryDoc, text: str) -> None:
    """Offer `doc` (parsed from `text`, not mutated since) to the next parse of `text`."""
    _HANDOFF.clear()
    _HANDOFF[(doc.path, text)] = doc



def parse_category(text: str, path: str, lazy: bool = False, line_ids: list[str | None] | None = None
                   ) -> CategoryDoc:
    """Parse a category file's text. Never raises for bad content: problems become warnings.

    `lazy`: stamped lines become LazySlots (core/slot.py), their Items built on first use;
    the store's parse, where a write touches a few slots of many. `line_ids`: the body's
    line-id table of exactly this text (core/lineids.py), if the index kept one."""
    if _HANDOFF:
        ready = _HANDOFF.pop((path, text), None)
        if ready is not None:
            return ready
    warnings: list[str] = []
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    front_raw, yaml_text, body, front_format = split_front(text)
    front, front_error = load_front(front_raw, yaml_text, front_format, path)
    if front_error:
        warnings.append(front_error)
    kind = path.split("/", 1)[0]
    default_type = DEFAULT_TYPE_OF_KIND.get(kind, "profile")
    lines = split_lines(body)
    n_front = len(warnings)
    slots, fast, by_id, ids = _parse_slots(body, lines, path, default_type, warnings, lazy, line_ids)
    if front_raw and len(warnings) > n_front:  # the body's line numbers, as the file's
        warnings[n_front:] = [_file_line(w, path, front_raw.count("\n")) for w in warnings[n_front:]]
    first_end = text.find("\n")
    doc = CategoryDoc(
        path=path, front=front, front_raw=front_raw, lines=lines, slots=slots,
        warnings=warnings, front_error=front_error, bom=bom,
        newline="\r\n" if first_end > 0 and text[first_end - 1] == "\r" else "\n", front_format=front_format,
        fast=fast,
    )
    doc._front_parsed = copy.deepcopy(front)
    if by_id is not None:  # every slot is as read: its id set is the parse's
        doc._ids, doc._read_by_id = set(by_id), by_id
    doc._line_ids = ids
    return doc


def _file_line(warning: str, path: str, offset: int) -> str:
    """`path:N: …` with N counted from the top of the file, not of the body."""
    head, sep, rest = warning.partition(": ")
    where, _, number = head.rpartition(":")
    if where != path or not number.isdigit():
        return warning
    return f"{path}:{int(number) + offset}{sep}{rest}"


def item_of_entry(text: str, meta: dict[str, str] | None, default_type: str, seen_ids: set[str],
                  where: str, warnings: list[str], path: str = "") -> tuple[Item | None, bool]:
    """(the item an entry stands for, whether memfs stamped it), or (None, False) for an empty line.

    An unstamped line gets an id derived from its file `path` and text, salted past ids
    already in the file: the same line in two notes is an item in both (issue #18)."""
    if meta is not None:
        try:
            return item_from_meta(text, meta, default_type), True
        except ValueError as err:
            warnings.append(f"{where}: bad item metadata ({err}); read as a new line")
    if not text.strip():
        return None, False
    salt = path
    item = Item(id=text_id(text, salt), text=text, type=default_type)  # type: ignore[arg-type]
    while item.id in seen_ids:
        salt += "+"
        item = item.model_copy(update={"id": text_id(text, salt)})
    return item, False


def _parse_slots(body: str, lines: list[str], path: str, default_type: str, warnings: list[str],
                 lazy: bool = False, line_ids: list[str | None] | None = None
                 ) -> tuple[list[Slot], bool, dict[str, Slot] | None, list[str | None] | None]:
    if lazy:
        got = _lazy_slots(lines, path, default_type, line_ids)
        if got is not None:
            warnings.extend(got[1])
            return got[0], True, got[2], got[3]
    entries = _fast_entries(lines)
    fast = entries is not None
    if entries is None:
        entries = _mistune_entries(body, lines, path, warnings)
    slots: list[Slot] = []
    seen_ids: set[str] = set()
    for start, end, head, prefix, text, meta in entries:
        if lazy and meta is not None and lazy_ok(meta) and meta["id"] not in seen_ids:  # (a copy: below)
            item_id = meta["id"]  # what item_from_meta gives it
            seen_ids.add(item_id)
            slots.append(LazySlot(item_id, text, meta, default_type, start, end,
                                  lines[start] if end == start + 1 else "".join(lines[start:end]), head, prefix))
            continue
        item, stamped = item_of_entry(text, meta, default_type, seen_ids, f"{path}:{start + 1}", warnings, path)
        if item is None:
            continue
        if item.id in seen_ids:  # stamped: an unstamped line's id is salted past the file's
            item, stamped = copied_line(text, meta or {}, default_type, seen_ids, f"{path}:{start + 1}",
                                        warnings, path), False
        seen_ids.add(item.id)
        # A shallow copy is enough to tell a changed item: changes replace `slot.item`
        # (and its `extra` dict) rather than mutate them. (A deep copy cost ~20% of a parse.)
        slots.append(Slot(item=item, start=start, end=end, raw="".join(lines[start:end]), stamped=stamped,
                          parsed=item.model_copy(), head=head, prefix=prefix, origin=item))
    return slots, fast, None, None


def _lazy_slots(lines: list[str], path: str, default_type: str, ids: list[str | None] | None = None
                ) -> tuple[list[Slot], list[str], dict[str, Slot], list[str | None]] | None:
    """The store's parse of a fast-path body (None: not one): the slots and warnings the
    loop above gives with `lazy`, the slots by id, and the body's line-id table.

    Every line is matched by `bodyscan.LAZY_ITEM` in one `map` (no Python frame per line),
    unless `ids`, the table of exactly these lines (core/lineids.py), says what it would
    find; a matched line is a LineSlot keeping its text and comment unread, and only the
    others take `fast_entry` and the loop's own steps. The cyclic collector is off
    meanwhile: a 50,000-item parse allocates ~100,000 containers that form no cycle, and
    its collections over the growing list were ~30% of the parse."""
    if ids is not None and not plausible(ids, lines):
        ids = None
    collecting = gc.isenabled()
    gc.disable()
    try:
        got = None
        if ids is not None:
            try:
                got = table_slots(lines, ids, path, default_type, item_of_entry)
            except StaleTable:  # a kept table that a copy's line contradicts: never trusted
                ids = None
        if ids is None:
            ids = [m and m.group(3) for m in map(LAZY_ITEM, lines)]
            got = table_slots(lines, ids, path, default_type, item_of_entry)
    finally:
        if collecting:
            gc.enable()
    return None if got is None else (*got, ids)


def read_category(path: Path, rel: str) -> tuple[CategoryDoc, bytes]:
    """Read and parse one category file; undecodable bytes become a warning, not a crash.

    A FIFO or other non-regular file raises NotRegularFile (an OSError) at once instead of
    blocking: sync skips it with a warning, the store refuses to write it."""
    data = read_regular(path)
    try:
        text = data.decode("utf-8")
        doc = parse_category(text, rel)
    except UnicodeDecodeError as err:
        doc = parse_category(data.decode("utf-8", errors="replace"), rel)
        doc.front_error = f"{rel}: not valid UTF-8 at byte {err.start}; indexed with replacement characters, never rewritten"
        doc.warnings.insert(0, doc.front_error)
    return doc, data
