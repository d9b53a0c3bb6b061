"""`memfs status` and `memfs context`: read-only reports on a workspace.

Status reads the index read-only; only an index that cannot be read at all (damaged,
foreign, of another version) is rebuilt first, with one warning if even that fails.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from memfs.categorize import CategorySpec
from memfs.config import Config
from memfs.errors import MemfsError
from memfs.index import repository
from memfs.index.db import IndexDB, ItemRow
from memfs.services import reindex
from memfs.services.runtime import Runtime


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
    #: Work an ingest left for after the write (pipeline/vecfill.py): items and passages
    #: without a vector yet, and near-duplicate checks still to make. A daemon that took
    #: the inbox is done once these are 0 too; `memfs sync` finishes them.
    vectors_pending: int = 0
    checks_pending: int = 0


def status(rt: Runtime) -> Status:
    from memfs.inbox import failures
    from memfs.index.vecfill_store import count_marked, count_without_vectors
    from memfs.llm.endpoint import STATE_FILE, describe_state
    from memfs.llm.runtime import load_usage
    from memfs.redact import load_counts

    ws = rt.ws
    db_path = reindex.index_path(rt)
    items = categories = passages = vectors_pending = checks_pending = 0
    warnings: list[str] = []
    recorded = None
    if db_path.exists() and not repository.index_ready(db_path):
        try:  # damaged, foreign or of another version: rebuilt (with one line) if we can write
            reindex.sync(rt)
        except MemfsError as err:
            warnings.append(f"the index cannot be read or rebuilt: {err}")
    if db_path.exists() and repository.index_ready(db_path):
        db = IndexDB(db_path, readonly=True)
        try:
            with db.snapshot():
                items = db.count_items()
                categories = repository.count_files(db)
                passages = repository.count_passages(db)
                vectors_pending, checks_pending = count_without_vectors(db), count_marked(db)
                recorded = db.get_meta("embedder")
                warnings.extend(repository.file_warnings(db))
                warnings.extend((db.get_meta("entry_warnings") or "").splitlines())  # person pages
        finally:
            db.close()
    size = sum(p.stat().st_size for p in ws.state.glob("*") if p.is_file()) if ws.state.exists() else 0
    lc = rt.config.llm
    llm = f"{lc.provider}:{lc.model}" if lc.provider != "local" else "local (offline extractor)"
    usage = load_usage(ws.state).model_dump() if ws.state.exists() else {}
    llm_state = describe_state(ws.state / STATE_FILE) if (ws.state / STATE_FILE).exists() else []
    redacted = load_counts(ws.state)
    return Status(root=str(ws.root), items=items, categories=categories, passages=passages,
                  resources=_count_files(ws.resources), inbox_pending=_count_inbox(ws.inbox),
                  failed=_count_failed(ws.failed), embedder=recorded or configured_embedder(rt.config),
                  index_bytes=size, llm=llm, llm_usage=usage, failures=failures(ws), warnings=warnings,
                  redactions=sum(redacted.values()), redaction_kinds=redacted, llm_state=llm_state,
                  vectors_pending=vectors_pending, checks_pending=checks_pending)


def context(rt: Runtime) -> str:
    """What an agent reads first: index.md's map and memory.md's salient facts."""
    parts = []
    for name in ("index.md", "memory.md"):
        path = rt.ws.root / name
        if path.exists():
            parts.append(path.read_text(encoding="utf-8", errors="replace").strip())
    return "\n\n".join(parts) + "\n"


def items(rt: Runtime, ids: list[str]) -> "dict[str, ItemRow]":
    """The indexed rows of these ids (the index built first if there is none)."""
    ensure_index(rt)
    return rt.indexer.db.items_by_ids(ids)


def recent(rt: Runtime, since: str, limit: int) -> list[repository.RecentRow]:
    """Items last touched on or after `since` (a date), newest first."""
    ensure_index(rt)
    rt.journal  # noqa: B018 - creates the journal table if this index has none yet
    return repository.recent_items(rt.indexer.db, since, limit)


def category_rows(rt: Runtime) -> list[tuple[CategorySpec, repository.CategoryFileRow | None]]:
    """Every category (configured or on disk) with its indexed file row, if any."""
    ensure_index(rt)
    rows = repository.category_files(rt.indexer.db)
    return [(spec, rows.get(spec.rel)) for spec in rt.category_specs()]


def ensure_index(rt: Runtime) -> None:
    """Build the index from the Markdown if there is none yet (or one of an older layout)."""
    if not repository.index_ready(reindex.index_path(rt)):
        reindex.sync(rt)


def configured_embedder(config: Config) -> str:
    """The embedder's name as the index records it, from the config alone (no model load)."""
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
