"""People's editors against a running daemon, and a person saving while memfs writes.

- vim (swap `.x.md.swp`, probe `4913`, backup `x.md~`, write a new file), JetBrains safe
  write (`x.md___jb_tmp___`, `x.md___jb_old___`), VS Code / editors that write
  `x.md.tmp` then rename, in-place rewrites, and Obsidian (`.obsidian/`, `.trash/`) and
  `.git/` beside the store: the daemon indexes each final content once, never a temp,
  swap or backup file, never anything under a hidden folder, and never rewrites the
  person's file (invariant 5, docs/architecture.md).
- A person who saves a category file while memfs is writing it keeps their edit, and
  memfs' change is re-applied on top (invariant 4): in-process at every instrumented
  point of CategoryStore.edit, and end to end against the real daemon.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import textwrap
import time
from pathlib import Path

import pytest

from memfs.core.categoryfile import parse_category
from memfs.core.model import Item
from memfs.store import CategoryStore
from tests.support.cli import env, init
from tests.support.daemon import Daemon, wait
from tests.support.factories import conversation
from tests.support.figures import figure
from tests.support.workspace import indexed_files, indexed_items, recall, status, waiting

PREFS = """\
---
title: Preferences
kind: memory
---
# Preferences

- Alice likes green tea in the morning. <!-- id=pref0001 type=profile -->
- Bob prefers window seats on long flights. <!-- id=pref0002 type=profile -->
"""


def _synced_lines(log: str) -> list[str]:
    return [line for line in log.splitlines() if "synced edits" in line]


def _save_vim(path: Path, text: str) -> None:
    """vim's default save on Linux: swap file open, probe file 4913, backup by rename, new file."""
    folder = path.parent
    swap = folder / f".{path.name}.swp"
    swap.write_bytes(b"b0VIM 9.0\x00" + b"\x00" * 64 + text.encode())
    probe = folder / "4913"
    probe.write_bytes(b"")
    probe.unlink()
    backup = folder / f"{path.name}~"
    os.rename(path, backup)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    swap.unlink()  # vim quits; the backup `x.md~` is kept (as with `set backup`)


def _save_jetbrains(path: Path, text: str) -> None:
    """IntelliJ "safe write": write x___jb_tmp___, move the original to x___jb_old___, rename, delete old."""
    tmp = path.with_name(path.name + "___jb_tmp___")
    old = path.with_name(path.name + "___jb_old___")
    tmp.write_text(text)
    os.rename(path, old)
    os.rename(tmp, path)
    old.unlink()


def _save_tmp_rename(path: Path, text: str) -> None:
    """VS Code / many tools' atomic save: write `x.md.tmp`, rename over the file."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _save_in_place(path: Path, text: str) -> None:
    """nano / VS Code's default: truncate and rewrite the same file."""
    with open(path, "r+", encoding="utf-8") as fh:
        fh.truncate(0)
        fh.write(text)


def _texts(ws: Path, query: str, e: dict[str, str]) -> list[str]:
    return [h["text"] for h in recall(ws, e, query)]


