"""Git: one commit per processed input, holding only the files memfs wrote for it.

`daemon --commit` must never sweep a person's uncommitted work into its commit (issue #10,
item 12). So the commit is built in a private index (GIT_INDEX_FILE), never the person's:
it starts from HEAD and takes only the paths memfs wrote for this input (category files,
the archived resource, regenerated root files). Whatever else the person changed or
staged stays exactly as it was. If a file memfs wrote already carried a person's
uncommitted edit (memfs applies its change on top of their version), that version is
committed first, on its own, with a message that says so; memfs' commit then holds only
memfs' change.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import tempfile
from typing import TYPE_CHECKING

from memfs.core.rootfiles import BEGIN, END
from memfs.rootwrite import prewrite_of
from memfs.workspace import ROOT_FILES, Workspace

if TYPE_CHECKING:
    from memfs.forget import ForgetReport
    from memfs.pipeline.memorize import IngestResult

TRACKED = ["memory", "index", "skill", "resources", "people", "index.md", "memory.md", "skill.md", "forgotten.json"]
log = logging.getLogger(__name__)

def _git(ws: Workspace, *args: str, index: str | None = None, stdin: bytes | None = None
         ) -> subprocess.CompletedProcess[bytes]:
    env = {"GIT_AUTHOR_NAME": "memfs", "GIT_AUTHOR_EMAIL": "memfs@localhost",
           "GIT_COMMITTER_NAME": "memfs", "GIT_COMMITTER_EMAIL": "memfs@localhost",
           "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}
    if index:
        env["GIT_INDEX_FILE"] = index
    return subprocess.run(["git", "-C", str(ws.root), *args], capture_output=True, check=False, env=env,
                          input=stdin)


def _out(proc: subprocess.CompletedProcess[bytes]) -> str:
    return proc.stdout.decode("utf-8", errors="replace").strip()


def _head(ws: Workspace) -> str | None:
    proc = _git(ws, "rev-parse", "--verify", "-q", "HEAD")
    return _out(proc) if proc.returncode == 0 else None


def _blob_at(ws: Workspace, rev: str | None, path: str) -> tuple[str, str] | None:
    """(mode, sha) of `path` in `rev`, or None."""
    if rev is None:
        return None
    line = _out(_git(ws, "ls-tree", rev, "--", path))
    if not line:
        return None
    meta, _, _name = line.partition("\t")
    mode, _type, sha = meta.split()
    return mode, sha




def _same_outside_block(a: bytes, b: bytes) -> bool:
    """True if two versions of a root file differ only inside the generated block (memfs'
    own regeneration, e.g. at daemon start, is not a person's edit)."""
    def outside(data: bytes) -> bytes:
        start, end = data.find(BEGIN.encode()), data.find(END.encode())
        return data[:start] + data[end:] if 0 <= start < end else data
    return outside(a) == outside(b)


def _commit(ws: Workspace, index: str, parent: str | None, message: str) -> str | None:
    """Commit the private index on top of `parent`; move HEAD only if it is still `parent`."""
    tree = _out(_git(ws, "write-tree", index=index))
    if parent is not None and tree == _out(_git(ws, "rev-parse", f"{parent}^{{tree}}")):
        return parent  # nothing to commit
    args = ["commit-tree", tree, "-m", message] + (["-p", parent] if parent else [])
    proc = _git(ws, *args)
    if proc.returncode != 0:
        log.warning("git commit-tree failed: %s", proc.stderr.decode(errors="replace").strip())
        return None
    sha = _out(proc)
    upd = _git(ws, "update-ref", "-m", "memfs: commit", "HEAD", sha, parent or "0" * 40)
    if upd.returncode != 0:  # someone committed meanwhile: leave it to the next input
        log.warning("HEAD moved while memfs committed; not committed this time")
        return None
    return sha


def commit_ingest(ws: Workspace, result: "IngestResult") -> bool:
    """Commit the files this input wrote (and, separately, a person's uncommitted version of
    any of them). False if git is unavailable or there was nothing to commit."""
    if not shutil.which("git") or not (ws.root / ".git").exists():
        return False
    # Only what memfs really wrote: a category file it merely looked at (a replay, a
    # protected file) may hold a person's edit and is not memfs' to commit.
    prewrite: dict[str, bytes | None] = dict(getattr(result, "_prewrite", {}) or {})
    for name in result.root_files:
        prewrite.setdefault(name, prewrite_of(ws.root / name))
    paths = sorted({p for p in [*prewrite, *([result.resource] if result.resource else [])]
                    if p and (ws.root / p).exists()})
    if not paths:
        return False
    head = _head(ws)
    fd, index = tempfile.mkstemp(prefix="memfs-index-", dir=str(ws.state))
    os.close(fd)
    os.unlink(index)
    try:
        _git(ws, "read-tree", *([head] if head else ["--empty"]), index=index)
        # 1. A person's uncommitted version of a file memfs then wrote: its own commit.
        theirs = []
        for rel in sorted(prewrite):
            before = prewrite[rel]
            blob = _blob_at(ws, head, rel)
            if before is None or blob is None:
                continue  # new, or never committed: nothing of the person's to keep apart
            sha = _out(_git(ws, "hash-object", "-w", "--stdin", stdin=before))
            if sha != blob[1] and not (rel in ROOT_FILES and _same_outside_block(
                    before, _git(ws, "cat-file", "blob", blob[1]).stdout)):
                _git(ws, "update-index", "--cacheinfo", f"{blob[0]},{sha},{rel}", index=index)
                theirs.append(rel)
        parent = head
        if theirs:
            msg = ("memfs: your uncommitted edits, as saved before memfs wrote to these files\n\n"
                   "(or memfs' own writes made without git.autocommit, e.g. `memfs add`)\n\n"
                   + "\n".join(f"edited: {rel}" for rel in theirs))
            parent = _commit(ws, index, parent, msg)
            if parent is None:
                return False
        # 2. memfs' own change: only the paths it wrote for this input.
        _git(ws, "add", "--", *paths, index=index)
        from memfs.pipeline.summary import commit_counts, llm_line

        lines = [f"memfs: ingest {result.name}", "", commit_counts(result)]
        if llm_line(result):
            lines.append(llm_line(result) or "")
        if result.resource:
            lines.append(f"resource: {result.resource}")
        lines += [f"changed: {f}" for f in paths if f != result.resource]
        new = _commit(ws, index, parent, "\n".join(lines))
        if new is None or new == parent == head:
            return False
        # The person's own index follows HEAD for exactly these paths; the rest of their
        # staging area is untouched.
        _git(ws, "reset", "-q", "HEAD", "--", *sorted(set(paths) | set(theirs)))
        return True
    finally:
        try:
            os.unlink(index)
        except OSError:
            pass


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
