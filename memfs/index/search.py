"""Hybrid item recall: BM25 and vector hits fused (memfs.index.fusion), then weighted by salience.

All reads of one query happen inside one SQLite read transaction, so the answer is
consistent even while a writer commits; vector hits are filtered through that snapshot.
"""

from __future__ import annotations

import math
import threading
import time
from bisect import insort
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

import numpy as np

from memfs.core.salience import salience
from memfs.core.stamps import age_days
from memfs.index.bm25fast import FastBM25
from memfs.index.bm25prune import TermStats, bm25_items
from memfs.index.db import IndexDB, ItemRow, fts_query
from memfs.index.fusion import fuse, rrf  # noqa: F401  (rrf: imported from here by callers)
from memfs.index.qcache import CachingEmbedder
from memfs.index.vcache import VectorCopy
from memfs.index.passages import PASSAGE_LABEL_BASE
from memfs.core.stamps import stamp_range
from memfs.index.intent import INTENT_BOOST, fills, intent_of
from memfs.index.present import DEFAULT_WINDOW, is_present_query
from memfs.index.vectors import HnswSidecar, exact_search, exact_search_scores
from memfs.providers.embedding import Embedder

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    # Types only: a cold reader gets these sections from memfs.configsnap, without pydantic.
    from memfs.config import RecallConfig
    from memfs.index.timefilter import TimeFilter


@dataclass
class Hit:
    row: ItemRow
    score: float
    bm25_rank: int | None = None
    vector_rank: int | None = None


@dataclass
class SearchResult:
    hits: list[Hit]
    timings_ms: dict[str, float] = field(default_factory=dict)
    mode: str = "exact"


def salience_factor(row: ItemRow, cfg: RecallConfig, today: date) -> float:
    """core.salience with `[recall]`'s weights, aged from the item's last touch (or its date)."""
    return salience(row.seen, age_days(row.updated or row.when, today), cfg.recency_half_life_days,
                    cfg.reinforcement_weight, cfg.recency_weight)


#: For a query about the present ("where does Priya live now"), how fast an item loses
#: weight with its distance from the newest candidate (not from the wall clock: an
#: archive of 2023 chats still has a "now" — its latest facts).
PRESENT_HALF_LIFE_DAYS = 90.0
#: Queries whose BM25 hits a Searcher keeps (dropped whenever the database changes).
BM25_CACHE_SIZE = 256
PRESENT_WEIGHT = 0.5


def present_factor(when: str | None, newest: date | None) -> float:
    span = stamp_range(when)
    if span is None or newest is None:
        return 1.0
    age = max(0.0, float((newest - span[1]).days))
    return (1.0 - PRESENT_WEIGHT) + PRESENT_WEIGHT * 0.5 ** (age / PRESENT_HALF_LIFE_DAYS)


