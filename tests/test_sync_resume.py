"""A long cold build keeps the embedding work it finished when it is stopped (issue #18 B)."""

from __future__ import annotations

from pathlib import Path

import pytest

import memfs.index.sync as sync_mod
from tests.support.workspace import hashing_memory


class Stop(Exception):
    pass


def test_a_stopped_cold_build_resumes_from_the_embedding_cache(ws_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for n in range(12):
        (ws_path / "index" / f"note-{n}.md").write_text(
            f"# Note {n}\n\nA paragraph about kestrel {n} and its socket timeout.\n\n- Fact {n} about osprey.\n")
    monkeypatch.setattr(sync_mod, "SAVE_CHUNK", 5)
    mem = hashing_memory(ws_path)
    embedded: list[int] = []
    real = mem.indexer.embedder.embed

    def embed(texts: list[str]):  # type: ignore[no-untyped-def]
        if len(embedded) == 2:
            raise Stop  # the third chunk: the person pressed Ctrl-C
        embedded.append(len(texts))
        return real(texts)

    try:
        monkeypatch.setattr(mem.indexer.embedder, "embed", embed)
        with pytest.raises(Stop):
            mem.sync()
        kept = mem.indexer.db.conn.execute("SELECT count(*) FROM embeddings").fetchone()[0]
        assert kept == 10 and mem.indexer.db.count_items() == 0  # vectors kept, no half index
        embedded.clear()
        monkeypatch.setattr(mem.indexer.embedder, "embed", lambda texts: embedded.append(len(texts)) or real(texts))
        report = mem.sync()
        total = mem.indexer.db.conn.execute("SELECT count(*) FROM embeddings").fetchone()[0]
        assert sum(embedded) == total - 10 == report.embedded  # only what was left
        assert mem.indexer.db.count_items() == 12
    finally:
        mem.close()


def test_an_offline_sync_after_an_edit_never_imports_the_llm_sdk(ws_path: Path) -> None:
    """Issue #18 C: a one-edit resync cost 4x a no-change one; most of it was importing the
    openai SDK for the views' summariser, which offline mode never calls."""
    import subprocess
    import sys

    from tests.support.cli import env

    note = ws_path / "index" / "team" / "notes.md"
    note.parent.mkdir(parents=True)
    note.write_text("# Team\n\nA paragraph about the kestrel socket timeout.\n\n- Priya owns kestrel.\n")
    e = env(MEMFS_EMBEDDER_PROVIDER="hashing")
    cmd = [sys.executable, "-X", "importtime", "-m", "memfs.cli", "sync"]
    first = subprocess.run(cmd, cwd=ws_path, env=e, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr[-2000:]
    with note.open("a") as fh:
        fh.write("\nAn added paragraph about the broker failover drill.\n")
    out = subprocess.run(cmd, cwd=ws_path, env=e, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    assert "memfs.index.sync" in imported  # the import log is this sync's
    assert "openai" not in imported and "memfs.llm.runtime" not in imported
