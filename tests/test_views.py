"""Root-file generation from the index (memfs/views.py): index.md, memory.md and skill.md
are regenerated from what the index holds, deterministically, around a person's notes,
and `views_stale` says when they lag the index."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from memfs.config import Config, load_config
from memfs.entry.pool import EntryItem
from memfs.index.db import IndexDB
from memfs.views import category_rows, reference_day, regenerate_root_files, views_stale
from memfs.workspace import Workspace
from tests.support.workspace import hashing_memory

FACTS = [("Alice prefers green tea over coffee in the morning.", "preferences"),
         ("Alice deploys the billing service with make release.", None)]


@pytest.fixture
def filled(ws_path: Path) -> Iterator[tuple[Workspace, IndexDB, Config]]:
    with hashing_memory(ws_path) as mem:
        for text, category in FACTS:
            mem.add(text, category=category)
    config = load_config(ws_path, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"})
    db = IndexDB(ws_path / ".memfs" / "index.sqlite3")
    yield Workspace(ws_path), db, config
    db.close()


def _block(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return text.split("-->", 1)[1].rsplit("<!--", 1)[0]


def test_the_root_files_show_what_the_index_holds(filled: tuple[Workspace, IndexDB, Config]) -> None:
    ws, db, config = filled
    for name in ("index.md", "memory.md", "skill.md"):
        (ws.root / name).unlink()
    written = regenerate_root_files(ws, db, config)
    assert {"index.md", "memory.md", "skill.md"} <= set(written)
    memory = _block(ws.root / "memory.md")
    assert "Alice prefers green tea over coffee in the morning." in memory
    index = _block(ws.root / "index.md")
    assert "memory/preferences.md" in index  # every category file is listed with a link
    assert not views_stale(ws, db)


def test_regenerating_again_writes_nothing_and_keeps_the_persons_notes(
        filled: tuple[Workspace, IndexDB, Config]) -> None:
    ws, db, config = filled
    regenerate_root_files(ws, db, config)
    path = ws.root / "memory.md"
    path.write_text("Notes by hand, above the block.\n\n" + path.read_text() + "\nAnd below.\n")
    before = {n: (ws.root / n).read_bytes() for n in ("index.md", "memory.md", "skill.md")}
    assert regenerate_root_files(ws, db, config) == []  # same index, same bytes: no git churn
    assert {n: (ws.root / n).read_bytes() for n in before} == before
    # A new item changes the block, never the notes around it.
    with hashing_memory(ws.root) as mem:
        mem.add("Alice adopted a grey cat called Miso.", category="preferences")
    text = path.read_text()
    assert text.startswith("Notes by hand, above the block.\n\n") and text.endswith("\nAnd below.\n")
    assert "Miso" in text


def test_views_are_stale_when_missing_or_behind_the_index(filled: tuple[Workspace, IndexDB, Config]) -> None:
    ws, db, config = filled
    regenerate_root_files(ws, db, config)
    assert not views_stale(ws, db)
    with db.transaction():
        db.set_meta("index_version", str(int(db.get_meta("index_version") or "0") + 1))
    assert views_stale(ws, db)  # the index moved on (a crash before the views step)
    regenerate_root_files(ws, db, config)
    assert not views_stale(ws, db)
    (ws.root / "skill.md").unlink()
    assert views_stale(ws, db)


def test_category_rows_include_files_not_indexed_yet(filled: tuple[Workspace, IndexDB, Config]) -> None:
    ws, db, config = filled
    (ws.root / "memory" / "garden.md").write_text("---\ntitle: Garden\ndescription: plants\n---\n")
    rows = {r.path: r for r in category_rows(ws, db, config)}
    assert "memory/garden.md" in rows and rows["memory/garden.md"].summary == ""
    assert "memory/preferences.md" in rows and rows["memory/preferences.md"].kind == "memory"
    assert list(rows) == sorted(rows)


def test_reference_day_is_the_newest_learned_day_not_the_clock() -> None:
    def item(learned: str | None) -> EntryItem:
        return EntryItem(id="x", text="t", type="profile", when=None, src=None, seen=1, updated=None,
                         path="memory/profile.md", line=1, learned=learned)

    assert reference_day([]) == date(2000, 1, 1)
    assert reference_day([item("2026-03-02"), item(None), item("2026-09"), item("not a day")]) == date(2026, 9, 1)


def test_the_llm_summary_is_cached_until_its_lines_change(filled: tuple[Workspace, IndexDB, Config]) -> None:
    ws, db, config = filled
    calls: list[int] = []

    def summarize(lines: list[str], budget: int) -> str | None:
        calls.append(len(lines))
        return "Alice likes tea and ships billing." if len(calls) > 1 else None

    regenerate_root_files(ws, db, config, summarize=summarize)  # the model fell back: offline body
    assert "In short" not in (ws.root / "memory.md").read_text()
    regenerate_root_files(ws, db, config, summarize=summarize)  # asked again, answers now
    assert "Alice likes tea and ships billing." in (ws.root / "memory.md").read_text()
    asked = len(calls)
    regenerate_root_files(ws, db, config, summarize=summarize)
    assert len(calls) == asked  # same lines: the cached summary, no new call
