"""Regenerate the entry files from the index: index.md, memory.md, skill.md and the
person pages under people/ (they are views, not truth; see memfs/entry/)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from datetime import date
from pathlib import Path

from memfs.core.hashing import file_hash
from memfs.config import Config
from memfs.core.rootfiles import approx_tokens
from memfs.entry import heapfreeze
from memfs.entry.facetcache import FacetCache
from memfs.entry.incremental import NewestDay, People, file_stats
from memfs.entry.keywords import Keywords
from memfs.entry.indexfile import CategoryRow, file_words, render_index, resource_stats
from memfs.entry.memoryfile import render_memory, render_skill
from memfs.entry.pages import render_and_write
from memfs.entry.peoplecache import PeopleCache
from memfs.entry.people import PEOPLE_DIR, read_pages
from memfs.entry.pool import EntryItem, parse_day, save_history
from memfs.entry.poolcache import Pool, forget_pools, pool_for
from memfs.entry.poolrows import file_states
from memfs.entry.profile import history
from memfs.fsutil import known_stamp, remember_stamp
from memfs.index import repository
from memfs.index.db import IndexDB
from memfs.index.entryparts import parse_stamp
from memfs.rootwrite import write_root_file
from memfs.store import title_of
from memfs.workspace import Workspace

log = logging.getLogger(__name__)
#: (lines, token budget) -> the model's summary, or None when it fell back (then the offline
#: body is written and the summary is asked for again at the next regeneration).
MemorySummarizer = Callable[[list[str], int], "str | None"]
_PAGES_STAMP = "entry_pages_stamp"
_PAGE_BODY = "entry_page:"
#: Meta key prefix: a root file's (device, inode, size, mtime_ns) right after memfs wrote it.
_WRITTEN_STAMP = "written_stamp:"


def _seed_stamp(db: IndexDB, path: Path, name: str) -> None:
    """Let this process read a root file still exactly as an earlier memfs process wrote it
    without waiting for it to settle (fsutil.read_settled), as that process could: a one-shot
    add right after another waited `ingest.settle_seconds` per root file it had rewritten."""
    stamp = parse_stamp(db.get_meta(_WRITTEN_STAMP + name))
    if stamp is not None:
        remember_stamp(path, stamp)


def category_rows(ws: Workspace, db: IndexDB, config: Config) -> list[CategoryRow]:
    """The indexed category files, plus any on disk the index has not read yet (an ingest
    syncs only the files it touched, so untouched template files may be unindexed)."""
    out = {}
    for path, kind, title, description, summary, passages in repository.file_rows(db):
        name = path.rsplit("/", 1)[-1][:-3]
        out[path] = CategoryRow(path=path, kind=kind, title=title or title_of(name), description=description or "",
                                summary=summary or "", passages=passages or 0)
    for rel in ws.category_rels():
        if rel not in out:
            kind, name = rel.split("/", 1)[0], rel.rsplit("/", 1)[-1][:-3]
            cat = config.categories.get(name)
            out[rel] = CategoryRow(path=rel, kind=kind, title=(cat.title if cat and cat.title else title_of(name)),
                                   description=cat.description if cat else "", summary="")
    return [out[k] for k in sorted(out)]


class ViewState:
    """What one process keeps between regenerations of one workspace's entry files: the
    item pool, the word counts, the people's facets and their pages' bodies. Everything in
    it is keyed by what it was computed from, so it only ever saves work."""

    def __init__(self) -> None:
        self.keywords = Keywords()
        self.facets = FacetCache()
        self.people = PeopleCache()
        self.page_bodies: dict[str, tuple[tuple, str]] = {}  # type: ignore[type-arg]
        self.index_rows: dict[str, tuple] = {}  # type: ignore[type-arg]
        self.newest = NewestDay()  # the reference day, from the files replaced since the last


_STATES: dict[str, ViewState] = {}


def state_for(ws: Workspace) -> ViewState:
    return _STATES.setdefault(str(ws.root), ViewState())


def forget_state() -> None:
    """Start every workspace's next regeneration from nothing (a full rebuild)."""
    _STATES.clear()
    forget_pools()


