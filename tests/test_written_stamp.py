"""A fresh process trusts a category file still at exactly the stat memfs saw right after its
own last write (kept in the index, `entry_parts` key `["written-stamp"]`), as the writing
process itself does: a one-shot `memfs add` right after another one into the same file does
not wait `ingest.settle_seconds` for it to settle (issue #17 item 3). Anything else — a
person's in-place save since, a damaged row — takes the settle path as before."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memfs import fsutil, store
from memfs.api import Memory
from memfs.config import load_config
from memfs.workspace import init_workspace


def _fresh_process_state() -> None:
    fsutil._KNOWN.clear()
    fsutil._SIZES.clear()
    store._PARSED.clear()


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = init_workspace(tmp_path / "w", git=False).root
    for k in range(2):  # the first creates the file (a full render); the second is spliced: a stamp is kept
        with Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"})) as mem:
            mem.add(f"Ola keeps bicycle {k} in the shed.", category="places")
        _fresh_process_state()
    return root


def _add(root: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> list[float]:
    waits: list[float] = []
    monkeypatch.setattr(fsutil.time, "sleep", waits.append)
    with Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"})) as mem:
        mem.add(text, category="places")
    monkeypatch.undo()
    return waits


def test_a_fresh_add_right_after_memfs_own_write_does_not_wait(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _add(ws, "Tea is a drink.", monkeypatch) == []  # the file is young, yet memfs' own
    _fresh_process_state()
    assert _add(ws, "Coffee is a drink.", monkeypatch) == []
    text = (ws / "index" / "places.md").read_text()
    assert "Tea is a drink." in text and "Coffee is a drink." in text


def test_a_persons_in_place_save_since_takes_the_settle_path(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = ws / "index" / "places.md"
    with path.open("a") as f:  # in place: same inode, new size and mtime
        f.write("- A line a person wrote.\n")
    waits = _add(ws, "Tea is a drink.", monkeypatch)
    assert waits and waits[0] >= 0.05  # it held still for a whole window first
    text = path.read_text()
    assert "A line a person wrote." in text and "Tea is a drink." in text


def test_a_damaged_stamp_takes_the_settle_path(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = sqlite3.connect(ws / ".memfs" / "index.sqlite3")
    with conn:
        n = conn.execute("UPDATE entry_parts SET value='[1, 2]' WHERE key='[\"written-stamp\"]'").rowcount
    conn.close()
    assert n == 1
    assert _add(ws, "Tea is a drink.", monkeypatch)  # waited: the stamp is not read


def test_a_persons_save_of_a_root_file_takes_the_settle_path(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = ws / "index.md"
    with path.open("a") as f:
        f.write("\nA note a person keeps under the generated block.\n")
    assert _add(ws, "Tea is a drink.", monkeypatch)  # index.md was saved since memfs wrote it: it waits
    assert "A note a person keeps under the generated block." in path.read_text()
