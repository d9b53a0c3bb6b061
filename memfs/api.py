"""The Python API: one object per workspace with the CLI's verbs.

    from memfs import Memory
    mem = Memory("~/memory")
    mem.add("Alice prefers green tea over coffee.")
    for hit in mem.recall("what does Alice drink"):
        print(hit.text, hit.path)

Writers (add, forget, sync, ingest) take the workspace lock for the length of one write
burst; recall never takes it.
"""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

from memfs.categorize import Categorizer, CategorySpec
from memfs.config import Config, load_config
from memfs.core.itemline import text_id
from memfs.core.model import KIND_OF_TYPE, MEMORY_TYPES, Item, normalize_text, parse_when
from memfs.errors import MemfsError, NotFoundError
from memfs.fsutil import WriterLock, has_writer, remove_stale_temp_files
from memfs.index.db import IndexDB, text_hash
from memfs.index.heal import IndexDamaged, is_damage, move_aside, quick_check
from memfs.index.search import Searcher
from memfs.index.sync import Indexer, SyncReport
from memfs.providers.embedding import Embedder, make_embedder
from memfs.store import CategoryStore, today_iso
from memfs.views import after_split, regenerate_root_files, split_oversized, views_stale
from memfs.workspace import Workspace, find_workspace, slugify

if TYPE_CHECKING:
    from memfs.export import Provenance, SubjectExport
    from memfs.forget import ForgetPlan, ForgetReport
    from memfs.inbox import Journal
    from memfs.index.search import SearchResult
    from memfs.index.timefilter import TimeFilter
    from memfs.llm.runtime import LLMRuntime
    from memfs.pipeline.memorize import IngestResult, Memorizer


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


class Status(BaseModel):
    root: str
    items: int
    categories: int
    resources: int
    inbox_pending: int
    failed: int
    embedder: str
    index_bytes: int
    llm: str
    llm_usage: dict[str, object]
    failures: list[tuple[str, str]]
    warnings: list[str]
    redactions: int = 0
    redaction_kinds: dict[str, int] = {}
    llm_state: list[str] = []
    #: Prose passages indexed from the notes (never rewritten; issue #18).
    passages: int = 0


