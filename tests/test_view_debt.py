"""A run of inputs refreshes the root files once, not once per input (services.ingest.ViewDebt):
the same bytes as one input at a time, nothing stale once the run is over, a run cut short
caught by the next sync, and per-input commits (`[git] autocommit`) still hold their views."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from memfs.api import Memory
from memfs.daemon import Daemon
from memfs.services import ingest as ingest_service
from memfs.services.runtime import Runtime
from memfs.views import views_stale
from memfs.workspace import init_workspace
from tests.support.factories import conversation
from tests.support.workspace import hashing_memory


def _inputs(folder: Path, n: int, turns: int = 5) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for k in range(n):
        path = folder / f"chat-{k}.json"
        path.write_text(json.dumps(conversation(k, turns=turns)))
        out.append(path)
    return out


def _views(root: Path) -> dict[str, bytes]:
    files = [root / n for n in ("index.md", "memory.md", "skill.md")] + sorted((root / "people").glob("*.md"))
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in files}


def _count_regenerations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = Runtime.regenerate_views

    def counted(self: Runtime) -> list[str]:
        calls.append(1)
        return real(self)

    monkeypatch.setattr(Runtime, "regenerate_views", counted)
    return calls


def _memory(root: Path, git: bool = False, split_items: int | None = None, batch_segments: int | None = None
            ) -> Memory:
    init_workspace(root, git=git)
    mem = hashing_memory(root)
    if split_items is not None:
        mem.config.memory.split_items = split_items
    if batch_segments is not None:
        mem.config.ingest.batch_segments = batch_segments
    return mem


def _one_at_a_time(root: Path, inputs: list[Path], **config: int | None) -> None:
    """What the run is compared with: each input through its own `ingest_file`."""
    with _memory(root, **config) as mem:  # type: ignore[arg-type]
        for path in inputs:
            mem.ingest_file(path)


def _memory_text(root: Path) -> str:
    """memory.md and every file under memory/: where a conversation's facts can be read."""
    return (root / "memory.md").read_text() + "".join(p.read_text() for p in (root / "memory").glob("*.md"))


def _tree(root: Path) -> dict[str, bytes]:
    """Every Markdown file memfs keeps (category files, root files, people pages)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.md")
            if p.relative_to(root).parts[0] not in (".memfs", "resources", "inbox")}


@pytest.mark.parametrize("split_items", [None, 30])
def test_a_run_of_inputs_regenerates_once_and_writes_what_one_at_a_time_writes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split_items: int | None) -> None:
    """With a small split_items the run crosses it: a deferred input still splits the file
    (found by review: splitting with the views moved the split and the filing after it)."""
    inputs = _inputs(tmp_path / "in", 40, turns=8) if split_items else _inputs(tmp_path / "in", 4)
    _one_at_a_time(tmp_path / "one", inputs, split_items=split_items)
    calls = _count_regenerations(monkeypatch)
    with _memory(tmp_path / "bulk", split_items=split_items) as bulk:
        results = bulk.ingest(inputs)
        assert [r.status for r in results] == ["processed"] * len(inputs)
        assert len(calls) == 1  # the last input's own: it paid for the others
        assert not views_stale(bulk.ws, bulk.runtime.indexer.db)
    assert _views(tmp_path / "bulk") == _views(tmp_path / "one")
    assert _tree(tmp_path / "bulk") == _tree(tmp_path / "one")
    if split_items:
        assert any("--" in name for name in _tree(tmp_path / "one"))  # the run did split a file
    assert "Rex3" in _memory_text(tmp_path / "bulk")


def _trip(k: int) -> dict:
    """Two turns: a trip (into memory/events, which passes split_items) and a habit."""
    year = 2019 if k % 2 else 2021
    places = ["Lisbon", "Oslo", "Kyoto", "Lima", "Cairo", "Quito", "Riga", "Accra", "Hanoi", "Perth"]
    lines = [f"In March {year} I went to {places[k % 10]} for a conference with Bo{k} and Cy{k}.",
             f"My favourite tea is green tea, I drink it every morning. Day {k}."]
    return {"format": "memfs.conversation/1", "participants": ["Ana", "Sam"], "sessions": [{
        "id": "S1", "time": f"2024-01-1{k % 10}T10:00:00",
        "turns": [{"id": f"D1:{i + 1}", "speaker": "Ana", "text": t} for i, t in enumerate(lines)]}]}


def test_a_file_an_earlier_batch_took_past_the_limit_is_split_before_the_next_input(tmp_path: Path) -> None:
    """Found by review: a deferred input checked only its last batch's files against
    split_items, so a file an earlier batch grew was split only when the views were paid."""
    inputs = []
    (tmp_path / "in").mkdir()
    for k in range(60):
        inputs.append(tmp_path / "in" / f"trip-{k:03d}.json")
        inputs[-1].write_text(json.dumps(_trip(k)))
    _one_at_a_time(tmp_path / "one", inputs, split_items=45, batch_segments=1)
    with _memory(tmp_path / "bulk", split_items=45, batch_segments=1) as mem:
        mem.ingest(inputs)
    trees = [_tree(tmp_path / "one"), _tree(tmp_path / "bulk")]
    assert trees[0] == trees[1]
    assert any(name.startswith("memory/events--") for name in trees[0])


def test_a_long_run_refreshes_the_views_every_interval(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ingest_service, "VIEWS_EVERY", 0.0)
    calls = _count_regenerations(monkeypatch)
    with _memory(tmp_path / "w") as mem:
        mem.ingest(_inputs(tmp_path / "in", 3))
    assert len(calls) == 3


def test_a_long_run_pays_once_per_interval_not_once_per_input_after_the_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by review: the interval's clock was never restarted, so after the first 5 s
    every input regenerated again. Each input takes 0.1 s of a clock the test keeps (a busy
    machine's speed does not change the count)."""
    monkeypatch.setattr(ingest_service, "VIEWS_EVERY", 0.3)
    clock = SimpleNamespace(now=0.0)
    monkeypatch.setattr(ingest_service, "time", SimpleNamespace(monotonic=lambda: clock.now))
    real = ingest_service.ingest_file

    def tenth_of_a_second(rt: Runtime, path: Path, **kw: object):  # type: ignore[no-untyped-def]
        clock.now += 0.1
        return real(rt, path, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(ingest_service, "ingest_file", tenth_of_a_second)
    calls = _count_regenerations(monkeypatch)
    with _memory(tmp_path / "w") as mem:
        mem.ingest(_inputs(tmp_path / "in", 12))
    assert len(calls) == 4  # paid after inputs 3, 6 and 9, then the last input's own: not 10


def test_a_debt_is_taken_once_so_a_failing_payment_is_not_retried_in_a_loop(tmp_path: Path) -> None:
    """Found by review: the daemon asks at every tick; a refresh that failed (a full disk)
    was tried again 20 times a second. views_stale leaves it to the next sync."""
    with _memory(tmp_path / "w") as mem:
        debt = mem.view_debt()
        assert not debt.due(final=True)  # nothing deferred, nothing owed
        assert debt.defer(True) and not debt.due()
        assert debt.due(final=True) and not debt.due(final=True)
        assert not debt.defer(False)


def test_a_payment_that_fails_is_a_warning_and_the_run_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ingest_service, "VIEWS_EVERY", 0.0)
    mem = _memory(tmp_path / "w")
    real = Runtime.regenerate_views
    monkeypatch.setattr(Runtime, "split_oversized_files", lambda self, written_only=False: None)

    def full_disk(self: Runtime) -> list[str]:
        if sum(1 for _ in (tmp_path / "w" / "resources").rglob("*.json")) < 3:
            raise OSError(28, "No space left on device")
        return real(self)

    monkeypatch.setattr(Runtime, "regenerate_views", full_disk)
    with mem:
        results = mem.ingest(_inputs(tmp_path / "in", 3))
    assert [r.status for r in results] == ["processed"] * 3
    assert any("root files not refreshed" in w and "No space left" in w for w in results[0].warnings)
    assert "Rex2" in _memory_text(tmp_path / "w")


