"""Issue #10, the store half: category and root files never lose what a person wrote.

Races use a real helper process that saves the way in-place editors do (truncate, pause,
write), started so that memfs reads inside the pause: before the fix memfs took the empty
file as the truth and the person's write landed in an unlinked inode.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memfs.core.categoryfile import parse_category
from memfs.core.model import Item
from memfs.errors import MemfsError
from memfs.store import CategoryStore
from tests.support.cli import MEMFS
from tests.support.workspace import hashing_memory

#: A helper that saves `path` in place: truncate, say so, pause, then write the content.
SAVER = r"""
import sys, time
path, content, pause = sys.argv[1], sys.argv[2], float(sys.argv[3])
fh = open(path, "w", encoding="utf-8")   # O_TRUNC: the file is 0 bytes from here on
print("truncated", flush=True)
time.sleep(pause)
fh.write(content)
fh.close()
print("written", flush=True)
"""


def _in_place_save(path: Path, content: str, pause: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", SAVER, str(path), content, str(pause)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "truncated"
    return proc


def _texts(path: Path) -> list[str]:
    rel = f"{path.parent.name}/{path.name}"
    return [it.text for it in parse_category(path.read_text(encoding="utf-8"), rel).items]


PREFS = """---
title: Preferences
kind: memory
---
# Preferences

- Alice prefers green tea over coffee. <!-- id=aaaa0001 type=profile -->
- Bob likes long walks by the river. <!-- id=aaaa0002 type=profile -->
"""


# --- item 1: an in-place save racing a write ------------------------------------------------

def test_an_in_place_save_racing_memfs_keeps_the_persons_file_and_memfs_item(ws_path: Path) -> None:
    path = ws_path / "memory" / "preferences.md"
    path.write_text(PREFS)
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        os.utime(path, (time.time() - 60, time.time() - 60))  # an old, settled file
        mine = PREFS + "- Carol keeps bees on her roof. <!-- id=aaaa0003 type=profile -->\n"
        saver = _in_place_save(path, mine, pause=0.15)
        # memfs writes now, while the file is 0 bytes and the person's write is pending.
        mem.add("Dave collects vintage fountain pens.", category="preferences")
        saver.wait(timeout=10)
        texts = _texts(path)
        assert "Carol keeps bees on her roof." in texts  # the person's edit survived
        assert "Alice prefers green tea over coffee." in texts and "Bob likes long walks by the river." in texts
        assert "Dave collects vintage fountain pens." in texts  # and memfs' item
    finally:
        mem.close()


def test_a_file_a_person_emptied_on_purpose_is_taken_after_one_settle_window(ws_path: Path) -> None:
    path = ws_path / "memory" / "preferences.md"
    path.write_text(PREFS)
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        path.write_text("")
        t0 = time.monotonic()
        mem.add("Erin drinks oat milk.", category="preferences")
        assert time.monotonic() - t0 >= mem.config.ingest.settle_seconds * 0.9  # it waited, then trusted it
        assert _texts(path) == ["Erin drinks oat milk."]
    finally:
        mem.close()


def test_a_write_never_drops_an_item_it_did_not_mean_to_remove(ws_path: Path) -> None:
    path = ws_path / "memory" / "preferences.md"
    path.write_text(PREFS)
    os.utime(path, (time.time() - 60, time.time() - 60))
    mem = hashing_memory(ws_path)
    try:
        def buggy(doc) -> None:  # type: ignore[no-untyped-def]
            gone = doc.slots.pop(0)  # loses an item without `remove`: a bug memfs must not write
            doc.lines[gone.start] = "\n"
            doc.add(Item(id="bbbb0001", text="Frank is new.", type="profile"))

        with pytest.raises(MemfsError, match="would drop item aaaa0001"):
            CategoryStore(mem.ws, mem.config).edit("memory/preferences.md", buggy)
        assert path.read_text() == PREFS
    finally:
        mem.close()


# --- item 2: nested Markdown under an item --------------------------------------------------

NESTED = """---
title: Preferences
kind: memory
---
# Preferences

