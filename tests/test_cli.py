"""The real `memfs` CLI as a subprocess, end to end, on the offline default embedder."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import env as cli_env
from tests.support.cli import run as run_cli

def run(args: list[str], cwd: Path, ok: bool = True, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    proc = run_cli(args, cwd, cli_env(embedder=None, **(env or {})), check=False)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.slow
def test_user_story_end_to_end(tmp_path: Path) -> None:
    run(["init", "mem"], tmp_path)
    ws = tmp_path / "mem"
    assert (ws / ".git").exists() == bool(shutil.which("git"))
    run(["add", "Alice prefers green tea over coffee in the morning."], ws)
    run(["add", "The staging database runs PostgreSQL 16 on port 5433.", "--category", "infrastructure"], ws)

    md = run(["recall", "what does Alice drink"], ws).stdout
    first = [line for line in md.splitlines() if line.startswith("- ")][0]
    assert "green tea" in first and "memory/preferences.md" in first

    hits = json.loads(run(["recall", "staging db port", "--json"], ws).stdout)
    top = hits[0]
    assert {"id", "text", "category", "path", "type", "when", "source", "score"} <= set(top)
    assert top["category"] == "infrastructure" and "5433" in top["text"]
    assert not top["path"].startswith("/")

    # Edit by hand, sync, recall follows.
    path = ws / top["path"]
    path.write_text(path.read_text().replace("port 5433", "port 6543"))
    run(["sync"], ws)
    hits = json.loads(run(["recall", "staging db port", "--json"], ws).stdout)
    assert hits[0]["id"] == top["id"] and "6543" in hits[0]["text"]

    # Nothing lost when the index goes away.
    shutil.rmtree(ws / ".memfs")
    run(["sync", "--rebuild"], ws)
    assert json.loads(run(["recall", "staging db port", "--json"], ws).stdout)[0]["id"] == top["id"]

    status = json.loads(run(["status", "--json"], ws).stdout)
    assert status["items"] == 2 and status["embedder"] == "minilm-l6-v2-int8"
    for key in ("items", "categories", "resources", "inbox_pending", "failed", "embedder"):
        assert key in status

    run(["forget", top["id"], "--yes"], ws)
    assert json.loads(run(["status", "--json"], ws).stdout)["items"] == 1
    ctx = run(["context"], ws).stdout
    assert "green tea" in ctx and "# Index" in ctx

    # --dir and MEMFS_DIR work from anywhere.
    assert "green tea" in run(["--dir", str(ws), "recall", "tea"], tmp_path).stdout
    assert "green tea" in run(["recall", "tea"], tmp_path, env={"MEMFS_DIR": str(ws)}).stdout


@pytest.mark.parametrize("args, needle", [
    (["recall", "x"], "not in a memfs workspace"),
    (["forget", "nope"], "not in a memfs workspace"),
])
def test_errors_outside_a_workspace_are_one_line(tmp_path: Path, args: list[str], needle: str) -> None:
    proc = run(args, tmp_path, ok=False)
    assert proc.returncode == 1
    assert needle in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr


def test_user_mistakes_in_a_workspace_are_one_line(tmp_path: Path) -> None:
    run(["init", "w", "--no-git"], tmp_path)
    ws = tmp_path / "w"
    for args, needle in [(["forget", "doesnotexist"], "no item with id"),
                         (["add", "   "], "empty"),
                         (["add", "x", "--type", "feeling"], "unknown type")]:
        proc = run(args, ws, ok=False)
        assert proc.returncode == 1 and needle in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
    (ws / "memfs.toml").write_text("[recall]\ntop_kk = 1\n")
    proc = run(["recall", "x"], ws, ok=False)
    assert proc.returncode == 1 and "recall.top_kk: unknown key" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
