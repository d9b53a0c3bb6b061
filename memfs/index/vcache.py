"""A reader's in-memory copy of item vectors, refreshed by difference.

The exact-search matrix (below `exact_search_max`) and the pending delta beside the hnsw
sidecar are reloaded whenever the database changed. While the daemon ingests, it commits
every few hundred ms, so a recall used to re-read every vector blob each time (25-80 ms for
2,000 items on a busy 2-core machine). Reading only `(label, text_hash)` pairs and fetching
the blobs of new or changed items costs a fraction of that; the result is the same matrix
as a full reload (same rows, same order as the items' labels).
"""

from __future__ import annotations

import numpy as np

from memfs.index.db import IndexDB
from memfs.index.passages import PASSAGE_LABEL_BASE

# The join with embeddings goes through its primary-key index only (no blob is read) and
# leaves out items and passages without a vector, as IndexDB.labeled_vectors does; a
# passage's label is PASSAGE_LABEL_BASE + its row label (memfs.index.passages).
_ALL = ("SELECT items.label, items.text_hash FROM items "
        "JOIN embeddings ON embeddings.text_hash = items.text_hash "
        f"UNION ALL SELECT passages.label + {PASSAGE_LABEL_BASE}, passages.text_hash FROM passages "
        "JOIN embeddings ON embeddings.text_hash = passages.text_hash ORDER BY 1")
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
        self._hash_row: dict[tuple[int, str], int] = {}  # (label, text_hash) -> row in matrix

    def refresh(self, db: IndexDB) -> None:
        """Bring the copy in line with `db`'s current snapshot (call inside it)."""
        pairs = db.conn.execute(_PENDING if self.pending_only else _ALL).fetchall()
        missing = list({h for lab, h in pairs if (lab, h) not in self._hash_row})
        fetched = db.cached_vectors(missing) if missing else {}
        old_rows: list[int] = []
        new_vecs: list[np.ndarray] = []
        labels: list[int] = []
        keys: list[tuple[int, str]] = []
        for lab, h in pairs:
            row = self._hash_row.get((lab, h))
            if row is not None:
                old_rows.append(row)
            elif h in fetched:
                old_rows.append(-1 - len(new_vecs))  # a new row, by its place in new_vecs
                new_vecs.append(fetched[h])
            else:
                continue  # no vector (yet): as the join in IndexDB.labeled_vectors leaves it out
            labels.append(int(lab))
            keys.append((lab, h))
        if not labels:
            self.labels, self.matrix, self._hash_row = np.zeros(0, dtype=np.int64), \
                np.zeros((0, 0), dtype=np.float32), {}
            return
        dim = len(new_vecs[0]) if new_vecs else self.matrix.shape[1]
        extra = np.stack(new_vecs).astype(np.float32, copy=False) if new_vecs else np.zeros((0, dim), np.float32)
        if extra.shape[1] != dim or (self.matrix.size and self.matrix.shape[1] != dim):
            self.__init__(self.pending_only)  # the vector space changed: start over
            self.refresh(db)
            return
        source = np.concatenate([self.matrix.reshape(-1, dim) if self.matrix.size else np.zeros((0, dim), np.float32),
                                 extra])
        index = np.array([r if r >= 0 else len(self.matrix) + (-1 - r) for r in old_rows], dtype=np.int64)
        self.matrix = np.ascontiguousarray(source[index])
        self.labels = np.asarray(labels, dtype=np.int64)
        self._hash_row = {k: i for i, k in enumerate(keys)}
