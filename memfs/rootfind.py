"""Which workspace a command means, found with os.path alone.

The thin clients (memfs.console for a warm `recall`, memfs.addwire for `add`) must find the
workspace before importing anything heavy, so this is the stdlib-only twin of
`memfs.workspace.find_workspace` (tests keep the two equal)."""

from __future__ import annotations

import os

CONFIG_NAME = "memfs.toml"  # memfs.workspace.CONFIG_NAME (a test keeps them equal)


def workspace_root(directory: str | None) -> str | None:
    """The folder `find_workspace` would pick: `directory`, else $MEMFS_DIR, else the nearest
    folder up from the current one holding memfs.toml; None if there is none (the full CLI
    then reports it)."""
    chosen = directory or os.environ.get("MEMFS_DIR")
    if chosen:
        root = os.path.realpath(os.path.expanduser(chosen))
        return root if os.path.isfile(os.path.join(root, CONFIG_NAME)) else None
    folder = os.path.realpath(os.getcwd())
    while not os.path.isfile(os.path.join(folder, CONFIG_NAME)):
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return folder