@pytest.mark.slow
def test_editors_against_a_running_daemon(tmp_path: Path) -> None:
    e = env()
    ws = init(tmp_path / "w", e)
    prefs = ws / "memory" / "preferences.md"
    prefs.write_text(PREFS)
    # Obsidian vault at the workspace root and inside memory/, a git folder, a trash folder,
    # a folder the person lists in .memfsignore: their Markdown (with list lines that look
    # like items) must never be indexed. (A plain subfolder of memory/ is memory: issue #18.)
    decoy = "# Decoy\n\n- Zanzibar decoy fact that must never be indexed.\n"
    (ws / ".memfsignore").write_text("memory/drafts/\n")
    for rel in (".obsidian/workspace.md", ".obsidian/plugins/x/notes.md", "memory/.obsidian/app.md",
                ".trash/old.md", "memory/.trash/old.md", ".git/notes.md", "memory/.git/x.md",
                "memory/drafts/nested.md"):
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(decoy)
    (ws / ".obsidian" / "app.json").write_text('{"legacyEditor": false}')
    with Daemon(ws, e, tmp_path / "daemon.log") as d:
        d.wait_ready()
        assert "Alice likes green tea in the morning." in _texts(ws, "green tea", e)
        saves = 0

        def edit_and_wait(save, old: str, new: str, query: str) -> None:  # type: ignore[no-untyped-def]
            nonlocal saves
            before = len(_synced_lines(d.log()))
            text = prefs.read_text().replace(old, new)
            t0 = time.monotonic()
            save(prefs, text)
            stalled = time.monotonic() - t0 > 0.25  # the machine paused mid-save: a 2nd sync is legitimate
            saves += 1
            wait(lambda: any(new in t for t in _texts(ws, query, e)), 20, f"{save.__name__} indexed")
            wait(lambda: len(_synced_lines(d.log())) > before, 10, "sync logged")
            # Let the debounce window pass: a second sync would mean an intermediate state was seen.
            time.sleep(0.8)
            lines = _synced_lines(d.log())[before:]
            if not stalled:
                assert len(lines) == 1, (save.__name__, lines)  # indexed once ...
                assert lines[0].endswith("+0 ~1 -0"), (save.__name__, lines)  # ... as one edited line
            assert prefs.read_text() == text  # memfs never rewrote the person's file
            sha = hashlib.sha1(text.encode()).hexdigest()
            import sqlite3

            conn = sqlite3.connect(f"file:{ws / '.memfs' / 'index.sqlite3'}?mode=ro", uri=True)
            try:
                (h,) = conn.execute("SELECT hash FROM files WHERE path='memory/preferences.md'").fetchone()
            finally:
                conn.close()
            assert h == sha  # the index holds exactly the final bytes

        edit_and_wait(_save_vim, "green tea", "jasmine tea", "jasmine tea")
        edit_and_wait(_save_jetbrains, "window seats", "aisle seats", "aisle seats")
        edit_and_wait(_save_tmp_rename, "jasmine tea", "oolong tea", "oolong tea")
        edit_and_wait(_save_in_place, "aisle seats", "exit row seats", "exit row seats")

        # Obsidian deletes a note by moving it to .trash/: its items are forgotten.
        habits = ws / "memory" / "habits.md"
        habits.write_text("# Habits\n\n- Carol runs along the river every Sunday.\n")
        wait(lambda: "Carol runs along the river every Sunday." in _texts(ws, "Carol river", e), 20, "habits")
        os.rename(habits, ws / ".trash" / "habits.md")
        wait(lambda: not any("Carol" in t for t in _texts(ws, "Carol river", e)), 20, "habits forgotten")

        # Editors and downloads in the inbox: only finished files are taken, each once.
        inbox = ws / "inbox"
        ignored = {".notes.md.swp": b"b0VIM 9.0\x00\x00", "notes.md~": b"# old\n\nOld text.\n",
                   "draft.md.tmp": b"# half\n", "chat.json.part": b'[{"role": "user", "con',
                   "chat.json.crdownload": b"[", "#notes.md#": b"emacs autosave"}
        for name, data in ignored.items():
            (inbox / name).write_bytes(data)
        vim_text = "# Trip\n\nHana booked a cabin in the Alps for July.\n"
        (inbox / "4913").write_bytes(b"")
        (inbox / "4913").unlink()
        (inbox / ".trip.md.swp").write_bytes(b"b0VIM 9.0\x00" + vim_text.encode())
        (inbox / "trip.md").write_text(vim_text)
        (inbox / ".trip.md.swp").unlink()
        jb_tmp = inbox / "gear.md___jb_tmp___"
        jb_tmp.write_text("# Gear\n\nHana bought crampons and an ice axe.\n")
        os.rename(jb_tmp, inbox / "gear.md")
        wait(lambda: not waiting(ws) or set(p.name for p in waiting(ws)) == set(ignored) - {".notes.md.swp"},
             30, "inbox inputs taken")
        wait(lambda: len([p for p in (ws / "resources").rglob("*.md")]) == 2, 30, "two inputs archived")
        archived = sorted(p.name for p in (ws / "resources").rglob("*") if p.is_file() and p.name != ".gitkeep")
        assert len(archived) == 2 and any("-trip-" in a for a in archived) and any("-gear-" in a for a in archived)
        assert all((inbox / n).read_bytes() == data for n, data in ignored.items())  # untouched, never taken

        st = status(ws, e)
        assert st["warnings"] == [] and st["failed"] == 0
        files = indexed_files(ws)
        item_paths = {p for _, p, _ in indexed_items(ws)}
        assert d.stop() == 0
    backup = ws / "memory" / "preferences.md~"
    assert backup.exists()  # the backup is there on disk ...
    assert "memory/preferences.md~" not in files  # ... and not in the index
    assert all(re.fullmatch(r"(memory|index|skill)/[a-z0-9-]+\.md", f) for f in files), files  # no decoy folder
    assert item_paths <= set(files)
    assert not any("Zanzibar" in t for t in _texts(ws, "Zanzibar decoy fact", e))
    assert not any("Zanzibar" in t for _, _, t in indexed_items(ws))
    assert st["categories"] == len(files)
    figure("editor_saves_simulated", saves + 2)


