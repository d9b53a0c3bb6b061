"""Recall: hybrid search (fast), the LLM's tiered recall, and the warm daemon's shortcut.

Readers take no lock and open the index read-only (never DDL), so recall works on a
read-only `.memfs/`; only a missing or damaged index sends a reader to the writer's path
(sync, or heal under the lock).
"""

from __future__ import annotations

import os
from datetime import date
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from memfs.errors import MemfsError
from memfs.index.db import IndexDB
from memfs.index.heal import INDEX_ERRORS, is_damage
from memfs.index.repository import index_ready
from memfs.index.search import Searcher
from memfs.services import reindex
from memfs.services.runtime import Runtime

if TYPE_CHECKING:
    from memfs.index.search import SearchResult
    from memfs.index.timefilter import TimeFilter


class RecallHit(BaseModel):
    """One recalled item, as `recall --json` prints it."""

    id: str
    text: str
    category: str
    kind: str
    path: str
    line: int | None
    type: str
    when: str | None
    source: str | None
    seen: int
    score: float
    passage: str | None = None
    until: str | None = None
    superseded_by: str | None = None
    #: "item" (a list line, with an id you can forget) or "passage" (prose a person wrote,
    #: cited by `anchor` = path#L<first>-<last> under its `heading` path; never rewritten).
    hit: str = "item"
    anchor: str | None = None
    heading: str | None = None


#: Texts without a vector a recall embeds before it answers (a one-shot add's); past that,
#: or with near-duplicate checks owed, it answers at once and the owed items by keyword.
RECALL_FILL_LIMIT = 64


def search(rt: Runtime, query: str, k: int | None = None, types: set[str] | None = None,
           categories: set[str] | None = None, today: date | None = None,
           window: "TimeFilter | None" = None) -> "SearchResult":
    """Hybrid search with per-stage timings (what `recall` and the benchmarks use)."""
    db_path = reindex.index_path(rt)
    if rt.searcher is None and not index_ready(db_path):
        reindex.sync(rt)  # no index yet, or one of an older layout: build it from the Markdown
    elif rt.searcher is None and not index_ready(db_path, for_recall=True):
        # A one-shot add's vector is owed: embedded first if this process can write now.
        # The sync is opportunistic: whatever stops it (a writer holding the lock, a
        # read-only index file or folder) leaves the recall to answer as it is, that item
        # found by keyword only, as between an ingest's write and fill.
        try:
            reindex.sync(rt, lock_timeout=0.0, fill_limit=RECALL_FILL_LIMIT)
        except (MemfsError, OSError, *INDEX_ERRORS):
            pass
    try:
        if rt.searcher is None:  # a reader: read-only, never DDL (works on a read-only .memfs/)
            rt.searcher = Searcher(IndexDB(db_path, readonly=True), rt.embedder, rt.ws.state, rt.config.recall)
        return rt.searcher.search(query, k or rt.config.recall.top_k, types, categories, today, window)
    except Exception as err:
        if not is_damage(err):
            raise
    reindex.heal_damaged_index(rt)
    rt.searcher = Searcher(IndexDB(db_path, readonly=True), rt.embedder, rt.ws.state, rt.config.recall)
    return rt.searcher.search(query, k or rt.config.recall.top_k, types, categories, today, window)


def recall(rt: Runtime, query: str, k: int | None = None, types: set[str] | None = None,
           categories: set[str] | None = None, mode: str = "fast", sources: bool = False, *,
           since: str | None = None, until: str | None = None, as_of: str | None = None,
           history: bool = False) -> list[RecallHit]:
    """See `memfs.api.Memory.recall`."""
    if not query.strip():
        raise MemfsError("empty query")
    from memfs.index.timefilter import TimeFilter

    window = TimeFilter.of(since, until, as_of, history)
    if mode not in ("fast", "llm"):
        raise MemfsError(f"unknown recall mode {mode!r}: expected fast or llm")
    k = k or rt.config.recall.top_k
    if mode == "llm":
        hits, sources = _recall_llm(rt, query, k, types, categories, sources, window)
    else:
        hits = to_hits(search(rt, query, k, types, categories, window=window).hits)
    if sources:
        from memfs.index.context import ContextResolver

        resolver = ContextResolver(rt.ws.root)
        for h in hits:
            h.passage = resolver.passage(h.source)
    return hits


def to_hits(raw: list) -> list[RecallHit]:  # type: ignore[type-arg]
    from memfs.index.recall_hits import hit_fields

    return [RecallHit(id=h.row.id, text=h.row.text, category=h.row.category, kind=h.row.kind, path=h.row.path,
                      line=h.row.line, type=h.row.type, when=h.row.when, source=h.row.src, seen=h.row.seen,
                      score=round(h.score, 6), until=h.row.until, superseded_by=h.row.superseded_by,
                      **hit_fields(h.row))
            for h in raw]


def _recall_llm(rt: Runtime, query: str, k: int, types: set[str] | None, categories: set[str] | None,
                sources: bool, window: "TimeFilter | None" = None) -> tuple[list[RecallHit], bool]:
    llm = rt.llm
    if llm is None:
        raise MemfsError("recall --mode llm needs an LLM: set [llm] provider = \"openai\" or MEMFS_LLM=openai")
    pool = max(3 * k, 30)
    fused: dict[str, float] = {}
    by_id: dict[str, RecallHit] = {}
    for q in llm.rewrite_query(query):
        for rank, hit in enumerate(to_hits(search(rt, q, pool, types, categories, window=window).hits), start=1):
            fused[hit.id] = fused.get(hit.id, 0.0) + 1.0 / (rt.config.recall.rrf_k + rank)
            by_id.setdefault(hit.id, hit)
    ranked = sorted(fused, key=lambda i: (-fused[i], i))[:pool]
    order = llm.rerank(query, [(i, by_id[i].text) for i in ranked])
    hits = [by_id[i] for i in order if i in by_id][:k]
    for n, h in enumerate(hits):
        h.score = round(1.0 / (n + 1), 6)
    enough = llm.sufficient(query, [h.text for h in hits])
    return hits, sources or not enough


def recall_rows(dir: str | None, query: str, k: int | None = None, types: list[str] | None = None,
                categories: list[str] | None = None, mode: str = "fast", sources: bool = False, *,
                since: str | None = None, until: str | None = None, as_of: str | None = None,
                history: bool = False) -> list[dict[str, Any]]:
    """`recall` as `RecallHit` dicts for the workspace at `dir`: the running daemon answers
    plain fast recall (warm model and index; `MEMFS_NO_WARM` turns that off); anything else,
    or no daemon, is answered by this process. The answer is the same either way."""
    from memfs.config import load_config
    from memfs.workspace import find_workspace

    ws = find_workspace(explicit=dir)
    timed = bool(since or until or as_of or history)
    if query.strip() and mode == "fast" and not sources and not timed and not os.environ.get("MEMFS_NO_WARM"):
        from memfs.warm_client import try_warm_recall

        rows = try_warm_recall(ws.state, query, k, types, categories)
        if rows is not None:
            return rows
    rt = Runtime(ws, load_config(ws.root))
    try:
        return [h.model_dump() for h in recall(rt, query, k=k, types=set(types) if types else None,
                                               categories=set(categories) if categories else None, mode=mode,
                                               sources=sources, since=since, until=until, as_of=as_of,
                                               history=history)]
    finally:
        rt.close()
