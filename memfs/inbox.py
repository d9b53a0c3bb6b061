"""The inbox: which files are waiting, the journal of processed inputs, and failures.

The journal lives in `.memfs/` but is only a cache: an input counts as processed when a
resource with its content hash exists under resources/, so deleting `.memfs/` never makes
memfs ingest something twice.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from memfs.fsutil import atomic_write
from memfs.index.db import IndexDB
from memfs.workspace import Workspace

#: Names that are never inputs: hidden files, editor/browser temp files, our error notes.
_IGNORED = re.compile(r"(^\.|~$|\.(swp|swo|swx|tmp|part|partial|crdownload|download|lock)$|\.error\.txt$|^#.*#$)",
                      re.IGNORECASE)
_DIGEST_IN_NAME = re.compile(r"-([0-9a-f]{16})\.[a-z]+$")

_JOURNAL = """
CREATE TABLE IF NOT EXISTS journal (
    digest TEXT PRIMARY KEY, name TEXT NOT NULL, resource TEXT NOT NULL, finished REAL NOT NULL
);
"""


def is_candidate(name: str) -> bool:
    return not _IGNORED.search(name)


def pending(ws: Workspace) -> list[Path]:
    """Inbox files waiting, oldest first (failed/ and ignored names excluded)."""
    if not ws.inbox.is_dir():
        return []
    out = []
    for entry in os.scandir(ws.inbox):
        if entry.name == "failed" or not is_candidate(entry.name):
            continue
        if entry.is_file(follow_symlinks=False) or entry.is_symlink():
            out.append((entry.stat(follow_symlinks=False).st_mtime, entry.name))
    return [ws.inbox / name for _, name in sorted(out)]


class Journal:
    def __init__(self, ws: Workspace, db: IndexDB) -> None:
        self.ws = ws
        self.db = db
        db.conn.executescript(_JOURNAL)
        self._archived: dict[str, str] | None = None

    def _scan_resources(self) -> dict[str, str]:
        if self._archived is None:
            found: dict[str, str] = {}
            if self.ws.resources.is_dir():
                for path in self.ws.resources.rglob("*"):
                    m = _DIGEST_IN_NAME.search(path.name)
                    if m and path.is_file():
                        found[m.group(1)] = self.ws.rel(path)
            self._archived = found
        return self._archived

    def is_done(self, digest: str) -> bool:
        row = self.db.conn.execute("SELECT 1 FROM journal WHERE digest=?", (digest,)).fetchone()
        return row is not None or digest[:16] in self._scan_resources()

    def resource_of(self, digest: str) -> str | None:
        row = self.db.conn.execute("SELECT resource FROM journal WHERE digest=?", (digest,)).fetchone()
        return row[0] if row else self._scan_resources().get(digest[:16])

    def mark_done(self, digest: str, name: str, resource: str) -> None:
        with self.db.transaction() as c:
            c.execute("INSERT OR REPLACE INTO journal(digest, name, resource, finished) VALUES(?,?,?,?)",
                      (digest, name, resource, time.time()))
        self._scan_resources()[digest[:16]] = resource


def _free_name(folder: Path, name: str) -> Path:
    target = folder / name
    n = 1
    while target.exists() or target.is_symlink() or (folder / f"{target.name}.error.txt").exists():
        stem, dot, ext = name.partition(".")
        target = folder / f"{stem}-{n}{dot}{ext}"
        n += 1
    return target


def move_to_failed(ws: Workspace, path: Path, reason: str) -> Path:
    """Move an input to inbox/failed/ (the link itself, for a symlink) with `<name>.error.txt`."""
    ws.failed.mkdir(parents=True, exist_ok=True)
    target = _free_name(ws.failed, path.name)
    # Hardening fix: the reason is written *before* the input moves. On a full disk the
    # note cannot be written; the input then stays where it was (the caller sees the
    # OSError and the daemon retries it later) instead of landing in failed/ with no
    # reason beside it.
    note = ws.failed / f"{target.name}.error.txt"
    atomic_write(note, reason.rstrip() + "\n")
    try:
        os.rename(path, target)
    except OSError:
        note.unlink(missing_ok=True)
        raise
    return target


def failures(ws: Workspace) -> list[tuple[str, str]]:
    """(file name, reason) for everything in inbox/failed/."""
    if not ws.failed.is_dir():
        return []
    out = []
    for path in sorted(ws.failed.iterdir()):
        if path.name.endswith(".error.txt") or path.name.startswith("."):
            continue
        note = ws.failed / f"{path.name}.error.txt"
        reason = note.read_text(encoding="utf-8", errors="replace").strip() if note.exists() else "unknown"
        out.append((path.name, reason))
    return out


def retry_failed(ws: Workspace) -> list[str]:
    """Move every failed input back into the inbox (its error note is removed)."""
    moved = []
    for name, _ in failures(ws):
        src = ws.failed / name
        target = _free_name(ws.inbox, name)
        os.rename(src, target)
        try:
            (ws.failed / f"{name}.error.txt").unlink()
        except FileNotFoundError:
            pass
        moved.append(target.name)
    return moved