class Memory:
    """A workspace's memory. `path` may be any folder inside it (found like git finds a repo)."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, config: Config | None = None,
                 embedder: Embedder | None = None) -> None:
        if path is not None and (Path(path).expanduser() / "memfs.toml").is_file():
            self.ws = Workspace(Path(path).expanduser().resolve())
        elif path is not None:
            self.ws = find_workspace(Path(path).expanduser())
        else:
            self.ws = find_workspace()
        self.config = config or load_config(self.ws.root)
        self._embedder = embedder
        self._indexer: Indexer | None = None
        self._searcher: Searcher | None = None
        self._journal: "Journal | None" = None
        self._memorizer: "Memorizer | None" = None
        self._llm: "LLMRuntime | None | bool" = False

    # -- plumbing -------------------------------------------------------------
    @property
    def root(self) -> Path:
        return self.ws.root

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self.config.embedder)
        return self._embedder

    @property
    def indexer(self) -> Indexer:
        if self._indexer is None:
            self._indexer = Indexer(self.ws, self.config, self.embedder)
        return self._indexer

    @property
    def journal(self) -> "Journal":
        if self._journal is None:
            from memfs.inbox import Journal

            self._journal = Journal(self.ws, self.indexer.db)
        return self._journal

    @property
    def llm(self) -> "LLMRuntime | None":
        """The LLM runtime when `[llm] provider` (or MEMFS_LLM) is openai; None offline."""
        if self._llm is False:
            from memfs.llm.runtime import LLMRuntime

            self._llm = LLMRuntime.from_config(self.config.llm, state_dir=self.ws.state)
        return self._llm  # type: ignore[return-value]

    @property
    def memorizer(self) -> "Memorizer":
        if self._memorizer is None:
            from memfs.pipeline.memorize import Memorizer

            rt = self.llm
            extractor = rt.extractor(categories=[s.name for s in self.category_specs()]) if rt else None
            self._memorizer = Memorizer(self, extractor=extractor)
        return self._memorizer

    def lock(self, purpose: str = "write", timeout: float = 60.0) -> WriterLock:
        return WriterLock(self.ws.state / "write.lock", timeout=timeout, purpose=purpose, anchor=self.ws.root)

    def close(self) -> None:
        self.save_llm_usage()
        if self._indexer is not None:
            self._indexer.close()
            self._indexer = None
        if self._searcher is not None:
            self._searcher.db.close()
            self._searcher = None

    def save_llm_usage(self) -> None:
        """Add this process's LLM calls to `.memfs/llm-usage.json` (every command that called a
        model: add, forget, sync, recall --mode llm, ingest, the daemon)."""
        if self._llm:
            try:
                self._llm.persist_usage()  # type: ignore[union-attr]
            except OSError:  # derived state: never fail a command over it
                pass

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def category_specs(self) -> list[CategorySpec]:
        specs: dict[str, CategorySpec] = {}
        for name, cat in self.config.categories.items():
            slug = slugify(name)
            specs[f"{cat.kind}/{slug}"] = CategorySpec(cat.kind, slug, cat.description)
        for path in self.ws.category_files():
            rel = self.ws.rel(path)
            kind, name = rel.split("/", 1)
            if "/" in name:  # a person's note in a subfolder: filed into only when named
                continue
            specs.setdefault(f"{kind}/{name[:-3]}", CategorySpec(kind, name[:-3], ""))
        return [specs[k] for k in sorted(specs)]

    def regenerate_views(self) -> list[str]:
        """Rewrite index.md / memory.md / skill.md where their content changes (the model
        condenses memory.md and skill.md in LLM mode). Call under the writer lock."""
        rt = self.llm
        split = split_oversized(self.ws, self.indexer.db, self.config)  # files grown past memory.split_items
        if split:
            self.indexer.sync(only=split)
        after_split(self.indexer.db)
        return regenerate_root_files(self.ws, self.indexer.db, self.config,
                                     summarize=rt.try_summarize_memory if rt else None)

    def _after_write(self, rels: list[str]) -> SyncReport:
        report = self.indexer.sync(only=rels)
        self.regenerate_views()
        return report

    # -- verbs ----------------------------------------------------------------
    def sync(self, rebuild: bool = False, progress=None) -> SyncReport:  # type: ignore[no-untyped-def]
        """Re-index what changed on disk (or everything, with rebuild) and refresh root files."""
        with self.lock("sync"):
            remove_stale_temp_files([self.ws.root / d for d in ("memory", "index", "skill", "people", "resources",
                                                                ".memfs")], shallow=[self.ws.root])
            try:
                report = self.indexer.sync(rebuild=rebuild, progress=progress)
            except Exception as err:  # a damaged index is a cache to rebuild, not an error
                if not is_damage(err):
                    raise
                self.reset_index(damaged=str(err))
                report = self.indexer.sync(rebuild=True, progress=progress)
                rebuild = True
            if report.changed or rebuild or views_stale(self.ws, self.indexer.db):
                self.regenerate_views()
        return report

    def reset_index(self, damaged: str | None = None) -> None:
        """Forget every open handle on `.memfs/` (the next use reopens it); with `damaged`,
        move the index file aside first (memfs.index.heal). Call under the writer lock."""
        self.close()
        self._journal = None
        if self._memorizer is not None:
            self._memorizer.ctx.searcher = None
        if damaged is not None:
            move_aside(self.ws.state / "index.sqlite3", damaged)

    def add(self, text: str, category: str | None = None, type: str | None = None, when: str | None = None,
            src: str | None = None) -> Item:
        """File one fact. An identical fact already in memory is reinforced instead (seen + 1).
        Secret-shaped strings are redacted first (memfs.redact)."""
        from memfs.redact import record_counts, redact

        redaction = redact(text)
        clean = normalize_text(redaction.text)
        if not clean:
            raise MemfsError("nothing to add: the text is empty")
        if type is not None and type not in MEMORY_TYPES:
            raise MemfsError(f"unknown type {type!r}: expected one of {', '.join(MEMORY_TYPES)}")
        if when is not None:
            try:
                when = parse_when(when)
            except ValueError as err:
                raise MemfsError(f"when: {err}") from None
        with self.lock("add"):
            record_counts(self.ws.state, redaction.kinds)
            self._ensure_indexed()
            db = self.indexer.db
            same = db.conn.execute("SELECT id, path FROM items WHERE text_hash=? LIMIT 1",
                                   (text_hash(clean),)).fetchone()
            if same is not None:
                return self._reinforce(same[0], same[1])
            guessed, hint = _guess_type(clean)
            item_type = type or guessed
            vector = None
            if category is None:
                vectors, fresh = self.indexer.embed_texts({text_hash(clean): clean})
                vector = vectors[text_hash(clean)]
                with db.transaction():
                    db.store_vectors(fresh)
            spec = self._resolve_category(category, item_type, vector, hint)
            if type is None and KIND_OF_TYPE[item_type] != spec.kind:
                item_type = {"memory": "profile", "index": "knowledge", "skill": "skill"}[spec.kind]
            item_id = self.fresh_id(clean, src or "add")
            item = Item(id=item_id, text=clean, type=item_type, when=when, src=src, updated=today_iso())  # type: ignore[arg-type]
            CategoryStore(self.ws, self.config).edit(spec.rel, lambda doc: doc.add(item))
            self._after_write([spec.rel])
        return item

    def _resolve_category(self, category: str | None, item_type: str, vector,  # type: ignore[no-untyped-def]
                          hint: str | None = None) -> CategorySpec:
        specs = self.category_specs()
        if category is not None:
            if "/" in category:
                kind, _, name = category.partition("/")
                name = name[:-3] if name.endswith(".md") else name
                if kind not in ("memory", "index", "skill"):
                    raise MemfsError(f"unknown kind {kind!r} in {category!r}: use memory/, index/ or skill/")
                if "/" in name and f"{kind}/{name}.md" in self.ws.category_rels():
                    return CategorySpec(kind, name, "")  # a nested note, named exactly
                return CategorySpec(kind, slugify(name), "")
            slug = slugify(category)
            for spec in specs:
                if spec.name == slug:
                    return spec
            cfg = self.config.categories.get(slug)
            return CategorySpec(cfg.kind if cfg else KIND_OF_TYPE.get(item_type, "memory"), slug, "")
        return Categorizer(self.embedder, specs, self.indexer.embed_cached).choose(vector, item_type, hint)

    def fresh_id(self, text: str, salt: str) -> str:
        """The text-derived id, salted further until no indexed item has it."""
        db = self.indexer.db
        candidate = text_id(text, salt)
        while db.conn.execute("SELECT 1 FROM items WHERE id=?", (candidate,)).fetchone():
            salt += "+"
            candidate = text_id(text, salt)
        return candidate

    def _reinforce(self, item_id: str, rel: str) -> Item:
        found: list[Item] = []

        def bump(doc) -> None:  # type: ignore[no-untyped-def]
            slot = doc.find(item_id)
            if slot is None:
                raise NotFoundError(f"item {item_id} is no longer in {rel}; run `memfs sync`")
            slot.item = slot.item.model_copy(update={"seen": slot.item.seen + 1, "updated": today_iso()})
            found.append(slot.item)

        CategoryStore(self.ws, self.config).edit(rel, bump)
        self._after_write([rel])
        return found[0]

    def forget(self, item_id: str) -> Item:
        """Delete one item's line from its file (the old line stays in git history)."""
        with self.lock("forget"):
            self._ensure_indexed()
            row = self.indexer.db.items_by_ids([item_id]).get(item_id)
            if row is None:
                self.indexer.sync()
                row = self.indexer.db.items_by_ids([item_id]).get(item_id)
            if row is None:
                raise NotFoundError(f"no item with id {item_id!r}")
            removed: list[Item] = []

            def drop(doc) -> None:  # type: ignore[no-untyped-def]
                slot = doc.find(item_id)
                if slot is None:
                    raise NotFoundError(f"item {item_id} is no longer in {row.path}; run `memfs sync`")
                removed.append(slot.item)
                doc.remove(item_id)

            CategoryStore(self.ws, self.config).edit(row.path, drop)
            self._after_write([row.path])
        return removed[0]

    def _ensure_indexed(self) -> None:
        """Writers start from an index that matches the files (cheap when nothing changed)."""
        self.indexer.sync()

    def search(self, query: str, k: int | None = None, types: set[str] | None = None,
               categories: set[str] | None = None, today: date | None = None,
               window: "TimeFilter | None" = None) -> "SearchResult":
        """Hybrid search with per-stage timings (what `recall` and the benchmarks use)."""
        db_path = self.ws.state / "index.sqlite3"
        if self._searcher is None and not _index_ready(db_path):
            self.sync()  # no index yet, or one of an older layout: build it from the Markdown
        try:
            if self._searcher is None:  # a reader: read-only, never DDL (works on a read-only .memfs/)
                self._searcher = Searcher(IndexDB(db_path, readonly=True), self.embedder, self.ws.state,
                                          self.config.recall)
            return self._searcher.search(query, k or self.config.recall.top_k, types, categories, today, window)
        except Exception as err:
            if not is_damage(err):
                raise
        self._heal_damaged_index()
        self._searcher = Searcher(IndexDB(db_path, readonly=True), self.embedder, self.ws.state, self.config.recall)
        return self._searcher.search(query, k or self.config.recall.top_k, types, categories, today, window)

    def _heal_damaged_index(self) -> None:
        """A reader found damage: under the writer lock, check again (another process may
        have healed it meanwhile), move it aside if still damaged, rebuild."""
        with self.lock("sync"):
            self.reset_index()  # under the lock: no writer of ours is using the old handles
            db = IndexDB(self.ws.state / "index.sqlite3")  # heals a damaged header by itself
            try:
                quick_check(db.conn)
                damage = None
            except IndexDamaged as err:
                damage = err.reason
            finally:
                db.close()
            if damage is not None:
                self.reset_index(damaged=damage)
            self.indexer.sync(rebuild=damage is not None)
            self.regenerate_views()

    def recall(self, query: str, k: int | None = None, types: set[str] | None = None,
               categories: set[str] | None = None, mode: str = "fast", sources: bool = False, *,
               since: str | None = None, until: str | None = None, as_of: str | None = None,
               history: bool = False) -> list[RecallHit]:
        """Hybrid recall. `mode="llm"` adds query rewriting, re-ranking and a sufficiency check
        that descends to the source passages (memU's tiered recall); `sources=True` always
        attaches the passage each item came from (resource recall).

        Time (dates `YYYY[-MM[-DD]]`): `since`/`until` keep items whose `when` overlaps the
        window; superseded items (history) are left out unless `history=True`, or `as_of`
        asks what was true on that date."""
        if not query.strip():
            raise MemfsError("empty query")
        from memfs.index.timefilter import TimeFilter

        window = TimeFilter.of(since, until, as_of, history)
        if mode not in ("fast", "llm"):
            raise MemfsError(f"unknown recall mode {mode!r}: expected fast or llm")
        k = k or self.config.recall.top_k
        if mode == "llm":
            hits, sources = self._recall_llm(query, k, types, categories, sources, window)
        else:
            hits = self._hits(self.search(query, k, types, categories, window=window).hits)
        if sources:
            from memfs.index.context import ContextResolver

            resolver = ContextResolver(self.ws.root)
            for h in hits:
                h.passage = resolver.passage(h.source)
        return hits

    @staticmethod
    def _hits(raw: list) -> list[RecallHit]:  # type: ignore[type-arg]
        from memfs.index.recall_hits import hit_fields

        return [RecallHit(id=h.row.id, text=h.row.text, category=h.row.category, kind=h.row.kind, path=h.row.path,
                          line=h.row.line, type=h.row.type, when=h.row.when, source=h.row.src, seen=h.row.seen,
                          score=round(h.score, 6), until=h.row.until, superseded_by=h.row.superseded_by,
                          **hit_fields(h.row))
                for h in raw]

    def _recall_llm(self, query: str, k: int, types: set[str] | None, categories: set[str] | None,
                    sources: bool, window: "TimeFilter | None" = None) -> tuple[list[RecallHit], bool]:
        rt = self.llm
        if rt is None:
            raise MemfsError("recall --mode llm needs an LLM: set [llm] provider = \"openai\" or MEMFS_LLM=openai")
        pool = max(3 * k, 30)
        fused: dict[str, float] = {}
        by_id: dict[str, RecallHit] = {}
        for q in rt.rewrite_query(query):
            for rank, hit in enumerate(self._hits(self.search(q, pool, types, categories, window=window).hits), start=1):
                fused[hit.id] = fused.get(hit.id, 0.0) + 1.0 / (self.config.recall.rrf_k + rank)
                by_id.setdefault(hit.id, hit)
        ranked = sorted(fused, key=lambda i: (-fused[i], i))[:pool]
        order = rt.rerank(query, [(i, by_id[i].text) for i in ranked])
        hits = [by_id[i] for i in order if i in by_id][:k]
        for n, h in enumerate(hits):
            h.score = round(1.0 / (n + 1), 6)
        enough = rt.sufficient(query, [h.text for h in hits])
        return hits, sources or not enough

    def ingest_file(self, path: Path, lock_timeout: float = 60.0, allow_relearn: bool = False,
                    max_batches: int | None = None) -> "IngestResult":
        """Run one file through the memorize pipeline under the writer lock.

        Unreadable input never raises: a file in inbox/ moves to inbox/failed/ with a
        `.error.txt` beside it, a file elsewhere is left alone; either way the result
        says why. Only a lock timeout raises (the input is untouched, try again)."""
        from memfs.inbox import move_to_failed
        from memfs.pipeline.memorize import IngestResult, Unsettled
        from memfs.readers import ReadError

        path = Path(path)
        in_inbox = path.parent.resolve() == self.ws.inbox.resolve()
        with self.lock("ingest", timeout=lock_timeout):
            try:
                if path.is_symlink():
                    raise ReadError("symlink: memfs does not follow links in the inbox")
                if not path.is_file():
                    raise ReadError("not a regular file")
                try:
                    result = self.memorizer.run(path, allow_relearn=allow_relearn, max_batches=max_batches)
                except Unsettled as err:  # still being written: left where it is, taken later
                    return IngestResult(name=path.name, status="waiting", error=f"{err}; left it to settle")
                finally:
                    if self._llm:
                        self._llm.persist_usage()  # type: ignore[union-attr]
            except (ReadError, OSError, UnicodeError, ValueError, RecursionError, MemfsError) as err:
                reason = _reason(err)
                result = IngestResult(name=path.name, status="failed", error=reason)
                if in_inbox and (path.exists() or path.is_symlink()):
                    move_to_failed(self.ws, path, reason)
                return result
            if result.status == "duplicate" and views_stale(self.ws, self.indexer.db):
                self.regenerate_views()  # a crash left them behind
            if result.status == "processed":
                from memfs.forget import after_ingest

                after_ingest(self, result, allow_relearn)
            if in_inbox and result.status in ("processed", "duplicate"):
                _remove_if_unchanged(path, self.memorizer)
            if result.status == "processed" and self.config.git.autocommit:
                from memfs.gitops import commit_ingest

                commit_ingest(self.ws, result)
        return result

    def ingest(self, paths: list[Path], progress=None,  # type: ignore[no-untyped-def]
               allow_relearn: bool = False) -> list["IngestResult"]:
        results = []
        for n, path in enumerate(paths):
            results.append(self.ingest_file(Path(path), allow_relearn=allow_relearn))
            if progress:
                progress(n + 1, len(paths))
        return results

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
        from memfs.inbox import retry_failed

        return retry_failed(self.ws)

    def status(self) -> Status:
        from memfs.inbox import failures

        db_path = self.ws.state / "index.sqlite3"
        items = categories = passages = 0
        warnings: list[str] = []
        recorded = None
        if db_path.exists() and not _index_ready(db_path):
            try:  # damaged, foreign or of another version: rebuilt (with one line) if we can write
                self.sync()
            except MemfsError as err:
                warnings.append(f"the index cannot be read or rebuilt: {err}")
        if db_path.exists() and _index_ready(db_path):
            db = IndexDB(db_path, readonly=True)
            try:
                with db.snapshot():
                    items = db.count_items()
                    categories = int(db.conn.execute("SELECT count(*) FROM files").fetchone()[0])
                    passages = int(db.conn.execute("SELECT count(*) FROM passages").fetchone()[0])
                    recorded = db.get_meta("embedder")
                    for (w,) in db.conn.execute("SELECT warnings FROM files WHERE warnings != '' ORDER BY path"):
                        warnings.extend(w.splitlines())
                    warnings.extend((db.get_meta("entry_warnings") or "").splitlines())  # person pages
            finally:
                db.close()
        size = sum(p.stat().st_size for p in self.ws.state.glob("*") if p.is_file()) if self.ws.state.exists() else 0
        from memfs.llm.runtime import load_usage

        lc = self.config.llm
        llm = f"{lc.provider}:{lc.model}" if lc.provider != "local" else "local (offline extractor)"
        usage = load_usage(self.ws.state).model_dump() if self.ws.state.exists() else {}
        from memfs.llm.endpoint import STATE_FILE, describe_state

        llm_state = describe_state(self.ws.state / STATE_FILE) if (self.ws.state / STATE_FILE).exists() else []
        from memfs.redact import load_counts

        redacted = load_counts(self.ws.state)
        return Status(root=str(self.ws.root), items=items, categories=categories, passages=passages,
                      resources=_count_files(self.ws.resources), inbox_pending=_count_inbox(self.ws.inbox),
                      failed=_count_failed(self.ws.failed), embedder=recorded or _configured_name(self.config),
                      index_bytes=size, llm=llm, llm_usage=usage, failures=failures(self.ws), warnings=warnings,
                      redactions=sum(redacted.values()), redaction_kinds=redacted, llm_state=llm_state)

    def context(self) -> str:
        """What an agent reads first: index.md's map and memory.md's salient facts."""
        parts = []
        for name in ("index.md", "memory.md"):
            path = self.ws.root / name
            if path.exists():
                parts.append(path.read_text(encoding="utf-8", errors="replace").strip())
        return "\n\n".join(parts) + "\n"


