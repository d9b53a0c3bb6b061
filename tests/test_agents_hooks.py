"""`memfs hooks` through the real CLI, on hook payloads and transcripts shaped like the
hosts' (tests/data/hooks/: Claude Code SessionStart/SessionEnd, Codex SessionStart/Stop)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from memfs.agents.hooks import hook_entries, plan
from tests.support.cli import env, run

DATA = Path(__file__).parent / "data" / "hooks"


def _run(args: list[str], stdin: str = "", home: Path | None = None, cwd: Path | None = None
         ) -> subprocess.CompletedProcess[str]:
    e = env(HOME=str(home)) if home is not None else env()
    return run(args, cwd, e, timeout=60, check=False, input=stdin)


def _payload(name: str, transcript: Path) -> str:
    data = json.loads((DATA / name).read_text())
    data["transcript_path"] = str(transcript)
    return json.dumps(data)


def _hook_command(settings: dict, event: str) -> str:
    return settings["hooks"][event][-1]["hooks"][0]["command"]


def test_claude_code_install_is_a_dry_run_diff_then_writes_and_keeps_other_hooks(ws_path: Path, tmp_path: Path
                                                                                 ) -> None:
    home = tmp_path / "home"
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    theirs = {"model": "opus", "hooks": {"SessionStart": [{"matcher": "startup", "hooks": [
        {"type": "command", "command": "echo hello"}]}]}}
    settings.write_text(json.dumps(theirs, indent=2) + "\n")
    before = settings.read_bytes()

    dry = _run(["--dir", str(ws_path), "hooks", "install", "claude-code"], home=home)
    assert dry.returncode == 0, dry.stderr
    assert "+++" in dry.stdout and "session-start --host claude-code" in dry.stdout and "dry run" in dry.stdout
    assert settings.read_bytes() == before  # nothing written

    wet = _run(["--dir", str(ws_path), "hooks", "install", "claude-code", "--write"], home=home)
    assert wet.returncode == 0, wet.stderr
    after = json.loads(settings.read_text())
    assert after["model"] == "opus"
    assert after["hooks"]["SessionStart"][0] == theirs["hooks"]["SessionStart"][0]  # theirs kept, first
    assert "session-start" in _hook_command(after, "SessionStart")
    assert "session-end" in _hook_command(after, "SessionEnd") and str(ws_path) in _hook_command(after, "SessionEnd")

    again = _run(["--dir", str(ws_path), "hooks", "install", "claude-code", "--write"], home=home)
    assert "already up to date" in again.stdout
    assert json.loads(settings.read_text()) == after  # idempotent: no second copy

    gone = _run(["--dir", str(ws_path), "hooks", "uninstall", "claude-code", "--write"], home=home)
    assert gone.returncode == 0
    assert json.loads(settings.read_text()) == theirs


def test_install_refuses_a_broken_host_config(ws_path: Path, tmp_path: Path) -> None:
    cfg = tmp_path / "settings.json"
    cfg.write_text('{"hooks": {oops')
    out = _run(["--dir", str(ws_path), "hooks", "install", "claude-code", "--config", str(cfg), "--write"])
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and "not valid JSON" in out.stderr
    assert cfg.read_text() == '{"hooks": {oops'
    bad = _run(["--dir", str(ws_path), "hooks", "install", "cursor"])
    assert bad.returncode == 1 and "unknown host" in bad.stderr


def test_codex_install_project_scope(ws_path: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    out = _run(["--dir", str(ws_path), "hooks", "install", "codex", "--scope", "project", "--write"], cwd=project)
    assert out.returncode == 0, out.stderr
    hooks = json.loads((project / ".codex" / "hooks.json").read_text())["hooks"]
    assert hooks["SessionStart"][0]["matcher"] == "startup|resume|clear"
    assert "session-end --host codex" in hooks["Stop"][0]["hooks"][0]["command"]


def test_session_start_gives_the_agent_memfs_context(ws_path: Path, tmp_path: Path) -> None:
    assert _run(["--dir", str(ws_path), "add", "Alice prefers green tea over coffee."]).returncode == 0
    for name in ("claude-code-session-start.json", "codex-session-start.json"):
        out = _run(["--dir", str(ws_path), "hooks", "run", "session-start", "--host", name.split("-session")[0]],
                   stdin=(DATA / name).read_text())
        assert out.returncode == 0, out.stderr
        reply = json.loads(out.stdout)
        context = reply["hookSpecificOutput"]["additionalContext"]
        assert reply["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        assert "# Index" in context and "Alice prefers green tea" in context


def test_claude_code_session_end_copies_the_transcript_into_the_inbox(ws_path: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "5f0c2b7e.jsonl"
    transcript.write_bytes((DATA / "claude-code-transcript.jsonl").read_bytes())
    payload = _payload("claude-code-session-end.json", transcript)
    out = _run(["--dir", str(ws_path), "hooks", "run", "session-end", "--host", "claude-code"], stdin=payload)
    assert out.returncode == 0 and "queued inbox/" in out.stderr, out.stderr
    copies = [p for p in (ws_path / "inbox").iterdir() if p.is_file() and not p.name.startswith(".")]
    assert [p.name for p in copies] == ["claude-code-5f0c2b7e-3a41-4c1e-9d2a-8e7b6c5d4f3a.jsonl"]
    assert copies[0].read_bytes() == transcript.read_bytes()  # byte for byte: its format is the readers' job
    again = _run(["--dir", str(ws_path), "hooks", "run", "session-end"], stdin=payload)
    assert "unchanged" in again.stderr


def test_codex_stop_copies_only_a_changed_transcript(ws_path: Path, tmp_path: Path) -> None:
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_bytes((DATA / "codex-rollout.jsonl").read_bytes())
    payload = _payload("codex-stop.json", rollout)
    args = ["--dir", str(ws_path), "hooks", "run", "session-end", "--host", "codex"]
    assert "queued" in _run(args, stdin=payload).stderr
    name = "codex-019a7c3e-5b2d-7f10-a4c8-2d9e1b0f6a77.jsonl"
    (ws_path / "inbox" / name).unlink()  # the daemon took it
    assert "unchanged" in _run(args, stdin=payload).stderr  # the next turn's Stop, nothing new
    assert not (ws_path / "inbox" / name).exists()
    with rollout.open("a") as fh:
        fh.write('{"timestamp":"2026-11-30T09:25:00Z","type":"response_item","payload":{"type":"message",'
                 '"role":"user","content":[{"type":"input_text","text":"Thanks!"}]}}\n')
    assert "queued" in _run(args, stdin=payload).stderr
    assert (ws_path / "inbox" / name).read_bytes() == rollout.read_bytes()
    assert not [p for p in (ws_path / "inbox").iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("stdin", ["", "not json", '{"transcript_path": "/nonexistent/x.jsonl"}', "[1, 2]"])
def test_a_hook_never_fails_the_host(ws_path: Path, stdin: str) -> None:
    out = _run(["--dir", str(ws_path), "hooks", "run", "session-end"], stdin=stdin)
    assert out.returncode == 0 and out.stderr.startswith("memfs hooks: ") and out.stdout == ""
    assert not [p for p in (ws_path / "inbox").iterdir() if p.is_file() and not p.name.startswith(".")]


def test_hook_commands_quote_paths(tmp_path: Path) -> None:
    root = tmp_path / "my memory; rm -rf ~"
    entries = hook_entries("claude-code", root, command="memfs")
    cmd = entries["SessionEnd"][0]["hooks"][0]["command"]
    assert cmd == f"memfs --dir '{root}' hooks run session-end --host claude-code"
    p = plan("claude-code", root, tmp_path / "none.json", command="memfs")
    assert p.before == "" and json.loads(p.after)["hooks"]["SessionStart"]
