"""Vectors after the write: embed what an ingest filed without one, then make the
near-duplicate check the ingest left for after the write.

Why: with the default embedder, embedding every fact before its item was written bound
ingestion to the embedder's speed and kept a dropped chat unrecallable until all of it
was embedded (issue #17). Offline, a fact whose category does not depend on its meaning
is now written first (FTS5 finds it at once) and marked (index/vecfill_store.py); here,
in larger batches, it gets its vector, and if its nearest other item is a near-duplicate
by the same rule the ingest uses (cosine >= `ingest.dedupe_threshold`, not a
contradiction) it is merged into it: that line is reinforced (seen + its seen, once per
input by `via=`, also when both came from the same input) and the new line removed, through the store's read-verify-write.
Only a line that still says exactly what memfs wrote is merged: the mark keeps the hash of
the text written, and the line on disk is checked against it before the target is touched
and again in the edit that removes it, so a person's edit, move or deletion in between wins
(the line stays, as its own item). A write-protected file, or one memfs refuses to rewrite,
leaves both lines as they are. The target is edited before the line is removed, so a
crash in between leaves the mark and the next run finishes the merge without counting it
twice. Callers hold the writer lock.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

import numpy as np

from memfs.core.hashing import text_hash
from memfs.core.model import normalize_text
from memfs.errors import MemfsError
from memfs.extract.supersede import conflicts
from memfs.index.db import IndexDB, ItemRow
from memfs.index.vecfill_store import (mark_state, marked, marked_among, set_into, store_filled, unmark,
                                      without_vectors)
from memfs.pipeline.persist import VIA_KEY
from memfs.store import CategoryStore, ProtectedError

if TYPE_CHECKING:
    from memfs.index.search import Searcher
    from memfs.pipeline.runtime import PipelineRuntime

log = logging.getLogger(__name__)

#: Texts embedded (and marked items checked) per call: about a second of MiniLM on 2 cores,
#: so a daemon between two inputs never keeps the next one waiting long.
CHUNK = 128
#: Texts per embedding call inside a chunk (~0.1 s of MiniLM): where a waiting input may cut in.
SUB = 16
#: Neighbours first asked for per marked row (more only when all of them are ineligible).
FIRST_K = 8


@dataclass
class FillReport:
    embedded: int = 0
    checked: int = 0
    merged: list[tuple[str, str]] = field(default_factory=list)  # (removed id, the id it merged into)
    files: list[str] = field(default_factory=list)
    more: bool = False  # a full chunk was done: call again

    @property
    def idle(self) -> bool:
        return not (self.embedded or self.checked)


def via_of(src: str | None) -> str | None:
    """The input's `via=` stamp from an item's provenance (`resources/...-<hash16>.<ext>#turn`)."""
    if not src or "#" not in src:
        return None
    stem = src.split("#", 1)[0].rsplit("/", 1)[-1].rsplit(".", 1)[0]
    tail = stem.rsplit("-", 1)[-1]
    return tail[:12] if len(tail) == 16 else None


def fill(rt: "PipelineRuntime", searcher: "Searcher", limit: int = CHUNK,
         stop: Callable[[], bool] | None = None) -> FillReport:
    """One chunk: vectors for up to `limit` texts without one, then the near-duplicate check
    of up to `limit` marked items. `stop` (a daemon: an input is waiting) is asked between
    sub-batches of `SUB` texts; what is done by then is kept."""
    report = FillReport()
    indexer = rt.indexer
    db = indexer.db
    texts, ids, passage_labels = without_vectors(db, limit)
    pairs = list(texts.items())
    sub = SUB if stop is not None else max(1, len(pairs))  # nobody waiting: one embedding call
    for start in range(0, len(pairs), sub):
        part = dict(pairs[start:start + sub])
        indexer.deferred.difference_update(part)
        _, fresh = indexer.embed_texts(part)
        last = start + sub >= len(pairs)
        interrupted = not last and stop is not None and stop()
        store_filled(indexer, fresh, ids if last or interrupted else [], passage_labels if last or interrupted else [])
        report.embedded += len(fresh)
        if interrupted:
            report.more = True
            return report
    rows, never_written, written = marked(db, limit)
    if never_written:
        with db.transaction():
            unmark(db, never_written)
    retry: set[str] = set()
    if rows:
        report.merged, report.files, retry = _check(rt, searcher, rows, written)
        report.checked = len(rows)
        with db.transaction():
            unmark(db, [r.id for r in rows if r.id not in retry])
    # A chunk of marks all left to retry (say, a write-protected file) is no progress: not
    # "more", or a caller looping until done (a sync, an ingest settling) would never end.
    stuck = bool(rows) and not never_written and len(retry) == len(rows)
    report.more = len(ids) + len(passage_labels) >= limit or (len(rows) + len(never_written) >= limit and not stuck)
    return report


def _check(rt: "PipelineRuntime", searcher: "Searcher", rows: list[ItemRow],
           written: dict[str, str]) -> tuple[list[tuple[str, str]], list[str], set[str]]:
    """Merge each marked row into its nearest other item when that is a near-duplicate and
    the row's line still says what memfs wrote (`written`: id -> text hash), where memfs
    wrote it. A merge left half done (its target reinforced, the line not yet removed) is
    finished first, into the target it began with."""
    indexer = rt.indexer
    db = indexer.db
    threshold = rt.config.ingest.dedupe_threshold
    state = mark_state(db, [r.id for r in rows])
    resumed = [r for r in rows if state.get(r.id, (None, None))[1]]
    todo = [r for r in rows if not state.get(r.id, (None, None))[1]]
    plans: list[tuple[ItemRow, ItemRow | None]] = []
    if resumed:
        targets = db.items_by_ids([str(state[r.id][1])[1:] for r in resumed])
        plans += [(r, targets.get(str(state[r.id][1])[1:])) for r in resumed]
    if todo:
        by_hash = {text_hash(r.text): r.text for r in todo}
        vectors, fresh = indexer.embed_texts(by_hash)
        if fresh:
            store_filled(indexer, fresh, [], [])
        mat = np.stack([vectors[text_hash(r.text)] for r in todo])
        plans += _plan(searcher, db, mat, todo, threshold, written, {r.label for r in resumed})
    if not plans:
        return [], [], set()
    store = CategoryStore(rt.ws, rt.config)
    merged: list[tuple[str, str]] = []
    touched: list[str] = []
    retry: set[str] = set()
    for row, target in plans:
        path, into = state.get(row.id, (None, None))
        outcome = "left" if target is None else _merge(store, db, row, target, written[row.id], path, into)
        if outcome != "left":
            touched.extend(p for p in (target.path, row.path) if p not in touched)  # type: ignore[union-attr]
        if outcome == "merged":
            merged.append((row.id, target.id))  # type: ignore[union-attr]
        elif outcome == "retry":
            retry.add(row.id)
    if touched:
        indexer.sync(only=touched)
    return merged, touched, retry


def _plan(searcher: "Searcher", db: IndexDB, mat: np.ndarray, rows: list[ItemRow], threshold: float,
          written: dict[str, str], leaving: set[int]) -> list[tuple[ItemRow, ItemRow | None]]:
    """(row, the item it merges into) for each marked row, in mark order, whose nearest
    eligible item is a near-duplicate that does not contradict it.

    Eligible is what the row's fact would have met had it been embedded first: any item
    except itself, a row merged away in this chunk and an item still waiting for its own
    check (marked after it); a stale label (an item removed since) is passed over, not
    taken for "no near-duplicate". `FIRST_K` neighbours are asked for, and more (x4) only
    while every one found is above the threshold yet ineligible: the cost follows the
    near-duplicates, not the backlog (asking for len(backlog) neighbours per row made a
    fill quadratic in it). `leaving`: labels of rows whose merge is being finished."""
    hits = searcher.nearest(mat, FIRST_K)
    checked: set[int] = set()  # labels of the rows before this one in the chunk
    gone: set[int] = set(leaving)
    plans: list[tuple[ItemRow, ItemRow | None]] = []
    for n, row in enumerate(rows):
        if row.superseded_by or row.until or text_hash(row.text) != written.get(row.id):
            checked.add(row.label)
            continue  # history, or a line a person changed since memfs wrote it: not merged
        found, k = hits[n], FIRST_K
        while True:
            labels = [lab for lab, _ in found if lab != row.label and lab not in gone]
            live = db.items_by_labels(labels)
            waiting = marked_among(db, [lab for lab in live if lab not in checked])
            best = next(((lab, score) for lab, score in found if lab in live and lab not in waiting), None)
            if best is not None or len(found) < k or found[-1][1] < threshold:
                break
            k *= 4
            found = searcher.nearest(mat[n:n + 1], k)[0]
        checked.add(row.label)
        if best is None or best[1] < threshold:
            continue
        target = live[best[0]]
        if conflicts(normalize_text(row.text), normalize_text(target.text)):
            continue
        plans.append((row, target))
        gone.add(row.label)
    return plans


class _LineChanged(MemfsError):
    """The marked line no longer says what memfs wrote (a person edited, moved or deleted it)."""


def _merge(store: CategoryStore, db: IndexDB, row: ItemRow, target: ItemRow, written: str,
           path: str | None, into: str | None) -> str:
    """Reinforce `target` by `row` (once per input), then remove `row`'s line — only while
    that line still holds the text memfs wrote (hash `written`) in the file it wrote it to
    (`path`; None for a mark of a previous memfs) and the target still says what the index
    holds (a person's rewrite of it is not merged into). "merged", "left" (both lines stay
    as they are) or "retry" (the mark stays). `into` (the mark's merge in progress) makes a
    resumed merge reinforce nothing twice: "?id" began, "+id" reinforced, "=id" the target
    already counted this input. An OSError (disk full) propagates, and the mark stays too."""
    via = via_of(row.src)
    found = [False, False]  # the target is there; its seen was raised here

    def unchanged(doc) -> None:  # type: ignore[no-untyped-def]
        slot = doc.find(row.id)
        if slot is None or slot.removed or text_hash(slot.item.text) != written:
            raise _LineChanged(row.id)

    def reinforce(doc) -> None:  # type: ignore[no-untyped-def]
        slot = doc.find(target.id)
        if slot is None:
            return
        if text_hash(slot.item.text) != text_hash(target.text):
            raise _LineChanged(target.id)  # rewritten since it was indexed: the person's text wins
        found[0] = True
        if via is not None and slot.item.extra.get(VIA_KEY) == via:
            return  # this input already reinforced it (or a merge finished after a crash)
        found[1] = True
        extra = slot.item.extra if via is None else {**slot.item.extra, VIA_KEY: via}
        said = row.when if row.when and len(row.when) == 10 and row.when <= date.today().isoformat() else None
        slot.item = slot.item.model_copy(update={
            "seen": slot.item.seen + max(1, row.seen), "extra": extra,
            "updated": max(filter(None, [slot.item.updated, said]), default=None)})

    def undo(doc) -> None:  # type: ignore[no-untyped-def]
        slot = doc.find(target.id)
        if slot is not None:
            slot.item = slot.item.model_copy(update={"seen": max(1, slot.item.seen - max(1, row.seen))})

    def drop(doc) -> None:  # type: ignore[no-untyped-def]
        unchanged(doc)  # checked again on the bytes this edit read
        doc.remove(row.id)

    if path is not None and row.path != path:
        return "left"  # a person moved the line: it stays where they put it
    if into is None or into.startswith("?"):
        try:
            # First a read only (no change, so nothing is written): the line is as memfs wrote
            # it and its file is writable; only then is the target touched.
            store.edit(row.path, unchanged)
            set_into(db, row.id, "?" + target.id)
            store.edit(target.path, reinforce)
        except _LineChanged:
            return "left"  # the person's version stays, as its own item
        except ProtectedError:
            return "left"
        except MemfsError as err:  # a file memfs will not rewrite (say, not UTF-8): both lines stay
            log.warning("near-duplicate check of %s left as it is: %s", row.id, err)
            return "left"
        if not found[0]:
            return "left"  # the target left meanwhile: the new line stays, as its own item
        into = ("+" if found[1] else "=") + target.id
        set_into(db, row.id, into)
    try:
        store.edit(row.path, drop)
    except _LineChanged:  # edited in the last moment: the person's line stays, uncounted at the target
        if not into.startswith("+"):
            return "left"
        try:
            store.edit(target.path, undo)
        except MemfsError as err:  # the target's file refuses too: tried again (the mark stays)
            log.warning("near-duplicate %s: undoing its reinforcement is tried again later: %s", row.id, err)
            return "retry"
        set_into(db, row.id, "=" + target.id)  # undone: a crash before the unmark undoes nothing twice
        return "left"
    except MemfsError as err:  # e.g. the file kept changing or is write-protected: the mark
        # stays, and the next run finishes the removal without reinforcing again
        log.warning("near-duplicate %s: its removal is tried again later: %s", row.id, err)
        return "retry"
    return "merged"


def settle(rt: "PipelineRuntime", searcher: "Searcher") -> int:
    """Every pending vector and owed check, chunk by chunk; lines merged. For an ingest whose
    decisions depend on them (pipeline/dedupe.py): it then decides as embedding first would."""
    merged = 0
    while True:
        report = fill(rt, searcher)
        merged += len(report.merged)
        if not report.more:
            return merged