def split_oversized(ws: Workspace, db: IndexDB, config: Config, only: list[str] | None = None) -> list[str]:
    """Split category files past `memory.split_items` by topic (writes category files: call
    under the writer lock, then re-index what it returns). `only`: the files an input wrote,
    the only ones it can have taken past the limit (its views wait: services.ingest.ViewDebt);
    counted one by one, not by a count of every item (~6 ms at 100,000 items)."""
    from memfs.entry.split import drop_held_twice, parents_to_check, split_large

    limit = config.memory.split_items
    if limit <= 0:
        return []
    with db.snapshot():  # the pool's refresh reads the same counts (poolrows.file_states)
        over = (any(repository.items_in_file(db, p) > limit for p in only) if only is not None
                else any(n > limit for _, n in file_states(db).values()))
        checks = list(parents_to_check(db))
    if not over:
        return drop_held_twice(ws, config, checks) if checks else []
    pool = pool_for(ws)
    with db.snapshot():
        history_cache = pool.refresh(ws, db)
    save_history(db, history_cache)
    return split_large(ws, db, config, pool)


def after_split(db: IndexDB) -> None:
    """Once the split files are re-indexed: remember which parents were checked."""
    from memfs.entry.split import mark_checked, parents_to_check

    mark_checked(db, list(parents_to_check(db)))


def reference_day(items: list[EntryItem]) -> date:
    """"Now" for the entry files: the newest day memfs learned something. Recency and
    "upcoming" are measured from it, not the wall clock, so the same memory gives the same
    bytes on any day (no churn in git)."""
    days = [d for it in items if (d := parse_day(it.learned)) is not None]
    return max(days) if days else date(2000, 1, 1)


def _reference_day(pool: Pool) -> date:
    """reference_day of the pool, from each file's newest day."""
    days = [d for p in pool.files if (d := file_stats(pool, p).newest_day) is not None]
    return max(days) if days else date(2000, 1, 1)