# -- a person saves while memfs writes (in-process) --------------------------------------

def _person_save(path: Path, edit) -> None:  # type: ignore[no-untyped-def]
    """An editor-style save: read, change, write a temp file, rename over."""
    text = path.read_text()
    tmp = path.with_name(f".{path.name}.person.tmp")
    tmp.write_text(edit(text))
    os.replace(tmp, path)


def _prefs_store(ws_path: Path, mem) -> tuple[CategoryStore, Path]:  # type: ignore[no-untyped-def]
    path = ws_path / "memory" / "preferences.md"
    path.write_text(PREFS)
    return CategoryStore(mem.ws, mem.config), path


def _item(n: int) -> Item:
    return Item(id=f"mf{n:04d}", text=f"Dana collects stamp number {n} from Peru.", type="profile")


def test_person_saves_while_memfs_applies_its_change(mem, ws_path: Path) -> None:  # type: ignore[no-untyped-def]
    store, path = _prefs_store(ws_path, mem)
    calls = []

    def change(doc) -> None:  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 1:  # the person saves between memfs' read and its write
            _person_save(path, lambda t: t.replace("green tea", "mint tea") + "- Eve hates olives.\n")
        doc.add(_item(1))

    store.edit("memory/preferences.md", change)
    text = path.read_text()
    assert len(calls) == 2  # re-applied to the person's version
    assert "Alice likes mint tea in the morning." in text and "Eve hates olives." in text
    assert "stamp number 1 from Peru" in text


