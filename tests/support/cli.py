"""The real CLI (`python -m memfs.cli`) in a subprocess, with a clean environment.

A test that is about the CLI runs it here, as a user would: no inherited MEMFS_* settings
or API keys, the fast hashing embedder unless the test asks otherwise, and this checkout
first on PYTHONPATH so the subprocess imports the code under test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

MEMFS: list[str] = [sys.executable, "-m", "memfs.cli"]
ROOT = Path(__file__).resolve().parents[2]


def env(*, embedder: str | None = "hashing", **extra: str) -> dict[str, str]:
    """The parent environment minus memfs/OpenAI settings, plus `embedder` (None: the default) and `extra`."""
    out = {k: v for k, v in os.environ.items()
           if not k.startswith("MEMFS_") and k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    if embedder is not None:
        out["MEMFS_EMBEDDER_PROVIDER"] = embedder
    out["PYTHONPATH"] = str(ROOT) + os.pathsep + out.get("PYTHONPATH", "")
    out.update(extra)
    return out


def run(args: list[str], cwd: Path | None = None, e: dict[str, str] | None = None, timeout: float = 120,
        check: bool = True, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """`memfs ARGS` in `cwd`; its returncode, stdout and stderr. `check`: a non-zero exit fails the test."""
    out = subprocess.run(MEMFS + args, cwd=cwd, env=env() if e is None else e, capture_output=True, text=True,
                         timeout=timeout, input=input)
    if check and out.returncode != 0:
        raise AssertionError(f"memfs {' '.join(args)} exited {out.returncode}: {out.stderr.strip()}")
    return out


def init(path: Path, e: dict[str, str] | None = None, git: bool = False) -> Path:
    """`memfs init PATH` (without git unless asked); the workspace's root."""
    run(["init", str(path)] + ([] if git else ["--no-git"]), cwd=path.parent, e=e)
    return path
