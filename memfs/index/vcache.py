"""A reader's in-memory copy of item vectors, refreshed by difference.

The exact-search matrix (below `exact_search_max`) and the pending delta beside the hnsw
sidecar are reloaded whenever the database changed. While the daemon ingests, it commits
every few hundred ms, so a recall used to re-read every vector blob each time (25-80 ms for
2,000 items on a busy 2-core machine). Reading only `(label, text_hash)` pairs and fetching
the blobs of new or changed items costs a fraction of that; the result is the same matrix
as a full reload (same rows, same order as the items' labels).

Each copy compares the pairs with the last refresh's by their common prefix and suffix
(C-speed passes) and rebuilds only the middle: an input adds a few items, so a refresh costs
the pairs' read and one copy of the matrix, not a join with the vectors and a gather of
every row in Python (at 5,000 items 31 -> 10 ms; issue #18 item 4). The whole copy reads
its pairs without the join: a pair that had a vector keeps it while the index's embedder
stays the same (only an embedder change deletes vectors of live items,
`Indexer._embedder_changed`, and it records the new one); one that had none is asked again.
"""

from __future__ import annotations

from itertools import compress, count, islice
from operator import ne

import numpy as np

from memfs.index.db import IndexDB
from memfs.index.passages import PASSAGE_LABEL_BASE

# Every item's and passage's pair, in label order (a passage's label is PASSAGE_LABEL_BASE +
# its row label, memfs.index.passages); which have a vector is known from the last refresh.
_ALL = (f"SELECT label, text_hash FROM items UNION ALL SELECT label + {PASSAGE_LABEL_BASE}, text_hash "
        "FROM passages ORDER BY 1")
# Driven from vec_pending (a few rows an input), not a scan of items and passages with a
# lookup per row (~10 ms at 100,000 items, every input's dedupe): the same rows.
_PENDING = ("SELECT items.label, items.text_hash FROM vec_pending CROSS JOIN items ON items.label = vec_pending.label "
            "JOIN embeddings ON embeddings.text_hash = items.text_hash "
            "UNION ALL SELECT vec_pending.label, passages.text_hash FROM vec_pending CROSS JOIN passages "
            f"ON passages.label = vec_pending.label - {PASSAGE_LABEL_BASE} "
            "JOIN embeddings ON embeddings.text_hash = passages.text_hash "
            f"WHERE vec_pending.label >= {PASSAGE_LABEL_BASE} ORDER BY 1")


class VectorCopy:
    """(labels, matrix) of every item with a vector, or only the pending ones."""

    def __init__(self, pending_only: bool = False) -> None:
        self.pending_only = pending_only
        self.labels = np.zeros(0, dtype=np.int64)
        self.matrix = np.zeros((0, 0), dtype=np.float32)
        self._pairs: list[tuple[int, str]] = []  # every pair at the last refresh, in label order
        self._rows = np.zeros(0, dtype=np.int64)  # each pair's row in matrix; -1: it had no vector
        self._embedder: str | None = None

    def refresh(self, db: IndexDB) -> None:
        """Bring the copy in line with `db`'s current snapshot (call inside it)."""
        embedder = db.get_meta("embedder")
        if embedder != self._embedder:  # its vectors were deleted: nothing kept is theirs
            self.__init__(self.pending_only)  # type: ignore[misc]
            self._embedder = embedder
        pairs = db.conn.execute(_PENDING if self.pending_only else _ALL).fetchall()
        old, rows = self._pairs, self._rows
        p = _common_prefix(old, pairs)
        s = _common_suffix(old, pairs, min(len(old), len(pairs)) - p)
        gaps = np.flatnonzero(rows < 0)
        if len(gaps):  # a pair without a vector is asked again: it may have one by now
            p, s = min(p, int(gaps[0])), min(s, len(old) - 1 - int(gaps[-1]))
        mid = pairs[p:len(pairs) - s]
        kept = {k: int(r) for k, r in zip(old[p:len(old) - s], rows[p:len(old) - s].tolist()) if r >= 0}
        need = list({k[1] for k in mid if k not in kept})
        fetched = db.cached_vectors(need) if need else {}
        have = len(self.labels)
        if have:
            dim = self.matrix.shape[1]
            if any(len(v) != dim for v in fetched.values()):  # the vector space changed: start over
                self.__init__(self.pending_only)  # type: ignore[misc]
                self._embedder = embedder
                self.refresh(db)
                return
        else:
            dim = len(next(iter(fetched.values()))) if fetched else 0
            fetched = {h: v for h, v in fetched.items() if len(v) == dim}
        picks: list[int] = []  # per middle row: a row of the old matrix, or -1 - its place in `fresh`
        fresh: list[np.ndarray] = []
        mid_labels: list[int] = []
        mid_rows = np.full(len(mid), -1, dtype=np.int64)
        for j, k in enumerate(mid):
            r = kept.get(k)
            if r is None:
                vec = fetched.get(k[1])
                if vec is None:
                    continue  # no vector (yet): as the join in IndexDB.labeled_vectors leaves it out
                r = -1 - len(fresh)
                fresh.append(vec)
            mid_rows[j] = p + len(picks)
            picks.append(r)
            mid_labels.append(int(k[0]))
        if not dim:  # not one vector yet
            self.labels, self.matrix = np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
            self._pairs, self._rows = pairs, np.full(len(pairs), -1, dtype=np.int64)
            return
        block = np.zeros((len(picks), dim), dtype=np.float32)
        if picks:
            at = np.asarray(picks, dtype=np.int64)
            old_at = at >= 0
            if old_at.any():
                block[old_at] = self.matrix[at[old_at]]
            if fresh:
                block[~old_at] = np.stack(fresh).astype(np.float32, copy=False)[-1 - at[~old_at]]
        tail = have - s  # the suffix's pairs all have a vector: the old matrix's last s rows
        self.matrix = np.ascontiguousarray(np.concatenate([self.matrix[:p].reshape(-1, dim), block,
                                                           self.matrix[tail:].reshape(-1, dim)]))
        self.labels = np.concatenate([self.labels[:p], np.asarray(mid_labels, dtype=np.int64),
                                      self.labels[tail:]])
        self._rows = np.concatenate([np.arange(p, dtype=np.int64), mid_rows,
                                     np.arange(p + len(picks), p + len(picks) + s, dtype=np.int64)])
        self._pairs = pairs


def _common_prefix(a: list[tuple[int, str]], b: list[tuple[int, str]]) -> int:
    """How many leading pairs `a` and `b` share (a C-speed pass: map, compress)."""
    return next(compress(count(), map(ne, a, b)), min(len(a), len(b)))


def _common_suffix(a: list[tuple[int, str]], b: list[tuple[int, str]], most: int) -> int:
    """How many trailing pairs `a` and `b` share, at most `most`."""
    return next(compress(count(), map(ne, islice(reversed(a), most), islice(reversed(b), most))), most)
