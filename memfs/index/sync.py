"""`memfs sync`: bring `.memfs/` in line with the Markdown, doing only the work that changed.

Walk the category files; a file whose (size, mtime) match the manifest is skipped without
being read; one whose bytes hash the same only gets its stat refreshed; the rest are
parsed, and only items whose fields changed are written, and only texts never seen before
are embedded. The whole update is one SQLite transaction: readers see before or after.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from memfs.core.lazynp import lazy_numpy
from memfs.core.hashing import file_hash
from memfs.config import Config
from memfs.core.categoryfile import read_category  # noqa: F401 - importable from here
from memfs.core.derived import extractive_summary, newest_stamp
from memfs.index.context import ContextResolver
from memfs.index.db import IndexDB, ItemRow, text_hash
from memfs.index import quant
from memfs.index import heal
from memfs.index.heal import quick_check
from memfs.index.itemrows import clear_all, opt_str, write_file_row, write_item_rows
from memfs.index.statstamp import recorded_mtime
from memfs.fsutil import read_regular
from memfs.index.passage_sync import all_passage_texts, apply_passages, category_of, pending_labels, plan_passages
from memfs.index.passages import PASSAGE_LABEL_BASE
from memfs.index import postings_sync
from memfs.index import shadows
from memfs.index.sidecar_build import embed_into_cache, rebuild_streaming, uncached
from memfs.index.syncplan import SyncReport, _Parsed, _Plan
from memfs.index.compact import compact, compact_due
from memfs.index.vectors import LEGACY_FORMAT as OLD_SIDECAR
from memfs.index.vectors import FORMAT as SIDECAR_FORMAT
from memfs.index.vectors import HnswSidecar, sidecar_format, sidecar_generation
from memfs.providers.embedding import Embedder
from memfs.workspace import Workspace

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_numpy(globals())  # imported on first use (core/lazynp.py)


#: Pending (not yet in the hnsw sidecar) vectors tolerated before the sidecar is rewritten;
#: exact search over this many costs well under a millisecond.
PENDING_MAX = 2000

file_digest = file_hash  # core.hashing: a category file's bytes

#: Texts per embedding call when progress is shown (about a second of MiniLM on 2 cores).
EMBED_CHUNK = 256
#: Fresh vectors past which a big embedding run is cached chunk by chunk as it goes.
SAVE_CHUNK = 2048


class Indexer:
    """Owns the index of one workspace for one process (a writer, or a warm reader)."""

    def __init__(self, ws: Workspace, config: Config, embedder: Embedder) -> None:
        self.ws = ws
        self.config = config
        self.embedder = embedder
        self.db = IndexDB(ws.state / "index.sqlite3")
        self._sidecar: HnswSidecar | None = None
        self._sidecar_gen = -1
        self._embedder_checked = False
        self._pending_reembed = False  # the embedder changed before the first sync noticed
        self._chasing = 0  # depth of syncs re-reading files that hold a freed copy (index/shadows.py)
        #: Text hashes an ingest embeds after the write (memfs.pipeline.vecfill): left out here.
        self.deferred: set[str] = set()

    def close(self) -> None:
        self.db.close()

    # -- embedder bookkeeping ------------------------------------------------
    def _embedder_changed(self) -> bool:
        """True (and the cache cleared) when the recorded embedder differs from ours.

        Checked before the cache is first used by this process (embed_texts) as well as
        by sync, so vectors cached by an ingest's dedupe step are never wiped afterwards."""
        recorded = self.db.get_meta("embedder")
        if recorded == self.embedder.name:
            return False
        with self.db.transaction() as c:
            c.execute("DELETE FROM embeddings")
            self.db.set_meta("embedder", self.embedder.name)
            self.db.set_meta("embedder_dim", str(self.embedder.dim))
            self.db.set_meta("hnsw_generation", "0")
        HnswSidecar(self.ws.state, self.embedder.dim or 1, self.embedder.name).remove_files()
        self._sidecar = None
        return recorded is not None

    def embed_texts(self, by_hash: dict[str, str], progress: Callable[..., None] | None = None,
                    ) -> tuple[dict[str, np.ndarray], list[tuple[str, np.ndarray]]]:
        """Vectors for these texts: cached ones from SQLite, the rest embedded in one batch
        (in chunks when someone watches `progress`: a rebuild's embedding is most of its time).

        Returns (all vectors by text hash, the freshly computed pairs to cache)."""
        if not self._embedder_checked:
            self._pending_reembed = self._embedder_changed() or self._pending_reembed
            self._embedder_checked = True
        hashes = list(by_hash)
        have = self.db.cached_vectors(hashes)
        missing = [h for h in hashes if h not in have and h not in self.deferred]
        fresh: list[tuple[str, np.ndarray]] = []
        # A cold build over 10,000 notes embeds for many minutes: past SAVE_CHUNK texts each
        # chunk goes into the cache as it is done, so a build that is stopped resumes from
        # there (the cache is keyed by content; readers never see it as items).
        save_early = len(missing) > SAVE_CHUNK and not self.db.conn.in_transaction
        step = EMBED_CHUNK if progress else SAVE_CHUNK if save_early else max(1, len(missing))
        for start in range(0, len(missing), step):
            chunk = missing[start:start + step]
            # Rounded as the cache stores them (int8, memfs.index.quant): the same fresh or cached.
            vecs = quant.round_trip(np.asarray(self.embedder.embed([by_hash[h] for h in chunk])))
            fresh.extend(zip(chunk, vecs))
            if save_early:
                with self.db.transaction():
                    self.db.store_vectors(zip(chunk, vecs))
            if progress:
                progress(start + len(chunk), len(missing), unit="texts embedded")
        have.update(fresh)
        return have, fresh

    def embed_cached(self, texts: list[str]) -> np.ndarray:
        """Vectors for `texts` in order, through the embedding cache (by content hash);
        the fresh ones are stored. Category descriptions use this (Categorizer)."""
        by_hash = {text_hash(t): t for t in texts}
        vectors, fresh = self.embed_texts(by_hash)
        if fresh:
            if self.db.conn.in_transaction:
                self.db.store_vectors(fresh)
            else:
                with self.db.transaction():
                    self.db.store_vectors(fresh)
        return np.stack([vectors[text_hash(t)] for t in texts]).astype(np.float32, copy=False)

    # -- the sync ---------------------------------------------------------------
    def sync(self, rebuild: bool = False, progress: Callable[..., None] | None = None,
             only: list[str] | None = None) -> SyncReport:
        t0 = time.perf_counter()
        if only is not None and not rebuild:
            from memfs.index.delta import apply_deltas

            quick = apply_deltas(self, only)  # files the store just spliced: their changed items only
            if quick is not None:
                postings_sync.maintain(self.db, self.ws.state)  # a delta's rows count towards a rebuild too
                return quick
        report = SyncReport()
        if rebuild:
            # Built beside the old index and swapped in one commit: the old rows are deleted
            # in the same transaction that inserts the new ones, so a reader (or a crash, which
            # rolls the transaction back) sees the old index or the new one, never an empty one.
            quick_check(self.db.conn)  # the person asked for a rebuild: read every page first
            self._sidecar = None
        reembed = self._embedder_changed() or self._pending_reembed
        self._embedder_checked, self._pending_reembed = True, False
        report.reembedded_all = reembed

        stats = {} if rebuild else self.db.file_stats()
        irregular: list[str] = []
        rels = self.ws.category_rels(irregular)
        report.warnings.extend(f"{rel}: not a regular file (a FIFO, socket, device or folder); skipped"
                               for rel in sorted(irregular) if only is None or rel in only)
        if only is not None:
            wanted = set(only)
            rels = [r for r in rels if r in wanted]
        present = set(rels)
        report.files_seen = len(rels)
        parsed: list[_Parsed] = []
        stat_only: list[tuple[str, int, int]] = []
        root = str(self.ws.root)
        for n, rel in enumerate(rels):
            if progress and n % 500 == 0:
                progress(n, len(rels))
            try:
                st = os.stat(f"{root}/{rel}")
            except FileNotFoundError:
                continue
            old = stats.get(rel)
            if old and old[0] == st.st_size and old[1] == st.st_mtime_ns:
                continue
            path = self.ws.root / rel
            try:
                if old and file_digest(read_regular(path)) == old[2]:
                    # Unchanged bytes (a touch, or a stat recorded in its tick): no parse.
                    stat_only.append((rel, st.st_size, recorded_mtime(st)))
                    continue
                doc, data = read_category(path, rel)
            except OSError as err:
                report.warnings.append(f"{rel}: cannot read ({err.strerror})")
                continue
            digest = file_digest(data)
            if old and old[2] == digest:
                stat_only.append((rel, st.st_size, recorded_mtime(st)))
                continue
            parsed.append(_Parsed(rel, st.st_size, recorded_mtime(st), digest, doc, doc.front_raw.count("\n")))
            report.warnings.extend(doc.warnings)
        if progress:
            progress(len(rels), len(rels))
        indexed = set(self.db.file_stats()) if rebuild else set(stats)
        scope = indexed if only is None else set(only) & indexed
        removed_files = sorted(scope - set(present))
        report.files_parsed = len(parsed)
        report.files_removed = len(removed_files)

        plan = self._plan(parsed, removed_files, report, rebuild)
        prose = plan_passages(self.db, [(p.rel, p.doc, p.front_lines) for p in parsed], removed_files, rebuild)
        report.passages_added, report.passages_removed = prose.added, prose.removed
        for h, text in prose.need_vectors.items():
            plan.need_vectors.setdefault(h, text)
        if reembed:
            for row in self.db.all_items():
                plan.need_vectors.setdefault(text_hash(row.text), row.text)
            for h, text in all_passage_texts(self.db).items():
                plan.need_vectors.setdefault(h, text)
        vectors, fresh = self._embed_for_sync(plan.need_vectors, report, progress)
        chase = shadows.to_reread(self.db, plan.freed_ids, {p.rel for p in parsed} | set(removed_files))

        with self.db.transaction() as c:
            if fresh:
                self.db.store_vectors(fresh)
            if rebuild:
                clear_all(c)
            for rel, size, mtime in stat_only:
                c.execute("UPDATE files SET size=?, mtime_ns=? WHERE path=?", (size, mtime, rel))
            if plan.delete_labels:
                c.executemany("DELETE FROM items WHERE label=?", [(lab,) for lab in plan.delete_labels])
            write_item_rows(c, plan.updates, plan.inserts)
            apply_passages(c, prose)
            for p in parsed:
                front = p.doc.front
                write_file_row(c, (
                    p.rel, p.size, p.mtime_ns, p.digest, p.doc.kind, opt_str(front.get("title")),
                    opt_str(front.get("description")), opt_str(front.get("summary")) or extractive_summary(p.doc.items),
                    newest_stamp(p.doc.items) or opt_str(front.get("updated")),
                    len(p.doc.items), "\n".join(p.doc.warnings), prose.counts.get(p.rel, 0)))
            c.executemany("DELETE FROM files WHERE path=?", [(r,) for r in removed_files])
            shadows.forget_paths(c, [p.rel for p in parsed] + removed_files)
            shadows.record(c, plan.shadowed)
            shadows.mark_stale(c, chase)
            if report.changed:  # the root files are views of this version (views.py)
                self.db.set_meta("index_version", str(int(self.db.get_meta("index_version") or 0) + 1))
        if prose.inserts:
            plan.passage_labels = pending_labels(self.db, prose)
        # What was parsed is written: dropped before the graph is built, so a cold build's
        # peak is the larger of the two phases, not their sum (memfs.index.sidecar_build).
        del parsed, prose, fresh
        plan.inserts, plan.updates, plan.need_vectors = [], [], {}
        self._update_sidecar(plan, vectors, rebuild_all=reembed or rebuild)
        postings_sync.maintain(self.db, self.ws.state)  # BM25 postings: rebuilt when the delta grew
        if compact_due(self.db, report.items_added + report.passages_added, cold=rebuild or not stats):
            compact(self.db)  # a cold build leaves b-tree pages ~70 % full (memfs.index.compact)
        shadows.reread(self, chase, report)
        report.seconds = time.perf_counter() - t0
        return report

    def _embed_for_sync(self, by_hash: dict[str, str], report: SyncReport, progress: Callable[..., None] | None,
                        ) -> tuple[dict[str, np.ndarray], list[tuple[str, np.ndarray]]]:
        """`embed_texts`, except that a big run (past SAVE_CHUNK texts to embed, outside a
        transaction) is streamed into the cache and nothing is kept: ({}, [])."""
        if not by_hash:
            return {}, []
        if len(by_hash) > SAVE_CHUNK and not self.db.conn.in_transaction:
            if not self._embedder_checked:
                self._pending_reembed = self._embedder_changed() or self._pending_reembed
                self._embedder_checked = True
            missing = [h for h in uncached(self.db, list(by_hash)) if h not in self.deferred]
            if len(missing) > SAVE_CHUNK:
                report.embedded = embed_into_cache(self.db, self.embedder.embed, by_hash, missing,
                                                   EMBED_CHUNK if progress else SAVE_CHUNK, progress)
                return {}, []
        vectors, fresh = self.embed_texts(by_hash, progress)
        report.embedded = len(fresh)
        return vectors, fresh

    def _plan(self, parsed: list[_Parsed], removed_files: list[str], report: SyncReport,
              rebuild: bool = False) -> _Plan:
        plan = _Plan()
        in_scope = {p.rel for p in parsed} | set(removed_files)
        new_ids: dict[str, tuple[_Parsed, int]] = {}
        for p in parsed:
            for idx, slot in enumerate(p.doc.slots):
                if slot.removed:
                    continue
                if slot.item.id in new_ids:
                    other = new_ids[slot.item.id][0].rel
                    report.warnings.append(f"{p.rel}:{(slot.start or 0) + p.front_lines + 1}: item id {slot.item.id} "
                                           f"is also in {other}; this copy is not indexed")
                    plan.shadowed.append((slot.item.id, p.rel))
                    continue
                new_ids[slot.item.id] = (p, idx)
        existing = {} if rebuild else self.db.items_by_ids(new_ids)  # a rebuild inserts every row anew
        contexts = ContextResolver(self.ws.root)
        for item_id, (p, idx) in new_ids.items():
            slot = p.doc.slots[idx]
            item = slot.item
            line = (slot.start or 0) + p.front_lines + 1
            old = existing.get(item_id)
            if old is not None and old.path != p.rel and old.path not in in_scope:
                report.warnings.append(f"{p.rel}:{line}: item id {item_id} is also in {old.path}; "
                                       "this copy is not indexed")
                plan.shadowed.append((item_id, p.rel))
                continue
            h = text_hash(item.text)
            row = (p.rel, category_of(p.rel), p.doc.kind, item.type, item.text, item.when, item.src, item.seen,
                   item.updated, line, h, item.extra.get("until") or None, item.extra.get("superseded_by") or None)
            if old is None:
                plan.inserts.append((item_id, *row, contexts.context(item.src, item.when)))
                plan.need_vectors[h] = item.text
                plan.vector_labels.add(item_id)
                report.items_added += 1
            elif _row_tuple(old) != row:
                fresh_context = (contexts.context(item.src, item.when)
                                 if (old.src, old.when) != (item.src, item.when) else None)
                plan.updates.append((*row, fresh_context, item_id))
                if old.text != item.text:
                    plan.need_vectors[h] = item.text
                    plan.vector_labels.add(item_id)
                if (old.path, old.text, old.type, old.when, old.src, old.seen, old.updated) != (
                        p.rel, item.text, item.type, item.when, item.src, item.seen, item.updated):
                    report.items_updated += 1
        if in_scope and not rebuild:
            marks = ",".join("?" * len(in_scope))
            for label, item_id in self.db.conn.execute(
                    f"SELECT label, id FROM items WHERE path IN ({marks})", sorted(in_scope)):
                if item_id not in new_ids:
                    plan.delete_labels.append(int(label))
                    plan.freed_ids.append(item_id)
                    report.items_removed += 1
        return plan

    # -- vectors ------------------------------------------------------------------
    def _update_sidecar(self, plan: _Plan, vectors: dict[str, np.ndarray], rebuild_all: bool) -> None:
        """Keep vector search fast past the exact-search size without rewriting the sidecar often.

        New and changed vectors go to `vec_pending` (searched exactly beside the sidecar);
        only when that delta outgrows `PENDING_MAX` is the sidecar updated and saved.
        Deleted items need nothing: readers filter hits through their SQLite snapshot."""
        count = self.db.count_vectors()
        threshold = self.config.recall.exact_search_max
        generation = int(self.db.get_meta("hnsw_generation") or 0)
        if count < threshold:
            if generation or (self.ws.state / "vectors.hnsw").exists():
                HnswSidecar(self.ws.state, self.embedder.dim, self.embedder.name).remove_files()
                with self.db.transaction() as c:
                    self.db.set_meta("hnsw_generation", "0")
                    c.execute("DELETE FROM vec_pending")
            self._sidecar = None
            return
        current = generation > 0 and sidecar_generation(self.ws.state) == generation
        # The previous layout (one graph node per label, duplicates and all) is rebuilt once,
        # from the cached vectors: nothing is embedded again.
        if current and not rebuild_all and sidecar_format(self.ws.state) == OLD_SIDECAR:
            heal.notice(f"memfs: note: {self.ws.state.name}/vectors.hnsw has the previous layout; "
                        "rebuilding its graph from the cached vectors (nothing is embedded again)")
            rebuild_all = True
        if current and not rebuild_all:
            if plan.vector_labels or plan.passage_labels:
                rows = self.db.items_by_ids(plan.vector_labels)
                with self.db.transaction() as c:
                    c.executemany("INSERT OR IGNORE INTO vec_pending(label) VALUES(?)",
                                  [(r.label,) for r in rows.values()] + [(lab,) for lab in plan.passage_labels])
            pending = int(self.db.conn.execute("SELECT count(*) FROM vec_pending").fetchone()[0])
            # graph/3 (arrays not narrowed) is loaded and saved again once: same graph, smaller file.
            if pending <= PENDING_MAX and sidecar_format(self.ws.state) == SIDECAR_FORMAT:
                return
        sidecar = self._sidecar if (self._sidecar is not None and self._sidecar_gen == generation) else None
        if sidecar is None and current and not rebuild_all:
            candidate = HnswSidecar(self.ws.state, self.embedder.dim, self.embedder.name,
                                    self.config.recall.hnsw_m, self.config.recall.hnsw_ef_construction)
            sidecar = candidate if candidate.load(self.db) else None
            if sidecar is None:
                heal.notice(f"memfs: note: {self.ws.state.name}/vectors.hnsw could not be read; "
                            "rebuilding it from the cached vectors")
        if sidecar is None or rebuild_all:
            sidecar = HnswSidecar(self.ws.state, self.embedder.dim, self.embedder.name,
                                  self.config.recall.hnsw_m, self.config.recall.hnsw_ef_construction)
            rebuild_streaming(sidecar, self.db)  # chunk by chunk from the cache, not one matrix
        else:  # fold the pending delta into the sidecar
            labels, mat = self.db.labeled_vectors(pending_only=True)
            if len(labels):
                sidecar.upsert([int(x) for x in labels], mat)
            live = {int(r[0]) for r in self.db.conn.execute(
                f"SELECT label FROM items UNION ALL SELECT label + {PASSAGE_LABEL_BASE} FROM passages")}
            sidecar.delete(sorted(sidecar.labels - live))
        sidecar.save(generation + 1)
        with self.db.transaction() as c:
            self.db.set_meta("hnsw_generation", str(generation + 1))
            c.execute("DELETE FROM vec_pending")
        self._sidecar, self._sidecar_gen = sidecar, generation + 1


def _row_tuple(r: ItemRow) -> tuple:
    return (r.path, r.category, r.kind, r.type, r.text, r.when, r.src, r.seen, r.updated, r.line,
            text_hash(r.text), r.until, r.superseded_by)
