"""The passage half of a sync: which passages of the changed notes are new or gone.

Passages are keyed by an id derived from path + text, so a changed file is diffed by id:
untouched paragraphs keep their rows (and labels, and cached vectors); only new ones are
embedded. Kept apart from sync.py so the item plan and the passage plan stay readable.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from memfs.core.categoryfile import CategoryDoc
from memfs.index import ptext
from memfs.index.db import IndexDB, text_hash
from memfs.index.passages import PASSAGE_LABEL_BASE, Passage, extract_passages


@dataclass
class PassagePlan:
    inserts: list[tuple] = field(default_factory=list)  # type: ignore[type-arg]
    delete_ids: list[str] = field(default_factory=list)
    moves: list[tuple[int, int, str]] = field(default_factory=list)  # (line_start, line_end, id): kept, moved
    need_vectors: dict[str, str] = field(default_factory=dict)  # text_hash -> text
    counts: dict[str, int] = field(default_factory=dict)  # path -> passages in the file
    added: int = 0
    removed: int = 0


def category_of(rel: str) -> str:
    """The `category` column: the path below the kind folder, without `.md`
    ('preferences', 'projects/alpha'); the identity is kind + '/' + it."""
    return rel.split("/", 1)[1][:-3] if "/" in rel else rel[:-3]


def plan_passages(db: IndexDB, docs: list[tuple[str, CategoryDoc, int]], removed_files: list[str],
                  rebuild: bool) -> PassagePlan:
    """`docs` are (rel, parsed doc, front-matter lines) of the files read this sync."""
    plan = PassagePlan()
    paths = [rel for rel, _, _ in docs] + list(removed_files)
    existing: dict[str, dict[str, tuple[int, int]]] = {}
    if not rebuild and paths:
        for start in range(0, len(paths), 500):
            chunk = paths[start:start + 500]
            for pid, path, a, b in db.conn.execute(
                    f"SELECT id, path, line_start, line_end FROM passages WHERE path IN ({','.join('?' * len(chunk))})",
                    chunk):
                existing.setdefault(path, {})[pid] = (int(a), int(b))
    for rel in removed_files:
        gone = existing.get(rel, {})
        plan.delete_ids.extend(sorted(gone))
        plan.removed += len(gone)
    for rel, doc, front_lines in docs:
        passages: list[Passage] = extract_passages(doc, front_lines)
        plan.counts[rel] = len(passages)
        old = existing.get(rel, {})
        new_ids = {p.id for p in passages}
        for pid in sorted(set(old) - new_ids):
            plan.delete_ids.append(pid)
            plan.removed += 1
        kind, category = rel.split("/", 1)[0], category_of(rel)
        for p in passages:
            if p.id in old:
                if old[p.id] != (p.line_start, p.line_end):  # an edit above it moved it
                    plan.moves.append((p.line_start, p.line_end, p.id))
                continue
            h = text_hash(p.search_text)
            plan.inserts.append((p.id, rel, category, kind, p.heading, p.text, p.line_start, p.line_end, h))
            plan.need_vectors[h] = p.search_text
            plan.added += 1
    return plan


def apply_passages(c: sqlite3.Connection, plan: PassagePlan) -> None:
    """Inside the sync's transaction."""
    ptext.delete(c, plan.delete_ids)
    c.executemany("UPDATE passages SET line_start=?, line_end=? WHERE id=?", plan.moves)
    ptext.insert(c, plan.inserts)


def pending_labels(db: IndexDB, plan: PassagePlan) -> list[int]:
    """Vector labels of the passages this plan inserted (for the hnsw sidecar's pending set)."""
    ids = [row[0] for row in plan.inserts]
    out: list[int] = []
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        out.extend(int(r[0]) + PASSAGE_LABEL_BASE for r in db.conn.execute(
            f"SELECT label FROM passages WHERE id IN ({','.join('?' * len(chunk))})", chunk))
    return out


def all_passage_texts(db: IndexDB) -> dict[str, str]:
    """text_hash -> embedded text of every passage (a re-embed after the embedder changed)."""
    return {h: (f"{head}: {ptext.unpack(text)}" if head else ptext.unpack(text))
            for h, head, text in db.conn.execute("SELECT text_hash, heading, text FROM passages")}
