"""A person's safe save (temp file + rename) leaves memfs' recorded stat of the file stale;
a later in-place save (truncate, then write) must still be waited for, not read half done
(found by review: the rest of the save went to the orphaned inode)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memfs import fsutil, store
from memfs.api import Memory
from memfs.config import load_config
from memfs.workspace import init_workspace


def _mem(root: Path) -> Memory:
    return Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"}))


def _save_twice_then_add(root: Path, rel: str, line: str, category: str, fresh: bool,
                         monkeypatch: pytest.MonkeyPatch) -> str:
    for k in range(3):  # the file made, then spliced writes: a stat kept in the index and in memory
        with _mem(root) as mem:
            mem.add(f"Ola keeps bicycle {k} in the shed.", category="places")
        if fresh:  # each add its own process: only what the index kept is known
            fsutil._KNOWN.clear()
            fsutil._SIZES.clear()
            store._PARSED.clear()
    path = root / rel
    full = path.read_text() + "".join(line.format(i) for i in range(40))
    tmp = path.with_name(".tmp-save")
    tmp.write_text(full)
    os.replace(tmp, path)  # 1. a safe save: a new inode
    cut = full.index(line.format(20))
    fh = open(path, "r+")  # 2. an in-place save, half done when memfs reads
    fh.truncate(0)
    fh.write(full[:cut])
    fh.flush()

    def sleep(_s: float) -> None:  # the save completes during memfs' settle wait
        if not fh.closed:
            fh.write(full[cut:])
            fh.close()

    monkeypatch.setattr(fsutil.time, "sleep", sleep)
    try:
        with _mem(root) as mem:
            mem.add("Tea is a drink.", category=category)
    finally:
        monkeypatch.undo()
        if not fh.closed:  # memfs did not wait: the save completes now, too late
            fh.write(full[cut:])
            fh.close()
    return path.read_text()


@pytest.mark.parametrize("fresh", [True, False], ids=["fresh-process", "same-process"])
def test_a_half_done_in_place_save_after_a_safe_save_is_waited_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    fresh: bool) -> None:
    root = init_workspace(tmp_path / "w", git=False).root
    text = _save_twice_then_add(root, "index/places.md", "- Person line {} about the garden shed.\n", "places",
                                fresh, monkeypatch)
    assert "Tea is a drink." in text
    assert [i for i in range(40) if f"Person line {i} " not in text] == []


def test_the_same_holds_for_a_root_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = init_workspace(tmp_path / "w", git=False).root
    text = _save_twice_then_add(root, "index.md", "\nPerson note {} kept under the generated block.\n", "drinks",
                                True, monkeypatch)
    assert [i for i in range(40) if f"Person note {i} " not in text] == []
