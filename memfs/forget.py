"""Scoped forgetting: plan what goes (a preview), then remove it everywhere memfs keeps it.

    plan = plan_forget(mem, source="chat.json")    # or ids=[...], about="Alice", query="..."
    print(render_plan(plan)); apply_forget(mem, plan, purge_history=False)

A forget removes the item lines, the archived inputs (resources/), their journal rows,
the index rows and FTS tokens, the cached embeddings nothing uses any more, the hnsw
sidecar's copies, and regenerates what derives from them (category summaries, index.md,
memory.md, skill.md). SQLite is vacuumed and its WAL truncated so deleted pages do not
keep the words. Reinforcements an input made (`via=`) are taken back (seen - 1).
Whole inputs are recorded in forgotten.json so dropping them again is refused. In a git
workspace the forget is one commit; `purge_history` also rewrites history (history.py).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from memfs import forgotten
from memfs.history import words_of
from memfs.index import repository, shadows
from memfs.errors import MemfsError, NotFoundError
from memfs.index.db import ItemRow
from memfs.index.sync import read_category
from memfs.pipeline.memorize import VIA_KEY, content_digest
from memfs.store import CategoryStore
from memfs.workspace import slugify

if TYPE_CHECKING:
    from memfs.api import Memory
    from memfs.pipeline.memorize import IngestResult

_DIGEST_IN_NAME = re.compile(r"-([0-9a-f]{16})\.[a-z]+$")


class PlannedItem(BaseModel):
    id: str
    text: str
    path: str
    line: int | None = None
    src: str | None = None
    when: str | None = None


class ForgetPlan(BaseModel):
    """What a forget will remove; shown to the person before anything happens."""

    scope: str = Field(description="ids | source | about | query")
    items: list[PlannedItem] = Field(default_factory=list)
    resources: list[str] = Field(default_factory=list, description="archived inputs to delete")
    inputs: list[str] = Field(default_factory=list, description="sha256[:16] of the inputs forgotten whole")
    input_names: list[str] = Field(default_factory=list, description="their names as ingested (not recorded)")
    unreinforce: list[PlannedItem] = Field(default_factory=list, description="items these inputs reinforced")
    mentions: list[str] = Field(default_factory=list, description="resources that still mention the subject")

    @property
    def empty(self) -> bool:
        return not (self.items or self.resources or self.unreinforce)


class ForgetReport(BaseModel):
    entry: str | None = None
    items_removed: int = 0
    resources_removed: int = 0
    unreinforced: int = 0
    embeddings_dropped: int = 0
    committed: bool = False
    history: dict[str, object] | None = None


def _planned(row: ItemRow) -> PlannedItem:
    return PlannedItem(id=row.id, text=row.text, path=row.path, line=row.line, src=row.src, when=row.when)


def name_pattern(name: str) -> re.Pattern[str]:
    """`name` as a whole word or phrase, any case, possessives included ("Alice's")."""
    words = [re.escape(w) for w in name.split()]
    if not words:
        raise MemfsError("--about needs a name")
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", re.IGNORECASE)


def items_about(mem: "Memory", name: str) -> list[ItemRow]:
    """Items whose text names the person or entity, plus every item of a category file named after it."""
    rx = name_pattern(name)
    slug = slugify(name)
    return [r for r in mem.indexer.db.all_items() if rx.search(r.text) or r.path.rsplit("/", 1)[-1] == f"{slug}.md"]


def resources_mentioning(mem: "Memory", name: str, exclude: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    rx = name_pattern(name)
    out = []
    for path in sorted(mem.ws.resources.rglob("*")) if mem.ws.resources.is_dir() else []:
        rel = mem.ws.rel(path)
        if rel in exclude or not path.is_file() or path.is_symlink():
            continue
        if rx.search(path.read_text(encoding="utf-8", errors="replace")):
            out.append(rel)
    return out


def _journal_rows(mem: "Memory") -> list[tuple[str, str, str]]:
    """(digest, name, resource) of every input the journal knows."""
    mem.journal  # noqa: B018 - creates the journal table
    return repository.journal_rows(mem.indexer.db)


def find_resources(mem: "Memory", spec: str) -> list[str]:
    """The archived input(s) `spec` names: a resources/ path, the name it was ingested under,
    a SHA-256 (prefix of 8+ digits), or a file whose content was ingested."""
    ws = mem.ws
    archived: dict[str, str] = {}  # digest16 -> rel
    if ws.resources.is_dir():
        for path in ws.resources.rglob("*"):
            m = _DIGEST_IN_NAME.search(path.name)
            if m and path.is_file():
                archived[m.group(1)] = ws.rel(path)
    clean = spec.strip().split("#", 1)[0]
    if clean.startswith("resources/"):
        if clean in archived.values():
            return [clean]
        raise NotFoundError(f"no archived input {clean!r} under resources/")
    if re.fullmatch(r"[0-9a-f]{8,64}", clean):
        hits = [rel for d, rel in archived.items() if d.startswith(clean[:16])]
        if hits:
            return sorted(hits)
    rows = _journal_rows(mem)
    named = sorted({res for digest, name, res in rows if name == clean and res in archived.values()})
    if named:
        return named
    candidate = Path(clean).expanduser()
    if candidate.is_file() and not candidate.is_symlink():
        rel = archived.get(content_digest(candidate.read_bytes())[:16])
        if rel:
            return [rel]
    stem = clean.rsplit("/", 1)[-1]
    stem = stem.rpartition(".")[0] or stem
    slug = slugify(stem, 40)
    by_slug = sorted(rel for rel in archived.values() if re.search(rf"/\d\d-{re.escape(slug)}-[0-9a-f]{{16}}\.", rel))
    if by_slug:
        return by_slug
    raise NotFoundError(f"no archived input matches {spec!r} (give a resources/ path, the input's name or its sha256)")


def plan_forget(mem: "Memory", ids: list[str] | None = None, source: str | None = None, about: str | None = None,
                query: str | None = None, k: int = 10) -> ForgetPlan:
    """Work out what a forget removes, without changing anything. Exactly one scope."""
    scopes = [s for s, v in (("ids", ids), ("source", source), ("about", about), ("query", query)) if v]
    if len(scopes) != 1:
        raise MemfsError("forget needs exactly one of: item ids, --source, --about or --query")
    mem.indexer.sync()
    db = mem.indexer.db
    plan = ForgetPlan(scope=scopes[0])
    if ids:
        found = db.items_by_ids(ids)
        missing = [i for i in ids if i not in found]
        if missing:
            raise NotFoundError(f"no item with id {missing[0]!r}")
        plan.items = [_planned(found[i]) for i in dict.fromkeys(ids)]
    elif source:
        plan.resources = find_resources(mem, source)
        _add_inputs(mem, plan)
    elif about:
        plan.items = [_planned(r) for r in items_about(mem, about)]
        plan.mentions = resources_mentioning(mem, about)
    elif query:
        plan.items = [_planned(r) for r in _query_matches(mem, query, k)]
    # A person's copies of a planned line go with it (and are listed): else one in another
    # file would be indexed in its place, one in the same file stay recallable.
    plan.items += [PlannedItem(id=i, text=t, path=p, line=n) for i, p, n, t in shadows.copies_of(
        db, mem.ws.root, [(it.id, it.path, it.text) for it in plan.items])]
    return plan


def _add_inputs(mem: "Memory", plan: ForgetPlan) -> None:
    """Everything learned from plan.resources: their items, and the reinforcements they made."""
    db = mem.indexer.db
    digests = []
    for rel in plan.resources:
        m = _DIGEST_IN_NAME.search(rel)
        if m:
            digests.append(m.group(1))
    plan.inputs = digests
    names = {d[:16]: n for d, n, _ in _journal_rows(mem)}
    plan.input_names = sorted({names[d] for d in digests if d in names})
    prefixes = tuple(f"{rel}#" for rel in plan.resources)
    vias = {d[:12] for d in digests}
    ids = set()
    for row in db.all_items():
        if row.src and (row.src.startswith(prefixes) or row.src in plan.resources):
            plan.items.append(_planned(row))
            ids.add(row.id)
    if vias:
        # `via=` lives in the Markdown only: read the files that could carry it.
        for path in mem.ws.category_files():
            text = path.read_text(encoding="utf-8", errors="replace")
            if f"{VIA_KEY}=" not in text:
                continue
            rel = mem.ws.rel(path)

            doc, _ = read_category(path, rel)
            for item in doc.items:
                if item.extra.get(VIA_KEY) in vias and item.id not in ids:
                    plan.unreinforce.append(PlannedItem(id=item.id, text=item.text, path=rel, src=item.src))


def _query_matches(mem: "Memory", query: str, k: int) -> list[ItemRow]:
    """Hybrid top-k, kept only where the words match (a vector neighbour alone is not a match)."""
    db = mem.indexer.db
    lexical = {label for label, _ in db.bm25(query, max(k * 20, 200))}
    hits = mem.search(query, max(k * 3, 30)).hits
    return [h.row for h in hits if h.row.label in lexical][:k]


def render_plan(plan: ForgetPlan, purge_history: bool = False) -> str:
    """The preview: every line that goes, every file deleted, what stays."""
    out = []
    if plan.resources:
        named = f" ({', '.join(plan.input_names)})" if plan.input_names else ""
        out.append(f"inputs to forget{named}:")
        out += [f"  delete {rel}" for rel in plan.resources]
    out.append(f"items to remove: {len(plan.items)}")
    out += [f"  {it.id}  {it.path}{':' + str(it.line) if it.line else ''}  {it.text}" for it in plan.items]
    if plan.unreinforce:
        out.append(f"reinforcements to take back (seen - 1): {len(plan.unreinforce)}")
        out += [f"  {it.id}  {it.path}  {it.text}" for it in plan.unreinforce]
    if plan.mentions:
        out.append(f"archived inputs that still mention them (not removed; forget each with --source): "
                   f"{len(plan.mentions)}")
        out += [f"  {rel}" for rel in plan.mentions]
    out.append("also: their index rows and cached embeddings; summaries, index.md, memory.md and skill.md "
               "are regenerated")
    if purge_history:
        out.append(HISTORY_WARNING)
    return "\n".join(out)


HISTORY_WARNING = (
    "WARNING: --purge-history rewrites this workspace's git history: every commit that carried the removed "
    "content gets a new id, reflogs are expired and unreachable objects pruned. Push with `git push --force "
    "--all && git push --force --tags`; every other clone must be re-cloned (or `git fetch && git reset --hard "
    "origin/<branch>`), and a hosted remote may keep old objects until its own garbage collection.")


def apply_forget(mem: "Memory", plan: ForgetPlan, purge_history: bool = False) -> ForgetReport:
    """Remove everything in the plan. Call under the writer lock (Memory.apply_forget does)."""
    report = ForgetReport()
    ws = mem.ws
    if purge_history and not _is_git(ws.root):
        raise MemfsError("--purge-history: this workspace is not a git repository; nothing was changed")
    store = CategoryStore(ws, mem.config)
    by_path: dict[str, list[str]] = {}
    for it in plan.items:
        by_path.setdefault(it.path, []).append(it.id)
    back: dict[str, list[str]] = {}
    for it in plan.unreinforce:
        back.setdefault(it.path, []).append(it.id)
    vias = {d[:12] for d in plan.inputs}
    removed_ids: list[str] = []
    words = forgotten_words(mem, plan) if purge_history else set()

    store.check_rewritable(sorted(set(by_path) | set(back)))  # all or nothing: no forget half done
    for rel in sorted(set(by_path) | set(back)):
        def change(doc, rel: str = rel) -> None:  # type: ignore[no-untyped-def]
            # `updated` is recomputed from the items that remain (it may be a forgotten one's date).
            doc.front.pop("updated", None)
            for item_id in by_path.get(rel, []):
                if doc.remove(item_id):
                    removed_ids.append(item_id)
            for item_id in back.get(rel, []):
                slot = doc.find(item_id)
                if slot is None or slot.item.extra.get(VIA_KEY) not in vias:
                    continue
                extra = {k: v for k, v in slot.item.extra.items() if k != VIA_KEY}
                slot.item = slot.item.model_copy(update={"seen": max(1, slot.item.seen - 1), "extra": extra})
                report.unreinforced += 1

        if (ws.root / rel).exists():
            store.edit(rel, change)
    report.items_removed = len(set(removed_ids))

    for rel in plan.resources:
        path = ws.safe_target(rel)
        if path.is_file():
            path.unlink()
            report.resources_removed += 1
            _prune_empty_dirs(path.parent, ws.resources)
    db = mem.indexer.db
    mem.journal  # noqa: B018 - the journal table exists
    if plan.inputs:
        repository.journal_forget(db, plan.inputs)
        mem.journal._archived = None  # rescan resources/ (the forgotten ones are gone)
    touched = sorted(set(by_path) | set(back))
    mem.indexer.sync(only=touched) if touched else None
    mem.regenerate_views()
    report.embeddings_dropped = drop_unused_embeddings(mem)
    if plan.inputs:
        report.entry = forgotten.add(ws, plan.scope, report.items_removed, plan.inputs, purged=purge_history).id
    scrub_index(mem)
    if _is_git(ws.root):
        from memfs.gitops import commit_forget

        report.committed = commit_forget(ws, report, plan.scope)
        if purge_history:
            from memfs.history import purge

            report.history = purge(ws.root, words=words, item_ids=[it.id for it in plan.items],
                                   resource_digests=plan.inputs).model_dump()
    return report


def forgotten_words(mem: "Memory", plan: ForgetPlan) -> set[str]:
    """Every word the forgotten content held: item texts, the inputs' text, names and paths.
    Read before the resources are deleted; history.purge keeps only the words that appear
    nowhere in the tree left behind."""
    words: set[str] = set()
    for it in plan.items:
        words |= words_of(f"{it.text} {it.when or ''}")
    for name in plan.input_names:
        words |= words_of(name)
    for rel in plan.resources:
        words |= words_of(rel)
        path = mem.ws.root / rel
        if path.is_file() and not path.is_symlink():
            words |= words_of(path.read_text(encoding="utf-8", errors="replace"))
    return words


def drop_unused_embeddings(mem: "Memory") -> int:
    """Delete cached vectors no item uses (the forgotten texts, and texts only ever compared),
    but not the category descriptions': the next start would embed them all again."""
    from memfs.services.cachegc import drop_unused

    return drop_unused(mem.runtime)