def test_person_saves_while_memfs_flushes_its_temp_file(mem, ws_path: Path,  # type: ignore[no-untyped-def]
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The slow part of a write is the fsync of the temp file: a save landing there must survive."""
    store, path = _prefs_store(ws_path, mem)
    real_fsync = os.fsync
    fired = []

    def slow_fsync(fd: int) -> None:
        name = os.readlink(f"/proc/self/fd/{fd}")
        if not fired and os.path.basename(name).startswith(".preferences.md."):
            fired.append(name)
            _person_save(path, lambda t: t + "- Eve hates olives.\n")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", slow_fsync)
    store.edit("memory/preferences.md", lambda doc: doc.add(_item(2)))
    monkeypatch.setattr(os, "fsync", real_fsync)
    text = path.read_text()
    assert fired
    assert "Eve hates olives." in text, text  # the person's edit survived ...
    assert "stamp number 2 from Peru" in text  # ... and memfs' change was re-applied on top
    assert not list(path.parent.glob(".*.tmp"))


def test_person_saves_at_random_points_of_many_edits(mem, ws_path: Path,  # type: ignore[no-untyped-def]
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Seeded random interleavings: a save can land at any instrumented point of an edit
    (reading, applying the change, flushing the temp file); nothing is ever lost."""
    import memfs.store as store_mod

    store, path = _prefs_store(ws_path, mem)
    rng = random.Random(1234)
    person_lines: list[str] = []
    real_read, real_fsync = store_mod.read_settled, os.fsync

    def maybe_save(point: str) -> None:
        if rng.random() < 0.3:
            line = f"- Frank noted idea {len(person_lines)} at {point}."
            person_lines.append(line[2:])
            _person_save(path, lambda t: t + line + "\n")

    def read_hook(p, *args, **kwargs):  # type: ignore[no-untyped-def]
        out = real_read(p, *args, **kwargs)
        maybe_save("read")
        return out

    def fsync_hook(fd: int) -> None:
        if os.path.basename(os.readlink(f"/proc/self/fd/{fd}")).startswith(".preferences.md."):
            maybe_save("fsync")
        real_fsync(fd)

    monkeypatch.setattr(store_mod, "read_settled", read_hook)
    monkeypatch.setattr(os, "fsync", fsync_hook)
    edits = 60
    for n in range(edits):
        def change(doc, n=n) -> None:  # type: ignore[no-untyped-def]
            maybe_save("change")
            doc.add(_item(100 + n))
        store.edit("memory/preferences.md", change, attempts=50)
    monkeypatch.setattr(store_mod, "read_settled", real_read)
    monkeypatch.setattr(os, "fsync", real_fsync)
    doc = parse_category(path.read_text(), "memory/preferences.md")
    texts = {it.text for it in doc.items}
    missing_person = [t for t in person_lines if t not in texts]
    missing_memfs = [n for n in range(edits) if _item(100 + n).text not in texts]
    assert not missing_person and not missing_memfs, (missing_person, missing_memfs)
    assert len(person_lines) > 20
    figure("race_inprocess_edits", edits)
    figure("race_inprocess_person_saves", len(person_lines))


# -- end to end: the real daemon, a person saving during its write -----------------------

#: Runs `memfs daemon` with a slow disk: the first fsync of a temp file for `$PAUSE_PREFIX…`
#: waits (up to 20 s) until the test says go, after signalling that it is paused.
_SLOW_DISK_DAEMON = textwrap.dedent("""
    import os, sys, time
    real, done = os.fsync, []
    folder, prefix = os.environ["PAUSE_DIR"], os.environ["PAUSE_PREFIX"]
    def fsync(fd):
        try:
            name = os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            name = ""
        if name.startswith(prefix) and not done:
            done.append(name)
            open(os.path.join(folder, "paused"), "w").close()
            end = time.time() + 20
            while not os.path.exists(os.path.join(folder, "go")) and time.time() < end:
                time.sleep(0.01)
        real(fd)
    os.fsync = fsync
    sys.argv = ["memfs", "daemon"]
    from memfs.cli import main
    main()
""")


@pytest.mark.slow
def test_person_saves_while_the_daemon_writes_the_same_file(tmp_path: Path) -> None:
    import sys

    e = env(MEMFS_INGEST_SETTLE_SECONDS="0")
    data = json.dumps(conversation(3, turns=8))
    # Reference: what the input alone makes.
    ref = init(tmp_path / "ref", e)
    (tmp_path / "chat.json").write_text(data)
    from tests.support.cli import run
    from tests.support.workspace import item_set

    run(["ingest", str(tmp_path / "chat.json")], ref, e)
    want = {(i, t) for i, t, _, f in item_set(ref) if f == "memory/events.md"}
    assert want

    ws = init(tmp_path / "w", e)
    events = ws / "memory" / "events.md"
    pause = tmp_path / "pause"
    pause.mkdir()
    e2 = dict(e, PAUSE_DIR=str(pause), PAUSE_PREFIX=".events.md.")
    with Daemon(ws, e2, tmp_path / "daemon.log", cmd=[sys.executable, "-c", _SLOW_DISK_DAEMON]) as d:
        d.wait_ready()
        (ws / "inbox" / "chat.json").write_text(data)
        wait(lambda: (pause / "paused").exists(), 30, "daemon paused inside its write of events.md")
        person = "Gina repaired the garden fence on 2024-03-02."
        _save_vim(events, events.read_text() + f"- {person}\n")
        (pause / "go").touch()
        wait(lambda: not waiting(ws), 30, "input processed")
        assert d.stop() == 0
    got = {(i, t) for i, t, _, f in item_set(ws) if f == "memory/events.md"}
    assert person in events.read_text()  # the person's edit survived the daemon's write
    assert want <= got, want - got  # and the daemon's change was re-applied on top of it
    assert "failed" not in d.log()
