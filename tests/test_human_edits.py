"""A person edits the Markdown; sync makes the index follow (the on-disk rules in docs/architecture.md)."""

from __future__ import annotations

from pathlib import Path

from memfs.api import Memory


def _ids(mem: Memory) -> dict[str, str]:
    return {r.id: r.path for r in mem.indexer.db.all_items()}


def test_add_edit_delete_move_and_new_file(mem: Memory, ws_path: Path) -> None:
    a = mem.add("Alice prefers green tea over coffee.", category="preferences")
    b = mem.add("Bob has a dog called Rex.", category="relationships")
    prefs = ws_path / "memory" / "preferences.md"

    # Edit a line's text: the id survives.
    text = prefs.read_text()
    prefs.write_text(text.replace("green tea over coffee", "jasmine tea over coffee"))
    report = mem.sync()
    assert report.items_updated == 1 and report.items_added == 0
    hits = mem.recall("jasmine", k=1)
    assert hits[0].id == a.id and "jasmine" in hits[0].text

    # A line added by hand becomes an item.
    with prefs.open("a") as fh:
        fh.write("- Alice dislikes loud restaurants.\n")
    mem.sync()
    hand = [h for h in mem.recall("loud restaurants", k=3) if "loud" in h.text]
    assert hand and hand[0].path == "memory/preferences.md"
    # ... and memfs did not stamp it just because it read it.
    assert prefs.read_text().endswith("- Alice dislikes loud restaurants.\n")

    # Move Bob's line into preferences.md: category changes, id stays.
    rel = ws_path / "memory" / "relationships.md"
    lines = rel.read_text().splitlines(keepends=True)
    bob_line = next(line for line in lines if b.id in line)
    rel.write_text("".join(line for line in lines if line is not bob_line))
    with prefs.open("a") as fh:
        fh.write(bob_line)
    mem.sync()
    assert _ids(mem)[b.id] == "memory/preferences.md"
    assert mem.recall("Rex", k=1)[0].category == "preferences"

    # Delete a line: forgotten.
    prefs.write_text("".join(line for line in prefs.read_text().splitlines(keepends=True) if a.id not in line))
    report = mem.sync()
    assert report.items_removed == 1 and a.id not in _ids(mem)

    # A new file under index/ is a new category.
    (ws_path / "index" / "homelab.md").write_text("# Homelab\n\n- The NAS lives at 10.0.0.5.\n")
    mem.sync()
    hit = mem.recall("NAS address", k=1)[0]
    assert hit.category == "homelab" and hit.kind == "index" and hit.type == "knowledge"
    assert "homelab.md" in (ws_path / "index.md").read_text()


def test_broken_front_matter_warns_with_file_and_line_and_others_still_sync(mem: Memory, ws_path: Path) -> None:
    bad = ws_path / "memory" / "broken.md"
    bad.write_text("---\ntitle: ok\nsummary: [unclosed\n---\n- A fact in a broken file.\n")
    (ws_path / "memory" / "fine.md").write_text("- A fact in a good file about zebras.\n")
    report = mem.sync()
    assert any(w.startswith("memory/broken.md:") and "front-matter" in w for w in report.warnings)
    assert mem.recall("zebras", k=1)[0].path == "memory/fine.md"
    # The broken file is indexed but never rewritten by memfs.
    before = bad.read_bytes()
    mem.add("Another fact for the broken file.", category="memory/fine")
    assert bad.read_bytes() == before


def test_editing_keeps_unrelated_bytes(mem: Memory, ws_path: Path) -> None:
    prefs = ws_path / "memory" / "preferences.md"
    mem.add("Carol loves jazz.", category="preferences")
    text = prefs.read_text()
    prefs.write_text(text.replace("# Preferences\n", "# Preferences\n\nMy own note, *keep me*.\n"))
    mem.add("Carol hates mornings.", category="preferences")
    out = prefs.read_text()
    assert "My own note, *keep me*." in out
    assert out.count("Carol loves jazz.") == 1 and "Carol hates mornings." in out


def test_add_same_fact_twice_reinforces(mem: Memory) -> None:
    first = mem.add("Dan runs every Sunday.")
    second = mem.add("Dan runs every  Sunday.")
    assert first.id == second.id and second.seen == 2
    assert mem.status().items == 1


def test_forget(mem: Memory, ws_path: Path) -> None:
    item = mem.add("Erin's birthday is 3 March.", category="profile")
    mem.forget(item.id)
    assert item.id not in (ws_path / "memory" / "profile.md").read_text()
    assert mem.recall("Erin birthday") == []