def _index_ready(db_path: Path) -> bool:
    """True if .memfs/ holds a synced index of the current layout (checked without writing)."""
    import sqlite3

    from memfs.index.db import SCHEMA_VERSION, connect_readonly

    if not db_path.exists():
        return False
    try:
        conn = connect_readonly(db_path)
        try:
            rows = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('schema', 'embedder')").fetchall())
        finally:
            conn.close()
    except (sqlite3.Error, IndexDamaged):
        return False  # the writer's open heals it
    return rows.get("schema") == SCHEMA_VERSION and "embedder" in rows


def _reason(err: BaseException) -> str:
    """One line a person can act on; never a traceback, never a secret."""
    from memfs.readers import ReadError

    if isinstance(err, ReadError):
        return str(err)
    if isinstance(err, OSError):
        return f"{err.strerror or type(err).__name__} while processing ({type(err).__name__})"
    if isinstance(err, MemfsError):
        return str(err)
    return f"internal error: {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"


def _remove_if_unchanged(path: Path, memorizer: "Memorizer") -> None:
    """Delete the inbox copy, unless someone replaced the file while we worked on it."""
    from memfs.pipeline.memorize import content_digest

    try:
        data = path.read_bytes()
    except OSError:
        return
    if has_writer(path):  # a logger still has it open: what it appends must not go to an unlinked file
        return
    if memorizer.memory.journal.is_done(content_digest(data)):
        path.unlink(missing_ok=True)


