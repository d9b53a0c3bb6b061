"""The one walk of a workspace's notes: every `.md` under memory/, index/ and skill/, at any depth.

Everything that asks "which files are memory?" — sync, doctor, status, forget, export,
history, the views and the daemon's watcher — asks this module, so they never disagree.
Skipped: hidden files and folders (`.git`, `.obsidian`, …), symlinks (nothing memfs reads
or writes may lead outside the workspace), and whatever the workspace's `.memfsignore`
lists (gitignore syntax, matched against the path from the workspace root).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when a workspace has a `.memfsignore` (a one-shot add mostly has none)
    import pathspec

KIND_DIRS: tuple[str, ...] = ("memory", "index", "skill")
IGNORE_FILE = ".memfsignore"

#: (root, mtime_ns, size) -> compiled spec: the ignore file is re-read only when it changes.
_SPEC_CACHE: dict[str, "tuple[tuple[int, int], pathspec.PathSpec | None]"] = {}


def ignore_spec(root: Path) -> "pathspec.PathSpec | None":
    """The compiled `.memfsignore` of this workspace, or None when there is none."""
    path = root / IGNORE_FILE
    try:
        st = path.stat()
    except OSError:
        _SPEC_CACHE.pop(str(root), None)
        return None
    key = (st.st_mtime_ns, st.st_size)
    cached = _SPEC_CACHE.get(str(root))
    if cached is not None and cached[0] == key:
        return cached[1]
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    import pathspec

    spec = pathspec.GitIgnoreSpec.from_lines(lines) if any(ln.strip() for ln in lines) else None
    _SPEC_CACHE[str(root)] = (key, spec)
    return spec


def is_note_rel(root: Path, rel: str) -> bool:
    """Would the walk include `rel` ('index/projects/alpha.md')? Used by the watcher,
    which sees events for every path under the kind folders."""
    parts = rel.split("/")
    if len(parts) < 2 or parts[0] not in KIND_DIRS or not rel.endswith(".md"):
        return False
    if any(p.startswith(".") or not p for p in parts):
        return False
    spec = ignore_spec(root)
    if spec is None:
        return True
    return not any(spec.match_file("/".join(parts[:i]) + "/") for i in range(1, len(parts))) \
        and not spec.match_file(rel)


def note_rels(root: Path, irregular: list[str] | None = None) -> list[str]:
    """Every note as a sorted 'kind/sub/name.md' string. Plain strings: at 10^4 files,
    Path objects cost more than the walk.

    `irregular`, if given, receives the `.md` names that are FIFOs, sockets, devices or
    folders: never opened (a FIFO would block the reader), reported by sync."""
    spec = ignore_spec(root)
    out: list[str] = []
    base = str(root)
    for kind in KIND_DIRS:
        folder = root / kind
        if not folder.is_dir() or folder.is_symlink():
            continue
        if spec is not None and spec.match_file(kind + "/"):
            continue
        stack = [kind]
        while stack:
            rel_dir = stack.pop()
            try:
                entries = list(os.scandir(f"{base}/{rel_dir}"))
            except OSError:
                continue
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue
                rel = f"{rel_dir}/{name}"
                if entry.is_symlink():
                    continue
                if entry.is_dir(follow_symlinks=False):
                    if spec is not None and spec.match_file(rel + "/"):
                        continue
                    if name.endswith(".md") and irregular is not None:
                        irregular.append(rel)
                    stack.append(rel)
                    continue
                if not name.endswith(".md"):
                    continue
                if spec is not None and spec.match_file(rel):
                    continue
                if entry.is_file(follow_symlinks=False):
                    out.append(rel)
                elif irregular is not None:
                    irregular.append(rel)
    out.sort()
    return out


def category_id(rel: str) -> str:
    """A note's category identity: its path without `.md` ('index/projects/alpha')."""
    return rel[:-3] if rel.endswith(".md") else rel


def group_of(rel: str) -> str | None:
    """The category group a nested note belongs to ('index/projects'), None at top level."""
    parts = rel.split("/")
    return "/".join(parts[:-1]) if len(parts) > 2 else None
