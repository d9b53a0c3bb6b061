"""BM25 over items scored in numpy from the postings sidecar, bit-identical to FTS5's `bm25()`.

fts5Bm25Function (SQLite's fts5_aux.c) scores a row, for the query's phrases i in order,

    score = sum_i idf_i * (f_i (k1 + 1)) / (f_i + k1 (1 - b + b D / avgdl))

with k1 = 1.2, b = 0.75, f_i the phrase's instances in the row each weighted by its column's
weight (summed one instance at a time), D the row's tokens over all columns, avgdl the
total tokens over the rows, and idf_i = log((N - n_i + 0.5) / (n_i + 0.5)) (1e-6 if not
positive) for the n_i rows it matches. The same float64 operations in the same order give
the same doubles, so the same ranking; ties go to the lower label, as FTS5's sort gives
them (tests/test_bm25_fast.py checks both against FTS5 on random corpora and queries).

The sidecar is one snapshot; rows written since are in `bm25_changed`: their sidecar
postings are masked and their current text tokenized by FTS5's own tokenizer
(memfs.index.ftstok), with N, the token total and the row sizes read from FTS5's shadow
tables, so every query is scored against the index as it is in the reader's snapshot.
Whenever that cannot be done exactly (no sidecar, another generation, a phrase of several
tokens, a delta past MAX_DELTA, totals that do not add up) `ranked` returns None and the
caller asks FTS5.
"""

from __future__ import annotations

import functools
import math
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from memfs.index.db import IndexDB, fts_query
from memfs.index.ftstok import Tokenizer, doc_sizes, totals, weighted_freq
from memfs.index.postings import WEIGHTS, Postings, PostingsError, load

K1 = 1.2
B = 0.75
#: Changed rows tokenized per data version at most; past it FTS5 answers until a sync rebuilds.
MAX_DELTA = 20_000
#: Postings whose per-row factor one view keeps (float64 + the row array: ~12 bytes each).
MAX_PARTS = 2_000_000


@dataclass
class _View:
    """The sidecar as of one data version: masks for changed rows, the delta's postings."""

    post: Postings
    nrow: int
    lk: np.ndarray  # k1 * (1 - b + b * D / avgdl) per sidecar row
    removed: np.ndarray  # bool per sidecar row: changed since the snapshot
    any_removed: bool
    removed_idx: np.ndarray
    delta_labels: np.ndarray  # int64
    delta_lk: np.ndarray
    delta_index: dict[str, dict[int, float]]  # term -> {label: f} over the delta rows (FastBM25's)
    #: Score buffers, kept zero between queries (a fresh 0.8 MB array per query cost more
    #: in page faults than the scoring: ~0.6 ms at 10^5 rows).
    scores: np.ndarray = field(default_factory=lambda: np.zeros(0))
    delta: np.ndarray = field(default_factory=lambda: np.zeros(0))
    #: term -> (rows, n, f (k1 + 1) / (f + k1 (1 - b + b D / avgdl))) of the sidecar's rows:
    #: everything but the idf, which is one multiplication (the same operands, so exact).
    parts: dict[str, tuple[np.ndarray, int, np.ndarray]] = field(default_factory=dict)
    parts_size: int = 0
    dparts: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)  # term -> (delta rows, f)


def _idf(nrow: int, n: int) -> float:
    value = math.log((nrow - n + 0.5) / (n + 0.5))
    return value if value > 0.0 else 1e-6


def _phrases(q: str) -> list[str]:
    """fts_query's quoted words, unquoted."""
    return [p[1:-1].replace('""', '"') for p in q.split(" OR ")]


def _top(labels: np.ndarray, scores: np.ndarray, limit: int) -> list[tuple[int, float]]:
    """Best `limit` by score, ties by label (FTS5's order)."""
    if len(scores) > limit:
        kth = np.partition(scores, len(scores) - limit)[len(scores) - limit]
        keep = scores >= kth
        labels, scores = labels[keep], scores[keep]
    order = np.lexsort((labels, -scores))[:limit]
    return [(int(labels[i]), float(scores[i])) for i in order]


