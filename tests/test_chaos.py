"""Crashes and full disks (invariants 2, 3 and 7).

- SIGKILL the real daemon at random points while it ingests, 50+ times, then let a clean
  daemon finish: the memory must equal a clean reference run of the same inputs, every
  input archived exactly once, no temp file left, and `sync` must find nothing to change.
- ENOSPC: a disk that fills up at each write an ingest makes (transient: one write fails;
  persistent: every write fails until space is freed). The write fails cleanly (no half
  file, no partial resource), the input is kept for retry, and a retry after the fault is
  gone processes it exactly once.
"""

from __future__ import annotations

import errno
import json
import os
import random
import time
from pathlib import Path

import pytest

from memfs.core.categoryfile import parse_category
from memfs.workspace import init_workspace
from tests.support.cli import env, init, run
from tests.support.daemon import Daemon, wait
from tests.support.factories import conversation
from tests.support.figures import figure
from tests.support.workspace import hashing_memory, item_set, settled, waiting

TRIALS = 50


@pytest.mark.slow
def test_sigkill_at_random_points_ends_exactly_once(tmp_path: Path) -> None:
    e = env(MEMFS_INGEST_SETTLE_SECONDS="0")
    inputs = {f"c{n:03d}.json": json.dumps(conversation(n, turns=8)) for n in range(56)}
    src = tmp_path / "inputs"
    src.mkdir()
    for name, data in inputs.items():
        (src / name).write_text(data)

    # Reference: the same inputs, in the same order, one clean run.
    ref = init(tmp_path / "ref", e)
    run(["ingest", *[str(src / n) for n in sorted(inputs)]], ref, e, timeout=300)
    want = item_set(ref)
    assert len(want) > 150

    ws = init(tmp_path / "w", e)
    queue = sorted(inputs)
    rng = random.Random(20240607)
    kills = startup_kills = busy_kills = replays = 0
    for trial in range(TRIALS):
        # Keep a few inputs waiting (fed in name order, so processing order = reference order).
        while len(waiting(ws)) < 4 and queue:
            name = queue.pop(0)
            (ws / "inbox" / name).write_text(inputs[name])
        d = Daemon(ws, e, tmp_path / f"log-{trial}.txt")
        mode = trial % 3
        if mode == 2 and not waiting(ws):
            mode = 1  # nothing left to be in the middle of
        if mode == 0:
            time.sleep(rng.uniform(0.02, 0.6))  # anywhere from imports through the start-up sync
        elif mode == 1:
            try:
                d.wait_ready(timeout=30)
            except AssertionError:
                pass
            time.sleep(rng.uniform(0.0, 0.8))  # loading the pipeline, or the first input
        else:
            try:  # in the middle of the stream: after the first input of this run is filed
                wait(lambda: " added, " in d.log() or "already processed" in d.log() or d.proc.poll() is not None,
                     30, "first input")
            except AssertionError:
                pass
            time.sleep(rng.uniform(0.0, 0.15))
        d.kill()
        kills += 1
        log = d.log()
        replays += log.count("already processed")
        if " added, " in log or "already processed" in log:
            busy_kills += 1
        elif "watching" not in log:
            startup_kills += 1
    # Feed what is left and let a clean daemon finish everything.
    for name in queue:
        (ws / "inbox" / name).write_text(inputs[name])
    with Daemon(ws, e, tmp_path / "log-final.txt") as d:
        d.wait_ready()
        wait(lambda: settled(ws, e), timeout=180, what="inbox drained, checks after the write made")
        assert d.stop() == 0
        replays += d.log().count("already processed")

    failed = ws / "inbox" / "failed"
    assert not failed.exists() or not list(failed.iterdir()), list(failed.iterdir())
    archived = sorted(p.name for p in (ws / "resources").rglob("*.json"))
    digests = [name.rsplit("-", 1)[1] for name in archived]
    assert len(archived) == len(inputs) and len(set(digests)) == len(inputs)  # each exactly once
    got = item_set(ws)
    lost = want - got
    extra = got - want
    assert not lost and not extra, (sorted(lost)[:5], sorted(extra)[:5])
    assert [p for p in ws.rglob("*.tmp")] == []
    report = json.loads(run(["sync", "--json"], ws, e).stdout)
    assert report["items_added"] == report["items_removed"] == report["items_updated"] == 0
    # The root files are views: the same memory gives the same bytes.
    for name in ("index.md", "memory.md", "skill.md"):
        assert (ws / name).read_text() == (ref / name).read_text(), name
    figure("sigkill_trials", kills)
    figure("sigkill_during_startup", startup_kills)
    figure("sigkill_after_some_ingest_in_that_run", busy_kills)
    figure("sigkill_inputs", len(inputs))
    figure("sigkill_inputs_archived_then_killed_before_inbox_removal", replays)
    figure("sigkill_items_compared", len(want))
    figure("sigkill_items_lost_or_extra", len(lost) + len(extra))


