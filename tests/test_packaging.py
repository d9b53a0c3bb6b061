"""What a user installs: the built wheel carries the whole workspace template, and a
memfs imported from that wheel (not from this checkout) can `init` a workspace."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import memfs
from memfs import workspace
from memfs.errors import MemfsError
from tests.support.cli import MEMFS

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "memfs" / "workspace_template"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not (ROOT / "pyproject.toml").exists():
        pytest.skip("not run from a source checkout")
    out = tmp_path_factory.mktemp("wheel")
    build = tmp_path_factory.mktemp("build")  # keep build/ out of the checkout
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                           "-w", str(out), str(ROOT)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TMPDIR": str(build)})
    assert proc.returncode == 0, proc.stderr
    (found,) = out.glob("memfs-*.whl")
    return found


def test_wheel_carries_every_template_file_dotfiles_included(wheel: Path) -> None:
    expected = {p.relative_to(TEMPLATE).as_posix() for p in TEMPLATE.rglob("*")
                if p.is_file() and "__pycache__" not in p.parts}
    assert {".gitignore", "inbox/.gitkeep", "resources/.gitkeep", "memfs.toml"} <= expected
    with zipfile.ZipFile(wheel) as zf:
        prefix = "memfs/workspace_template/"
        shipped = {n[len(prefix):] for n in zf.namelist() if n.startswith(prefix) and not n.endswith("/")}
        assert "memfs/providers/data/minilm-tokenizer.json" in zf.namelist()
    assert shipped == expected


@pytest.mark.slow
def test_memfs_from_the_wheel_inits_a_workspace(wheel: Path, tmp_path: Path) -> None:
    """Unpack the wheel alone (no checkout on the path) and run its CLI from elsewhere."""
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMFS_")}
    env.update(PYTHONPATH=str(site), MEMFS_EMBEDDER_PROVIDER="hashing")
    probe = subprocess.run([sys.executable, "-c", "import memfs; print(memfs.__file__)"], cwd=tmp_path,
                           env=env, capture_output=True, text=True, check=True)
    assert probe.stdout.strip().startswith(str(site))
    cli = MEMFS  # run with PYTHONPATH=the unpacked wheel, not this checkout
    done = subprocess.run(cli + ["init", "mem", "--no-git"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    ws = tmp_path / "mem"
    assert (ws / "memfs.toml").is_file() and (ws / ".gitignore").is_file() and (ws / "memory" / "profile.md").is_file()
    status = subprocess.run(cli + ["status", "--json"], cwd=ws, env=env, capture_output=True, text=True)
    assert status.returncode == 0, status.stderr


def test_init_refuses_without_a_template(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "no-template"
    empty.mkdir()
    monkeypatch.setattr(workspace, "TEMPLATE_DIR", empty)
    target = tmp_path / "mem"
    with pytest.raises(MemfsError, match="no workspace template"):
        workspace.init_workspace(target, git=False)
    assert not target.exists()  # no empty folder left behind


def test_version_matches_the_package_metadata() -> None:
    out = subprocess.run([*MEMFS, "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == f"memfs {memfs.__version__}"
    text = (ROOT / "pyproject.toml").read_text() if (ROOT / "pyproject.toml").exists() else ""
    if text:
        assert f'version = "{memfs.__version__}"' in text
