"""A workspace seen from a test: an in-process `Memory` and readers of its files and index."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from memfs.api import Memory
from memfs.config import load_config
from tests.support.cli import run


def hashing_memory(root: Path, **recall: object) -> Memory:
    """A Memory on the fast hashing embedder (tests that need meaning use minilm)."""
    config = load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"})
    for key, value in recall.items():
        setattr(config.recall, key, value)
    return Memory(root, config=config)


def status(ws: Path, e: dict[str, str]) -> dict:
    return json.loads(run(["status", "--json"], ws, e).stdout)


def settled(ws: Path, e: dict[str, str]) -> bool:
    """Has a daemon finished all it took? The inbox is empty, and the work an ingest leaves
    for after its write (vectors, near-duplicate checks: pipeline/vecfill.py) is done."""
    st = status(ws, e)
    return st["inbox_pending"] == 0 and st["checks_pending"] == 0 and st["vectors_pending"] == 0


def recall(ws: Path, e: dict[str, str], query: str) -> list[dict]:
    return json.loads(run(["recall", query, "--json", "--k", "50"], ws, e).stdout)


def waiting(ws: Path) -> list[Path]:
    """Inputs still in inbox/ (not failed/, not hidden)."""
    return [p for p in (ws / "inbox").iterdir() if p.is_file() and not p.name.startswith(".")]


def item_set(ws: Path) -> set[tuple[str, str, int, str]]:
    """(id, text, seen, file) of every item in every category file."""
    from memfs.core.categoryfile import parse_category

    out = set()
    for kind in ("memory", "index", "skill"):
        for path in sorted((ws / kind).glob("*.md")):
            rel = f"{kind}/{path.name}"
            for item in parse_category(path.read_text(encoding="utf-8"), rel).items:
                out.add((item.id, item.text, item.seen, rel))
    return out


def _read_only(ws: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{ws / '.memfs' / 'index.sqlite3'}?mode=ro", uri=True)


def indexed_files(ws: Path) -> list[str]:
    """The `files` table of .memfs/index.sqlite3 (what the index thinks the store is)."""
    conn = _read_only(ws)
    try:
        return sorted(r[0] for r in conn.execute("SELECT path FROM files"))
    finally:
        conn.close()


def indexed_items(ws: Path) -> list[tuple[str, str, str]]:
    """(id, path, text) of every row in the items table."""
    conn = _read_only(ws)
    try:
        return sorted(conn.execute("SELECT id, path, text FROM items"))
    finally:
        conn.close()
