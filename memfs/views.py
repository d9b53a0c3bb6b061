"""Regenerate index.md, memory.md and skill.md from the index (they are views, not truth)."""

from __future__ import annotations

from datetime import date

from memfs.config import Config
from memfs.core.model import Item
from memfs.core.rootfiles import (
    CategoryInfo, RankedItem, merge_generated, render_index, render_memory, render_skill,
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


def ranked_items(db: IndexDB) -> list[RankedItem]:
    out = []
    for r in db.all_items():
        item = Item.model_construct(id=r.id, text=r.text, type=r.type, when=r.when, src=r.src, seen=r.seen,
                                    updated=r.updated, extra={})
        out.append(RankedItem(item=item, path=r.path))
    return out


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


def regenerate_root_files(ws: Workspace, db: IndexDB, config: Config, today: date | None = None) -> list[str]:
    """Rewrite the generated block of each root file whose content would change; return those paths."""
    with db.snapshot():
        cats = category_infos(db)
        items = ranked_items(db)
    # Recency is measured from the newest item, not the wall clock: the same memory gives
    # the same memory.md on any day, so regenerating never churns git.
    today = today or newest_date(items) or date(2000, 1, 1)
    half_life = config.recall.recency_half_life_days
    budget = config.memory.token_budget
    bodies = {
        "index.md": render_index(cats),
        "memory.md": render_memory(items, budget, today, half_life),
        "skill.md": render_skill(items, budget, today, half_life),
    }
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
    return written