def test_a_run_cut_short_leaves_the_views_stale_and_the_next_sync_brings_them_in_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = _inputs(tmp_path / "in", 3)
    real = ingest_service.ingest_file

    def dies_on_the_third(rt: Runtime, path: Path, **kw: object):  # type: ignore[no-untyped-def]
        if path.name == "chat-2.json":
            raise KeyboardInterrupt
        return real(rt, path, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(ingest_service, "ingest_file", dies_on_the_third)
    root = tmp_path / "w"
    with _memory(root) as mem:
        with pytest.raises(KeyboardInterrupt):
            mem.ingest(inputs)
        assert "Rex1" not in (root / "memory.md").read_text()  # owed: the second input's views
        assert views_stale(mem.ws, mem.runtime.indexer.db)
    with hashing_memory(root) as again:  # a new process: the next sync finds them stale
        again.sync()
        assert not views_stale(again.ws, again.runtime.indexer.db)
    assert "Rex1" in (root / "memory.md").read_text() + (root / "index.md").read_text()


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_with_a_commit_per_input_each_commit_holds_its_root_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_regenerations(monkeypatch)
    root = tmp_path / "w"
    with _memory(root, git=True) as mem:
        mem.config.git.autocommit = True
        mem.ingest(_inputs(tmp_path / "in", 2))
    assert len(calls) == 2
    shown = subprocess.run(["git", "-C", str(root), "log", "--name-only", "--format=%s"], capture_output=True,
                           text=True, check=True).stdout
    assert shown.count("memory.md") >= 2  # each input's commit carries memory.md


def test_the_daemon_refreshes_the_views_once_for_the_inputs_ripe_together(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "w"
    mem = _memory(root)
    mem.config.ingest.settle_seconds = 0.0
    for path in _inputs(tmp_path / "in", 3):
        path.rename(root / "inbox" / path.name)
    calls = _count_regenerations(monkeypatch)
    daemon = Daemon(mem, log=lambda line: None)
    try:
        daemon._rescan()
        daemon._take_ripe(time.monotonic())  # seen: size and time noted
        daemon._take_ripe(time.monotonic())  # unchanged since: all three ripe at once
        assert not list((root / "inbox").glob("*.json"))
        assert len(calls) == 1
        assert not views_stale(mem.ws, mem.runtime.indexer.db)
    finally:
        daemon.writes.close()
        mem.close()