- Alice prefers green tea over coffee. <!-- id=aaaa0001 type=profile -->
  - only sencha, never matcha
  - brewed at 70 °C
* Bob likes long walks
  by the river. <!-- id=aaaa0002 type=profile -->

  He walks every Sunday, rain or shine.

  ```
  route: bridge -> mill -> weir
  ```
1. Carol keeps bees. <!-- id=aaaa0003 type=profile -->

   Carol's hives are on the roof.
- Gone soon. <!-- id=aaaa0004 type=profile -->
  - nested under the forgotten item
"""


def test_nested_markdown_under_items_survives_every_rewrite(ws_path: Path) -> None:
    path = ws_path / "memory" / "preferences.md"
    path.write_text(NESTED)
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        mem.add("Alice prefers green tea over coffee.")  # reinforce (seen=2)
        mem.add("Bob likes long walks by the river.")  # reinforce a two-line item
        mem.add("Carol keeps bees.")
        mem.forget("aaaa0004")
        mem.add("Dave collects vintage fountain pens.", category="preferences")
        text = path.read_text()
        for kept in ["  - only sencha, never matcha\n  - brewed at 70 °C\n",
                     "\n  He walks every Sunday, rain or shine.\n\n  ```\n  route: bridge -> mill -> weir\n  ```\n",
                     "\n   Carol's hives are on the roof.\n"]:
            assert kept in text
        assert "nested under the forgotten item" not in text  # it belonged to the forgotten item
        assert "* Bob likes long walks by the river. <!-- id=aaaa0002 type=profile seen=2" in text  # marker kept
        assert "1. Carol keeps bees. <!-- id=aaaa0003" in text
        doc = parse_category(text, "memory/preferences.md")
        assert {it.id: it.seen for it in doc.items if it.id.startswith("aaaa")} == {
            "aaaa0001": 2, "aaaa0002": 2, "aaaa0003": 2}
        # Only the lines whose meaning changed differ from the person's file.
        before, after = NESTED.splitlines(), text.splitlines()
        changed = [line for line in before if line not in after]
        assert changed == ["- Alice prefers green tea over coffee. <!-- id=aaaa0001 type=profile -->",
                           "* Bob likes long walks", "  by the river. <!-- id=aaaa0002 type=profile -->",
                           "1. Carol keeps bees. <!-- id=aaaa0003 type=profile -->",
                           "- Gone soon. <!-- id=aaaa0004 type=profile -->", "  - nested under the forgotten item"]
    finally:
        mem.close()


# --- item 4: root files ----------------------------------------------------------------------

def test_notes_outside_the_generated_block_survive_an_in_place_save_during_regeneration(ws_path: Path) -> None:
    mem = hashing_memory(ws_path)
    try:
        mem.add("Alice prefers green tea over coffee.", category="preferences")
        path = ws_path / "memory.md"
        notes = "My own notes: call the vet on Friday.\n\n" + path.read_text()
        os.utime(path, (time.time() - 60, time.time() - 60))
        saver = _in_place_save(path, notes, pause=0.15)
        mem.add("Bob likes long walks by the river.", category="preferences")  # regenerates memory.md now
        saver.wait(timeout=10)
        mem.sync()
        text = path.read_text()
        assert text.startswith("My own notes: call the vet on Friday.\n")
        assert "Bob likes long walks by the river." in text
    finally:
        mem.close()


@pytest.mark.parametrize("damage", ["no_end", "no_begin", "two_begins"])
def test_a_damaged_marker_pair_is_a_warning_and_the_root_file_is_left_alone(
        ws_path: Path, damage: str, caplog: pytest.LogCaptureFixture) -> None:
    from memfs.core.rootfiles import BEGIN, END

    mem = hashing_memory(ws_path)
    try:
        mem.add("Alice prefers green tea over coffee.", category="preferences")
        path = ws_path / "index.md"
        text = path.read_text()
        if damage == "no_end":
            text = text.replace(END, "") + "\nMy notes after the block.\n"
        elif damage == "no_begin":
            text = "My notes.\n" + text.replace(BEGIN, "")
        else:
            text = BEGIN + "\nold copy\n\n" + text
        path.write_text(text)
        with caplog.at_level(logging.WARNING):
            mem.add("Bob likes long walks by the river.", category="preferences")
        assert path.read_text() == text
        assert any("index.md" in r.getMessage() and "leaves the file as it is" in r.getMessage()
                   for r in caplog.records)
        assert "Bob likes long walks" in (ws_path / "memory.md").read_text()  # the other root files still update
    finally:
        mem.close()


def test_a_category_file_name_with_a_newline_cannot_inject_a_line_into_index_md(ws_path: Path) -> None:
    (ws_path / "memory" / "evil\n- [Injected](x.md) (99 items).md").write_text(
        "---\ntitle: \"Evil\\n## Injected heading\"\n---\n- Eve hides in file names.\n")
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        lines = (ws_path / "index.md").read_text().splitlines()
        assert not any(line.startswith("- [Injected]") or line.startswith("## Injected") for line in lines)
        evil = [line for line in lines if "Evil" in line]
        assert len(evil) == 1 and "memory/evil%0A- [Injected]" in evil[0]
    finally:
        mem.close()


# --- item 9: write-protected category files --------------------------------------------------

def test_a_write_protected_category_file_is_skipped_with_a_warning(ws_path: Path, tmp_path: Path) -> None:
    path = ws_path / "memory" / "preferences.md"
    path.write_text(PREFS)
    path.chmod(0o444)
    try:
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
               "MEMFS_EMBEDDER_PROVIDER": "hashing"}
        out = subprocess.run(MEMFS + ["add", "Zoe loves figs.", "--category", "preferences"], cwd=ws_path,
                             env=env, capture_output=True, text=True, timeout=60)
        assert out.returncode == 1
        assert "write-protected" in out.stderr and len(out.stderr.strip().splitlines()) == 1
        # An input whose fact reinforces an item in the protected file: skipped, with a warning.
        (tmp_path / "chat.json").write_text(json.dumps({"messages": [
            {"role": "user", "content": "I prefer green tea over coffee."}], "participants": {"user": "Alice"}}))
        out = subprocess.run(MEMFS + ["ingest", "--json", str(tmp_path / "chat.json")], cwd=ws_path, env=env,
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert path.read_text() == PREFS and stat.S_IMODE(path.stat().st_mode) == 0o444
        result = json.loads(out.stdout)[0]
        assert result["status"] == "processed" and result["reinforced"] == [] and result["files"] == []
        assert result["warnings"] == ["memory/preferences.md is write-protected; memfs leaves it as it is "
                                      "(make it writable to let memfs file into it)"]
    finally:
        path.chmod(0o644)


# --- item 11: front-matter, BOM, CRLF, TOML --------------------------------------------------

PERSON_FRONT = """---
# Front-matter I keep by hand.
title: "Preferences"     # quoted on purpose
kind: memory
tags: [food, drink,  music]
aliases: {short: prefs}
description: >-
  What people like.
