"""AgentTools, the time filter and the memory block, in-process (fast)."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest

from memfs.agents.inject import HEADER, last_user_turns, render_block, with_block
from memfs.agents.exchange import new_user_turns, speaker_name
from memfs.agents.timefilter import parse_time, when_span
from memfs.agents.tools import AgentMemory, AgentTools, ItemOut
from memfs.config import load_config
from memfs.errors import LockedError, MemfsError, NotFoundError
from memfs.fsutil import WriterLock
from tests.support.workspace import hashing_memory

TODAY = date(2026, 12, 1)


def test_parse_time_relative_and_absolute() -> None:
    assert parse_time("7d", TODAY) == date(2026, 11, 24)
    assert parse_time("2w", TODAY) == date(2026, 11, 17)
    assert parse_time("3 months", TODAY) == date(2026, 9, 1)
    assert parse_time("1y", TODAY) == date(2025, 12, 1)
    assert parse_time("2026-03", TODAY) == date(2026, 3, 1)
    assert parse_time("2026-03-05T10:00:00Z", TODAY) == date(2026, 3, 5)
    assert parse_time(None) is None and parse_time("  ") is None
    with pytest.raises(MemfsError, match="bad time"):
        parse_time("soonish", TODAY)
    assert when_span("2024-02") == (date(2024, 2, 1), date(2024, 2, 29))
    assert when_span("2026-13") is None and when_span(None) is None


def test_recall_time_filters_reach_memory_recall(ws_path: Path) -> None:
    config = load_config(ws_path, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"})
    with AgentMemory(ws_path, config=config) as mem:
        tools = AgentTools(mem)
        mem.add("Rosa visited the lemon orchard in Sicily.", when="2026-03")
        mem.add("Rosa visited the lemon market in Catania.", when="2025-05-10")
        march = tools.recall("Rosa lemon", since="2026-03-15").items
        assert [i.when for i in march] == ["2026-03"]  # March overlaps the 15th
        older = tools.recall("Rosa lemon", until="2025-12-31").items
        assert [i.when for i in older] == ["2025-05-10"]


def test_writes_wait_a_bounded_time_for_the_writer_lock(ws_path: Path) -> None:
    config = load_config(ws_path, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing", "MEMFS_AGENTS_LOCK_TIMEOUT": "0.3"})
    with AgentMemory(ws_path, config=config) as mem:
        tools = AgentTools(mem)
        tools.recall("warm up")  # builds the index outside the held lock
        daemon = WriterLock(ws_path / ".memfs" / "write.lock", timeout=1, purpose="daemon burst")
        daemon.acquire()
        try:
            started = time.monotonic()
            with pytest.raises(LockedError, match="locked by another memfs process"):
                tools.remember("Alice prefers green tea.")
            assert 0.25 < time.monotonic() - started < 5
        finally:
            daemon.release()
        # held briefly (a daemon's burst): the write waits and then goes through
        daemon.acquire()
        threading.Timer(0.15, daemon.release).start()
        mem.config.agents.lock_timeout = 10
        assert tools.remember("Alice prefers green tea.").path == "memory/preferences.md"


def test_read_stays_inside_the_workspace(ws_path: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("nope")
    os.symlink(tmp_path / "secret.txt", ws_path / "memory" / "link.md")
    with hashing_memory(ws_path) as mem:
        tools = AgentTools(mem)
        assert tools.read("index.md").text.startswith("<!-- memfs:begin") or "# Index" in tools.read("index.md").text
        assert tools.read("memfs://memory.md").path == "memory.md"
        for bad in ("../secret.txt", str(tmp_path / "secret.txt"), "memory/link.md", ".memfs/index.sqlite3",
                    ".git/config", ""):
            with pytest.raises(MemfsError):
                tools.read(bad)
        with pytest.raises(NotFoundError):
            tools.read("memory/nothing-here.md")
        (ws_path / "resources").mkdir(exist_ok=True)
        (ws_path / "resources" / "blob.bin").write_bytes(b"\xff\xfe\x00binary")
        with pytest.raises(MemfsError, match="not a UTF-8 text file"):
            tools.read("resources/blob.bin")


def test_ingest_text_titles_formats_and_refusals(ws_path: Path) -> None:
    with hashing_memory(ws_path) as mem:
        tools = AgentTools(mem)
        out = tools.ingest("The deploy script tags images with the git sha.", format="markdown", title="Deploy notes")
        assert out.status == "processed" and "deploy-notes" in (out.resource or "")
        assert (ws_path / out.resource).read_text().startswith('---\ntitle: "Deploy notes"')
        assert out.added and out.added[0].path.startswith("index/")
        assert not list((ws_path / ".memfs" / "agents").iterdir())  # staging cleaned up
        bad = tools.ingest("{not json", format="json")
        assert bad.status == "failed" and bad.error
        with pytest.raises(MemfsError, match="unknown format"):
            tools.ingest("x", format="pdf")
        with pytest.raises(MemfsError, match="empty"):
            tools.ingest("   ")


def test_memory_block_is_bounded_current_and_replaces_an_old_one() -> None:
    items = [ItemOut(id=f"i{n}", text=f"Fact number {n} " + "x" * 80, category="c", path="p", type="knowledge",
                     when="2026-01" if n == 0 else None) for n in range(50)]
    block = render_block(items, max_chars=600)
    assert block is not None and len(block) <= 600 and block.startswith(HEADER)
    assert "- [i0] Fact number 0" in block and "(2026-01)" in block
    assert render_block([], 600) is None
    msgs = [{"role": "system", "content": "Be brief."}, {"role": "system", "content": f"{HEADER}: stale"},
            {"role": "user", "content": "hi"}]
    out = with_block(msgs, f"{HEADER}: fresh")
    assert [m["content"] for m in out] == ["Be brief.", f"{HEADER}: fresh", "hi"]


def test_turn_selection_and_speaker() -> None:
    msgs = [{"role": "user", "content": "first"}, {"role": "assistant", "content": "ok"},
            {"role": "user", "content": [{"type": "text", "text": "second"}, {"type": "image_url", "image_url": {}}]},
            {"role": "user", "content": "third"}]
    assert new_user_turns(msgs) == ["second", "third"]
    assert last_user_turns(msgs) == ["second", "third"]
    assert speaker_name("  Alice \n Smith ", "user") == "Alice Smith"
    assert speaker_name(None, "user") == "user" and speaker_name(42, "me") == "me"