class FastBM25:
    """Loads the sidecar once per generation and one _View per data version."""

    def __init__(self, state: Path) -> None:
        self.state = Path(state)
        self.tokenizer = Tokenizer()
        self._post: Postings | None = None
        self._failed_gen: int | None = None
        self._version: object = None
        self._view: _View | None = None
        self._lock = threading.Lock()
        #: label -> ((text, category, context), FTS5 size, [(term, weighted frequency)]): a
        #: changed row tokenized once, not once per data version.
        self._delta_cache: dict[int, tuple[tuple[str, str, str], int, list[tuple[str, float]]]] = {}
        #: term -> {label: f} over the delta rows, kept in step with _delta_cache (so a new data
        #: version costs the rows that changed since the last, not the whole delta).
        self._dindex: dict[str, dict[int, float]] = {}

    def ranked(self, db: IndexDB, query: str, limit: int, version: object) -> list[tuple[int, float]] | None:
        """`db.bm25(query, limit)` from the sidecar, or None: ask FTS5 (module docstring)."""
        q = fts_query(query)
        if q is None or limit <= 0:
            return None
        terms: list[str] = []
        for word in _phrases(q):
            tokens = self.tokenizer.tokens(word)
            if len(tokens) != 1:
                return None  # a phrase of several tokens (or none) matches by position: FTS5's job
            terms.append(tokens[0])
        with self._lock:  # the view's buffers are shared: one query scores at a time (~1 ms)
            view = self._current(db, version)
            return None if view is None else self._score(view, terms, limit)

    def _part(self, view: _View, term: str) -> tuple[np.ndarray, int, np.ndarray] | None:
        """The term's sidecar rows, its current row count and its per-row factor (cached per view)."""
        found = view.parts.get(term)
        if found is None:
            got = view.post.postings(term)
            if got is None:
                return None
            idx, f = got
            n = len(idx) - (int(np.count_nonzero(view.removed[idx])) if view.any_removed else 0)
            found = (idx, n, (f * (K1 + 1.0)) / (f + view.lk[idx]))
            if view.parts_size + len(idx) > MAX_PARTS:
                view.parts.clear()
                view.parts_size = 0
            view.parts[term] = found
            view.parts_size += len(idx)
        return found

    @staticmethod
    def _delta_part(view: _View, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The delta rows holding `term` (indexes into view.delta_labels) and their f."""
        found = view.dparts.get(term)
        if found is None:
            entries = view.delta_index.get(term)
            if not entries:
                return None
            labels = np.fromiter(entries.keys(), dtype=np.int64, count=len(entries))
            f = np.fromiter(entries.values(), dtype=np.float64, count=len(entries))
            found = (np.searchsorted(view.delta_labels, labels), f)
            view.dparts[term] = found
        return found

    def _score(self, view: _View, terms: list[str], limit: int) -> list[tuple[int, float]]:
        post = view.post
        if len(view.scores) != len(post.labels):
            view.scores = np.zeros(len(post.labels), dtype=np.float64)
            view.delta = np.zeros(len(view.delta_labels), dtype=np.float64)
        scores, delta = view.scores, view.delta
        k1p1 = K1 + 1.0
        touched: list[np.ndarray] = []
        try:
            for term in terms:
                found = self._part(view, term)
                extra = self._delta_part(view, term)
                n = (found[1] if found is not None else 0) + (len(extra[0]) if extra is not None else 0)
                if n == 0:
                    continue
                idf = _idf(view.nrow, n)
                if found is not None:
                    touched.append(found[0])
                    scores[found[0]] += idf * found[2]
                if extra is not None:
                    didx, f = extra
                    delta[didx] += idf * ((f * k1p1) / (f + view.delta_lk[didx]))
            if view.any_removed:
                scores[view.removed_idx] = 0.0
            hit = np.flatnonzero(scores)
            labels, values = post.labels[hit], scores[hit]
            dhit = np.flatnonzero(delta)
            if len(dhit):
                labels = np.concatenate([labels, view.delta_labels[dhit]])
                values = np.concatenate([values, delta[dhit]])
        finally:
            for idx in touched:  # back to zero for the next query: only the rows written
                scores[idx] = 0.0
            delta[:] = 0.0
        return _top(labels, values, limit)

    def _current(self, db: IndexDB, version: object) -> _View | None:
        if version == self._version:
            return self._view
        self._view, self._version = self._make_view(db), version
        return self._view

    def _sidecar(self, gen: int) -> Postings | None:
        if self._post is not None and self._post.generation == gen:
            return self._post
        if self._failed_gen == gen:
            return None
        try:
            post = load(self.state)
        except PostingsError:
            post = None
        if post is None or post.generation != gen:
            self._failed_gen = gen  # damaged, or not yet the snapshot's: FTS5 until the next generation
            return None
        self._post, self._failed_gen = post, None
        return post

    def _make_view(self, db: IndexDB) -> _View | None:
        conn = db.conn
        try:
            gen = int(db.get_meta("bm25_generation") or 0)
            seq = int(db.get_meta("bm25_seq") or 0)
        except ValueError:
            return None
        post = self._sidecar(gen) if gen > 0 else None
        if post is None or post.seq != seq:
            return None
        tot = totals(conn)
        if tot is None or tot[0] <= 0:
            return None
        changed = [int(r[0]) for r in conn.execute("SELECT DISTINCT label FROM bm25_changed WHERE seq > ?", (seq,))]
        if len(changed) > MAX_DELTA:
            return None
        removed = np.zeros(len(post.labels), dtype=bool)
        if changed:
            keys = np.array(sorted(changed), dtype=np.int64)
            at = np.searchsorted(post.labels, keys)
            inside = at < len(post.labels)
            inside[inside] = post.labels[at[inside]] == keys[inside]
            removed[at[inside]] = True
        rows = self._delta_rows(db, changed)
        if any(self._delta_cache[r[0]][1] < 0 for r in rows):
            return None  # an item without its FTS5 size record: not what bm25() would see
        cached = [self._delta_cache[r[0]] for r in rows]
        nrow = post.nrow - int(removed.sum()) + len(rows)
        ntok = post.ntok - int(post.dlen[removed].sum()) + sum(c[1] for c in cached)
        if (nrow, ntok) != tot:
            return None  # the log and FTS5 disagree: never serve a ranking built on that
        avgdl = float(ntok) / float(nrow)
        dlab = np.array([r[0] for r in rows], dtype=np.int64)
        dlk = K1 * ((1 - B) + (B * np.array([float(c[1]) for c in cached], dtype=np.float64)) / avgdl)
        lk = K1 * ((1 - B) + (B * post.dlen.astype(np.float64)) / avgdl)
        return _View(post, nrow, lk, removed, bool(changed), np.flatnonzero(removed), dlab, dlk, self._dindex)

    def _delta_rows(self, db: IndexDB, changed: list[int]) -> list[tuple[int, str, str, str]]:
        """The changed labels that are items now, sorted; each row's FTS5 size (-1: none) and
        weighted term frequencies are computed once per content and kept."""
        rows: list[tuple[int, str, str, str]] = []
        for start in range(0, len(changed), 500):
            chunk = changed[start:start + 500]
            rows += [(int(r[0]), r[1], r[2], r[3]) for r in db.conn.execute(
                f"SELECT label, text, category, context FROM items WHERE label IN ({','.join('?' * len(chunk))})",
                chunk)]
        rows.sort()
        keep = {r[0] for r in rows}
        for label in [k for k in self._delta_cache if k not in keep]:
            self._unindex(label)  # gone, or in a newer sidecar: out of the delta
        fresh = [r for r in rows if self._delta_cache.get(r[0], (None,))[0] != r[1:]]
        if fresh:
            counts = self.tokenizer.counts(fresh)
            sizes = doc_sizes(db.conn, [r[0] for r in fresh])
            for r in fresh:
                self._unindex(r[0])
                terms = [(t, _freq(c)) for t, c in counts.get(r[0], {}).items()]
                self._delta_cache[r[0]] = (r[1:], sizes.get(r[0], -1), terms)
                for t, f in terms:
                    self._dindex.setdefault(t, {})[r[0]] = f
        return rows

    def _unindex(self, label: int) -> None:
        old = self._delta_cache.pop(label, None)
        if old is not None:
            for t, _f in old[2]:
                entries = self._dindex.get(t)
                if entries is not None:
                    entries.pop(label, None)
                    if not entries:
                        del self._dindex[t]


@functools.lru_cache(maxsize=4096)
def _freq(counts: tuple[int, int, int]) -> float:
    return weighted_freq(counts, WEIGHTS)
