"""Cold `memfs recall` without the full CLI: only what a read needs is imported.

With no daemon, `memfs recall` spent ~0.35 s importing typer and `memfs.api` (which pulls
in the categorizer, the offline extractor, the views, the sync code: everything a write
needs) before it loaded the model. A plain recall needs the config, the read-only index,
the searcher and the embedder, so the console script (memfs.console) calls `answer` here
first. Anything unusual — no index yet or one of an older layout (a sync is needed),
damage, any error — returns None and the full CLI does the work (and the healing) itself.
The answer is `Memory.recall(...)` exactly: same searcher, same config, same hit fields.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: `RecallHit`'s fields in order (memfs.api; a test keeps the two equal): the JSON keys.
HIT_FIELDS = ("id", "text", "category", "kind", "path", "line", "type", "when", "source", "seen", "score",
              "passage", "until", "superseded_by", "hit", "anchor", "heading")


def hit_dict(h: Any) -> dict[str, Any]:
    """A search hit as `RecallHit(...).model_dump()` gives it (memfs.api.Memory._hits)."""
    from memfs.index.recall_hits import hit_fields

    r = h.row
    return {"id": r.id, "text": r.text, "category": r.category, "kind": r.kind, "path": r.path, "line": r.line,
            "type": r.type, "when": r.when, "source": r.src, "seen": r.seen, "score": round(h.score, 6),
            "passage": None, "until": r.until, "superseded_by": r.superseded_by, **hit_fields(r)}


def _ready(db_path: Path) -> bool:
    """The index exists, is of this layout and was synced (read-only, no DDL)."""
    from memfs.index.repository import index_ready

    return index_ready(db_path)


def _prime(embedder: Any, query: str) -> None:
    """Load the model and embed the query into the cache (errors: the search reports them)."""
    try:
        embedder.embed([query])
    except Exception:  # noqa: BLE001, S110 - the search embeds again and fails properly
        pass


def rows(root: str, query: str, k: int | None) -> list[dict[str, Any]] | None:
    """The hits of a fast-mode recall in the workspace at `root`, or None (the full CLI then
    answers: it syncs a missing index and heals a damaged one)."""
    import os

    # pydantic looks for plugins among every installed distribution's entry points when it
    # builds its first model (~15-50 ms); memfs has none and this process only reads.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    # As memfs.cli does, before numpy loads: one query is one mat·vec; BLAS threads only
    # add hand-over latency on 2 shared cores.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    try:
        import threading

        from memfs.config import load_config
        from memfs.index.db import IndexDB
        from memfs.index.qcache import CachingEmbedder
        from memfs.index.search import Searcher
        from memfs.providers.embedding import make_embedder

        ws = Path(root)
        db_path = ws / ".memfs" / "index.sqlite3"
        if not _ready(db_path):
            return None
        config = load_config(ws)
        embedder = CachingEmbedder(make_embedder(config.embedder))
        # The model load (~0.25 s, onnxruntime releases the GIL) overlaps opening the index
        # and loading its vectors (the hnsw sidecar: ~0.2 s at 10^5 items).
        primer = threading.Thread(target=_prime, args=(embedder, query), daemon=True)
        primer.start()
        db = IndexDB(db_path, readonly=True)
        try:
            searcher = Searcher(db, embedder, ws / ".memfs", config.recall)
            searcher.preload()
            primer.join()
            result = searcher.search(query, k or config.recall.top_k)
        finally:
            db.close()
    except Exception:  # noqa: BLE001 - whatever it was, the full CLI reports it properly
        return None
    return [hit_dict(h) for h in result.hits]


def answer(root: str, query: str, k: int | None, as_json: bool) -> str | None:
    """What `memfs recall QUERY [-k K] [--json]` prints, or None (let the full CLI do it)."""
    found = rows(root, query, k)
    if found is None:
        return None
    if as_json:
        import json

        return json.dumps(found, ensure_ascii=False, indent=2) + "\n"
    from memfs.render import render_recall_markdown

    return render_recall_markdown(query, found) + "\n"