def scrub_index(mem: "Memory") -> None:
    """Make deleted rows unrecoverable from .memfs/: merge FTS segments, rebuild the hnsw
    sidecar without the deleted vectors, VACUUM, truncate the WAL."""
    from memfs.index.sync import _Plan  # noqa: PLC2701 - the sidecar rebuild the indexer itself uses
    from memfs.index.vectors import HnswSidecar

    indexer = mem.indexer
    db = indexer.db
    if (mem.ws.state / "vectors.hnsw").exists():
        HnswSidecar(mem.ws.state, indexer.embedder.dim, indexer.embedder.name).remove_files()
        with db.transaction():
            db.set_meta("hnsw_generation", "0")
        indexer._sidecar = None  # noqa: SLF001
        indexer._update_sidecar(_Plan(), {}, rebuild_all=True)  # noqa: SLF001
    repository.scrub_deleted(db)
    from memfs.index import postings_sync

    postings_sync.scrub(db, mem.ws.state)  # bm25.post holds the deleted rows' words too


def _prune_empty_dirs(folder: Path, stop: Path) -> None:
    while folder != stop and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def _is_git(root: Path) -> bool:
    import shutil

    if not shutil.which("git") or not (root / ".git").exists():
        return False
    return subprocess.run(["git", "-C", str(root), "rev-parse", "--git-dir"], capture_output=True,
                          check=False).returncode == 0


def after_ingest(mem: "Memory", result: "IngestResult", allow_relearn: bool) -> None:
    """Bookkeeping after an input is processed: count its redactions; an input learned again
    on purpose leaves the record of forgotten inputs."""
    from memfs.redact import record_counts

    record_counts(mem.ws.state, result.redacted)
    if allow_relearn and result.resource:
        m = _DIGEST_IN_NAME.search(result.resource)
        if m:
            forgotten.relearned(mem.ws, m.group(1))