def _guess_type(text: str) -> tuple[str, str | None]:
    """(type, category hint) for a fact added by hand: personal cues first, else knowledge.

    The offline extractor's classifier is reused: read as something a person said, a
    fact with a clear personal cue (a preference, an event, a habit) is about people;
    anything else is read as a statement about the world."""
    from memfs.extract.classify import classify

    spoken = classify(text, kind="conversation", personal=True)
    if spoken[1] is not None or spoken[0] != "profile":
        return spoken
    return classify(text, kind="document")


def _configured_name(config: Config) -> str:
    e = config.embedder
    return {"minilm": "minilm-l6-v2-int8", "hashing": f"hashing-v1-{e.dim}"}.get(e.provider, f"openai:{e.model}")


def _count_files(folder: Path) -> int:
    if not folder.is_dir():
        return 0
    return sum(1 for p in folder.rglob("*") if p.is_file() and not p.name.startswith("."))


def _count_inbox(inbox: Path) -> int:
    if not inbox.is_dir():
        return 0
    return sum(1 for p in inbox.iterdir() if p.is_file() and not p.name.startswith("."))


def _count_failed(failed: Path) -> int:
    if not failed.is_dir():
        return 0
    return sum(1 for p in failed.iterdir() if p.is_file() and not p.name.endswith(".error.txt")
               and not p.name.startswith("."))
