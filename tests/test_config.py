"""memfs.toml validation, environment overrides, workspace discovery."""

from __future__ import annotations

from pathlib import Path

import pytest

from memfs.config import load_config
from memfs.errors import ConfigError, WorkspaceNotFound
from memfs.workspace import find_workspace, init_workspace, slugify


def test_defaults_and_template_are_valid(ws_path: Path) -> None:
    cfg = load_config(ws_path, environ={})
    assert cfg.embedder.provider == "minilm"
    assert cfg.categories["preferences"].kind == "memory"


@pytest.mark.parametrize("toml, needle", [
    ("[recall]\ntop_kk = 3\n", "recall.top_kk: unknown key"),
    ("[recall]\ntop_k = 'many'\n", "recall.top_k"),
    ("[embedder]\nprovider = 'word2vec'\n", "embedder.provider"),
    ("[nonsense]\nx = 1\n", "nonsense: unknown key"),
    ("[recall\n", "invalid TOML"),
])
def test_bad_config_names_the_key(tmp_path: Path, toml: str, needle: str) -> None:
    (tmp_path / "memfs.toml").write_text(toml)
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path, environ={})
    assert needle in str(err.value) and "memfs.toml" in str(err.value)
    assert "\n" not in str(err.value)


def test_environment_overrides(tmp_path: Path) -> None:
    cfg = load_config(tmp_path, environ={"MEMFS_RECALL_TOP_K": "3", "MEMFS_EMBEDDER_PROVIDER": "hashing"})
    assert cfg.recall.top_k == 3 and cfg.embedder.provider == "hashing"
    with pytest.raises(ConfigError, match="MEMFS_RECALL_TOP_K"):
        load_config(tmp_path, environ={"MEMFS_RECALL_TOP_K": "lots"})


def test_workspace_found_upward_or_by_dir_or_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = init_workspace(tmp_path / "w", git=False)
    deep = ws.root / "memory" / "sub"
    deep.mkdir()
    assert find_workspace(deep).root == ws.root
    assert find_workspace(explicit=str(ws.root)).root == ws.root
    monkeypatch.setenv("MEMFS_DIR", str(ws.root))
    assert find_workspace(tmp_path).root == ws.root
    monkeypatch.delenv("MEMFS_DIR")
    with pytest.raises(WorkspaceNotFound):
        find_workspace(tmp_path)


def test_init_lays_down_the_template_exactly(tmp_path: Path) -> None:
    ws = init_workspace(tmp_path / "w", git=False)
    template = Path(__file__).parent.parent / "workspace_template"
    want = sorted(p.relative_to(template).as_posix() for p in template.rglob("*"))
    got = sorted(p.relative_to(ws.root).as_posix() for p in ws.root.rglob("*"))
    assert got == want
    for rel in want:
        if (template / rel).is_file():
            assert (ws.root / rel).read_bytes() == (template / rel).read_bytes(), rel


def test_slugify_never_makes_a_path() -> None:
    for bad in ["../../etc/passwd", "/abs", "a/b", "..", "", "\x00x", "CON", "ÉtÉ déjà"]:
        slug = slugify(bad)
        assert "/" not in slug and ".." not in slug and slug
    assert slugify("ÉtÉ déjà") == "ete-deja"
