"""Where a workspace is and what is in it: finding it like git, laying it down, its paths."""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from memfs.core.model import KINDS
from memfs.errors import MemfsError, WorkspaceNotFound

CONFIG_NAME = "memfs.toml"
KIND_DIRS: tuple[str, ...] = KINDS  # core.model's kinds are the category folders
ROOT_FILES: tuple[str, ...] = ("index.md", "memory.md", "skill.md")
TEMPLATE_DIR = Path(__file__).parent / "workspace_template"


def slugify(text: str, max_len: int = 60) -> str:
    """An allow-listed file-name stem: lowercase ASCII letters, digits and '-'.

    Category and resource names always go through this, never straight from input, so no
    name from a file or a model can climb out of the workspace (invariant 8, docs/architecture.md).
    """
    norm = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", norm.lower()).strip("-")
    slug = slug[:max_len].rstrip("-")
    return slug or "untitled"


@dataclass(frozen=True)
class Workspace:
    """Paths of one workspace. Cheap to build; touches nothing on disk."""

    root: Path

    @property
    def state(self) -> Path:
        return self.root / ".memfs"

    @property
    def inbox(self) -> Path:
        return self.root / "inbox"

    @property
    def failed(self) -> Path:
        return self.root / "inbox" / "failed"

    @property
    def resources(self) -> Path:
        return self.root / "resources"

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def safe_target(self, rel: str) -> Path:
        """The path for writing `rel`, refusing any symlinked folder on the way (invariant
        8, docs/architecture.md: nothing memfs writes may land outside the workspace)."""
        path = self.root / rel
        folder = self.root
        for part in Path(rel).parts[:-1]:
            folder = folder / part
            if part in ("..", "") or folder.is_symlink():
                raise MemfsError(f"{self.rel(folder)} is a symlink or escapes the workspace; memfs will not write there")
        if path.is_symlink():
            raise MemfsError(f"{rel} is a symlink; memfs will not write through it")
        return path

    def category_path(self, kind: str, name: str) -> Path:
        if kind not in KIND_DIRS:
            raise MemfsError(f"unknown kind {kind!r}: expected one of {', '.join(KIND_DIRS)}")
        return self.root / kind / f"{slugify(name)}.md"

    def category_rels(self, irregular: list[str] | None = None) -> list[str]:
        """Every note (category file) at any depth, as sorted 'kind/sub/name.md' strings:
        the one walk (memfs.walk) every reader of the tree shares."""
        from memfs.walk import note_rels

        return note_rels(self.root, irregular)

    def category_files(self) -> list[Path]:
        return [self.root / rel for rel in self.category_rels()]


def find_workspace(start: Path | None = None, explicit: str | os.PathLike[str] | None = None) -> Workspace:
    """`--dir`, else $MEMFS_DIR, else the nearest folder at or above `start` holding memfs.toml."""
    chosen = explicit or os.environ.get("MEMFS_DIR")
    if chosen:
        root = Path(chosen).expanduser().resolve()
        if not (root / CONFIG_NAME).is_file():
            raise WorkspaceNotFound(f"{root} is not a memfs workspace (no {CONFIG_NAME}); run `memfs init {root}`")
        return Workspace(root)
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / CONFIG_NAME).is_file():
            return Workspace(folder)
    raise WorkspaceNotFound(
        f"not in a memfs workspace (no {CONFIG_NAME} in {here} or above); run `memfs init DIR` or pass --dir"
    )


TEMPLATE_REQUIRED: tuple[str, ...] = (CONFIG_NAME, ".gitignore", *ROOT_FILES)


class InitResult(NamedTuple):
    """What `init` did: the workspace and one line about its git history."""

    workspace: Workspace
    git: str


def init_workspace(target: Path, git: bool = True) -> Workspace:
    """Lay down workspace_template/ (never over an existing file), then `git init` if git exists."""
    return init_workspace_report(target, git=git).workspace


def init_workspace_report(target: Path, git: bool = True,
                          prepare: Callable[[Workspace], None] | None = None) -> InitResult:
    """`init_workspace`, also saying what happened to git (a first commit, or why not).
    `prepare` runs before the commit (the CLI builds the index and the root files there, so
    the first commit is the workspace as memfs leaves it and `git status` starts clean)."""
    missing = [name for name in TEMPLATE_REQUIRED if not (TEMPLATE_DIR / name).is_file()]
    if missing:
        raise MemfsError(f"the installed memfs has no workspace template ({TEMPLATE_DIR / missing[0]} is missing); "
                         "reinstall memfs")
    target = target.expanduser().resolve()
    if (target / CONFIG_NAME).exists():
        raise MemfsError(f"{target} is already a memfs workspace")
    if target.exists() and not target.is_dir():
        raise MemfsError(f"{target} exists and is not a folder")
    import shutil

    target.mkdir(parents=True, exist_ok=True)
    for src in sorted(TEMPLATE_DIR.rglob("*")):
        rel = src.relative_to(TEMPLATE_DIR)
        if "__pycache__" in rel.parts:
            continue
        dest = target / rel
        if src.is_dir():
            dest.mkdir(parents=True, exist_ok=True)
        elif not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)
    if prepare is not None:
        prepare(Workspace(target))
    note = "git: not asked for (--no-git)"
    if git:
        note = _first_commit(target)
    return InitResult(Workspace(target), note)


def _first_commit(target: Path) -> str:
    """`git init` and commit the template under the person's own identity, or say why not."""
    import shutil
    import subprocess

    if not shutil.which("git"):
        return "git: not installed; the workspace is not a repository"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", "-C", str(target), *args], capture_output=True, text=True, check=False)

    fresh = not (target / ".git").exists()
    if fresh and run("init", "-q").returncode != 0:
        return "git: `git init` failed; the workspace is not a repository"
    if not fresh:
        return "git: already a repository; nothing committed"
    names = [os.environ.get("GIT_AUTHOR_NAME") or run("config", "user.name").stdout.strip(),
             os.environ.get("GIT_AUTHOR_EMAIL") or run("config", "user.email").stdout.strip()]
    if not all(names):
        return ("git: repository created, template not committed: no git identity "
                "(set `git config --global user.name` and `user.email`, then commit)")
    run("add", "-A")
    done = run("commit", "-q", "-m", "memfs: new workspace from the template")
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["unknown error"])[-1]
        return f"git: repository created, template not committed: {reason}"
    return "git: repository created with a first commit of the template"

def folder_id(path: Path) -> tuple[int, int] | None:
    """(device, inode) of a folder, None if it is not there."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def folder_is(path: Path, ident: tuple[int, int] | None) -> bool:
    """`path` still names the folder `ident` was taken of (not moved away, deleted or replaced)."""
    return ident is not None and folder_id(path) == ident
