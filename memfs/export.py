"""Export and audit: `memfs export --about NAME` (a data-subject request) and `memfs why ID`.

Both only read: the index for items, resources/ for source passages, the journal and git
for where an input came from and when a line was written.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from pydantic import BaseModel, Field

from memfs.errors import NotFoundError
from memfs.forget import _journal_rows, items_about, name_pattern
from memfs.index.context import ContextResolver
from memfs.index.db import ItemRow

if TYPE_CHECKING:
    from memfs.api import Memory

_DIGEST_IN_NAME = re.compile(r"-([0-9a-f]{16})\.[a-z]+$")


class ExportedItem(BaseModel):
    id: str
    text: str
    path: str
    line: int | None
    type: str
    when: str | None
    source: str | None
    seen: int
    passage: str | None = None


class Passage(BaseModel):
    resource: str
    anchor: str
    speaker: str | None = None
    text: str


class SubjectExport(BaseModel):
    """Everything memory holds about one person or entity."""

    subject: str
    items: list[ExportedItem] = Field(default_factory=list)
    passages: list[Passage] = Field(default_factory=list, description="every turn or section that mentions "
                                    "the subject or is spoken by them")

    def markdown(self) -> str:
        out = [f"# Everything memfs holds about {self.subject}", "",
               f"{len(self.items)} items, {len(self.passages)} source passages.", "", "## Items", ""]
        for it in self.items:
            when = f" ({it.when})" if it.when else ""
            out.append(f"- {it.text}{when} — `{it.path}:{it.line or '?'}` id={it.id}"
                       + (f", from `{it.source}`" if it.source else ""))
        out += ["", "## Source passages", ""]
        for p in self.passages:
            who = f"**{p.speaker}:** " if p.speaker else ""
            out.append(f"- `{p.resource}#{p.anchor}` {who}{' '.join(p.text.split())}")
        return "\n".join(out) + "\n"


def _exported(row: ItemRow, resolver: ContextResolver) -> ExportedItem:
    return ExportedItem(id=row.id, text=row.text, path=row.path, line=row.line, type=row.type, when=row.when,
                        source=row.src, seen=row.seen, passage=resolver.passage(row.src))


def export_about(mem: "Memory", name: str) -> SubjectExport:
    from memfs.readers import ReadError, read_source

    mem.sync()
    rx = name_pattern(name)
    resolver = ContextResolver(mem.ws.root)
    result = SubjectExport(subject=name, items=[_exported(r, resolver) for r in items_about(mem, name)])
    folder = mem.ws.resources
    for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
        if not path.is_file() or path.is_symlink():
            continue
        try:
            source = read_source(path.read_bytes(), path.name)
        except (ReadError, OSError, ValueError):
            continue
        rel = mem.ws.rel(path)
        for seg in source.segments:
            if rx.search(seg.text) or (seg.speaker and rx.fullmatch(seg.speaker.strip())):
                result.passages.append(Passage(resource=rel, anchor=seg.anchor, speaker=seg.speaker, text=seg.text))
    return result


class Commit(BaseModel):
    id: str
    date: str
    subject: str


class Provenance(BaseModel):
    """Where one fact came from."""

    item: ExportedItem
    input_name: str | None = Field(None, description="the file name it was ingested under (journal)")
    resource_exists: bool = False
    reinforced_by: str | None = Field(None, description="the input that last reinforced it (via=)")
    supersedes: str | None = None
    added_in: Commit | None = Field(None, description="the git commit that first wrote its line")
    changed_in: list[Commit] = Field(default_factory=list)

    def text(self) -> str:
        it = self.item
        lines = [f"{it.id}: {it.text}", f"  file      {it.path}:{it.line or '?'}  (type {it.type}"
                 + (f", when {it.when}" if it.when else "") + f", seen {it.seen})"]
        if it.source:
            origin = f" (ingested as {self.input_name})" if self.input_name else ""
            gone = "" if self.resource_exists else "  [archived input missing]"
            lines.append(f"  source    {it.source}{origin}{gone}")
        else:
            lines.append("  source    none recorded (added by hand or with `memfs add`)")
        if it.passage:
            lines.append(f"  passage   {' '.join(it.passage.split())}")
        if self.reinforced_by:
            lines.append(f"  reinforced last by {self.reinforced_by}")
        if self.supersedes:
            lines.append(f"  supersedes {self.supersedes}")
        if self.added_in:
            lines.append(f"  added in  {self.added_in.id} {self.added_in.date} {self.added_in.subject}")
        for c in self.changed_in:
            lines.append(f"  changed   {c.id} {c.date} {c.subject}")
        return "\n".join(lines)


def why(mem: "Memory", item_id: str) -> Provenance:
    mem.sync()
    row = mem.indexer.db.items_by_ids([item_id]).get(item_id)
    if row is None:
        raise NotFoundError(f"no item with id {item_id!r}")
    from memfs.index.sync import read_category

    doc, _ = read_category(mem.ws.root / row.path, row.path)
    found = next((i for i in doc.items if i.id == item_id), None)
    extra = found.extra if found else {}
    prov = Provenance(item=_exported(row, ContextResolver(mem.ws.root)), supersedes=extra.get("supersedes"))
    rows = _journal_rows(mem)
    if row.src:
        rel = row.src.split("#", 1)[0]
        prov.resource_exists = (mem.ws.root / rel).is_file()
        prov.input_name = next((name for _, name, res in rows if res == rel), None)
    via = extra.get("via")
    if via:
        prov.reinforced_by = next((f"{res} ({name})" for digest, name, res in rows if digest.startswith(via)), None) \
            or _resource_by_prefix(mem, via) or f"input {via}"
    commits = _line_commits(mem, item_id, row.path)
    if commits:
        prov.added_in, prov.changed_in = commits[0], commits[1:]
    return prov


def _resource_by_prefix(mem: "Memory", prefix: str) -> str | None:
    if not mem.ws.resources.is_dir():
        return None
    for path in mem.ws.resources.rglob("*"):
        m = _DIGEST_IN_NAME.search(path.name)
        if m and m.group(1).startswith(prefix):
            return mem.ws.rel(path)
    return None


_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class GitCommit(NamedTuple):
    sha: str
    short: str
    date: str  # the author date, strict ISO
    day: str  # the same, YYYY-MM-DD
    subject: str


def item_commits(root: Path, item_id: str, paths: list[str], *, newest_first: bool = True,
                 limit: int | None = None) -> list[GitCommit]:
    """Commits whose diff adds or removes a line carrying `id=<item_id>` (the whole id, not a
    prefix of a longer one), under `paths`: the one git query behind `memfs why` and the
    agents' `why`. Empty without git, a repository or paths."""
    if not shutil.which("git") or not (root / ".git").exists() or not paths:
        return []
    ident = item_id if _ID.match(item_id) else re.escape(item_id)
    args = ["git", "-C", str(root), "log", "--format=%H%x09%h%x09%aI%x09%as%x09%s", "-E",
            f"-Gid={ident}([^A-Za-z0-9_-]|$)"]
    if limit is not None:
        args.append(f"-{limit}")
    if not newest_first:
        args.append("--reverse")
    proc = subprocess.run([*args, "--", *paths], capture_output=True, text=True, check=False, timeout=30)
    out = []
    for line in proc.stdout.splitlines():
        parts = line.split("\t", 4)
        if len(parts) == 5 and parts[0]:
            out.append(GitCommit(*parts))
    return out


def _line_commits(mem: "Memory", item_id: str, rel: str) -> list[Commit]:
    """Commits that added or changed the item's line, oldest first."""
    return [Commit(id=c.short, date=c.day, subject=c.subject)
            for c in item_commits(mem.ws.root, item_id, ["memory", "index", "skill"], newest_first=False)]