# -- ENOSPC ------------------------------------------------------------------------------

class DiskFull:
    """Make fsync of regular files under `root` fail with ENOSPC after truncating them to half.

    Every memfs write into the workspace goes through fsutil.atomic_write (temp file,
    fsync, rename), and a full disk shows up at write or fsync time; truncating first leaves
    a genuinely half-written temp file that must never become visible."""

    def __init__(self, root: Path) -> None:
        self.root = str(root)
        self.fail_from: int | None = None  # the n-th file fsync (1-based) fails ...
        self.persistent = False  # ... and, if persistent, every one after it
        self.count = 0
        self.injected = 0
        self.paths: list[str] = []
        self._real = os.fsync

    def __call__(self, fd: int) -> None:
        try:
            path = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            path = ""
        import stat as _stat

        regular = _stat.S_ISREG(os.fstat(fd).st_mode)
        if regular and path.startswith(self.root + os.sep):
            self.count += 1
            self.paths.append(path[len(self.root) + 1:])
            if self.fail_from is not None and (self.count == self.fail_from
                                               or (self.persistent and self.count > self.fail_from)):
                self.injected += 1
                os.ftruncate(fd, os.fstat(fd).st_size // 2)
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._real(fd)


def _seed(root: Path) -> None:
    """A workspace with some memory already in it, so the ingest also reinforces."""
    mem = hashing_memory(root)
    try:
        mem.sync()
        folder = root.parent / f"seed-{root.name}"
        folder.mkdir(exist_ok=True)
        src = folder / "seed.json"
        src.write_text(json.dumps(conversation(1, turns=8)))
        assert mem.ingest_file(src).status == "processed"
    finally:
        mem.close()


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".memfs" not in p.parts}


def _process_like_daemon(root: Path, name: str) -> list[str]:
    """What the daemon does with one ripe inbox file; returns its log lines."""
    from memfs.daemon import Daemon as D

    lines: list[str] = []
    mem = hashing_memory(root)
    try:
        D(mem, log=lines.append)._process(root / "inbox" / name)
    finally:
        mem.close()
    return lines