---
# Preferences

- Alice prefers green tea over coffee. <!-- id=aaaa0001 type=profile -->
"""


def test_a_persons_front_matter_formatting_is_kept_byte_for_byte(ws_path: Path) -> None:
    path = ws_path / "memory" / "preferences.md"
    path.write_text(PERSON_FRONT)
    mem = hashing_memory(ws_path)
    try:
        mem.add("Dave collects vintage fountain pens.", category="preferences")
        text = path.read_text()
        assert text.startswith(PERSON_FRONT.split("# Preferences")[0])
        assert "Dave collects vintage fountain pens." in text
    finally:
        mem.close()


def test_legacy_derived_keys_are_removed_line_by_line_keeping_comments(ws_path: Path) -> None:
    path = ws_path / "memory" / "pets.md"
    path.write_text("---\ntitle: Preferences  # mine\nkind: memory\nsummary: Old summary.\nupdated: '2020-01-01'\n"
                    "items: 1\nflow: [a,  b]\n---\n- Alice prefers green tea. <!-- id=aaaa0001 type=profile -->\n")
    mem = hashing_memory(ws_path)
    try:
        mem.add("Dave collects vintage fountain pens.", category="pets")
        assert path.read_text().startswith("---\ntitle: Preferences  # mine\nkind: memory\nflow: [a,  b]\n---\n")
        row = mem.indexer.db.conn.execute("SELECT summary, items FROM files WHERE path=?",
                                          ("memory/pets.md",)).fetchone()
        assert "Dave collects vintage fountain pens" in row[0] and row[1] == 2  # derived by the index
    finally:
        mem.close()


@pytest.mark.parametrize("variant", ["bom", "crlf", "toml"])
def test_bom_crlf_and_toml_front_matter_are_kept_as_they_are(ws_path: Path, variant: str) -> None:
    path = ws_path / "memory" / "pets.md"
    if variant == "toml":
        original = '+++\ntitle = "Preferences"\ntags = ["a", "b"]\n+++\n# Preferences\n\n' \
                   "- Alice prefers green tea. <!-- id=aaaa0001 type=profile -->\n"
    else:
        original = PREFS
    if variant == "crlf":
        original = original.replace("\n", "\r\n")
    data = (b"\xef\xbb\xbf" if variant == "bom" else b"") + original.encode()
    path.write_bytes(data)
    mem = hashing_memory(ws_path)
    try:
        mem.add("Dave collects vintage fountain pens.", category="pets")
        mem.add("Alice prefers green tea." if variant == "toml" else "Alice prefers green tea over coffee.")
        out = path.read_bytes()
        if variant == "bom":
            assert out.startswith(b"\xef\xbb\xbf---\ntitle: Preferences\n") and out.count(b"---\n") == 2
        if variant == "crlf":
            assert b"\n" not in out.replace(b"\r\n", b"") and out.startswith(original.split("# Pref")[0].encode())
        if variant == "toml":
            assert out.startswith(b'+++\ntitle = "Preferences"\ntags = ["a", "b"]\n+++\n') and b"---" not in out
        texts = _texts(path) if variant != "bom" else [
            it.text for it in parse_category(out.decode("utf-8"), "memory/pets.md").items]
        assert "Dave collects vintage fountain pens." in texts and len(texts) == (2 if variant == "toml" else 3)
        assert mem.indexer.db.conn.execute("SELECT seen FROM items WHERE id='aaaa0001'").fetchone()[0] == 2
    finally:
        mem.close()


def test_the_parse_kept_for_the_next_edit_is_exactly_the_file_and_never_reused_after_a_save(ws_path: Path) -> None:
    import memfs.store as store_mod

    path = ws_path / "memory" / "preferences.md"
    path.write_text(PREFS)
    mem = hashing_memory(ws_path)
    try:
        mem.add("Dave collects vintage fountain pens.", category="preferences")
        data, doc, _digest = store_mod._PARSED[(str(path), "memory/preferences.md")]
        assert data == path.read_bytes() and doc.render().encode() == data
        # A person's save (renamed in) after memfs' write: the kept parse must not be used.
        tmp = path.with_name(".preferences.md.person.tmp")
        tmp.write_text(path.read_text() + "- Erin drinks oat milk.\n")
        os.replace(tmp, path)
        mem.add("Frank bakes sourdough on Sundays.", category="preferences")
        texts = _texts(path)
        assert "Erin drinks oat milk." in texts and "Frank bakes sourdough on Sundays." in texts
    finally:
        mem.close()
