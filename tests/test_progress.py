"""Progress on long work: drawn on stderr when it is a terminal, nothing extra otherwise."""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import MEMFS, env


def _env(**extra: str) -> dict[str, str]:
    return env(MEMFS_PROGRESS_DELAY="0", COLUMNS="100", **extra)


def _inputs(tmp_path: Path, n: int) -> list[str]:
    paths = []
    for i in range(n):
        p = tmp_path / f"note-{i}.md"
        p.write_text(f"# Note {i}\n\nThe build server number {i} runs Debian and restarts nightly.\n")
        paths.append(str(p))
    return paths


def _ws(tmp_path: Path) -> Path:
    subprocess.run(MEMFS + ["init", "mem", "--no-git"], cwd=tmp_path, env=_env(), check=True, capture_output=True)
    return tmp_path / "mem"


def _on_a_terminal(args: list[str], cwd: Path) -> str:
    """Run the CLI with stderr on a pseudo-terminal; what it drew there."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(MEMFS + args, cwd=cwd, env=_env(TERM="xterm"), stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=120)
    os.close(master)
    assert proc.returncode == 0
    return out.decode(errors="replace")


@pytest.mark.slow
def test_progress_shows_on_a_terminal(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    text = _on_a_terminal(["ingest", *_inputs(tmp_path, 4)], ws)
    assert "memorizing" in text and "4/4" in text and "files" in text and "/s" in text
    # A rebuild is mostly embedding: the bar follows the texts embedded, not only the files
    # (the cache goes first, or every vector would come from it).
    shutil.rmtree(ws / ".memfs")
    text = _on_a_terminal(["sync", "--rebuild"], ws)
    assert "rebuilding" in text and "texts embedded" in text


@pytest.mark.slow
def test_no_progress_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    paths = _inputs(tmp_path, 4)
    proc = subprocess.run(MEMFS + ["ingest", *paths], cwd=ws, env=_env(), capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == ""
    assert len(proc.stdout.strip().splitlines()) == 4
    again = subprocess.run(MEMFS + ["sync", "--rebuild", "--json"], cwd=ws, env=_env(), capture_output=True,
                           text=True)
    assert again.returncode == 0 and again.stderr == "" and json.loads(again.stdout)["files_parsed"] > 0