@pytest.mark.parametrize("persistent", [False, True], ids=["transient", "persistent"])
def test_disk_full_at_every_write_of_an_ingest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                persistent: bool) -> None:
    data = json.dumps(conversation(7, turns=8))
    # Reference: seed + the input, no fault; count the file writes the ingest makes.
    ref = init_workspace(tmp_path / "ref", git=False).root
    _seed(ref)
    disk = DiskFull(ref)
    monkeypatch.setattr(os, "fsync", disk)
    (ref / "inbox" / "chat.json").write_text(data)
    _process_like_daemon(ref, "chat.json")
    monkeypatch.setattr(os, "fsync", disk._real)
    writes = list(disk.paths)
    assert len(writes) >= 4, writes  # category files, the resource, root files
    want_items = item_set(ref)
    want_files = _snapshot(ref)

    injected = 0
    for k in range(1, len(writes) + 1):
        root = init_workspace(tmp_path / f"w{k}", git=False).root
        _seed(root)
        before = _snapshot(root)
        (root / "inbox" / "chat.json").write_text(data)
        disk = DiskFull(root)
        disk.fail_from, disk.persistent = k, persistent
        monkeypatch.setattr(os, "fsync", disk)
        log = _process_like_daemon(root, "chat.json")
        monkeypatch.setattr(os, "fsync", disk._real)
        assert disk.injected >= 1
        assert any("No space left on device" in line for line in log), log
        injected += disk.injected

        # Failed cleanly: no temp file, every file is its old or its new self, never half.
        assert [p for p in root.rglob("*.tmp")] == [], k
        after = _snapshot(root)
        for rel, content in after.items():
            if rel.startswith("inbox/"):
                continue
            assert content in (before.get(rel), want_files.get(rel)), (k, rel)
        for res in (root / "resources").rglob("*.json"):
            assert res.read_bytes() in (data.encode(), json.dumps(conversation(1, turns=8)).encode()), k
        for path in (root / "memory").glob("*.md"):
            assert not parse_category(path.read_text(), f"memory/{path.name}").warnings, (k, path)
        # The input is kept for retry: still in the inbox, or in failed/ with a reason.
        in_inbox = (root / "inbox" / "chat.json").exists()
        failed = root / "inbox" / "failed" / "chat.json"
        assert in_inbox or failed.exists(), (k, sorted(after))
        if in_inbox:  # the disk was still full: not even the reason could be written
            assert persistent and any("left in inbox/; will retry" in line for line in log), log
        if failed.exists():
            note = (root / "inbox" / "failed" / "chat.json.error.txt").read_text()
            assert "No space left on device" in note, note

        # Space again: `memfs retry`, and the daemon processes it exactly once.
        mem = hashing_memory(root)
        try:
            mem.retry()
        finally:
            mem.close()
        _process_like_daemon(root, "chat.json")
        assert not (root / "inbox" / "chat.json").exists()
        assert item_set(root) == want_items, k
        assert len(list((root / "resources").rglob("*.json"))) == 2, k  # the seed and the input, once each
        for name in ("index.md", "memory.md", "skill.md"):
            assert (root / name).read_text() == (ref / name).read_text(), (k, name)
    figure(f"enospc_{'persistent' if persistent else 'transient'}_injection_points", len(writes))
    figure(f"enospc_{'persistent' if persistent else 'transient'}_faults_injected", injected)


def test_cli_retry_heals_root_files_after_a_failed_view_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = json.dumps(conversation(7, turns=8))
    ref = init_workspace(tmp_path / "ref", git=False).root
    _seed(ref)
    (ref / "inbox" / "chat.json").write_text(data)
    _process_like_daemon(ref, "chat.json")

    # Where is the first root-file write? Count the writes of the same ingest once, unharmed.
    probe = init_workspace(tmp_path / "probe", git=False).root
    _seed(probe)
    (probe / "inbox" / "chat.json").write_text(data)
    counter = DiskFull(probe)
    monkeypatch.setattr(os, "fsync", counter)
    with hashing_memory(probe) as m:
        assert m.ingest_file(probe / "inbox" / "chat.json").status == "processed"
    monkeypatch.setattr(os, "fsync", counter._real)
    first_root = next(n for n, p in enumerate(counter.paths) if p.startswith(".index.md."))

    root = init_workspace(tmp_path / "w", git=False).root
    _seed(root)
    (root / "inbox" / "chat.json").write_text(data)
    disk = DiskFull(root)
    disk.fail_from = first_root + 1  # the first root-file write (after the category files and the resource)
    monkeypatch.setattr(os, "fsync", disk)
    mem = hashing_memory(root)
    try:
        assert mem.ingest_file(root / "inbox" / "chat.json").status == "failed"
        assert disk.paths[first_root].startswith(".index.md."), disk.paths  # the fault hit a root file
    finally:
        mem.close()
        monkeypatch.setattr(os, "fsync", disk._real)
    mem = hashing_memory(root)  # a new process: `memfs retry`, `memfs ingest inbox/chat.json`, `memfs sync`
    try:
        mem.retry()
        assert mem.ingest_file(root / "inbox" / "chat.json").status == "duplicate"
        mem.sync()
    finally:
        mem.close()
    assert item_set(root) == item_set(ref)
    for name in ("index.md", "memory.md"):
        assert (root / name).read_text() == (ref / name).read_text(), name
