"""`why(id)`: an item, the passage it came from and the commits that touched it.

The agents' form of provenance (`Memory.why`, memfs/export.py, is the CLI's): the index
row, `ContextResolver.passage` and `git log`, in one function. A forgotten item is still
explained from git history: its line is gone from the Markdown, not from git.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from memfs.core.model import KINDS
from memfs.errors import NotFoundError

if TYPE_CHECKING:
    from memfs.api import Memory

STORE = KINDS
_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_COMMITS = 20


class Commit(BaseModel):
    sha: str
    date: str
    subject: str


class Why(BaseModel):
    id: str
    found: bool = Field(description="False if the item is no longer in the Markdown (forgotten or deleted).")
    text: str | None = None
    category: str | None = None
    path: str | None = None
    line: int | None = None
    type: str | None = None
    when: str | None = None
    seen: int | None = None
    updated: str | None = None
    source: str | None = Field(None, description="resources/<file>#<anchor> the item was distilled from.")
    passage: str | None = Field(None, description="The source passage itself (the turn or section).")
    commits: list[Commit] = Field(default_factory=list, description="Newest first; empty without git.")


def why(memory: "Memory", item_id: str) -> Why:
    """Explain one item; raises NotFoundError if neither the index nor git knows the id."""
    from memfs.index.context import ContextResolver

    item_id = item_id.strip()
    if not _ID.match(item_id):
        raise NotFoundError(f"no item with id {item_id!r} (ids are letters and digits, see recall)")
    row = memory.items([item_id]).get(item_id)
    paths = [row.path] if row is not None else [p for p in STORE if (memory.root / p).is_dir()]
    commits = _commits(memory, item_id, paths)
    if row is None:
        if not commits:
            raise NotFoundError(f"no item with id {item_id!r} (not in memory, not in git history)")
        return Why(id=item_id, found=False, commits=commits)
    return Why(id=row.id, found=True, text=row.text, category=row.category, path=row.path, line=row.line,
               type=row.type, when=row.when, seen=row.seen, updated=row.updated, source=row.src,
               passage=ContextResolver(memory.root).passage(row.src), commits=commits)


def _commits(memory: "Memory", item_id: str, paths: list[str]) -> list[Commit]:
    """Commits whose diff adds or removes a line mentioning `id=<item_id>`, newest first."""
    from memfs.export import item_commits

    return [Commit(sha=c.sha, date=c.date, subject=c.subject)
            for c in item_commits(memory.root, item_id, paths, newest_first=True, limit=MAX_COMMITS)]
