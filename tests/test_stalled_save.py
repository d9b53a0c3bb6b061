"""An editor that truncates a file and writes it a while later (an in-place save that
stalls): memfs must not take the empty file as the person's and write over it (found by
review: both memfs items and the person's line were lost). Real processes, real files."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.support.cli import init, run

EDITOR = ("import sys, time\n"
          "p = sys.argv[1]; f = open(p, 'r+'); t = f.read() + '- A line the person typed\\n'\n"
          "f.seek(0); f.truncate(); f.flush(); open(sys.argv[2], 'w').close(); time.sleep(1.5); f.write(t); f.close()\n")


def _stalled_save(path: Path, tmp: Path, code: str = EDITOR) -> subprocess.Popen[bytes]:
    """An editor process that has truncated `path` (returned once it has) and writes it 1.5 s later."""
    truncated = tmp / "truncated"
    editor = subprocess.Popen([sys.executable, "-c", code, str(path), str(truncated)])
    deadline = time.monotonic() + 30
    while not truncated.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return editor


def test_a_stalled_in_place_save_is_waited_for_not_written_over(tmp_path: Path) -> None:
    ws = init(tmp_path / "w")
    for fact in ("Orla plays the cello", "Orla plays the banjo"):
        run(["add", fact, "-c", "index/notes"], cwd=ws)
    path = ws / "index" / "notes.md"
    editor = _stalled_save(path, tmp_path)
    run(["add", "Orla plays the harp", "-c", "index/notes"], cwd=ws)
    assert editor.wait(timeout=30) == 0
    text = path.read_text()
    for line in ("Orla plays the cello", "Orla plays the banjo", "A line the person typed", "Orla plays the harp"):
        assert text.count(line) == 1, (line, text)


def test_a_file_a_person_emptied_on_purpose_is_written_at_once(tmp_path: Path) -> None:
    ws = init(tmp_path / "w")
    run(["add", "Orla plays the cello", "-c", "index/notes"], cwd=ws)
    path = ws / "index" / "notes.md"
    path.write_text("")
    old = time.time() - 60
    os.utime(path, (old, old))  # emptied a minute ago, not mid-save
    t0 = time.monotonic()
    run(["add", "Orla plays the harp", "-c", "index/notes"], cwd=ws)
    assert time.monotonic() - t0 < 20 and "Orla plays the harp" in path.read_text()
    assert "cello" not in path.read_text()


def test_a_stalled_save_of_a_person_page_is_left_alone(tmp_path: Path) -> None:
    """The same on people/: the page memfs wrote over the empty file replaced the one the
    editor then wrote into (the person's notes lost)."""
    ws = init(tmp_path / "w")
    for i in range(4):
        run(["add", f"Priya Raman is my sister number {i}", "-c", "memory/relationships"], cwd=ws)
    run(["add", "Priya Raman works at Acme as an engineer", "-c", "memory/work"], cwd=ws)
    page = ws / "people" / "priya.md"
    with page.open("a") as fh:
        fh.write("\nMy own notes about Priya: she hates mornings.\n")
    run(["add", "Priya Raman likes item 0", "-c", "memory/relationships"], cwd=ws)
    assert "My own notes" in page.read_text()
    editor_code = EDITOR.replace("- A line the person typed", "More notes typed later.")
    editor = _stalled_save(page, tmp_path, editor_code)
    run(["add", "Priya Raman likes item 1", "-c", "memory/relationships"], cwd=ws)
    assert editor.wait(timeout=30) == 0
    text = page.read_text()
    assert "My own notes about Priya" in text and "More notes typed later." in text
    assert sorted(p.name for p in (ws / "people").iterdir()) == ["priya.md"]


def test_a_long_lived_memory_waits_for_a_stalled_save_too(tmp_path: Path) -> None:
    """A daemon or an agent's Memory keeps the parse of what it wrote last (no index row is
    read then): the empty file must be waited for there as well."""
    from memfs.workspace import init_workspace
    from tests.support.workspace import hashing_memory

    root = init_workspace(tmp_path / "w", git=False).root
    path = root / "index" / "notes.md"
    with hashing_memory(root) as mem:
        for fact in ("Orla plays the cello", "Orla plays the banjo"):
            mem.add(fact, category="index/notes")
        time.sleep(0.4)  # past the settle window of memfs's own write
        editor = _stalled_save(path, tmp_path)
        mem.add("Orla plays the harp", category="index/notes")
        assert editor.wait(timeout=30) == 0
    text = path.read_text()
    for line in ("Orla plays the cello", "Orla plays the banjo", "A line the person typed", "Orla plays the harp"):
        assert text.count(line) == 1, (line, text)
