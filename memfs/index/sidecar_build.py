"""A big sync's vectors, streamed: embedded into the cache chunk by chunk and read back into
the hnsw graph chunk by chunk, so the sync never holds every vector at once.

At 10^5-10^6 items the build's peak RSS was linear in the store (1.5 / 3.0 / 5.8 GB at
100k / 200k / 400k items, bench/README.md): every fresh vector was kept in a dict (and in
the list of pairs to cache) until the sync's end, and the sidecar was rebuilt from one
float32 matrix of every labelled vector (the query's rows, the matrix, its int8 codes
and the copy fancy indexing makes for hnswlib: ~6 KB per item besides the graph). Here
the cache is the only copy: a chunk is stored as soon as it is embedded, and the graph
is filled from a cursor over the cache, `CHUNK` rows at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from memfs.core.lazynp import lazy_numpy
from memfs.index import quant
from memfs.index.db import IndexDB
from memfs.index.passages import PASSAGE_LABEL_BASE
from memfs.index.sidecar import HnswSidecar

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_numpy(globals())  # imported on first use (core/lazynp.py)

#: Rows per chunk: ~30 MB of float32 vectors at dim 384, big enough that hnswlib's
#: threads stay busy.
CHUNK = 20_000


def uncached(db: IndexDB, hashes: list[str]) -> list[str]:
    """The hashes with no cached vector (by key only: no vector is read)."""
    have: set[str] = set()
    for start in range(0, len(hashes), 500):
        chunk = hashes[start:start + 500]
        have.update(r[0] for r in db.conn.execute(
            f"SELECT text_hash FROM embeddings WHERE text_hash IN ({','.join('?' * len(chunk))})", chunk))
    return [h for h in hashes if h not in have]


def embed_into_cache(db: IndexDB, embed: Callable[[list[str]], np.ndarray], by_hash: dict[str, str],
                     missing: list[str], step: int, progress: Callable[..., None] | None = None) -> int:
    """Embed `missing` `step` texts at a time, each chunk cached in its own transaction
    (as `Indexer.embed_texts` does past SAVE_CHUNK, so a stopped build resumes), keeping
    nothing. Returns how many were embedded."""
    for start in range(0, len(missing), step):
        chunk = missing[start:start + step]
        vecs = quant.round_trip(np.asarray(embed([by_hash[h] for h in chunk])))
        with db.transaction():
            db.store_vectors(zip(chunk, vecs))
        if progress:
            progress(start + len(chunk), len(missing), unit="texts embedded")
    return len(missing)


def rebuild_streaming(sidecar: HnswSidecar, db: IndexDB, chunk: int = CHUNK) -> None:
    """`sidecar.rebuild(*db.labeled_vectors())` without the whole matrix: the same labels
    in the same order, added `chunk` rows at a time (a slot's fingerprint map lives in the
    sidecar across chunks, so equal vectors still share one graph node)."""
    count = int(db.conn.execute(
        "SELECT (SELECT count(*) FROM items JOIN embeddings ON embeddings.text_hash = items.text_hash)"
        " + (SELECT count(*) FROM passages JOIN embeddings ON embeddings.text_hash = passages.text_hash)"
    ).fetchone()[0])
    sidecar.rebuild(np.zeros(0, dtype=np.int64), np.zeros((0, sidecar.dim), dtype=np.float32),
                    capacity=count)
    dim = int(db.get_meta("embedder_dim") or sidecar.dim)
    cur = db.conn.execute(
        "SELECT items.label, embeddings.vec FROM items "
        "JOIN embeddings ON embeddings.text_hash = items.text_hash "
        f"UNION ALL SELECT passages.label + {PASSAGE_LABEL_BASE}, embeddings.vec FROM passages "
        "JOIN embeddings ON embeddings.text_hash = passages.text_hash")
    while True:
        rows = cur.fetchmany(chunk)
        if not rows:
            break
        sidecar.upsert([int(r[0]) for r in rows], quant.from_blobs([r[1] for r in rows], dim))
