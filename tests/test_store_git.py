"""Issue #10, items 12 and 13: `daemon --commit` commits only memfs' own writes, and two
clones that ingest independently merge with a plain `git pull`."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from memfs.workspace import init_workspace
from tests.support.factories import chat_file
from tests.support.workspace import hashing_memory

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")

GIT_ENV = {"GIT_AUTHOR_NAME": "Person", "GIT_AUTHOR_EMAIL": "p@example.com",
           "GIT_COMMITTER_NAME": "Person", "GIT_COMMITTER_EMAIL": "p@example.com"}


def _git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=check,
                          env={**os.environ, **GIT_ENV})


def _workspace(tmp_path: Path, name: str = "w") -> Path:
    root = init_workspace(tmp_path / name, git=True).root
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "init", check=False)  # init already committed where git knows who you are
    assert _git(root, "rev-parse", "--verify", "-q", "HEAD").returncode == 0
    return root


def _chat(path: Path, text: str, who: str = "Rosa") -> Path:
    return chat_file(path, [{"role": "user", "content": text}], time="2025-03-02T09:00:00",
                     participants={"user": who})


def test_commit_holds_only_what_memfs_wrote_and_a_persons_edit_is_committed_apart(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    mem = hashing_memory(root)
    mem.config.git.autocommit = True
    try:
        first = mem.ingest_file(_chat(tmp_path / "a.json", "I planted three lemon trees in my garden yesterday."))
        assert first.status == "processed" and first.files
        target = first.files[0]
        # The person: edits the file memfs will write next, edits another file, stages a third.
        (root / target).write_text((root / target).read_text() + "- Rosa waters them at dawn.\n")
        other = "memory/health.md"
        (root / other).write_text((root / other).read_text() + "- Rosa is allergic to bees.\n")
        (root / "notes.txt").write_text("a private note\n")
        _git(root, "add", "notes.txt")
        before = _git(root, "rev-parse", "HEAD").stdout.strip()
        second = mem.ingest_file(_chat(tmp_path / "b.json", "I planted two fig trees in my garden today.",))
        assert second.status == "processed" and target in second.files
        log = _git(root, "log", "--format=%H %s", f"{before}..HEAD").stdout.splitlines()
        assert [line.split(" ", 1)[1] for line in log] == [
            "memfs: ingest b.json", "memfs: your uncommitted edits, as saved before memfs wrote to these files"]
        # The person's commit holds exactly their version of the file, nothing else.
        theirs = log[1].split()[0]
        assert _git(root, "diff", "--name-only", before, theirs).stdout.split() == [target]
        assert "Rosa waters them at dawn." in _git(root, "show", f"{theirs}:{target}").stdout
        assert "fig" not in _git(root, "show", f"{theirs}:{target}").stdout
        # memfs' commit: only files memfs wrote (its category file, resource, root files).
        mine = set(_git(root, "diff", "--name-only", theirs, "HEAD").stdout.split())
        assert target in mine and second.resource in mine and other not in mine and "notes.txt" not in mine
        # what memfs wrote: the category, the resource, the root files and person pages
        assert {p for p in mine if not p.startswith("people/")} <= {target, second.resource, "index.md", "memory.md",
                                                                    "skill.md"}
        # The person's other work is exactly as they left it: modified, and staged.
        status = _git(root, "status", "--porcelain").stdout.splitlines()
        assert sorted(status) == sorted([f" M {other}", "A  notes.txt"])
    finally:
        mem.close()


def test_two_clones_that_ingest_into_the_same_category_merge_cleanly(tmp_path: Path) -> None:
    a = _workspace(tmp_path, "a")
    b = tmp_path / "b"
    subprocess.run(["git", "clone", "-q", str(a), str(b)], check=True, capture_output=True)
    added = {}
    for root, text in ((a, "Rosa prefers figs over apples."), (b, "Rosa prefers black coffee in the morning.")):
        mem = hashing_memory(root)
        mem.config.git.autocommit = True
        try:
            mem.add("Rosa likes her garden.", category="preferences")  # the same fact on both sides
            added[root] = mem.add(text, category="preferences").id
            mem.ingest_file(_chat(tmp_path / f"{root.name}.json", f"I live in {root.name.upper()}-town by the sea."))
        finally:
            mem.close()
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"person commits on {root.name}", check=False)
    pulled = _git(a, "pull", "-q", "--no-rebase", "--no-edit", str(b), "HEAD", check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    assert "<<<<<<<" not in (a / "memory" / "preferences.md").read_text()
    mem = hashing_memory(a)
    try:
        report = mem.sync()
        assert report.changed
        ids = {row.id for row in mem.indexer.db.all_items()}
        assert added[a] in ids and added[b] in ids
        hits = [h.text for h in mem.recall("Rosa coffee morning", k=5)]
        assert "Rosa prefers black coffee in the morning." in hits
        texts = [r.text for r in mem.indexer.db.all_items()]
        assert texts.count("Rosa likes her garden.") == 1  # a line both sides added is read once
        for name in ("index.md", "memory.md"):
            text = (a / name).read_text()
            assert "<<<<<<<" not in text and text.count("memfs:begin") == 1 and text.count("memfs:end") == 1
        assert "Rosa prefers black coffee in the morning." in (a / "memory.md").read_text()
    finally:
        mem.close()


@pytest.mark.slow
def test_the_real_daemon_with_commit_leaves_a_persons_other_edits_uncommitted(tmp_path: Path) -> None:
    import signal
    import time

    from tests.support.cli import MEMFS

    root = _workspace(tmp_path)
    (root / "skill" / "tools.md").write_text((root / "skill" / "tools.md").read_text()
                                             + "- Rosa sharpens her shears with a whetstone.\n")  # uncommitted
    env = {**os.environ, **GIT_ENV, "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
           "MEMFS_EMBEDDER_PROVIDER": "hashing"}
    proc = subprocess.Popen(MEMFS + ["daemon", "--commit"], cwd=root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        _chat(root / "inbox" / "garden.json", "I planted three lemon trees in my garden yesterday.")
        end = time.time() + 60
        while time.time() < end and "memfs: ingest garden.json" not in _git(root, "log", "--format=%s").stdout:
            time.sleep(0.2)
        assert proc.poll() is None
        subjects = _git(root, "log", "--format=%s").stdout.splitlines()
        # the first commit is init's own (where git knows who you are) or the test's
        assert subjects[0] == "memfs: ingest garden.json" and len(subjects) == 2
        assert subjects[1] in ("init", "memfs: new workspace from the template")
        committed = _git(root, "show", "--name-only", "--format=", "HEAD").stdout.split()
        assert "skill/tools.md" not in committed and any(p.startswith("resources/") for p in committed)
        # The person's edit stays uncommitted (so does a root file's view of it, which the
        # daemon regenerated at start, outside any ingest).
        status = _git(root, "status", "--porcelain").stdout.splitlines()
        assert " M skill/tools.md" in status and set(status) <= {" M skill/tools.md", " M skill.md", " M index.md"}
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
