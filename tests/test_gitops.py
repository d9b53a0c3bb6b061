"""`git.autocommit`: one commit per processed input, listing what changed."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from memfs.workspace import init_workspace
from tests.support.workspace import hashing_memory

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


def test_each_processed_input_is_one_commit(tmp_path: Path) -> None:
    root = init_workspace(tmp_path / "w", git=True).root
    mem = hashing_memory(root)
    mem.config.git.autocommit = True
    mem.sync()
    chat = {"messages": [{"role": "user", "content": "I planted three lemon trees in my garden yesterday."}],
            "time": "2025-03-02T09:00:00", "participants": {"user": "Rosa"}}
    (root / "inbox" / "garden.json").write_text(json.dumps(chat))
    result = mem.ingest_file(root / "inbox" / "garden.json")
    assert result.status == "processed" and result.added
    log = _git(root, "log", "--format=%B%x00", "HEAD~1..HEAD")  # after init's first commit
    assert log.count("\x00") == 1
    assert _git(root, "log", "--format=%s").splitlines()[-1] == "memfs: new workspace from the template"
    message = log.split("\x00")[0]
    assert "memfs: ingest garden.json" in message and "added 1" in message and "resource: resources/" in message
    tracked = _git(root, "ls-files")
    assert result.resource in tracked and ".memfs" not in tracked
    # Nothing new: no empty commit.
    (root / "inbox" / "again.json").write_text(json.dumps(chat))
    assert mem.ingest_file(root / "inbox" / "again.json").status == "duplicate"
    assert _git(root, "log", "--format=%H").count("\n") == 2  # init's and the ingest's
    mem.close()
