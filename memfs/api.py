"""The Python API: one object per workspace with the CLI's verbs.

    from memfs import Memory
    mem = Memory("~/memory")
    mem.add("Alice prefers green tea over coffee.")
    for hit in mem.recall("what does Alice drink"):
        print(hit.text, hit.path)

Writers (add, forget, sync, ingest) take the workspace lock for the length of one write
burst; recall never takes it. This class is a facade: each verb is one call into
`memfs.services` (see its docstring for which module does what). The CLI, the daemon,
the MCP server and the proxy call only this.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from memfs.categorize import CategorySpec
from memfs.config import Config, load_config
from memfs.core.model import Item
from memfs.fsutil import WriterLock
from memfs.index.sync import Indexer, SyncReport
from memfs.providers.embedding import Embedder
# Recall (the searcher, BM25) and ingest (the readers) load on first use: a one-shot
# `memfs add` needs neither, and compiling or loading them was ~10% of its start.
from memfs.services import reindex, writer
from memfs.services import status as _status
from memfs.services.runtime import Runtime
from memfs.services.status import Status
from memfs.workspace import Workspace, find_workspace

if TYPE_CHECKING:
    from memfs.export import Provenance, SubjectExport
    from memfs.forget import ForgetPlan, ForgetReport
    from memfs.inbox import Journal
    from memfs.index.db import ItemRow
    from memfs.index.repository import CategoryFileRow
    from memfs.index.search import SearchResult
    from memfs.index.timefilter import TimeFilter
    from memfs.llm.runtime import LLMRuntime
    from memfs.pipeline.memorize import IngestResult, Memorizer
    from memfs.pipeline.vecfill import FillReport
    from memfs.services.ingest import ViewDebt
    from memfs.services.recall import RecallHit

__all__ = ["Memory", "RecallHit", "Status"]


def __getattr__(name: str) -> object:
    if name == "RecallHit":  # (re-exported, loaded with recall)
        from memfs.services.recall import RecallHit

        return RecallHit
    raise AttributeError(name)


class Memory:
    """A workspace's memory. `path` may be any folder inside it (found like git finds a repo).

    `lock_timeout`: how long a write waits for another writer (the agents' servers wait less)."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, config: Config | None = None,
                 embedder: Embedder | None = None, lock_timeout: float = 60.0) -> None:
        if path is not None and (Path(path).expanduser() / "memfs.toml").is_file():
            ws = Workspace(Path(path).expanduser().resolve())
        elif path is not None:
            ws = find_workspace(Path(path).expanduser())
        else:
            ws = find_workspace()
        self.runtime = Runtime(ws, config or load_config(ws.root), embedder, lock_timeout=lock_timeout)

    # -- the workspace and its parts (for the bench scripts, tests and agents) ---------------
    @property
    def ws(self) -> Workspace:
        return self.runtime.ws

    @property
    def config(self) -> Config:
        return self.runtime.config

    @property
    def root(self) -> Path:
        return self.runtime.ws.root

    @property
    def embedder(self) -> Embedder:
        return self.runtime.embedder

    @property
    def indexer(self) -> Indexer:
        return self.runtime.indexer

    @property
    def journal(self) -> "Journal":
        return self.runtime.journal

    @property
    def llm(self) -> "LLMRuntime | None":
        """The LLM runtime when `[llm] provider` (or MEMFS_LLM) is openai; None offline."""
        return self.runtime.llm

    @property
    def memorizer(self) -> "Memorizer":
        return self.runtime.memorizer

    def lock(self, purpose: str = "write", timeout: float | None = None) -> WriterLock:
        return self.runtime.lock(purpose, timeout)

    def close(self) -> None:
        self.runtime.close()

    def save_llm_usage(self) -> None:
        self.runtime.save_llm_usage()

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def category_specs(self) -> list[CategorySpec]:
        return self.runtime.category_specs()

    def regenerate_views(self) -> list[str]:
        """Rewrite index.md / memory.md / skill.md and person pages where their content
        changes. Call under the writer lock."""
        return self.runtime.regenerate_views()

    def reset_index(self, damaged: str | None = None) -> None:
        """Drop every open handle on `.memfs/` (and move a damaged index aside). Under the lock."""
        self.runtime.reset_index(damaged)

    def fresh_id(self, text: str, salt: str) -> str:
        return self.runtime.fresh_id(text, salt)

    def ensure_index(self) -> None:
        """Build the index from the Markdown if there is none on disk (or one of an older layout)."""
        _status.ensure_index(self.runtime)

    def warm_up(self) -> None:
        """Load the embedder and the category vectors now (a daemon, before its first input)."""
        self.runtime.warm_up()

    # -- verbs -------------------------------------------------------------------------------
    def sync(self, rebuild: bool = False, progress: Callable[..., None] | None = None,
             vectors: bool = True) -> SyncReport:
        """Re-index what changed on disk (or everything, with rebuild) and refresh root files;
        `vectors`: also fill the vectors an ingest left for after its write."""
        return reindex.sync(self.runtime, rebuild=rebuild, progress=progress, vectors=vectors)

    def add(self, text: str, category: str | None = None, type: str | None = None, when: str | None = None,
            src: str | None = None) -> Item:
        """File one fact. An identical fact already in memory is reinforced instead (seen + 1).
        Secret-shaped strings are redacted first (memfs.redact)."""
        return writer.add(self.runtime, text, category=category, type=type, when=when, src=src)

    def items(self, ids: list[str]) -> "dict[str, ItemRow]":
        """The indexed rows (file, line, category, ...) of these item ids; unknown ids are absent.
        Builds the index first if there is none yet."""
        return _status.items(self.runtime, ids)

    def recent(self, since: str, limit: int) -> "list[ItemRow]":
        """Items added, reinforced or dated on or after the date `since`, newest first."""
        return _status.recent(self.runtime, since, limit)

    def category_rows(self) -> "list[tuple[CategorySpec, CategoryFileRow | None]]":
        """Every category (configured or on disk) with its indexed file row, if indexed."""
        return _status.category_rows(self.runtime)

    def forget(self, item_id: str) -> Item:
        """Delete one item's line from its file (the old line stays in git history)."""
        return writer.forget(self.runtime, item_id)

    def search(self, query: str, k: int | None = None, types: set[str] | None = None,
               categories: set[str] | None = None, today: date | None = None,
               window: "TimeFilter | None" = None) -> "SearchResult":
        """Hybrid search with per-stage timings (what `recall` and the benchmarks use)."""
        from memfs.services import recall as _recall

        return _recall.search(self.runtime, query, k, types, categories, today, window)

    def recall(self, query: str, k: int | None = None, types: set[str] | None = None,
               categories: set[str] | None = None, mode: str = "fast", sources: bool = False, *,
               since: str | None = None, until: str | None = None, as_of: str | None = None,
               history: bool = False) -> "list[RecallHit]":
        """Hybrid recall. `mode="llm"` adds query rewriting, re-ranking and a sufficiency check
        that descends to the source passages (memU's tiered recall); `sources=True` always
        attaches the passage each item came from (resource recall).

        Time (dates `YYYY[-MM[-DD]]`): `since`/`until` keep items whose `when` overlaps the
        window; superseded items (history) are left out unless `history=True`, or `as_of`
        asks what was true on that date."""
        from memfs.services import recall as _recall

        return _recall.recall(self.runtime, query, k, types, categories, mode, sources, since=since, until=until,
                              as_of=as_of, history=history)

    @staticmethod
    def recall_rows(dir: str | None, query: str, k: int | None = None, types: list[str] | None = None,
                    categories: list[str] | None = None, mode: str = "fast", sources: bool = False, *,
                    since: str | None = None, until: str | None = None, as_of: str | None = None,
                    history: bool = False) -> list[dict]:
        """`recall` as JSON-ready dicts for the workspace at `dir` (as `--dir`): answered by a
        running daemon when it can (warm model and index, the same answer), else here."""
        from memfs.services.recall import recall_rows

        return recall_rows(dir, query, k, types, categories, mode, sources, since=since, until=until, as_of=as_of,
                           history=history)

    def ingest_file(self, path: Path, lock_timeout: float = 60.0, allow_relearn: bool = False,
                    max_batches: int | None = None, *, autocommit: bool | None = None,
                    vectors_later: bool = False, defer_views: bool = False) -> "IngestResult":
        """Run one file through the memorize pipeline under the writer lock.

        Unreadable input never raises: a file in inbox/ moves to inbox/failed/ with a
        `.error.txt` beside it, a file elsewhere is left alone; either way the result
        says why. Only a lock timeout raises (the input is untouched, try again).
        `autocommit` overrides `[git] autocommit` for this call. `vectors_later`: write
        first, embed and check near-duplicates after (`fill_vectors`), as the daemon does.
        `defer_views`: more inputs follow; leave the root files owed (see `view_debt`)."""
        from memfs.services import ingest as _ingest

        return _ingest.ingest_file(self.runtime, path, lock_timeout=lock_timeout, allow_relearn=allow_relearn,
                                   max_batches=max_batches, autocommit=autocommit, vectors_later=vectors_later,
                                   defer_views=defer_views)

    def view_debt(self, autocommit: bool | None = None) -> "ViewDebt":
        """For a run of inputs: which of them leave the root files owed, and when they are due
        (`regenerate_views` pays them)."""
        from memfs.services.ingest import ViewDebt

        return ViewDebt(self.runtime, autocommit)

    def fill_vectors(self, limit: int | None = None, stop: Callable[[], bool] | None = None,
                     lock_timeout: float = 60.0) -> "FillReport":
        """Embed up to `limit` items written without a vector and make their near-duplicate
        check (merging a near-duplicate into the older line); `.more` says call again;
        `stop()` true cuts the chunk short (the daemon: an input is waiting)."""
        from memfs.services import ingest as _ingest

        return _ingest.fill_vectors(self.runtime, limit, lock_timeout=lock_timeout, stop=stop)

    def ingest(self, paths: list[Path], progress: Callable[..., None] | None = None,
               allow_relearn: bool = False, stop: Callable[[], bool] | None = None) -> list["IngestResult"]:
        """Each path in turn; `progress(done, total, items_added)` after each; `stop()` true
        before an input ends the run there (the results are the inputs taken)."""
        from memfs.services import ingest as _ingest

        return _ingest.ingest(self.runtime, paths, progress=progress, allow_relearn=allow_relearn, stop=stop)

    def keep_warm(self) -> int | None:
        """After an in-process ingest: on a store of `[daemon] auto_start_items` items or
        more, start a background daemon the next inputs are handed to (services/autodaemon.py).
        Its pid, or None (a small store, turned off, or a daemon runs already)."""
        from memfs.services.autodaemon import start, wanted

        if not wanted(self.config, lambda: self.indexer.db.count_items()):
            return None
        return start(self.root, self.ws.state)

    def file_failure(self, path: Path, err: BaseException) -> tuple[str, bool]:
        """Move an input whose ingest raised to inbox/failed/: (its one-line reason, filed)."""
        from memfs.services import ingest as _ingest

        return _ingest.file_failure(self.runtime, path, err)

    def plan_forget(self, ids: list[str] | None = None, source: str | None = None, about: str | None = None,
                    query: str | None = None, k: int = 10) -> "ForgetPlan":
        """What a scoped forget would remove (the preview); changes nothing."""
        from memfs.forget import plan_forget

        with self.lock("forget"):
            return plan_forget(self, ids=ids, source=source, about=about, query=query, k=k)

    def apply_forget(self, plan: "ForgetPlan", purge_history: bool = False) -> "ForgetReport":
        """Remove everything a plan lists (items, inputs, index rows, embeddings; git history too
        with purge_history). See memfs/forget.py."""
        from memfs.forget import apply_forget

        with self.lock("forget"):
            return apply_forget(self, plan, purge_history=purge_history)

    def export_about(self, name: str) -> "SubjectExport":
        """Every item and source passage about a person or entity (a data-subject request)."""
        from memfs.export import export_about

        return export_about(self, name)

    def why(self, item_id: str) -> "Provenance":
        """Where a fact came from: its file and line, source passage, input and commits."""
        from memfs.export import why

        return why(self, item_id)

    def retry(self) -> list[str]:
        """Move everything in inbox/failed/ back into inbox/."""
        from memfs.inbox import retry_failed

        return retry_failed(self.ws)

    def status(self) -> Status:
        return _status.status(self.runtime)

    def context(self) -> str:
        """What an agent reads first: index.md's map and memory.md's salient facts."""
        return _status.context(self.runtime)
