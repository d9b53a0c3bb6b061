"""The service layer on its own: the pipeline without the facade, and the facade's new seams."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memfs.api import Memory
from memfs.config import load_config
from memfs.daemon import Daemon
from memfs.pipeline.memorize import Memorizer
from memfs.pipeline.runtime import PipelineRuntime
from memfs.services import ingest, recall, writer
from memfs.services.runtime import Runtime
from memfs.workspace import Workspace, init_workspace

NOTE = "# Tea\n\nAlice prefers green tea over coffee.\n\nThe office kettle is in the kitchen.\n"


def _runtime(root: Path) -> Runtime:
    return Runtime(Workspace(root), load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"}))


def test_the_pipeline_runs_on_a_runtime_without_the_facade(ws_path: Path, tmp_path: Path) -> None:
    rt = _runtime(ws_path)
    try:
        assert isinstance(rt.memorizer, Memorizer) and rt.memorizer.rt is rt  # no Memory anywhere
        src = tmp_path / "tea.md"
        src.write_text(NOTE)
        result = ingest.ingest_file(rt, src)
        assert result.status == "processed" and result.added, result
        hits = recall.recall(rt, "what does Alice drink", k=3)
        assert any("green tea" in h.text for h in hits)
        assert rt.llm_used is None and rt.llm is None and rt.llm_used is None  # offline: read once, None
    finally:
        rt.close()


def test_a_runtime_has_what_the_pipeline_protocol_names(ws_path: Path) -> None:
    rt = _runtime(ws_path)
    try:
        needed = [m for m in dir(PipelineRuntime) if not m.startswith("_")] + list(PipelineRuntime.__annotations__)
        assert needed and all(hasattr(rt, m) for m in needed), needed
    finally:
        rt.close()


def test_the_writer_adds_reinforces_and_forgets(ws_path: Path) -> None:
    rt = _runtime(ws_path)
    try:
        first = writer.add(rt, "Bob's favourite colour is teal.")
        again = writer.add(rt, "Bob's favourite colour is teal.")
        assert again.id == first.id and again.seen == 2
        gone = writer.forget(rt, first.id)
        assert gone.id == first.id and rt.indexer.db.items_by_ids([first.id]) == {}
    finally:
        rt.close()


def test_recall_rows_answers_cold_without_a_daemon(ws_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMFS_EMBEDDER_PROVIDER", "hashing")  # the cold path loads the config itself
    with Memory(ws_path) as mem:
        mem.add("Carol keeps bees on her roof.")
    rows = Memory.recall_rows(str(ws_path), "who keeps bees", k=2)
    assert rows and "bees" in rows[0]["text"] and set(rows[0]) >= {"id", "path", "score"}


def test_items_rows_and_unknown_ids(mem: Memory) -> None:
    item = mem.add("Dan runs on Tuesdays.")
    rows = mem.items([item.id, "nosuchid"])
    assert set(rows) == {item.id} and rows[item.id].path.endswith(".md")


def test_daemon_commit_does_not_touch_the_config(ws_path: Path) -> None:
    with Memory(ws_path) as mem:
        Daemon(mem, commit=True)
        assert mem.config.git.autocommit is False


def test_ingest_autocommit_overrides_the_config(tmp_path: Path) -> None:
    if subprocess.run(["git", "--version"], capture_output=True).returncode != 0:
        pytest.skip("no git")
    root = init_workspace(tmp_path / "mem", git=True).root
    before = subprocess.run(["git", "-C", str(root), "rev-list", "--count", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    src = tmp_path / "tea.md"
    src.write_text(NOTE)
    rt = _runtime(root)
    try:
        assert rt.config.git.autocommit is False
        assert ingest.ingest_file(rt, src, autocommit=True).status == "processed"
    finally:
        rt.close()
    after = subprocess.run(["git", "-C", str(root), "rev-list", "--count", "HEAD"], capture_output=True,
                           text=True).stdout.strip()
    assert int(after) == int(before or 0) + 1


def test_file_failure_moves_the_input_with_its_reason(mem: Memory) -> None:
    path = mem.ws.inbox / "bad.txt"
    path.write_text("x")
    reason, filed = mem.file_failure(path, OSError(28, "No space left on device"))
    assert filed and reason == "No space left on device (OSError)"
    assert (mem.ws.failed / "bad.txt").exists() and not path.exists()


def test_cli_daemon_commit_flag_still_parses() -> None:
    out = subprocess.run([sys.executable, "-m", "memfs.cli", "daemon", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "--commit" in out.stdout
