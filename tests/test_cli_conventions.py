"""CLI conventions: usage mistakes are typer's usage errors (exit 2, the usage line, the
problem named), never "internal error"; help renders every word; init starts a history."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import env as cli_env
from tests.support.cli import run

def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run(args, cwd, cli_env(**(env or {})), check=False)


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("conv")
    assert _run(["init", "mem", "--no-git"], base).returncode == 0
    return base / "mem"


def test_bare_memfs_prints_help(ws: Path) -> None:
    proc = _run([], ws)
    assert proc.returncode in (0, 2)
    assert "Usage:" in proc.stdout + proc.stderr and "recall" in proc.stdout + proc.stderr


@pytest.mark.parametrize("args, needle", [
    (["bogus"], "No such command 'bogus'"),
    (["recall"], "Missing argument"),
    (["recall", "x", "-k", "zero"], "-k"),
    (["recall", "x", "-k", "0"], "greater than or equal to 1"),
    (["recall", "x", "-k", "-3"], "greater than or equal to 1"),
    (["recall", "x", "--mode", "slow"], "'slow' is not one of fast, llm"),
    (["add", "x", "--when", "2026-13-45"], "not a date in the calendar"),
    (["add", "x", "--when", "2026-02-30"], "not a date in the calendar"),
    (["add", "x", "--when", "yesterday"], "YYYY"),
    (["sync", "--bogus"], "No such option"),
])
def test_usage_mistakes_exit_2_with_the_usage_line(ws: Path, args: list[str], needle: str) -> None:
    proc = _run(args, ws)
    assert proc.returncode == 2, (args, proc.returncode, proc.stderr)
    assert "Usage:" in proc.stderr and needle in proc.stderr, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr


def test_a_valid_when_still_works(ws: Path) -> None:
    proc = _run(["add", "The team offsite was in Porto.", "--when", "2024-02-29", "--json"], ws)
    assert proc.returncode == 0, proc.stderr


def test_recall_help_renders_every_word(ws: Path) -> None:
    proc = _run(["recall", "--help"], ws)
    assert proc.returncode == 0
    flat = " ".join(proc.stdout.split())
    assert "needs [llm])" in flat and "--sources" in flat


def _git_env(home: Path, identity: bool) -> dict[str, str]:
    env = {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": str(home / "gitconfig")}
    (home / "gitconfig").write_text("[user]\n\tname = Test Person\n\temail = test@example.org\n" if identity else "")
    return env


@pytest.mark.skipif(not shutil.which("git"), reason="git is not installed")
def test_init_makes_a_first_commit_under_the_persons_identity(tmp_path: Path) -> None:
    env = _git_env(tmp_path, identity=True)
    proc = _run(["init", "mem"], tmp_path, env)
    assert proc.returncode == 0, proc.stderr
    assert "first commit" in proc.stdout
    ws = tmp_path / "mem"
    log = subprocess.run(["git", "-C", str(ws), "log", "--format=%an|%s"], capture_output=True, text=True, env=env)
    assert log.stdout.strip().splitlines() == ["Test Person|memfs: new workspace from the template"]
    files = subprocess.run(["git", "-C", str(ws), "ls-files"], capture_output=True, text=True).stdout.split()
    assert {"memfs.toml", ".gitignore", "index.md", "memory/profile.md", "inbox/.gitkeep"} <= set(files)
    clean = subprocess.run(["git", "-C", str(ws), "status", "--porcelain"], capture_output=True, text=True)
    assert clean.stdout == ""  # init's own sync changed nothing it committed

    # Refused and temporary inputs never show up as changes to commit.
    (ws / "inbox" / "failed").mkdir()
    (ws / "inbox" / "failed" / "broken.json").write_text("{")
    (ws / "inbox" / "failed" / "broken.json.error.txt").write_text("invalid JSON")
    (ws / "inbox" / "waiting.json").write_text("[]")
    (ws / "memory" / ".profile.md.x1y2.tmp").write_text("half")
    dirty = subprocess.run(["git", "-C", str(ws), "status", "--porcelain", "--untracked-files=all"],
                           capture_output=True, text=True)
    assert dirty.stdout == ""


@pytest.mark.skipif(not shutil.which("git"), reason="git is not installed")
def test_init_without_a_git_identity_says_why_in_one_line(tmp_path: Path) -> None:
    env = _git_env(tmp_path, identity=False)
    env.update(GIT_AUTHOR_NAME="", GIT_AUTHOR_EMAIL="", EMAIL="")
    proc = _run(["init", "mem"], tmp_path, env)
    assert proc.returncode == 0, proc.stderr
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("git:")]
    assert len(line) == 1 and "no git identity" in line[0]
    assert (tmp_path / "mem" / ".git").is_dir()
