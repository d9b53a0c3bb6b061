"""A person copies a stamped item line (same id) within a file or into another file."""

from __future__ import annotations

from pathlib import Path

from memfs.api import Memory
from memfs.core.categoryfile import parse_category

_BODY = ("---\ntitle: Tea\n---\n# Tea\n\n"
         "- Likes green tea <!-- id=aaaa1111 when=2024-01-02 -->\n"
         "- Likes coffee <!-- id=bbbb2222 -->\n"
         "- Likes green tea <!-- id=aaaa1111 when=2024-01-02 -->\n"
         "  - a note nested under the copy\n")


def _paths(mem: Memory) -> dict[str, str]:
    return {r.id: r.path for r in mem.indexer.db.all_items()}


def test_a_copy_within_a_file_is_an_item_of_its_own_in_both_parses() -> None:
    for lazy in (False, True):
        doc = parse_category(_BODY, "memory/preferences.md", lazy=lazy)
        items = [(s.item.id, s.item.text, s.item.when) for s in doc.slots]
        assert items[0] == ("aaaa1111", "Likes green tea", "2024-01-02")
        copy_id, text, when = items[2]
        assert copy_id not in {"aaaa1111", "bbbb2222"} and (text, when) == ("Likes green tea", "2024-01-02")
        assert any("appears twice" in w and copy_id in w for w in doc.warnings)
        # The render stamps the copy's new id and keeps everything else.
        out = doc.render()
        assert f"- Likes green tea <!-- id={copy_id}" in out and "  - a note nested under the copy\n" in out
        assert "- Likes green tea <!-- id=aaaa1111 when=2024-01-02 -->\n" in out
        assert not parse_category(out, "memory/preferences.md").warnings


def test_a_copy_within_a_file_is_indexed_and_stamped_by_the_next_write(mem: Memory, ws_path: Path) -> None:
    prefs = ws_path / "memory" / "preferences.md"
    prefs.write_text(_BODY)
    mem.sync()
    rows = [r for r in mem.indexer.db.all_items() if r.text == "Likes green tea"]
    assert len(rows) == 2 and {r.line for r in rows} == {6, 8}
    mem.add("Likes oolong in the evening.", category="preferences")
    text = prefs.read_text()
    assert text.count("- Likes green tea <!-- id=aaaa1111") == 1 and text.count("- Likes green tea <!--") == 2
    assert "  - a note nested under the copy\n" in text
    assert not mem.sync().warnings


def test_a_line_moved_between_files_in_two_saves_stays_indexed(mem: Memory, ws_path: Path) -> None:
    a = mem.add("Bob has a dog called Rex.", category="relationships")
    rel = ws_path / "memory" / "relationships.md"
    line = next(ln for ln in rel.read_text().splitlines(keepends=True) if a.id in ln)
    prefs = ws_path / "memory" / "preferences.md"
    # Save 1: paste into preferences.md. The first file in path order keeps the id.
    with prefs.open("a") as fh:
        fh.write("# Pets\n\n" + line)
    report = mem.sync()
    assert any(a.id in w and "not indexed" in w for w in report.warnings)
    assert _paths(mem)[a.id] == "memory/preferences.md" or _paths(mem)[a.id] == "memory/relationships.md"
    holder = _paths(mem)[a.id]
    other = "memory/relationships.md" if holder == "memory/preferences.md" else "memory/preferences.md"
    # Save 2: cut it from the file whose copy is indexed, in place (truncate, then write).
    path = ws_path / holder
    keep = "".join(ln for ln in path.read_text().splitlines(keepends=True) if a.id not in ln)
    with path.open("r+") as fh:
        fh.truncate(0)
        fh.write(keep)
    mem.sync()
    assert _paths(mem)[a.id] == other
    assert any(h.id == a.id for h in mem.recall("dog called Rex", k=3))
    # A rebuild from the Markdown agrees.
    mem.sync(rebuild=True)
    assert _paths(mem)[a.id] == other


def test_forget_removes_every_copy(mem: Memory, ws_path: Path) -> None:
    a = mem.add("Bob has a dog called Rex.", category="relationships")
    rel = ws_path / "memory" / "relationships.md"
    line = next(ln for ln in rel.read_text().splitlines(keepends=True) if a.id in ln)
    (ws_path / "memory" / "pets.md").write_text("# Pets\n\n" + line)
    mem.sync()
    mem.apply_forget(mem.plan_forget(ids=[a.id]))
    assert a.id not in _paths(mem)
    for name in ("relationships.md", "pets.md"):
        assert a.id not in (ws_path / "memory" / name).read_text()
    mem.sync(rebuild=True)
    assert a.id not in _paths(mem)


