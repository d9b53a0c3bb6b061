"""The verbs an agent calls (recall, remember, ingest, forget, why, recent, read,
categories, status), with typed, JSON-ready results. The MCP server exposes exactly
these; the proxy uses `recall`. Everything goes through `memfs.api.Memory`, so writes take
the same writer lock as the CLI and wait a bounded time (`[agents] lock_timeout`) while
the daemon holds it.
"""

from __future__ import annotations

import json
import os
import logging
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from memfs.pipeline.memorize import IngestResult

from memfs.agents.timefilter import parse_time
from memfs.agents.why import Why, why
from memfs.api import Memory, Status
from memfs.config import Config
from memfs.providers.embedding import Embedder
from memfs.core.model import MEMORY_TYPES
from memfs.errors import MemfsError, NotFoundError
from memfs.workspace import slugify

log = logging.getLogger("memfs.agents")

MAX_K = 100
MAX_READ_BYTES = 1_000_000
MAX_INGEST_BYTES = 5_000_000
FORMATS = ("auto", "markdown", "text", "json", "jsonl", "conversation")
_EXT = {"markdown": ".md", "text": ".txt", "json": ".json", "jsonl": ".jsonl", "conversation": ".json"}
#: Never served by `read`: the cache (sockets, locks, SQLite) and git's internals.
_PRIVATE = (".memfs", ".git")