class Searcher:
    """Keeps what is worth keeping between queries of one process: the loaded embedder,
    the exact-search matrix (until the database changes) and the hnsw sidecar."""

    def __init__(self, db: IndexDB, embedder: Embedder, state_dir, cfg: RecallConfig) -> None:  # type: ignore[no-untyped-def]
        self.db = db
        # Repeated queries (an agent re-asking each turn) skip the embedding.
        self.embedder = embedder if isinstance(embedder, CachingEmbedder) else CachingEmbedder(embedder)
        self.state_dir = state_dir
        self.cfg = cfg
        self._matrix_version: tuple[int, int, int] | None = None
        self._labels = np.zeros(0, dtype=np.int64)
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._sidecar: HnswSidecar | None = None
        self._sidecar_gen: int | None = None
        self._pending_version: tuple[int, int, int] | None = None
        self._pending_labels = np.zeros(0, dtype=np.int64)
        self._pending_matrix = np.zeros((0, 0), dtype=np.float32)
        self._pending_set: set[int] = set()
        self._all, self._pending = VectorCopy(), VectorCopy(pending_only=True)
        self._executor: ThreadPoolExecutor | None = None
        self._count_version: tuple[int, int, int] | None = None
        self._bm_version: tuple[int, int, int] | None = None
        self._bm_cache: dict[tuple[str, int], list[tuple[int, float]]] = {}
        self._count_cache = 0
        self._terms = TermStats()  # row counts of the query's words, per data version
        self._fast = FastBM25(state_dir)  # the postings sidecar's exact BM25 (FTS5 when it cannot)
        #: Score items' BM25 from the postings sidecar when it can (False: always FTS5).
        self.fast_bm25 = True
        #: Read every fused candidate's row (the reference the early stop is tested against).
        self.full_fuse = False

    def _load_vectors(self, count: int) -> bool:
        """Load what the dense stage needs, if not loaded or stale: the hnsw sidecar (True)
        or, below `exact_search_max` or without a sidecar, the exact-search matrix (False)."""
        if count >= self.cfg.exact_search_max:
            gen = int(self.db.get_meta("hnsw_generation") or 0)
            if self._sidecar is None or self._sidecar_gen != gen:
                sidecar = HnswSidecar(self.state_dir, self.embedder.dim, self.embedder.name)
                if sidecar.load(self.db):  # the graph's vectors: this snapshot's
                    self._sidecar, self._sidecar_gen = sidecar, gen
            if self._sidecar is not None:
                return True
        # Exact: cached matrix, reloaded when any connection committed since.
        version = self._db_version()
        if self._matrix_version != version:
            self._all.refresh(self.db)  # by difference: only new or changed vectors are read
            self._labels, self._matrix = self._all.labels, self._all.matrix
            self._matrix_version = version
        return False

    def preload(self) -> None:
        """Load the vectors now (a cold process does this while the model loads: onnxruntime
        builds its session without the GIL), so the first query does not wait for both."""
        with self.db.snapshot():
            self._load_vectors(self._count())

    def _prepare_dense(self, count: int) -> bool:
        """The dense stage's reads (SQL: this thread, inside the snapshot): the sidecar or the
        exact matrix, and for the sidecar the pending vectors. True: search the sidecar."""
        if not self._load_vectors(count):
            return False
        version = self._db_version()
        if self._pending_version != version:
            self._pending.refresh(self.db)
            self._pending_labels, self._pending_matrix = self._pending.labels, self._pending.matrix
            self._pending_set = set(int(x) for x in self._pending_labels)
            self._pending_version = version
        return True

    def _dense_search(self, qv: np.ndarray, hnsw: bool, limit: int) -> tuple[list[tuple[int, float]], str]:
        """The dense stage over what `_prepare_dense` loaded: no SQL, so it may run on the
        embedding thread while this one runs BM25."""
        if hnsw:
            return self._hnsw_with_pending(qv, limit), "hnsw"
        if self._matrix.shape[0] and self._matrix.shape[1] != qv.shape[0]:
            return [], "exact"
        return exact_search(qv, self._labels, self._matrix, limit), "exact"

    def _dense(self, qv: np.ndarray, count: int, limit: int) -> tuple[list[tuple[int, float]], str]:
        return self._dense_search(qv, self._prepare_dense(count), limit)

    def _bm25(self, query: str, limit: int) -> list[tuple[int, float]]:
        """Items' and passages' BM25 hits, cached until the database changes: scoring every
        matching row is most of a query at 10^5 items (~8 ms for ~10^4 rows matching common
        words), and an agent re-asks the same question turn after turn. Keyed by the FTS5
        expression the query becomes (both rankers search only that), so a rewording with
        the same content words ("What does Sam drink?", "what does sam drink") hits too."""
        version = self._db_version()
        if self._bm_version != version:
            self._bm_cache.clear()
            self._bm_version = version
        key = (fts_query(query) or "", limit)
        found = self._bm_cache.get(key)
        if found is None:
            items = self._fast.ranked(self.db, query, limit, version) if self.fast_bm25 else None
            if items is None:
                items = bm25_items(self.db, query, limit, self._terms.at(version))
            found = with_passages_bm25(self.db, query, limit, items)
            if len(self._bm_cache) >= BM25_CACHE_SIZE:
                self._bm_cache.pop(next(iter(self._bm_cache)))
            self._bm_cache[key] = found
        return found

    def _count(self) -> int:
        """count_vectors, cached until the database changes: `count(*)` walks the whole items
        b-tree (~1.5 ms of a ~10 ms query at 10^5 items)."""
        version = self._db_version()
        if self._count_version != version:
            self._count_cache, self._count_version = self.db.count_vectors(), version
        return self._count_cache

    def _pool(self) -> ThreadPoolExecutor:
        if self._executor is None:
            from concurrent.futures import ThreadPoolExecutor  # only a query that embeds needs it

            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memfs-embed")
        return self._executor

    def _hnsw_with_pending(self, qv: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """Sidecar hits (minus stale vectors of pending items) merged with exact pending hits
        (loaded by `_prepare_dense`)."""
        assert self._sidecar is not None
        hits = self._sidecar.search(qv, limit + min(len(self._pending_set), limit), self.cfg.hnsw_ef)
        merged = [h for h in hits if h[0] not in self._pending_set]
        merged += exact_search(qv, self._pending_labels, self._pending_matrix, limit)
        merged.sort(key=lambda h: -h[1])
        return merged[:limit]

    def _rank(self, fused: dict[int, float], bm_rank: dict[int, int], vec_rank: dict[int, int], k: int,
              types: set[str] | None, categories: set[str] | None, window: "TimeFilter", today: date,
              everything: bool, lift: float = 1.0) -> list[Hit]:
        """The fused candidates as hits, best first (ties by id). Rows are read in fused order,
        a few at a time, and reading stops once the next candidate's fused score times the
        largest salience factor any row can have cannot beat the k-th hit kept: reading all
        ~200 candidates' rows was ~2 ms of CPU per query at 10^5 items, for a top 10.
        `everything` reads them all (a present-tense query rescales by the newest hit); `lift`
        is the most a later factor may multiply a hit by (index/intent.py), so reading stops
        only where even a lifted candidate could not reach the top k."""
        cfg = self.cfg
        order = sorted(fused.items(), key=lambda kv: -kv[1])
        # salience_factor <= 1 + w_r·ln(seen) (its decay term is at most 1); passages seen 1.
        top_seen = max(1, int(self.db.conn.execute("SELECT max(seen) FROM items").fetchone()[0] or 1))
        bound = (1.0 + cfg.reinforcement_weight * math.log(top_seen)) * (1.0 + 1e-9)
        hits: list[Hit] = []
        scores: list[float] = []  # kept hits' scores, descending
        at, step = 0, max(2 * k, 16)
        while at < len(order):
            if not everything and len(scores) >= k and order[at][1] * bound * lift < -scores[k - 1]:
                break
            batch = [lab for lab, _ in order[at:at + step]]
            at, step = at + step, step * 2
            rows = self.db.items_by_labels(batch)
            rows.update(self.db.passages_by_labels(batch))
            # A line superseded by an item that is gone (a person deleted the newer, wrong
            # fact) is current again.
            newer = {r.superseded_by for r in rows.values() if r.superseded_by}
            alive = set(self.db.items_by_ids(newer)) if newer else set()
            for label in batch:
                row = rows.get(label)
                if row is None:  # a vector for an item this snapshot no longer has
                    continue
                if types and row.type not in types:
                    continue
                if categories and row.category not in categories:
                    continue
                gone = row.superseded_by is not None and row.superseded_by not in alive
                if not window.keep(row.when, None if gone else row.until, None if gone else row.superseded_by):
                    continue
                score = fused[label] * salience_factor(row, cfg, today)
                hits.append(Hit(row, score, bm_rank.get(label), vec_rank.get(label)))
                insort(scores, -score)
        return hits

    def _db_version(self) -> tuple[int, int, int]:
        """Changes whenever the database may have: data_version counts commits by *other*
        connections, total_changes this connection's own; both restart on a new connection
        (the index reopened after a rebuild swapped it), so the connection is part of it."""
        conn = self.db.conn
        dv = int(conn.execute("PRAGMA data_version").fetchone()[0])
        return (id(conn), dv, conn.total_changes)

    def nearest(self, vectors: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
        """Top-k existing items for each row of `vectors` (near-duplicate detection)."""
        if vectors is None or len(vectors) == 0:
            return []
        with self.db.snapshot():
            count = self.db.count_vectors()
            if count == 0:
                return [[] for _ in range(len(vectors))]
            if count < self.cfg.exact_search_max and not self._load_vectors(count):
                if self._matrix.shape[0] and self._matrix.shape[1] == vectors.shape[1]:
                    # One matrix product for the whole batch (an ingest's facts), not one per fact.
                    scores = self._matrix @ np.asarray(vectors, dtype=np.float32).T
                    # Items only: a person's prose is searched, never merged into (invariant 5).
                    scores[self._labels >= PASSAGE_LABEL_BASE, :] = -np.inf
                    return [[h for h in exact_search_scores(self._labels, scores[:, j], k) if h[1] > -np.inf]
                            for j in range(scores.shape[1])]
            return [[h for h in self._dense(v, count, k + 8)[0] if h[0] < PASSAGE_LABEL_BASE][:k]
                    for v in vectors]

    def search(self, query: str, k: int, types: set[str] | None = None, categories: set[str] | None = None,
               today: date | None = None, window: TimeFilter | None = None) -> SearchResult:
        """Top-k items for `query`. `window` filters on `when` and decides whether superseded
        items (history) count; by default they do not."""
        cfg = self.cfg
        window = window or DEFAULT_WINDOW  # type: ignore[assignment]
        today = today or date.today()
        timings: dict[str, float] = {}

        def embed() -> np.ndarray:
            t0 = time.perf_counter()
            vec = self.embedder.embed([query])[0]
            timings["embed"] = (time.perf_counter() - t0) * 1000
            return vec

        def dense(vec: np.ndarray | None) -> tuple[list[tuple[int, float]], str]:
            qv = embed() if vec is None else vec
            ready.wait()  # the vectors are loaded (or the load failed) on the calling thread
            if failed:
                return [], "exact"
            t0 = time.perf_counter()
            found = self._dense_search(qv, hnsw, limit)
            timings["vector"] = (time.perf_counter() - t0) * 1000
            return found

        # The query embedding and then the dense search run on a worker while this thread
        # runs BM25: onnxruntime, hnswlib/numpy and SQLite all release the GIL, so the query
        # costs about max(embed + vector, bm25), not their sum. The worker touches no SQL:
        # the vectors are loaded here first. A cached vector needs no worker (handing work
        # to one costs more than the lookup).
        ready, failed, hnsw = threading.Event(), False, False
        cached = self.embedder.peek(query)
        pending = None if cached is not None else self._pool().submit(dense, None)
        limit = max(cfg.candidates, k) * (3 if window.since or window.until or window.as_of else 1)
        try:
            with self.db.snapshot():
                try:
                    t = time.perf_counter()
                    hnsw = self._prepare_dense(self._count())
                    timings["load"] = (time.perf_counter() - t) * 1000
                except BaseException:
                    failed = True
                    raise
                finally:
                    ready.set()
                t = time.perf_counter()
                bm = self._bm25(query, limit)
                timings["bm25"] = (time.perf_counter() - t) * 1000
                dense_hits, mode = dense(cached) if pending is None else pending.result()
                t = time.perf_counter()
                fused = fuse(bm, dense_hits, cfg)
                bm_rank = {lab: i for i, (lab, _) in enumerate(bm, start=1)}
                vec_rank = {lab: i for i, (lab, _) in enumerate(dense_hits, start=1)}
                present = is_present_query(query) and not window.history and not window.as_of
                asked = intent_of(query)
                hits = self._rank(fused, bm_rank, vec_rank, k, types, categories, window, today,
                                  everything=present or self.full_fuse, lift=1.0 if asked is None else INTENT_BOOST)
        finally:
            if pending is not None and not pending.done():
                pending.result()  # never leave the worker searching after an error here
        if present:
            ends = [span[1] for span in (stamp_range(h.row.when) for h in hits) if span is not None]
            newest = max(ends) if ends else None
            for h in hits:
                h.score *= present_factor(h.row.when, newest)
        if asked is not None:  # "where does Priya live": the facts that fill that slot (index/intent.py)
            for h in hits:
                if fills(asked, h.row.text):
                    h.score *= INTENT_BOOST
        hits.sort(key=lambda h: (-h.score, h.row.id))
        timings["fuse"] = (time.perf_counter() - t) * 1000
        return SearchResult(hits[:k], timings, mode)


def with_passages_bm25(db: IndexDB, query: str, limit: int, items: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """Item and passage BM25 hits as one ranking (by score), so prose and list lines compete
    in the same fusion rather than each getting a ranker of its own."""
    prose = db.bm25_passages(query, limit)
    if not prose:
        return items
    return sorted(items + prose, key=lambda h: -h[1])[:limit]
