"""The person pages of one regeneration are made durable by one fsync of people/, not one
per page (entry/pages.py, PageWriter.sync_folder), and before the index records them."""

from __future__ import annotations

from pathlib import Path

import pytest

import memfs.fsutil as fsutil
from memfs.api import Memory
from memfs.entry import pages


def test_one_folder_sync_for_every_page_written(mem: Memory, ws_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[Path] = []
    written: list[Path] = []
    real_sync, real_write = fsutil.fsync_dir, pages.atomic_write

    def sync(folder: Path) -> None:
        synced.append(Path(folder))
        real_sync(folder)

    def write(path: Path, data: str, **kw: object) -> None:
        written.append(path)
        real_write(path, data, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(fsutil, "fsync_dir", sync)
    monkeypatch.setattr(pages, "fsync_dir", sync)
    monkeypatch.setattr(pages, "atomic_write", write)
    for fact in ("Priya lives in Leeds.", "Priya works at the museum.", "Tomas lives in Porto.",
                 "Tomas plays the cello."):
        mem.add(fact)
    synced.clear(), written.clear()
    mem.add("Priya and Tomas met in Leeds.")  # a fact about Priya that mentions Tomas: both pages
    people = ws_path / "people"
    assert sorted(p.name for p in written) == ["priya.md", "tomas.md"]
    assert synced.count(people) == 1
    mem.regenerate_views()  # nothing to write: nothing to sync
    assert synced.count(people) == 1


def test_a_page_write_leaves_the_folder_sync_to_the_writer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[Path] = []
    monkeypatch.setattr(fsutil, "fsync_dir", lambda folder: synced.append(Path(folder)))
    fsutil.atomic_write(tmp_path / "a.md", "a\n", sync_dir=False)
    assert synced == [] and (tmp_path / "a.md").read_text() == "a\n"
    fsutil.atomic_write(tmp_path / "b.md", "b\n")
    assert synced == [tmp_path]