class AgentMemory(Memory):
    """A Memory whose writes wait at most `[agents] lock_timeout` seconds for the writer lock."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, config: Config | None = None,
                 embedder: Embedder | None = None) -> None:
        super().__init__(path, config=config, embedder=embedder)
        self.runtime.lock_timeout = self.config.agents.lock_timeout


class ItemOut(BaseModel):
    """One memory item, with where it lives and where it came from."""

    id: str
    text: str
    when: str | None = Field(None, description="When it happened: YYYY, YYYY-MM or YYYY-MM-DD.")
    category: str
    path: str = Field(description="The Markdown file holding it, relative to the workspace.")
    line: int | None = None
    source: str | None = Field(None, description="resources/<file>#<anchor> it was distilled from.")
    type: str
    seen: int = 1
    score: float | None = Field(None, description="Recall score (higher is better); absent outside recall.")
    updated: str | None = Field(None, description="Last added, reinforced or filed (YYYY-MM-DD), where known.")
    hit: str = Field("item", description="item (a list line with an id) or passage (prose a person wrote).")
    anchor: str | None = Field(None, description="path#id for an item, path#L<first>-<last> for a passage.")


class RecallOut(BaseModel):
    query: str
    items: list[ItemOut]


class RememberOut(ItemOut):
    reinforced: bool = Field(description="True if the fact was already known and its `seen` count went up.")


class IngestOut(BaseModel):
    status: str = Field(description="processed | duplicate | failed")
    added: list[ItemOut] = Field(default_factory=list)
    reinforced: list[ItemOut] = Field(default_factory=list)
    superseded: list[str] = Field(default_factory=list, description="Ids of items this input replaced.")
    files: list[str] = Field(default_factory=list)
    resource: str | None = Field(None, description="The archived copy under resources/.")
    error: str | None = None


class ForgetOut(BaseModel):
    id: str
    text: str
    path: str
    forgotten: bool = True


class RecentOut(BaseModel):
    since: str
    items: list[ItemOut]


class ReadOut(BaseModel):
    path: str
    text: str
    bytes: int


class CategoryOut(BaseModel):
    path: str
    kind: str
    name: str
    title: str | None = None
    description: str | None = None
    summary: str | None = None
    items: int = 0


class CategoriesOut(BaseModel):
    categories: list[CategoryOut]


def _check_types(types: list[str] | None) -> set[str] | None:
    if not types:
        return None
    bad = [t for t in types if t not in MEMORY_TYPES]
    if bad:
        raise MemfsError(f"unknown type {bad[0]!r}: expected one of {', '.join(MEMORY_TYPES)}")
    return set(types)


class AgentTools:
    """One workspace's verbs for agents. Calls are serialised (one Memory, many threads)."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self._lock = threading.RLock()

    @contextmanager
    def _serial(self) -> Iterator[None]:
        with self._lock:
            yield

    def warm_up(self) -> None:
        """Build or open the index and load the embedder before the first call needs them;
        a failure is only logged (the calls will report it)."""
        try:
            self.recall("warm up", k=1)
        except Exception as err:  # noqa: BLE001
            log.warning("memfs: warm-up recall failed (%s: %s)", type(err).__name__, err)

    # -- reads ------------------------------------------------------------------
    def recall(self, query: str, k: int = 8, types: list[str] | None = None, categories: list[str] | None = None,
               since: str | None = None, until: str | None = None, as_of: str | None = None) -> RecallOut:
        k = max(1, min(int(k), MAX_K))
        want_types = _check_types(types)
        # Agents may say "7d" or a datetime: turned into dates, the window is Memory.recall's own.
        s, u, a = (d.isoformat() if d else None for d in (parse_time(since), parse_time(until), parse_time(as_of)))
        with self._serial():
            self.memory.ensure_index()  # checked on disk each time: a workspace gone away fails here
            hits = self.memory.recall(query, k=k, types=want_types, categories=set(categories) if categories else None,
                                      since=s, until=u, as_of=a)
        return RecallOut(query=query, items=[ItemOut(id=h.id, text=h.text, when=h.when, category=h.category,
                                                     path=h.path, line=h.line, source=h.source, type=h.type,
                                                     seen=h.seen, score=h.score, hit=h.hit, anchor=h.anchor)
                                             for h in hits])

    def why(self, item_id: str) -> Why:
        with self._serial():
            return why(self.memory, item_id)

    def recent(self, since: str = "7d", limit: int = 50) -> RecentOut:
        """Items added or reinforced (or dated) on or after `since`, newest first."""
        start = parse_time(since)
        limit = max(1, min(int(limit), 500))
        cutoff = (start.isoformat() if start else "0000")
        with self._serial():
            rows = self.memory.recent(cutoff, limit)
        items = [ItemOut(id=r.id, text=r.text, when=r.when, category=r.category, path=r.path, line=r.line,
                         source=r.src, type=r.type, seen=r.seen, updated=r.updated) for r in rows]
        return RecentOut(since=cutoff, items=items)

    def read(self, path: str) -> ReadOut:
        """Any text file of the workspace (never outside it, never .memfs/ or .git/)."""
        target = self.resolve(path)
        data = target.read_bytes()
        if len(data) > MAX_READ_BYTES:
            raise MemfsError(f"{path}: {len(data)} bytes is over the {MAX_READ_BYTES}-byte limit for read")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise MemfsError(f"{path}: not a UTF-8 text file") from None
        return ReadOut(path=self.memory.ws.rel(target), text=text, bytes=len(data))

    def resolve(self, path: str) -> Path:
        """The workspace file `path` names, or a one-line MemfsError saying why not."""
        root = self.memory.root.resolve()
        raw = str(path).strip()
        if raw.startswith("memfs://"):
            raw = raw[len("memfs://"):]
        if not raw or "\x00" in raw:
            raise MemfsError("read: empty path")
        candidate = Path(raw).expanduser()
        full = (candidate if candidate.is_absolute() else root / candidate).resolve()
        try:
            rel = full.relative_to(root)
        except ValueError:
            raise MemfsError(f"{path}: outside the workspace; read serves only files under {root}") from None
        if rel.parts and rel.parts[0] in _PRIVATE:
            raise MemfsError(f"{path}: {rel.parts[0]}/ is memfs' or git's own state, not memory")
        if not full.is_file():
            raise NotFoundError(f"{path}: no such file in the workspace")
        return full

    def categories(self) -> CategoriesOut:
        with self._serial():
            pairs = self.memory.category_rows()
        out = []
        for spec, row in pairs:
            out.append(CategoryOut(path=spec.rel, kind=spec.kind, name=spec.name,
                                   title=row.title if row else None,
                                   description=(row.description if row and row.description else spec.description)
                                   or None, summary=row.summary if row else None, items=row.items if row else 0))
        return CategoriesOut(categories=out)

    def status(self) -> Status:
        with self._serial():
            return self.memory.status()

    # -- writes -----------------------------------------------------------------
    def remember(self, text: str, category: str | None = None, type: str | None = None,
                 when: str | None = None) -> RememberOut:
        with self._serial():
            item = self.memory.add(text, category=category, type=type, when=when)
            row = self.memory.items([item.id]).get(item.id)
        return RememberOut(id=item.id, text=item.text, when=item.when, category=row.category if row else "?",
                           path=row.path if row else "?", line=row.line if row else None, source=item.src,
                           type=item.type, seen=item.seen, updated=item.updated, reinforced=item.seen > 1)

    def forget(self, item_id: str) -> ForgetOut:
        with self._serial():
            row = self.memory.items([item_id]).get(item_id)
            item = self.memory.forget(item_id)
        return ForgetOut(id=item.id, text=item.text, path=row.path if row else "?")

    def ingest_path(self, path: Path) -> "IngestResult":
        """Run one file through the pipeline (an inbox file leaves the inbox once archived)."""
        with self._serial():
            return self.memory.ingest_file(path, lock_timeout=self.memory.config.agents.lock_timeout)

    def ingest(self, content: str, format: str = "auto", title: str | None = None) -> IngestOut:
        """Memorize a document or conversation given as text, as if it had been dropped into inbox/."""
        if format not in FORMATS:
            raise MemfsError(f"unknown format {format!r}: expected one of {', '.join(FORMATS)}")
        if not content.strip():
            raise MemfsError("nothing to ingest: the content is empty")
        data = _with_title(content, format, title)
        if len(data.encode("utf-8")) > MAX_INGEST_BYTES:
            raise MemfsError(f"content is over the {MAX_INGEST_BYTES}-byte limit; drop the file into inbox/ instead")
        name = (slugify(title) if title else "") or "agent-input"
        ext = _EXT.get(format) or (".json" if content.lstrip()[:1] in "[{" else ".md")
        with self._serial():
            staging = self.memory.ws.state / "agents"
            staging.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=staging) as tmp:
                path = Path(tmp) / f"{name}{ext}"
                path.write_text(data, encoding="utf-8")
                result = self.memory.ingest_file(path, lock_timeout=self.memory.config.agents.lock_timeout)
            rows = self.memory.items([*result.added, *result.reinforced])

        def brief(ids: list[str]) -> list[ItemOut]:
            return [ItemOut(id=r.id, text=r.text, when=r.when, category=r.category, path=r.path, line=r.line,
                            source=r.src, type=r.type, seen=r.seen, updated=r.updated)
                    for r in (rows.get(i) for i in ids) if r is not None]
        superseded = list(getattr(result, "superseded", None) or [])
        return IngestOut(status=result.status, added=brief(result.added), reinforced=brief(result.reinforced),
                         superseded=superseded, files=result.files, resource=result.resource, error=result.error)


def _with_title(content: str, format: str, title: str | None) -> str:
    """Give a Markdown document or a conversation object its title, unless it has one."""
    if not title:
        return content
    stripped = content.lstrip()
    if format in ("auto", "json", "conversation") and stripped.startswith("{"):
        try:
            obj: Any = json.loads(content)
        except ValueError:
            return content
        if isinstance(obj, dict) and "title" not in obj:
            obj["title"] = title
            return json.dumps(obj, ensure_ascii=False)
        return content
    if format in ("auto", "markdown") and not stripped.startswith(("---", "[", "{")):
        return f"---\ntitle: {json.dumps(title, ensure_ascii=False)}\n---\n{content}"
    return content

