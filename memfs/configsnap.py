"""The reader's config: `[embedder]` and `[recall]` as validated, saved as plain JSON.

A cold `memfs recall` spent ~0.15-0.25 s importing pydantic and building memfs' config
models just to read two sections it never changes. So whenever a process has validated the
config (memfs.config.load_config), the cold path saves those two sections to
`.memfs/reader-config.json` beside a key, and the next cold recall reads that instead of
validating again. The key is a sha256 over everything the validated answer depends on:
memfs.toml's bytes, the environment `load_config` reads (every MEMFS_* variable and
OPENAI_BASE_URL; their values are hashed, never stored) and the source of the config
modules (an upgrade that changes a default or a rule invalidates it). Any difference, a
missing or unreadable file, or bad JSON: no snapshot, and the caller validates for real
(which also reports a broken memfs.toml exactly as before). Only the standard library's
json, hashlib and os are imported here.
"""

from __future__ import annotations

import hashlib
import json
import os
from types import SimpleNamespace
from typing import Any

SNAPSHOT_NAME = "reader-config.json"
FORMAT = 2  # 2: [recall] lexical_weight (a snapshot without it would read as plain RRF)
CONFIG_NAME = "memfs.toml"  # memfs.workspace.CONFIG_NAME (a test keeps them equal)
#: The modules whose rules and defaults a validated config comes from (relative to memfs/).
_SOURCES = ("config.py", os.path.join("llm", "config.py"), os.path.join("agents", "config.py"))
_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def snapshot_key(root: str, environ: dict[str, str] | None = None) -> str:
    """The key of the config `load_config(root)` would return in this environment."""
    env = os.environ if environ is None else environ
    h = hashlib.sha256(f"memfs-reader-config/{FORMAT}\0".encode())
    for path in [os.path.join(root, CONFIG_NAME)] + [os.path.join(_PACKAGE, s) for s in _SOURCES]:
        try:
            with open(path, "rb") as f:
                data = f.read()
            h.update(b"F%d\0" % len(data) + data)
        except FileNotFoundError:
            h.update(b"-\0")  # no memfs.toml means defaults: a state of its own
    for name in sorted(k for k in env if k.startswith("MEMFS_") or k == "OPENAI_BASE_URL"):
        h.update(f"{name}={env[name]}\0".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def snapshot_path(root: str) -> str:
    return os.path.join(root, ".memfs", SNAPSHOT_NAME)


def read_snapshot(root: str) -> SimpleNamespace | None:
    """`embedder` and `recall` (attribute access, as on the Config) if the saved snapshot's
    key matches this workspace and environment; None otherwise (validate instead)."""
    try:
        with open(snapshot_path(root), encoding="utf-8") as f:
            saved = json.load(f)
        if (not isinstance(saved, dict) or saved.get("format") != FORMAT
                or saved.get("key") != snapshot_key(root)):
            return None
        embedder, recall = saved["embedder"], saved["recall"]
        if not isinstance(embedder, dict) or not isinstance(recall, dict):
            return None
        return SimpleNamespace(embedder=SimpleNamespace(**embedder), recall=SimpleNamespace(**recall))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_snapshot(root: str, config: Any, key: str) -> None:
    """Save `config`'s two reader sections under `key` (taken *before* the config was
    loaded, so an edit made meanwhile leaves a key that no longer matches). Best effort:
    a read-only `.memfs/` just means the next cold recall validates again."""
    from memfs.fsutil import atomic_write

    body = {"format": FORMAT, "key": key, "embedder": config.embedder.model_dump(mode="json"),
            "recall": config.recall.model_dump(mode="json")}
    try:
        if os.path.isdir(os.path.join(root, ".memfs")):
            from pathlib import Path

            atomic_write(Path(snapshot_path(root)), json.dumps(body, indent=1) + "\n")
    except OSError:
        pass
