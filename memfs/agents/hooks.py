"""Agent-host hooks: memory in at session start, the transcript out at session end.

`memfs hooks install claude-code|codex` merges two hook entries into the host's own
config (dry-run by default: it prints the diff it would write):

| host        | config file                                   | start          | end                  |
|-------------|-----------------------------------------------|----------------|----------------------|
| claude-code | ~/.claude/settings.json (or .claude/ in cwd)  | `SessionStart` | `SessionEnd`         |
| codex       | ~/.codex/hooks.json (or .codex/ in cwd)       | `SessionStart` | `Stop` (turn end)    |

Both hosts run a command with a JSON payload on stdin. `memfs hooks run session-start`
answers with `memfs context` as `hookSpecificOutput.additionalContext`; `session-end`
copies the payload's `transcript_path` into inbox/ (temp name, then rename), where the
daemon files it (reading the host's transcript format is the readers' job). Codex has no
session-end event, so its transcript is copied at each turn's end under one name per
session, and only when it changed. A hook never fails the host: errors go to stderr and
the exit code is 0.
"""

from __future__ import annotations

import difflib
import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from memfs.core.hashing import content_digest
from memfs.errors import MemfsError
from memfs.fsutil import atomic_write
from memfs.workspace import Workspace, slugify

Host = Literal["claude-code", "codex"]
HOSTS: tuple[str, ...] = ("claude-code", "codex")
#: A hook entry is memfs' own if its command runs this (how install replaces and uninstall finds it).
MARK = " hooks run "
CONTEXT_CHARS = 10_000


class HookPlan(BaseModel):
    """What `install`/`uninstall` would do to one host config file."""

    host: str
    path: str
    before: str
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        return "".join(difflib.unified_diff(self.before.splitlines(keepends=True), self.after.splitlines(keepends=True),
                                            fromfile=f"{self.path} (now)", tofile=f"{self.path} (after)"))


def config_path(host: str, scope: str = "user", home: Path | None = None, cwd: Path | None = None) -> Path:
    """Where the host reads hooks: the user's config, or the project's (the current folder)."""
    if host not in HOSTS:
        raise MemfsError(f"unknown host {host!r}: expected one of {', '.join(HOSTS)}")
    if scope not in ("user", "project"):
        raise MemfsError(f"unknown scope {scope!r}: expected user or project")
    base = (home or Path.home()) if scope == "user" else (cwd or Path.cwd())
    return base / ".claude" / "settings.json" if host == "claude-code" else base / ".codex" / "hooks.json"


def memfs_command() -> str:
    """How the host should start memfs: the `memfs` on PATH, else this interpreter."""
    exe = shutil.which("memfs")
    return shlex.quote(exe) if exe else f"{shlex.quote(sys.executable)} -m memfs.cli"


def hook_entries(host: str, root: Path, command: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """The host's hook entries for a workspace (event → matcher groups)."""
    base = f"{command or memfs_command()} --dir {shlex.quote(str(root))}{MARK}"
    start = {"type": "command", "command": f"{base}session-start --host {host}", "timeout": 30}
    end = {"type": "command", "command": f"{base}session-end --host {host}", "timeout": 60}
    if host == "claude-code":
        return {"SessionStart": [{"hooks": [start]}], "SessionEnd": [{"hooks": [end]}]}
    return {"SessionStart": [{"matcher": "startup|resume|clear", "hooks": [start]}], "Stop": [{"hooks": [end]}]}


def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (ValueError, UnicodeDecodeError) as err:
        raise MemfsError(f"{path}: not valid JSON ({err}); fix it first, memfs will not overwrite it") from None
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict):
        raise MemfsError(f"{path}: expected a JSON object with a \"hooks\" object; memfs will not overwrite it")
    return data


def _without_memfs(hooks: dict[str, Any]) -> dict[str, Any]:
    """The hooks with memfs' own entries removed (and groups left empty by that)."""
    out: dict[str, Any] = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            out[event] = groups
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                rest = [h for h in group["hooks"]
                        if not (isinstance(h, dict) and MARK in str(h.get("command", "")) and "memfs" in
                                str(h.get("command", "")))]
                if rest:
                    kept.append({**group, "hooks": rest})
                elif not group["hooks"]:
                    kept.append(group)
            else:
                kept.append(group)
        if kept:
            out[event] = kept
    return out


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n" if data else ""


def plan(host: str, root: Path, path: Path, remove: bool = False, command: str | None = None) -> HookPlan:
    """The host config with memfs' hooks merged in (or taken out); everything else kept."""
    before_text = path.read_text(encoding="utf-8") if path.exists() else ""
    data = _load(path)
    hooks = _without_memfs(data.get("hooks", {}))
    if not remove:
        for event, groups in hook_entries(host, root, command).items():
            hooks[event] = [*hooks.get(event, []), *groups]
    after = dict(data)
    if hooks:
        after["hooks"] = hooks
    else:
        after.pop("hooks", None)
    after_text = _dump(after)
    if after_text == _dump(data) and before_text:
        after_text = before_text  # nothing to change: keep the file's own formatting
    return HookPlan(host=host, path=str(path), before=before_text, after=after_text)


def apply(p: HookPlan) -> None:
    target = Path(p.path)
    if p.after:
        atomic_write(target, p.after)
    elif target.exists():
        atomic_write(target, "{}\n")


# -- the hook commands the host runs ------------------------------------------------------
def read_payload(stream: Any) -> dict[str, Any]:
    raw = stream.read() if stream is not None and not stream.isatty() else ""
    if not raw.strip():
        return {}
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError("the hook payload is not a JSON object")
    return data


def session_start(context: str) -> str:
    """The JSON both hosts read additional context from (plain stdout would do for Claude Code)."""
    if len(context) > CONTEXT_CHARS:
        context = context[:CONTEXT_CHARS].rsplit("\n", 1)[0] + "\n\n(memfs: cut here; read index.md for the rest)\n"
    return json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}},
                      ensure_ascii=False)


def session_end(ws: Workspace, host: str, payload: dict[str, Any], max_bytes: int) -> Path | None:
    """Copy the session's transcript into inbox/; None when it is unchanged since the last copy."""
    raw = payload.get("transcript_path")
    if not isinstance(raw, str) or not raw.strip():
        raise MemfsError("the hook payload has no transcript_path")
    source = Path(raw).expanduser()
    if source.is_symlink() or not source.is_file():
        raise MemfsError(f"transcript {source} is not a regular file")
    data = source.read_bytes()
    if len(data) > max_bytes:
        raise MemfsError(f"transcript {source} is {len(data)} bytes, over ingest.max_file_bytes ({max_bytes})")
    session = slugify(str(payload.get("session_id") or source.stem))[:60] or "session"
    name = f"{host}-{session}{source.suffix or '.jsonl'}"
    digest = content_digest(data)
    seen = ws.state / "hooks" / f"{name}.sha256"
    if seen.exists() and seen.read_text().strip() == digest:
        return None
    target = ws.safe_target(f"inbox/{name}")
    atomic_write(target, data)
    atomic_write(seen, digest + "\n")
    return target
