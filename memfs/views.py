"""Regenerate index.md, memory.md and skill.md from the index (they are views, not truth)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from memfs.config import Config
from memfs.core.model import Item
from memfs.core.rootfiles import (
    CategoryInfo, RankedItem, merge_generated, render_index, render_memory, render_skill, select_salient,
)
from memfs.fsutil import atomic_write
from memfs.index.db import IndexDB
from memfs.store import title_of
from memfs.workspace import Workspace


def category_infos(db: IndexDB) -> list[CategoryInfo]:
    counts = dict(db.conn.execute("SELECT path, count(*) FROM items GROUP BY path").fetchall())
    out = []
    for path, kind, title, description, summary, updated in db.conn.execute(
            "SELECT path, kind, title, description, summary, updated FROM files ORDER BY path"):
        name = path.rsplit("/", 1)[-1][:-3]
        out.append(CategoryInfo(path=path, kind=kind, title=title or title_of(name), description=description or "",
                                summary=summary or "", items=int(counts.get(path, 0)), updated=updated))
    return out


#: How many items per ordering are considered for memory.md / skill.md. The files hold
#: a token budget's worth (~100 items); salience is high only for items that are among
#: the most reinforced or the most recent, so ranking the union of those two top lists
#: gives the same selection as ranking everything, at a fraction of the cost at 10^5 items.
CANDIDATES_PER_ORDER = 2000


def ranked_items(db: IndexDB, skills: bool | None = None) -> list[RankedItem]:
    """Candidate items for the root files (all of them in a small memory)."""
    cols = 'id, text, type, "when", src, seen, updated, path'
    where = ""
    if skills is True:
        where = "WHERE type IN ('skill', 'tool') OR path LIKE 'skill/%'"
    elif skills is False:
        where = "WHERE type NOT IN ('skill', 'tool')"
    rows: dict[str, tuple] = {}
    for order in ("seen DESC", 'COALESCE(updated, "when", \'\') DESC'):
        q = f"SELECT {cols} FROM items {where} ORDER BY {order}, id LIMIT {CANDIDATES_PER_ORDER}"
        for r in db.conn.execute(q):
            rows[r[0]] = r
    out = []
    for r in rows.values():
        item = Item.model_construct(id=r[0], text=r[1], type=r[2], when=r[3], src=r[4], seen=r[5],
                                    updated=r[6], extra={})
        out.append(RankedItem(item=item, path=r[7]))
    return out


def _counts(db: IndexDB) -> tuple[int, int]:
    skills = db.conn.execute("SELECT count(*) FROM items WHERE type IN ('skill', 'tool') "
                             "OR path LIKE 'skill/%'").fetchone()[0]
    others = db.conn.execute("SELECT count(*) FROM items WHERE type NOT IN ('skill', 'tool')").fetchone()[0]
    return int(others), int(skills)


def newest_date(items: list[RankedItem]) -> date | None:
    best: date | None = None
    for r in items:
        for stamp in (r.item.updated, r.item.when):
            if not stamp:
                continue
            try:
                parts = [int(p) for p in stamp.split("-")] + [1, 1]
                d = date(parts[0], parts[1], parts[2])
            except ValueError:
                continue
            if best is None or d > best:
                best = d
    return best


#: (items, token budget) -> the model's body, or None when it fell back (then the offline
#: body is written and the summary is asked for again at the next regeneration).
MemorySummarizer = Callable[[list[str], int], "str | None"]


def _llm_body(title: str, intro: str, chosen: list[RankedItem], budget: int, summarize: MemorySummarizer) -> str | None:
    """LLM mode: the model condenses the same salient items (with their citations) into
    prose within the budget; the items it was given are listed by path below for `cat`."""
    bullets = [f"{r.item.text} [{r.path}]" for r in chosen]
    text = summarize(bullets, budget)
    if text is None or not text.strip():
        return None
    text = text.strip()
    paths = sorted({r.path for r in chosen})
    return "\n".join([f"# {title}", "", intro, "", text, "", "Sources: " + ", ".join(paths) if paths else ""])


def regenerate_root_files(ws: Workspace, db: IndexDB, config: Config, today: date | None = None,
                          summarize: MemorySummarizer | None = None) -> list[str]:
    """Rewrite the generated block of each root file whose content would change; return those paths."""
    with db.snapshot():
        version = db.get_meta("index_version") or "0"
        cats = category_infos(db)
        memory_items = ranked_items(db, skills=False)
        skill_items = ranked_items(db, skills=True)
        n_memory, n_skills = _counts(db)
    # Recency is measured from the newest item, not the wall clock: the same memory gives
    # the same memory.md on any day, so regenerating never churns git.
    today = today or newest_date(memory_items + skill_items) or date(2000, 1, 1)
    half_life = config.recall.recency_half_life_days
    budget = config.memory.token_budget
    bodies = {
        "index.md": render_index(cats),
        "memory.md": render_memory(memory_items, budget, today, half_life, total=n_memory),
        "skill.md": render_skill(skill_items, budget, today, half_life, total=n_skills),
    }
    if summarize is not None:  # LLM mode (index.md already shows the LLM's category summaries)
        for name, pool, title, intro in (
                ("memory.md", memory_items, "Memory", "What matters most, summarised from the most salient facts."),
                ("skill.md", skill_items, "Skills", "The operating manual, summarised from procedures and tools.")):
            chosen = select_salient(pool, budget, today, half_life, skills=name == "skill.md")
            digest = _inputs_digest(ws, db, name, chosen) if chosen else None
            if digest is not None:
                llm_body = _llm_body(title, intro, chosen, budget, summarize)
                if llm_body is not None:  # the digest is recorded only on success: a fallback is retried
                    bodies[name] = llm_body
                    with db.transaction():
                        db.set_meta(f"llm_summary:{name}", digest)
            elif chosen:
                bodies[name] = _current_body(ws.root / name) or bodies[name]
    written = []
    for name, body in bodies.items():
        path = ws.root / name
        if path.is_symlink():
            continue
        existing = path.read_text(encoding="utf-8", errors="replace") if path.exists() else None
        new = merge_generated(existing, body)
        if new != existing:
            atomic_write(path, new)
            written.append(name)
    with db.transaction():
        db.set_meta("views_version", version)
    return written


def _inputs_digest(ws: Workspace, db: IndexDB, name: str, chosen: list[RankedItem]) -> str | None:
    """The digest of the items to summarise, or None if the file already shows a summary of
    exactly these items (an LLM summary is only asked for again when they changed)."""
    import hashlib

    digest = hashlib.sha1("\n".join(f"{r.item.id}:{r.item.text}" for r in chosen).encode()).hexdigest()
    if db.get_meta(f"llm_summary:{name}") == digest and (ws.root / name).exists():
        return None
    return digest


def _current_body(path) -> str | None:  # type: ignore[no-untyped-def]
    from memfs.core.rootfiles import BEGIN, END

    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    start, end = text.find(BEGIN), text.find(END)
    return text[start + len(BEGIN):end].strip() if 0 <= start < end else None


def views_stale(ws: Workspace, db: IndexDB) -> bool:
    """True if the root files were not regenerated since the index last changed (e.g. a
    crash or a full disk between an ingest's index and summarize steps), or are missing."""
    if not all((ws.root / name).exists() for name in ("index.md", "memory.md", "skill.md")):
        return True
    return (db.get_meta("views_version") or "") != (db.get_meta("index_version") or "0")
