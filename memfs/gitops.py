"""Git: one commit per processed input, listing what it added and reinforced."""

from __future__ import annotations

import shutil
import subprocess
from typing import TYPE_CHECKING

from memfs.workspace import Workspace

if TYPE_CHECKING:
    from memfs.forget import ForgetReport
    from memfs.pipeline.memorize import IngestResult

TRACKED = ["memory", "index", "skill", "resources", "index.md", "memory.md", "skill.md", "forgotten.json"]


def _git(ws: Workspace, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(ws.root), *args], capture_output=True, text=True, check=False,
                          env={"GIT_AUTHOR_NAME": "memfs", "GIT_AUTHOR_EMAIL": "memfs@localhost",
                               "GIT_COMMITTER_NAME": "memfs", "GIT_COMMITTER_EMAIL": "memfs@localhost",
                               "PATH": _path()})


def _path() -> str:
    import os

    return os.environ.get("PATH", "/usr/bin:/bin")


def commit_ingest(ws: Workspace, result: "IngestResult") -> bool:
    """Commit the files this input touched (and its resource). False if git is unavailable."""
    if not shutil.which("git") or not (ws.root / ".git").exists():
        return False
    paths = [p for p in TRACKED if (ws.root / p).exists()]
    _git(ws, "add", "--", *paths)
    if _git(ws, "diff", "--cached", "--quiet").returncode == 0:
        return False
    lines = [f"memfs: ingest {result.name}", ""]
    from memfs.pipeline.summary import commit_counts, llm_line

    lines.append(commit_counts(result))
    if llm_line(result):
        lines.append(llm_line(result) or "")
    if result.resource:
        lines.append(f"resource: {result.resource}")
    for f in result.files:
        lines.append(f"changed: {f}")
    return _git(ws, "commit", "-q", "-m", "\n".join(lines)).returncode == 0


def commit_forget(ws: Workspace, report: "ForgetReport", scope: str) -> bool:
    """Commit a forget. The message names no forgotten text, input name or query."""
    if not shutil.which("git") or not (ws.root / ".git").exists():
        return False
    _git(ws, "add", "-A", "--", *[p for p in TRACKED if (ws.root / p).exists() or _tracked(ws, p)])
    if _git(ws, "diff", "--cached", "--quiet").returncode == 0:
        return False
    entry = f" [{report.entry}]" if report.entry else ""
    message = (f"memfs: forget ({scope}){entry}\n\nremoved {report.items_removed} items, "
               f"{report.resources_removed} inputs; took back {report.unreinforced} reinforcements")
    return _git(ws, "commit", "-q", "-m", message).returncode == 0


def _tracked(ws: Workspace, path: str) -> bool:
    return bool(_git(ws, "ls-files", "--", path).stdout.strip())
