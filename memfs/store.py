"""Writing category files without ever overwriting a person's edit (invariant 4, docs/architecture.md).

Every change is a function applied to a freshly parsed file, read only once it has
settled (an in-place save's empty moment is never the truth). Just before the atomic
rename the file is read again, whole: if a person saved in between, the change is
re-applied to *their* version instead (up to a few times), so both edits survive.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

from memfs.config import Config
from memfs.core.categoryedit import Splice, commit_splice, plan_splice
from memfs.core.categoryfile import CategoryDoc, Slot, clone, dump_front, hand_off, parse_category
from memfs.core.derived import SUMMARY_CHARS, extractive_summary  # noqa: F401  (re-exported)
from memfs.core.lineids import StaleTable
from memfs.core.model import Item
from memfs.core.summarytop import Ranked
from memfs.errors import ConflictError, MemfsError
from memfs.fsutil import (
    ChangedMeanwhile, Unsettled, atomic_write, emptied_just_now, read_regular, read_settled, remember_stamp,
    remember_written, unchanged_since, write_protected,
)
from memfs.index.delta import FileDelta, offer
from memfs.index.entryparts import kept_rows, line_ids, summary_head, written_stamp
from memfs.workspace import Workspace


def title_of(name: str) -> str:
    return name.replace("-", " ").strip().capitalize() or "Untitled"


Summarizer = Callable[[str, list[Item]], str]


#: Front-matter keys older versions wrote on every change; derived now (core/derived.py).
DERIVED_KEYS = ("items", "updated")


def refresh_front(doc: CategoryDoc, config: Config, summarizer: Summarizer | None = None) -> None:
    """Set the few front-matter keys memfs owns; keep every key a person added, as written.

    Stable under independent ingests (issue #10, item 13): `title`, `kind` and
    `description` do not depend on the items, and `items`/`updated`/the extractive
    `summary` are derived by the index instead of stored, so two clones that each add a
    fact to the same file change only item lines. LLM mode still stores the model's
    summary (it cannot be derived offline). TOML (`+++`) front-matter is never edited."""
    if doc.front_format == "toml":
        return
    cat = config.categories.get(doc.name)
    front = doc.front
    front.setdefault("title", (cat.title if cat and cat.title else None) or title_of(doc.name))
    if front.get("kind") != doc.kind:
        front["kind"] = doc.kind
    if not front.get("description") and cat and cat.description:
        front["description"] = cat.description
    for key in DERIVED_KEYS:
        front.pop(key, None)
    current = [it for it in doc.items if not it.extra.get("superseded_by")] if summarizer else []
    if summarizer and current:  # (history is not summarised)
        front["summary"] = summarizer(str(front["title"]), current)
    else:
        front.pop("summary", None)


def new_category_doc(rel: str, config: Config) -> CategoryDoc:
    name = rel.rsplit("/", 1)[-1][:-3]
    cat = config.categories.get(name)
    title = (cat.title if cat and cat.title else None) or title_of(name)
    return parse_category(dump_front({"title": title}) + f"# {title}\n", rel)


class ProtectedError(MemfsError):
    """The category file is write-protected (no write bit): a person asked memfs to keep off."""


class CategoryStore:
    """Applies edits to category files; the caller holds the workspace writer lock.

    Read-verify-write (issue #10, item 1): the file is read whole once it has settled
    (`fsutil.read_settled`: an in-place save's empty or half-written moment is never taken
    as the person's file), the change is applied, the result must read back to the
    intended items and keep every item id the file had (unless the change removed it),
    and right before the rename the file is read whole again and must still be exactly
    what the change was applied to; otherwise the change is re-applied to the new version.
    `written` keeps, per file written, the bytes memfs read before writing it (None: a new
    file), so `daemon --commit` can tell a person's uncommitted edit from memfs' own."""

    def __init__(self, ws: Workspace, config: Config, summarizer: Summarizer | None = None) -> None:
        self.ws = ws
        self.config = config
        self.summarizer = summarizer
        self.written: dict[str, bytes | None] = {}
        self._read_digest: str | None = None  # SHA-1 of the bytes last read, when already known
        self._trust_table = True  # False once a kept line-id table proved wrong (core/lineids.py)

    def check_rewritable(self, rels: list[str]) -> None:
        """Raise what `edit` would for any of `rels` memfs will not rewrite (write-protected,
        broken front matter), before a change that spans files edits the first of them."""
        for rel in rels:
            path = self.ws.root / rel
            if write_protected(path):
                raise ProtectedError(f"{rel} is write-protected; memfs leaves it as it is and changed nothing "
                                     "(make it writable, or edit it yourself)")
            try:
                broken = decode_category(read_regular(path), rel).front_error
            except OSError:  # absent (nothing to edit) or not a regular file (`edit` says so)
                continue
            if broken:
                raise MemfsError(f"{rel}: its front-matter does not parse, so memfs will not rewrite it; "
                                 "nothing was changed")

    def edit(self, rel: str, change: Callable[[CategoryDoc], None], attempts: int = 5) -> CategoryDoc:
        path = self.ws.root / rel
        for _ in range(attempts):
            doc, before = self._load(path, rel)
            slots_read, lines_read = list(doc.slots), list(doc.lines)
            try:
                change(doc)
                if not doc.dirty:
                    return doc
                sp, text, back = self._planned(doc, before, rel, slots_read, lines_read)
            except StaleTable:  # the kept line-id table lied about a line read since the parse:
                self._trust_table = False  # read the file again, matching every line
                continue
            if not unchanged_since(path, before):
                continue  # someone saved meanwhile: re-apply our change to their version
            try:
                # Checked again after the temp file is flushed, right before the rename: a
                # save during the (slow) fsync must not be replaced (hardening fix).
                atomic_write(path, text, precondition=lambda: unchanged_since(path, before))
            except ChangedMeanwhile:
                continue
            remember_written(path)
            data = text.encode("utf-8")
            if sp is not None:
                commit_splice(doc, sp)
                try:
                    delta = FileDelta.of(path, rel, before, data, doc, sp, self._read_digest)
                except StaleTable:  # (a damaged cache under the parse: the file is written; the
                    delta = None    # index reads it in full, and this parse is not kept)
                if delta is not None:
                    offer(delta)  # the index follows the change, not the file
                    back, digest = doc, delta.after_digest
                    _remember_parse(path, rel, data, back, digest)
            else:
                _remember_parse(path, rel, data, back, None)
            self.written.setdefault(rel, before)
            return doc
        raise ConflictError(f"{rel} kept changing while memfs tried to write it; nothing was written, try again")

    def _planned(self, doc: CategoryDoc, before: bytes | None, rel: str, slots_read: list[Slot],
                 lines_read: list[str]) -> tuple[Splice | None, str, CategoryDoc | None]:
        """(the splice or None, the text to write, its parse when rendered whole) for a doc a
        change made dirty: spliced if it can be proved line by line, else rendered and read back."""
        back = None
        refresh_front(doc, self.config, self.summarizer)
        # Only the changed lines, spliced and re-checked line by line (core/categoryedit.py);
        # a body the splice cannot prove is rendered and parsed back whole, as before.
        # (Only a change made through slots, `add` and `remove` can be spliced: one that
        # edited lines directly, or lost a slot, takes the full render and its checks.)
        spliceable = (before is not None and doc.lines == lines_read  # C-speed: identity first
                      and doc.slots[:len(slots_read)] == slots_read)
        sp = plan_splice(doc) if spliceable else None
        if sp is not None:
            text = sp.text
        else:
            text = doc.render()
            doc._line_ids = None  # (the table of the text as read: the render wrote other lines)
            # The ids the file had (a slot's `origin` is its item as read, whatever the change
            # did). A splice proves this line by line instead (categoryedit._reads_back).
            had = {s.origin_id() for s in slots_read}
            got, back = _check_reads_back(doc, text, rel)
            _check_keeps_ids(had - {s.item.id for s in doc.slots if s.removed}, got, rel)
        return sp, text, back

    def _refilled(self, path: Path, rel: str, settle: float) -> bytes:
        """The file memfs last wrote with content, found empty: an editor that truncates before
        it writes may be mid-save (found by review: memfs wrote over the empty file and the
        editor's bytes went to the file it replaced). Wait until it has content again, or until
        it has been empty for fsutil.EMPTY_GRACE seconds (then a person emptied it: b"")."""
        while True:
            try:
                st = path.stat()
            except FileNotFoundError:
                return b""
            if st.st_size > 0:
                try:
                    return read_settled(path, window=max(settle, 0.05), max_wait=max(10.0, 20 * settle)) or b""
                except Unsettled as err:
                    raise ConflictError(f"{rel} kept changing while memfs waited for it to settle; nothing was "
                                        "written, try again") from err
            if not emptied_just_now(path, st):
                return b""
            time.sleep(0.05)

    def _load(self, path: Path, rel: str) -> tuple[CategoryDoc, bytes | None]:
        # A symlinked file or folder (memory/ -> elsewhere) would put the write outside
        # the workspace, where the index (which never follows links) would not see it.
        self.ws.safe_target(rel)
        if write_protected(path):
            raise ProtectedError(f"{rel} is write-protected; memfs leaves it as it is "
                                 "(make it writable to let memfs file into it)")
        settle = self.config.ingest.settle_seconds
        kept = None if (str(path), rel) in _PARSED else kept_rows(self.ws.state / "index.sqlite3", rel)
        stamp = written_stamp(kept or {})
        if stamp is not None:  # the stat memfs saw after its own last write: no settle wait if still so
            remember_stamp(path, stamp)
        try:
            data = read_settled(path, window=max(settle, 0.05), max_wait=max(10.0, 20 * settle))
        except Unsettled as err:
            raise ConflictError(f"{rel} kept changing while memfs waited for it to settle; nothing was written, "
                                "try again") from err
        if data is None:
            return new_category_doc(rel, self.config), None
        cached = _PARSED.pop((str(path), rel), None)  # (a long-lived process: what it wrote last)
        if not data and ((stamp is not None and stamp[2] > 0) or (cached is not None and cached[0])):
            data = self._refilled(path, rel, settle)
        # The file is still exactly what memfs last wrote: its parse (and hash) are already known.
        hit = cached is not None and cached[0] == data
        self._read_digest = cached[2] if hit else hashlib.sha1(data).hexdigest()  # type: ignore[index]
        # Lazily: a write into a 50,000-item file builds the Items of the slots it touches; with
        # the line-id table the index kept for exactly these bytes, matching no line (core/lineids.py).
        table = line_ids(kept or {}, self._read_digest) if self._trust_table else None  # type: ignore[arg-type]
        doc = cached[1] if hit else decode_category(data, rel, lazy=True, line_ids=table)  # type: ignore[index]
        if not hit:  # a fresh parse: the summary head the index keeps for these bytes, if any
            doc._ranked = _kept_head(self.ws, rel, doc, self._read_digest, kept)  # type: ignore[arg-type]
        doc._read_by_id = None  # (true of the doc as read only)
        if doc.front_error:
            raise MemfsError(f"refusing to rewrite {doc.front_error}")
        return doc, data


def _kept_head(ws: Workspace, rel: str, doc: CategoryDoc, digest: str,
               kept: dict[str, tuple[str, ...]] | None = None) -> Ranked | None:
    """The files-row summary head (core/summarytop.py) the index kept for exactly these
    bytes, on this parse's slots: a fresh process's write then ranks its changed slots,
    not every slot of a 50,000-item file. None (ranked afresh) unless every id is found."""
    got = summary_head(ws.state / "index.sqlite3", rel, digest, kept)
    if got is None:
        return None
    ids, complete, newest = got
    by_id = doc._read_by_id  # the lazy parse's own map: every slot as read, no change yet
    if by_id is None:
        by_id = {}
        for slot in doc.slots:
            if not slot.removed:
                by_id.setdefault(slot.item_id(), slot)
    head = [by_id.get(i) for i in ids]
    if len(set(ids)) != len(ids) or any(s is None for s in head):
        return None
    return Ranked(head, complete, newest)  # type: ignore[arg-type]


#: (path, rel) -> (bytes memfs wrote, their parse), for the few files written last. The
#: next edit of an unchanged file takes the parse instead of reading 50k lines again
#: (issue #10, item 11); popped on use, so a change never mutates a shared copy.
_PARSED: dict[tuple[str, str], tuple[bytes, CategoryDoc, str | None]] = {}
_PARSED_MAX = 8


def _remember_parse(path: Path, rel: str, data: bytes, doc: CategoryDoc, digest: str | None = None) -> None:
    key = (str(path), rel)
    _PARSED.pop(key, None)
    while len(_PARSED) >= _PARSED_MAX:
        _PARSED.pop(next(iter(_PARSED)))
    _PARSED[key] = (data, doc, digest)


def decode_category(data: bytes, rel: str, lazy: bool = False, line_ids: list[str | None] | None = None
                    ) -> CategoryDoc:
    """Parse bytes already read (as `index.sync.read_category` does for a path); `lazy`:
    build each stamped line's Item only when a change asks for it (core/slot.py);
    `line_ids`: the body's line-id table of exactly these bytes (core/lineids.py)."""
    try:
        return parse_category(data.decode("utf-8"), rel, lazy, line_ids)
    except UnicodeDecodeError as err:
        doc = parse_category(data.decode("utf-8", errors="replace"), rel, lazy)
        doc.front_error = f"{rel}: not valid UTF-8 at byte {err.start}; never rewritten"
        return doc


def _check_keeps_ids(want: set[str], got: set[str], rel: str) -> None:
    """A write never drops an item it did not mean to remove (issue #10, item 1)."""
    lost = sorted(want - got)
    if lost:
        raise MemfsError(f"{rel}: writing it would drop item {lost[0]} (and {len(lost) - 1} more); nothing was written")


def _check_reads_back(doc: CategoryDoc, text: str, rel: str) -> tuple[set[str], CategoryDoc]:
    """Never write a file that does not parse back to the items memfs meant to write.

    Hardening fix: a person's file can end inside a structure (an HTML block, a
    construct the parser reads differently) that would swallow an appended item: written,
    but never read back, so silently lost. Refusing leaves the file as the person left it
    and gives a clear reason (the input goes to inbox/failed/, `memfs add` fails)."""
    want = [(it.id, it.text) for it in doc.items]
    back = parse_category(text, rel)
    got = [(it.id, it.text) for it in back.items]
    if sorted(want) != sorted(got):
        lost = sorted(set(want) - set(got))
        what = f"item {lost[0][0]} would not read back" if lost else "its items would not read back unchanged"
        raise MemfsError(f"{rel}: cannot write it safely ({what}: check the end of the file for an unclosed "
                         "block); nothing was written")
    hand_off(clone(back), text)  # the index reads this very text next: it need not parse it again
    return {item_id for item_id, _ in got}, back


def today_iso() -> str:
    return date.today().isoformat()


