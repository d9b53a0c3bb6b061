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

import os
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
    """The index exists, is of this layout and was synced (read-only, no DDL), and owes no
    vector a one-shot add left (the full CLI embeds it first) unless `.memfs/` is read-only."""
    from memfs.index.repository import index_ready

    return index_ready(db_path, for_recall=os.access(db_path.parent, os.W_OK))


def _no_pydantic_plugins() -> None:
    """PYDANTIC_DISABLE_PLUGINS, without the import: pydantic imports `importlib.metadata`
    (email, zipfile, csv: ~30 ms, ~100 ms on a busy box) just to hold the plugin loader,
    even when plugins are off. Only when they are off for every plugin; the stub answers
    what the real loader answers then (no plugins)."""
    import sys
    import types

    if os.environ.get("PYDANTIC_DISABLE_PLUGINS") not in ("__all__", "1", "true"):
        return
    if "pydantic.plugin._loader" in sys.modules:
        return
    stub = types.ModuleType("pydantic.plugin._loader")
    stub.get_plugins = lambda: ()  # type: ignore[attr-defined]
    sys.modules["pydantic.plugin._loader"] = stub


def _peek_embedder(ws: Path) -> tuple[int, int] | None:
    """(threads, batch_size) when the workspace's embedder is MiniLM, read from memfs.toml
    and MEMFS_EMBEDDER_* without validating (pydantic is not loaded yet); None otherwise.
    A guess only: `rows` uses what it loads only if the validated config agrees."""
    env = os.environ
    try:
        import tomllib  # 3.11+; without it no guess (the model then loads after the config)

        raw = tomllib.loads((ws / "memfs.toml").read_text(encoding="utf-8")).get("embedder", {})
        provider = env.get("MEMFS_EMBEDDER_PROVIDER", raw.get("provider", "minilm"))
        threads = int(env.get("MEMFS_EMBEDDER_THREADS", raw.get("threads", 2)))
        batch = int(env.get("MEMFS_EMBEDDER_BATCH_SIZE", raw.get("batch_size", 64)))
    except Exception:  # noqa: BLE001 - no guess; the config load reports real errors
        return None
    return (threads, batch) if provider == "minilm" else None


def _snapshot_spec(snap: Any) -> tuple[int, int] | None:
    """(threads, batch_size) of a MiniLM embedder in the saved config, else None."""
    emb = snap.embedder
    return (int(emb.threads), int(emb.batch_size)) if emb.provider == "minilm" else None


def _validated_config(root: str) -> Any:
    """The config as `load_config` validates it (pydantic: a snapshot was missing or stale),
    saved for the next cold recall (memfs.configsnap)."""
    from memfs.configsnap import snapshot_key, write_snapshot

    key = snapshot_key(root)  # before the read: an edit meanwhile leaves a stale key
    _no_pydantic_plugins()
    from memfs.config import load_config

    config = load_config(Path(root))
    write_snapshot(root, config, key)
    return config


class _EarlyModel:
    """MiniLM loading (and the query embedded) on a thread started before anything else is
    imported: onnxruntime builds its session without the GIL (~0.25 s, most of a cold
    recall), so it overlaps importing pydantic, the config, the index code and opening
    the index, instead of starting after them."""

    def __init__(self, spec: tuple[int, int], query: str) -> None:
        import threading

        self.spec = spec
        self.embedder: Any = None
        self._built = threading.Event()
        self.thread = threading.Thread(target=self._load, args=(query,), daemon=True)
        self.thread.start()

    def _load(self, query: str) -> None:
        try:
            from memfs.index.qcache import CachingEmbedder
            from memfs.providers.minilm import MiniLMEmbedder

            self.embedder = CachingEmbedder(MiniLMEmbedder(threads=self.spec[0], batch_size=self.spec[1],
                                                            one_shot=True))
        except Exception:  # noqa: BLE001, S110 - rows() then builds the embedder itself
            return
        finally:
            self._built.set()
        _prime(self.embedder, query)

    def take(self, config: Any) -> Any:
        """The embedder (still loading: join `thread` before searching) if the validated
        config asks for this one, else None."""
        emb = config.embedder
        if emb.provider != "minilm" or (emb.threads, emb.batch_size) != self.spec:
            return None
        self._built.wait()
        return self.embedder


def _prime(embedder: Any, query: str) -> None:
    """Load the model and embed the query into the cache (errors: the search reports them)."""
    try:
        embedder.embed([query])
    except Exception:  # noqa: BLE001, S110 - the search embeds again and fails properly
        pass


def rows(root: str, query: str, k: int | None) -> list[dict[str, Any]] | None:
    """The hits of a fast-mode recall in the workspace at `root`, or None (the full CLI then
    answers: it syncs a missing index and heals a damaged one)."""
    # pydantic looks for plugins among every installed distribution's entry points when it
    # builds its first model (~15-50 ms); memfs has none and this process only reads.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    # As memfs.cli does, before numpy loads: one query is one mat·vec; BLAS threads only
    # add hand-over latency on 2 shared cores.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    try:
        ws = Path(root)
        db_path = ws / ".memfs" / "index.sqlite3"
        if not os.path.isfile(db_path):
            return None  # no index yet: the full CLI syncs it
        from memfs.configsnap import read_snapshot

        # The saved sections name the embedder exactly (and save importing tomllib to guess it).
        snap = read_snapshot(root)
        spec = _peek_embedder(ws) if snap is None else _snapshot_spec(snap)
        early = _EarlyModel(spec, query) if spec is not None else None
        import threading

        from memfs.index.db import IndexDB
        from memfs.index.qcache import CachingEmbedder
        from memfs.index.search import Searcher
        from memfs.providers.embedding import make_embedder

        if not _ready(db_path):
            return None
        config = snap if snap is not None else _validated_config(root)
        embedder = early.take(config) if early is not None else None
        primer = early.thread if embedder is not None else None
        if embedder is None:
            embedder = CachingEmbedder(make_embedder(config.embedder))
            # The model load (onnxruntime releases the GIL) overlaps opening the index.
            primer = threading.Thread(target=_prime, args=(embedder, query), daemon=True)
            primer.start()
        db = IndexDB(db_path, readonly=True)
        try:
            searcher = Searcher(db, embedder, ws / ".memfs", config.recall)
            searcher.preload()
            if primer is not None:
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