def regenerate_root_files(ws: Workspace, db: IndexDB, config: Config, today: date | None = None,
                          summarize: MemorySummarizer | None = None) -> list[str]:
    """Rewrite the generated block of each entry file whose content would change; return those
    paths. Work is per changed file (ViewState); the bytes are those of a rebuild from nothing."""
    state, pool = state_for(ws), pool_for(ws)
    with db.snapshot():
        version = db.get_meta("index_version") or "0"
        history_cache = pool.refresh(ws, db)
        cats = category_rows(ws, db, config)
        previous = repository.meta_with_prefix(db, _PAGE_BODY)
        state.facets.seed.load(db)
    save_history(db, history_cache)
    ref = today or state.newest.get(pool)
    half_life = config.recall.recency_half_life_days
    budget = config.memory.token_budget
    texts: dict[str, str] = {}  # each page's text, read once this regeneration
    found = state.people.find(pool, read_pages(ws, texts), lambda path: file_words(pool, path))
    state.facets.keep_only(found.people)
    llm = summarize is not None
    bodies = {
        "index.md": render_index(cats, pool, found, resource_stats(ws), state.keywords, llm_summaries=llm,
                                 row_cache=state.index_rows),
        "memory.md": render_memory(pool, found, budget, ref, half_life, cache=state.facets),
        "skill.md": render_skill(pool, budget, ref, half_life),
    }
    if summarize is not None:  # LLM mode: the same structure, led by the model's short summary
        for name in ("memory.md", "skill.md"):
            bullets = [ln[2:] for ln in bodies[name].splitlines() if ln.startswith("- ")]
            if not bullets:
                continue
            summary = _llm_summary(db, name, bullets, max(50, budget // 4), summarize)
            if summary is None:
                continue
            rest = max(50, budget - approx_tokens(summary))
            bodies[name] = (render_memory(pool, found, rest, ref, half_life, summary=summary, cache=state.facets)
                            if name == "memory.md" else _with_summary(render_skill(pool, rest, ref, half_life),
                                                                       summary))
    written = []
    for name, body in bodies.items():
        path = ws.root / name
        if path.is_symlink():
            continue
        _seed_stamp(db, path, name)
        if write_root_file(path, body, settle=config.ingest.settle_seconds):  # read-verify-write
            written.append(name)
    pages, page_bodies = render_and_write(ws, found, _superseding(db, found), ref, half_life, previous,
                                          state.facets, state.page_bodies, texts)
    written += pages.written
    heapfreeze.after_regeneration(sum(fv.count for fv in pool.files.values()))
    for warning in pages.warnings:
        log.warning("%s", warning)
    with db.transaction():
        for name in written:  # the stat after memfs' own write of a root file, for the next process
            stamp = known_stamp(ws.root / name) if name in bodies else None  # (not the people pages)
            if stamp is not None:
                db.set_meta(_WRITTEN_STAMP + name, json.dumps(list(stamp)))
        db.set_meta("views_version", version)
        db.set_meta("entry_warnings", "\n".join(pages.warnings))
        db.set_meta(_PAGES_STAMP, pages_stamp(ws))
        for rel, body in page_bodies.items():
            if previous.get(rel) != body:
                db.set_meta(_PAGE_BODY + rel, body)
        for rel in set(previous) - set(page_bodies):
            repository.delete_meta(db, _PAGE_BODY + rel)
    state.facets.seed.save(db)  # (its own transaction: the seed changes once it is committed)
    return written


def _superseding(db: IndexDB, found: People) -> dict[str, EntryItem]:
    """The indexed items that supersede a fact in someone's history (a page links to them)."""
    targets = {it.superseded_by for p in found.people for it in history(p) if it.superseded_by}
    if not targets:
        return {}
    rows = db.items_by_ids(sorted(targets))
    return {i: EntryItem(id=i, text=r.text, type=r.type, when=r.when, src=r.src, seen=r.seen, updated=r.updated,
                         path=r.path, line=r.line or 0) for i, r in rows.items()}


def _with_summary(body: str, summary: str) -> str:
    head, sep, rest = body.partition("\n\n")
    first, sep2, tail = rest.partition("\n\n")
    return f"{head}\n\n{first}\n\n## In short\n\n{summary.strip()}\n\n{tail}" if sep and sep2 else body


def _llm_summary(db: IndexDB, name: str, bullets: list[str], budget: int,
                 summarize: MemorySummarizer) -> str | None:
    """Ask the model again only when the lines it summarises changed (cached in the index)."""
    digest = file_hash("\n".join(bullets).encode())
    key = f"llm_summary:{name}"
    try:
        cached = json.loads(db.get_meta(key) or "{}")
    except ValueError:
        cached = {}
    if isinstance(cached, dict) and cached.get("digest") == digest and isinstance(cached.get("text"), str):
        return cached["text"]
    text = summarize(bullets, budget)
    if text is None or not text.strip():
        return None  # the model fell back: nothing recorded, so it is asked again next time
    text = text.strip()
    with db.transaction():
        db.set_meta(key, json.dumps({"digest": digest, "text": text}))
    return text


def pages_stamp(ws: Workspace) -> str:
    """Names, sizes and mtimes of people/*.md: a person adding an alias makes views stale."""
    folder = ws.root / PEOPLE_DIR
    if not folder.is_dir():
        return ""
    parts = []
    for path in sorted(folder.iterdir()):
        if path.name.endswith(".md"):
            try:
                st = path.stat()
            except OSError:
                continue
            parts.append(f"{path.name}:{st.st_size}:{st.st_mtime_ns}")
    return file_hash("\n".join(parts).encode())


def views_stale(ws: Workspace, db: IndexDB) -> bool:
    """True if the entry files were not regenerated since the index last changed (e.g. a
    crash or a full disk between an ingest's index and summarize steps), are missing, or
    a person page was edited since (an alias added, a note written)."""
    if not all((ws.root / name).exists() for name in ("index.md", "memory.md", "skill.md")):
        return True
    if (db.get_meta("views_version") or "") != (db.get_meta("index_version") or "0"):
        return True
    return (db.get_meta(_PAGES_STAMP) or "") != pages_stamp(ws)
