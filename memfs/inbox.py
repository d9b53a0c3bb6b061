"""The inbox: which files are waiting, the journal of processed inputs, and failures.

The journal lives in `.memfs/` but is only a cache: an input counts as processed when a
resource with its content hash exists under resources/, so deleting `.memfs/` never makes
memfs ingest something twice.
"""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

from memfs.fsutil import atomic_write
from memfs.index import repository
from memfs.index.db import IndexDB
from memfs.workspace import Workspace

#: Names that are never inputs: hidden files, editor/browser temp files, our error notes.
_IGNORED = re.compile(r"(^\.|~$|\.(swp|swo|swx|tmp|part|partial|crdownload|download|lock)$|\.error\.txt$|^#.*#$)",
                      re.IGNORECASE)
_DIGEST_IN_NAME = re.compile(r"-([0-9a-f]{16})\.[a-z]+$")



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
        repository.ensure_journal(db)
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
        return repository.journal_resource(self.db, digest) is not None or digest[:16] in self._scan_resources()

    def resource_of(self, digest: str) -> str | None:
        resource = repository.journal_resource(self.db, digest)
        return resource if resource is not None else self._scan_resources().get(digest[:16])

    def resources_named(self, like: str) -> list[str]:
        """Archived resources of inputs with the same (slugged) name and extension as the
        resource path `like` (any date, any content hash)."""
        base = like.rsplit("/", 1)[-1]
        m = re.match(r"\d{2}-(.+)-[0-9a-f]{16}(\.[a-z]+)$", base)
        if m is None:
            return []
        pattern = re.compile(r"\d{2}-" + re.escape(m.group(1)) + r"-[0-9a-f]{16}" + re.escape(m.group(2)) + "$")
        return sorted(rel for rel in self._scan_resources().values() if pattern.search(rel.rsplit("/", 1)[-1]))

    def progress(self, digest: str) -> int:
        """Segments of a large input already memorized (its checkpoint); 0 if none.

        Only a shortcut: were it lost with `.memfs/`, the batches done replay as no-ops
        (their item ids derive from the input's content)."""
        return repository.journal_progress(self.db, digest)

    def set_progress(self, digest: str, segments: int) -> None:
        repository.set_journal_progress(self.db, digest, segments)

    def mark_done(self, digest: str, name: str, resource: str) -> None:
        # Hardening fix: a file name need not be UTF-8 (Linux allows any bytes); SQLite
        # refused the undecodable name *after* the input was filed and archived, which
        # sent a processed input to failed/. The journal keeps a readable form.
        name = os.fsencode(name).decode("utf-8", "replace")
        repository.journal_done(self.db, digest, name, resource)
        self._scan_resources()[digest[:16]] = resource


#: Longest name (in bytes) an input keeps in inbox/failed/: its note adds ".error.txt" and
#: the note's temp file ".<note>.<random>.tmp" more; file names stop at 255 bytes.
FAILED_NAME_BYTES = 200


def _short_name(name: str, limit: int = FAILED_NAME_BYTES) -> str:
    """`name`, cut to `limit` bytes (keeping a short extension), so its note fits beside it.

    Hardening fix: a 255-byte input name could not get its `<name>.error.txt` (ENAMETOOLONG),
    so the input could never be filed as failed."""
    raw = os.fsencode(name)
    if len(raw) <= limit:
        return name
    stem, dot, ext = raw.rpartition(b".")
    if not dot or not stem or len(ext) > 16:
        stem, dot, ext = raw, b"", b""
    cut = stem[: limit - len(dot) - len(ext) - 1]
    if _is_utf8(stem):
        cut = cut.decode("utf-8", "ignore").encode("utf-8")  # never split a character
    return os.fsdecode(cut + b"~" + dot + ext)


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _free_name(folder: Path, name: str) -> Path:
    name = _short_name(name)
    target = folder / name
    n = 1
    while target.exists() or target.is_symlink() or (folder / f"{target.name}.error.txt").exists():
        stem, dot, ext = name.partition(".")
        target = folder / f"{stem}-{n}{dot}{ext}"
        n += 1
    return target


def move_to_failed(ws: Workspace, path: Path, reason: str) -> Path:
    """Move an input to inbox/failed/ (the link itself, for a symlink) with `<name>.error.txt`."""
    if ws.failed.is_symlink():  # hardening fix: never move an input (or write) through a link
        raise OSError(errno.ELOOP, "inbox/failed is a symlink; memfs does not write through links")
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


def _failed_entries(ws: Workspace) -> list[tuple[str, str]]:
    """(real file name, reason) for everything in inbox/failed/."""
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


def failures(ws: Workspace) -> list[tuple[str, str]]:
    """(file name, reason) for everything in inbox/failed/, for display.

    Hardening fix: names that are not UTF-8 are shown with U+FFFD; passed through raw,
    they made `memfs status --json` print bytes that are not UTF-8 (invalid JSON)."""
    return [(os.fsencode(name).decode("utf-8", "replace"), reason) for name, reason in _failed_entries(ws)]


def retry_failed(ws: Workspace) -> list[str]:
    """Move every failed input back into the inbox (its error note is removed)."""
    moved = []
    for name, _ in _failed_entries(ws):
        src = ws.failed / name
        target = _free_name(ws.inbox, name)
        os.rename(src, target)
        try:
            (ws.failed / f"{name}.error.txt").unlink()
        except FileNotFoundError:
            pass
        moved.append(target.name)
    return moved