def test_parse_warnings_name_the_line_of_the_file_not_of_the_body() -> None:
    """Line numbers in warnings count the front matter, so an editor's "go to line" lands."""
    text = ("---\ntitle: x\n---\n# T\n\n- a <!-- id=aaaa1111 -->\n- b <!-- id=aaaa1111 -->\n"
            "- c <!-- id=bad%0A -->\n")
    lines = text.splitlines()
    for lazy in (False, True):
        warnings = parse_category(text, "memory/x.md", lazy=lazy).warnings
        assert [w.split(":")[1] for w in warnings] == ["7", "8"]
        assert lines[6].startswith("- b") and lines[7].startswith("- c")
    # Without front matter the body is the file.
    body = text.split("---\n", 2)[2]
    assert [w.split(":")[1] for w in parse_category(body, "memory/x.md").warnings] == ["4", "5"]


def test_forget_removes_a_copy_within_the_file_too(mem: Memory, ws_path: Path) -> None:
    """The copy is an item of its own (a new id): the forget lists and removes it as well,
    so the forgotten fact is not recallable from it (found by review)."""
    a = mem.add("Bob has a dog called Rex.", category="relationships")
    rel = ws_path / "memory" / "relationships.md"
    line = next(ln for ln in rel.read_text().splitlines(keepends=True) if a.id in ln)
    rel.write_text(rel.read_text() + "# Later\n\n" + line)
    mem.sync()
    plan = mem.plan_forget(ids=[a.id])
    assert len(plan.items) == 2 and {it.path for it in plan.items} == {"memory/relationships.md"}
    mem.apply_forget(plan)
    assert "dog called Rex" not in rel.read_text()
    assert not [h for h in mem.recall("dog called Rex", k=5) if "Rex" in h.text]


def test_forget_keeps_a_copied_line_that_now_says_something_else(mem: Memory, ws_path: Path) -> None:
    """A person used a line as a template in another file and wrote a new fact on it,
    keeping its id comment: that line is not a copy of the forgotten one (found by review)."""
    a = mem.add("Bob has a dog called Rex.", category="relationships")
    rel = ws_path / "memory" / "relationships.md"
    line = next(ln for ln in rel.read_text().splitlines(keepends=True) if a.id in ln)
    pets = ws_path / "index" / "pets.md"
    pets.write_text("# Pets\n\n" + line.replace("Bob has a dog called Rex.", "Mia has a cat called Tom."))
    mem.sync()
    plan = mem.plan_forget(ids=[a.id])
    assert [it.path for it in plan.items] == ["memory/relationships.md"]
    mem.apply_forget(plan)
    assert "Mia has a cat called Tom." in pets.read_text()
    assert "dog called Rex" not in rel.read_text()


def test_forget_takes_every_copy_in_another_file(mem: Memory, ws_path: Path) -> None:
    """Two unchanged copies pasted into another file: the first holds the id (not indexed),
    the second is an item of its own there; both go (found by review)."""
    a = mem.add("Bob has a dog called Rex.", category="relationships")
    rel = ws_path / "memory" / "relationships.md"
    line = next(ln for ln in rel.read_text().splitlines(keepends=True) if a.id in ln)
    pets = ws_path / "index" / "pets.md"
    pets.write_text("# Pets\n\n" + line + "- Mia has a cat.\n" + line)
    mem.sync()
    plan = mem.plan_forget(ids=[a.id])
    assert sorted(it.path for it in plan.items) == ["index/pets.md", "index/pets.md", "memory/relationships.md"]
    mem.apply_forget(plan)
    assert "Rex" not in pets.read_text() + rel.read_text() and "Mia has a cat." in pets.read_text()
    assert not [h for h in mem.recall("dog called Rex", k=5) if "Rex" in h.text]


def test_forget_changes_nothing_when_a_copy_is_in_a_file_memfs_will_not_rewrite(mem: Memory, ws_path: Path) -> None:
    """All or nothing: a copy in a file with broken front matter (or write-protected) stops
    the forget before its first edit, with one line (before: the original went, the copy
    stayed and came back into the index)."""
    import pytest

    from memfs.errors import MemfsError

    a = mem.add("Bob has a dog called Rex.", category="relationships")
    rel = ws_path / "memory" / "relationships.md"
    line = next(ln for ln in rel.read_text().splitlines(keepends=True) if a.id in ln)
    before = rel.read_text()
    broken = ws_path / "memory" / "zoo.md"  # edited after relationships.md (sorted order)
    broken.write_text("---\ntitle: [unclosed\n---\n# Zoo\n\n" + line)
    mem.sync()
    plan = mem.plan_forget(ids=[a.id])
    assert {it.path for it in plan.items} == {"memory/relationships.md", "memory/zoo.md"}
    with pytest.raises(MemfsError, match="memory/zoo.md"):
        mem.apply_forget(plan)
    assert rel.read_text() == before and line in broken.read_text()
