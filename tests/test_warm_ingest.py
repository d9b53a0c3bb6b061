"""`memfs ingest` with a daemon running: the daemon does it (its entry files are warm), with
the output, exit code and files a CLI without a daemon gives; a daemon that dies on it is
an unknown outcome, never done again locally; a daemon with another config leaves it to
the CLI. Real daemon, real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.cli import env, init, run
from tests.support.daemon import Daemon, wait
from tests.support.workspace import recall

CHAT = {"format": "memfs.conversation/1", "participants": ["Ola", "Tess"],
        "sessions": [{"id": "S1", "time": "2026-03-04 10:00", "turns": [
            {"id": "S1:1", "speaker": "Ola", "text": "I keep my bicycle in the blue shed behind the bakery."},
            {"id": "S1:2", "speaker": "Tess", "text": "I started a pottery class at the community centre."},
            {"id": "S1:3", "speaker": "Ola", "text": "My sister Mira moved to Porto for a design job."}]}]}


def _daemon(ws: Path, tmp_path: Path, **extra: str) -> Daemon:
    d = Daemon(ws, env(**extra), tmp_path / "daemon.log")
    d.wait_ready()
    wait(lambda: (ws / ".memfs" / "daemon.sock").exists(), 30, "daemon socket")
    return d


def _ingest_traced(ws: Path, args: list[str], e: dict[str, str] | None = None
                   ) -> tuple[subprocess.CompletedProcess[str], bool]:
    """`memfs ingest ARGS` through the full CLI, and whether this process loaded memfs.api
    (it does only to ingest in-process: False means the daemon did it)."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "memfs.cli", "ingest", *args], cwd=ws,
                         env=env() if e is None else e, capture_output=True, text=True, timeout=180)
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    stderr = "".join(line + "\n" for line in out.stderr.splitlines() if not line.startswith("import time:"))
    return subprocess.CompletedProcess(out.args, out.returncode, out.stdout, stderr), "memfs.api" in imported


def _markdown(ws: Path) -> dict[str, str]:
    return {str(p.relative_to(ws)): p.read_text(encoding="utf-8") for kind in ("memory", "index", "skill")
            for p in sorted((ws / kind).rglob("*.md"))}


def test_an_ingest_through_the_daemon_is_what_the_cli_does_alone(tmp_path: Path) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(CHAT), encoding="utf-8")
    alone = init(tmp_path / "alone")
    ws = init(tmp_path / "w")
    cold = [run(["ingest", *args], alone, check=False) for args in (
        [str(chat)], [str(chat)], ["--json", str(tmp_path / "missing.json")])]
    d = _daemon(ws, tmp_path)
    try:
        warm = []
        for args in ([str(chat)], [str(chat)], ["--json", str(tmp_path / "missing.json")]):
            out, local = _ingest_traced(ws, args)
            assert not local, out.stderr  # this process never loaded the API: the daemon did it
            warm.append(out)
        for c, w in zip(cold, warm):
            assert (w.returncode, w.stdout, w.stderr) == (c.returncode, c.stdout, c.stderr)
        assert warm[0].stdout.startswith("chat.json: +") and "already memorized" in warm[1].stdout
        assert warm[2].returncode == 1 and json.loads(warm[2].stdout)[0]["status"] == "failed"
        assert _markdown(ws) == _markdown(alone)
        assert any("bicycle" in h["text"] for h in recall(ws, env(), "where is the bicycle kept"))
    finally:
        assert d.stop() == 0


def test_a_daemon_killed_mid_ingest_is_an_unknown_outcome_and_no_local_ingest(tmp_path: Path) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(CHAT), encoding="utf-8")
    ws = init(tmp_path / "w")
    before = _markdown(ws)
    d = _daemon(ws, tmp_path, MEMFS_TEST_ADD_CRASH="before")
    try:
        out = run(["ingest", str(chat)], cwd=ws, check=False)
        assert out.returncode == 1 and out.stdout == ""
        assert "may or may not have been memorized" in out.stderr and out.stderr.count("\n") == 1
        wait(lambda: d.proc.poll() is not None, 30, "daemon killed itself")
        assert _markdown(ws) == before  # the CLI did not ingest it itself
    finally:
        d.kill()


def test_a_daemon_started_with_another_config_leaves_the_ingest_to_the_cli(tmp_path: Path) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(CHAT), encoding="utf-8")
    ws = init(tmp_path / "w")
    d = _daemon(ws, tmp_path)
    try:
        out, local = _ingest_traced(ws, [str(chat)], env(MEMFS_RECALL_TOP_K="3"))
        assert local and out.returncode == 0 and out.stdout.startswith("chat.json: +"), out.stderr
    finally:
        assert d.stop() == 0
