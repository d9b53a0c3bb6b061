"""Index a category write from the lines it changed, not from the whole file (issue #17, item 3).

A full sync of one file re-reads it, parses it and compares every item with its row: linear
in the file (seconds at 50,000 items). When the store splices a change into a file
(core/categoryedit.py) it knows exactly which items it wrote, which it removed and how the
lines after each edit moved; it offers that as a FileDelta, and `Indexer.sync(only=...)`
applies it instead, in one transaction, with the same rows a full sync would write.

A delta is used only if it provably describes the step from what the index holds to what
is on disk: the file's indexed hash must be the hash of the bytes the store read, and the
file must still be, by stat and by hash of its bytes, what the store wrote. Anything else
(a person's save in between, an embedder change, an id another file also holds) falls
back to the full sync, so a delta can make a sync faster but never different.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memfs.core.categoryedit import Splice
from memfs.core.categoryfile import CategoryDoc
from memfs.core.summarytop import Ranked
from memfs.core.model import Item
from memfs.fsutil import read_regular
from memfs.index.context import ContextResolver
from memfs.index.entryparts import line_ids_row, save_head, summary_head_row, written_stamp_row
from memfs.index.db import text_hash
from memfs.index.itemrows import opt_str, write_file_row, write_item_rows
from memfs.index import shadows
from memfs.index.statstamp import recorded_mtime

if TYPE_CHECKING:
    from memfs.index.sync import Indexer, SyncReport


@dataclass
class FileDelta:
    """One spliced write of one category file, as the index needs it."""

    path: str  # absolute
    rel: str
    before_digest: str
    after_digest: str
    size: int
    mtime_ns: int
    category: str
    kind: str
    #: (item, its 1-based line in the file) for every item whose line was written.
    upserts: list[tuple[Item, int]]
    removed: list[str]
    #: (old 1-based file line, shift): rows at or after that line move by the shift.
    shifts: list[tuple[int, int]] = field(default_factory=list)
    files_row: tuple = ()
    #: {id: its row before the write} for the removed and rewritten items the index held
    #: (filled when the delta is applied: entry/partstore.py derives a file's parts from them).
    before_rows: dict = field(default_factory=dict)
    #: The summary head after the write, as ids (persisted for the next fresh parse).
    head: tuple | None = None
    #: (device, inode, size, mtime_ns) right after the write (persisted: fsutil.read_settled).
    stamp: tuple = ()
    #: How many lines the file had before the write (None: not known): no row lies past it.
    lines_before: int | None = None
    #: The body's line-id table after the write (core/lineids.py), if the store knew it.
    line_ids: list | None = None

    @staticmethod
    def of(path: Path, rel: str, before: bytes, after: bytes, doc: CategoryDoc, sp: Splice,
           before_digest: str | None = None) -> "FileDelta":
        """The delta of a committed splice (`doc` is already the parse of `after`);
        `before_digest`: the SHA-1 of `before` if the store already knows it."""
        st = os.stat(path)
        front_after = sp.front_lines_after
        upserts = [(s.item, (s.start or 0) + front_after + 1) for s in sp.written]
        moved = front_after - sp.front_lines_before
        shifts = [(1, moved)] if moved else []
        cum = 0
        for e in sp.edits:
            cum += len(e.new) - (e.b - e.a)
            shifts.append((e.b + sp.front_lines_before + 1, cum + moved))
        front = doc.front
        # The summary's ranking and the newest stamp follow the splice (core/summarytop.py):
        # a write costs its changed slots, not a pass over every item.
        ranked = (doc._ranked.after(doc.slots, sp.written, sp.removed, sp.updated_before)
                  if isinstance(doc._ranked, Ranked) else Ranked.of(doc.slots))
        doc._ranked = ranked
        summary = opt_str(front.get("summary")) or ranked.summary()
        files_row = (rel, st.st_size, recorded_mtime(st), _digest(after), doc.kind, opt_str(front.get("title")),
                     opt_str(front.get("description")), summary, ranked.newest or opt_str(front.get("updated")),
                     len([s for s in doc.slots if not s.removed]), "\n".join(doc.warnings))
        return FileDelta(str(path), rel, before_digest or _digest(before), files_row[3], st.st_size, st.st_mtime_ns, doc.name,
                         doc.kind, upserts, [s.item.id for s in sp.removed], shifts, files_row,
                         head=([s.item_id() for s in ranked.head], ranked.complete, ranked.newest),
                         stamp=(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns),
                         lines_before=before.count(b"\n") + (not before.endswith(b"\n")), line_ids=doc._line_ids)


#: Deltas offered by the store, by absolute path; taken by the next sync of that file.
_PENDING: dict[str, FileDelta] = {}


def offer(delta: FileDelta) -> None:
    """Record a write for the index. A second write of the same file before a sync replaces
    nothing: the two deltas do not compose, so the file is then synced in full."""
    if delta.path in _PENDING:
        _PENDING[delta.path] = _STALE
        return
    _PENDING[delta.path] = delta


_STALE = FileDelta("", "", "", "", 0, 0, "", "", [], [])
#: Deltas the index applied, by absolute path, for the entry files' item pool
#: (entry/poolcache.py) to take: it then need not re-read the file's rows.
_APPLIED: dict[str, FileDelta] = {}


def take_applied(path: str) -> FileDelta | None:
    """The delta last applied to `path` (absolute), once; None if none, or two in a row."""
    d = _APPLIED.pop(path, None)
    return None if d is _STALE else d


def _digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()  # the same digest sync.file_digest records


def apply_deltas(indexer: "Indexer", only: list[str]) -> "SyncReport | None":
    """Index the files in `only` from their pending deltas; None (nothing done) unless every
    one of them has a delta that provably applies: the caller then syncs them in full."""
    from memfs.index.syncplan import SyncReport, _Plan

    t0 = time.perf_counter()
    root = indexer.ws.root
    deltas = [_PENDING.pop(str(root / rel), None) for rel in dict.fromkeys(only)]
    if not only or any(d is None or d is _STALE for d in deltas):
        return None
    if not indexer._embedder_checked or indexer._pending_reembed:
        return None
    db = indexer.db
    stats = {rel: db.conn.execute("SELECT hash, passages FROM files WHERE path=?", (rel,)).fetchone()
             for rel in only}
    for d in deltas:
        assert d is not None
        row = stats.get(d.rel)
        if row is None or row[0] != d.before_digest or not _on_disk(d):
            return None
    report = SyncReport(files_seen=len(deltas), files_parsed=len(deltas))
    plan = _Plan()
    contexts = ContextResolver(root)
    for d in deltas:
        assert d is not None
        existing = db.items_by_ids([it.id for it, _ in d.upserts] + d.removed)
        if any(r.path != d.rel for r in existing.values()):
            return None  # an id another file holds: the full sync decides which copy counts
        if d.removed and shadows.has_any(db, d.removed):
            return None  # another file holds a copy of a removed line: the full sync reads it
        d.before_rows = existing
        for item, line in d.upserts:
            h = text_hash(item.text)
            row = (d.rel, d.category, d.kind, item.type, item.text, item.when, item.src, item.seen,
                   item.updated, line, h, item.extra.get("until") or None, item.extra.get("superseded_by") or None)
            old = existing.get(item.id)
            if old is None:
                plan.inserts.append((item.id, *row, contexts.context(item.src, item.when)))
                plan.need_vectors[h] = item.text
                plan.vector_labels.add(item.id)
                report.items_added += 1
                continue
            fresh_context = contexts.context(item.src, item.when) if (old.src, old.when) != (item.src, item.when) else None
            plan.updates.append((*row, fresh_context, item.id))
            if old.text != item.text:
                plan.need_vectors[h] = item.text
                plan.vector_labels.add(item.id)
            if (old.text, old.type, old.when, old.src, old.seen, old.updated) != (
                    item.text, item.type, item.when, item.src, item.seen, item.updated):
                report.items_updated += 1
        report.items_removed += sum(1 for i in d.removed if i in existing)
    vectors, fresh = indexer.embed_texts(plan.need_vectors) if plan.need_vectors else ({}, [])
    report.embedded = len(fresh)
    with db.transaction() as c:
        if fresh:
            db.store_vectors(fresh)
        for d in deltas:
            assert d is not None
            c.executemany("DELETE FROM items WHERE id=? AND path=?", [(i, d.rel) for i in d.removed])
            _shift_lines(c, d)
            # A splice rewrites only item lines: the person's prose passages keep their text
            # (and count) and only move (_shift_lines).
            write_file_row(c, (*d.files_row, int(stats[d.rel][1] or 0)))
            if d.head is not None:  # for the next process's parse of this content (memfs.store)
                save_head(c, *summary_head_row(d.rel, d.after_digest, d.files_row[9], d.head))
            if d.stamp:  # for the next process's read of this file (memfs.store)
                save_head(c, *written_stamp_row(d.rel, d.after_digest, d.files_row[9], d.stamp))
            if d.line_ids is not None:  # for the next process's parse of this content (core/lineids.py)
                save_head(c, *line_ids_row(d.rel, d.after_digest, d.files_row[9], d.line_ids))
        write_item_rows(c, plan.updates, plan.inserts)
        if report.changed:
            db.set_meta("index_version", str(int(db.get_meta("index_version") or 0) + 1))
    indexer._update_sidecar(plan, vectors, rebuild_all=False)
    for d in deltas:
        assert d is not None
        _APPLIED[d.path] = _STALE if d.path in _APPLIED else d
    report.seconds = time.perf_counter() - t0
    return report


def effective_shifts(d: FileDelta) -> list[tuple[int, int]]:
    """(threshold line, shift) in line order: a row at or past a threshold moves by the shift
    of the last one at or before it (the last shift given for a threshold counts)."""
    effective: list[tuple[int, int]] = []
    for at, shift in sorted(d.shifts):
        if effective and effective[-1][0] == at:
            effective[-1] = (at, shift)
        else:
            effective.append((at, shift))
    return effective


def _shift_lines(c, d: FileDelta) -> None:  # type: ignore[no-untyped-def]
    """Move the line numbers of the file's rows past each edit (one UPDATE, rows past the
    first moving threshold only: an append at the end moves none)."""
    # The shift of a row is the one of the last threshold at or before its line.
    effective = effective_shifts(d)
    first = next((k for k, (_, shift) in enumerate(effective) if shift), None)
    if first is None or (d.lines_before is not None and effective[first][0] > d.lines_before):
        return  # (no row lies past the file's old last line: the UPDATE would scan the file's rows for none)
    def case(col: str) -> str:
        return " ".join(f"WHEN {col} >= {at} THEN {shift}" for at, shift in reversed(effective[first:]))

    c.execute(f"UPDATE items SET line = line + CASE {case('line')} ELSE 0 END WHERE path=? AND line >= ?",
              (d.rel, effective[first][0]))
    # Passages (prose, never rewritten) move with the lines around them: their anchors stay right.
    c.execute(f"UPDATE passages SET line_start = line_start + CASE {case('line_start')} ELSE 0 END, "
              f"line_end = line_end + CASE {case('line_end')} ELSE 0 END WHERE path=? AND line_end >= ?",
              (d.rel, effective[first][0]))


def _on_disk(d: FileDelta) -> bool:
    """The file is still exactly what the store wrote (stat, then the hash of its bytes)."""
    try:
        st = os.stat(d.path)
        if (st.st_size, st.st_mtime_ns) != (d.size, d.mtime_ns):
            return False
        return _digest(read_regular(Path(d.path))) == d.after_digest
    except OSError:
        return False
