"""Issue #18: any Markdown a person writes is memory — nested folders, prose passages,
shared lines, .memfsignore, cached description vectors — and no note is ever rewritten."""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from memfs.categorize import Categorizer
from memfs.index.ptext import unpack
from tests.conftest import hashing_memory
from tests.support.cli import MEMFS
from tests.support.cli import env as support_env


ALPHA = """---
title: Alpha networking
tags: [alpha, net]
---
# Alpha networking

The alpha service talks to the broker over TCP.
It retries after a socket timeout of thirty seconds.

- Deploys happen on Fridays after the review.
  A nested line that belongs to the item above.

## Ports

The broker listens on port 5672 for the billing queue.
"""


def _env() -> dict[str, str]:
    return support_env()


def _cli(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(MEMFS + list(args), cwd=ws, env=_env(), capture_output=True, text=True, timeout=120)


def _recall(ws: Path, query: str, k: int = 10) -> list[dict]:
    out = _cli(ws, "recall", query, "--json", "-k", str(k))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _notes_digest(ws: Path) -> dict[str, str]:
    return {p.relative_to(ws).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for kind in ("memory", "index", "skill") for p in (ws / kind).rglob("*.md")
            if "projects" in p.parts or "people-notes" in p.parts}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_nested_notes_are_indexed_grouped_and_never_rewritten(ws_path: Path) -> None:
    _write(ws_path / "index" / "projects" / "alpha" / "net.md", ALPHA)
    _write(ws_path / "memory" / "people-notes" / "ana.md", "# Ana\n\nAna keeps bees on the roof of her flat.\n")
    before = _notes_digest(ws_path)
    assert _cli(ws_path, "sync").returncode == 0
    hits = _recall(ws_path, "deploys fridays review")
    item = next(h for h in hits if h["hit"] == "item" and "Fridays" in h["text"])
    assert item["path"] == "index/projects/alpha/net.md"
    assert item["category"] == "projects/alpha/net" and item["kind"] == "index"
    index_md = (ws_path / "index.md").read_text()
    assert "index/projects/alpha/ (group of 1 note)" in index_md
    assert "(index/projects/alpha/net.md)" in index_md and "(memory/people-notes/ana.md)" in index_md
    # An ingest into the same workspace and a no-change sync leave the person's notes alone.
    _write(ws_path / "talk.md", "Sam: I moved to Lisbon in March 2026 and I work at Acme as a chemist.\n")
    mem = hashing_memory(ws_path)
    try:
        assert mem.ingest_file(ws_path / "talk.md").status == "processed"
        assert not mem.sync().changed
        assert mem.status().categories >= 2
    finally:
        mem.close()
    assert _notes_digest(ws_path) == before
    doctor = _cli(ws_path, "doctor")
    assert "not yet indexed" not in doctor.stdout and "changed" not in doctor.stdout, doctor.stdout


def test_passages_are_recalled_with_right_anchors_and_kind(ws_path: Path) -> None:
    _write(ws_path / "index" / "projects" / "alpha" / "net.md", ALPHA)
    assert _cli(ws_path, "sync").returncode == 0
    hits = _recall(ws_path, "socket timeout")
    top = hits[0]
    assert top["hit"] == "passage" and "socket timeout" in top["text"]
    assert top["anchor"] == "index/projects/alpha/net.md#L7-8"
    assert top["heading"] == "Alpha networking"
    lines = ALPHA.splitlines()
    assert lines[6].startswith("The alpha service") and lines[7].startswith("It retries")
    port = next(h for h in _recall(ws_path, "broker port billing queue") if h["hit"] == "passage"
                and "5672" in h["text"])
    assert port["anchor"] == "index/projects/alpha/net.md#L15" and port["heading"] == "Alpha networking > Ports"
    # What is nested under an item is the item's, not a passage.
    assert not any(h["hit"] == "passage" and "nested line" in h["text"] for h in _recall(ws_path, "nested line"))
    text = _cli(ws_path, "recall", "socket timeout").stdout
    assert "(passage)" in text and "index/projects/alpha/net.md#L7-8" in text


def test_passage_ids_survive_edits_elsewhere_in_the_file(ws_path: Path) -> None:
    mem = hashing_memory(ws_path)
    try:
        path = ws_path / "index" / "projects" / "alpha" / "net.md"
        _write(path, ALPHA)
        mem.sync()
        ids = {unpack(r[0]): r[1] for r in mem.indexer.db.conn.execute("SELECT text, id FROM passages")}
        path.write_text(ALPHA.replace("## Ports\n", "## Changelog\n\nA new paragraph in a new section.\n\n## Ports\n"))
        report = mem.sync()
        assert report.passages_added == 1 and report.passages_removed == 0 and report.embedded == 1
        after = {unpack(r[0]): (r[1], r[2])
                 for r in mem.indexer.db.conn.execute("SELECT text, id, line_start FROM passages")}
        for text, pid in ids.items():
            assert after[text][0] == pid
        assert after["The broker listens on port 5672 for the billing queue."][1] == 19  # anchors follow the move
    finally:
        mem.close()


def test_a_line_in_two_files_is_an_item_in_both(ws_path: Path) -> None:
    line = "- The staging database runs PostgreSQL 16 on port 5433.\n"
    _write(ws_path / "index" / "ops.md", "# Ops\n\n" + line)
    _write(ws_path / "index" / "projects" / "db.md", "# DB\n\n" + line)
    out = _cli(ws_path, "sync")
    assert out.returncode == 0 and "not indexed" not in out.stderr + out.stdout
    hits = [h for h in _recall(ws_path, "staging database port") if "PostgreSQL" in h["text"]]
    assert {h["path"] for h in hits} == {"index/ops.md", "index/projects/db.md"}
    assert len({h["id"] for h in hits}) == 2
    # Each copy is its own item: forgetting one leaves the other.
    gone = next(h for h in hits if h["path"] == "index/ops.md")
    assert _cli(ws_path, "forget", gone["id"], "--yes").returncode == 0
    assert "PostgreSQL" not in (ws_path / "index" / "ops.md").read_text()
    assert "PostgreSQL" in (ws_path / "index" / "projects" / "db.md").read_text()


def test_memfsignore_hidden_and_git_folders_are_skipped(ws_path: Path) -> None:
    _write(ws_path / "index" / "drafts" / "wip.md", "- Zanzibar draft secret plan.\n")
    _write(ws_path / "index" / "scratch.tmp.md", "- Zanzibar scratch line.\n")
    _write(ws_path / "index" / ".obsidian" / "cfg.md", "- Zanzibar hidden line.\n")
    _write(ws_path / "index" / "repo" / ".git" / "x.md", "- Zanzibar git line.\n")
    _write(ws_path / "index" / "kept" / "ok.md", "- Zanzibar kept line.\n")
    (ws_path / ".memfsignore").write_text("# drafts stay private\ndrafts/\n*.tmp.md\n")
    assert _cli(ws_path, "sync").returncode == 0
    found = {h["path"] for h in _recall(ws_path, "Zanzibar")}
    assert found == {"index/kept/ok.md"}
    # Un-ignore: the next sync indexes the folder.
    (ws_path / ".memfsignore").write_text("*.tmp.md\n")
    assert _cli(ws_path, "sync").returncode == 0
    assert "index/drafts/wip.md" in {h["path"] for h in _recall(ws_path, "Zanzibar")}
    from memfs.walk import is_note_rel

    assert is_note_rel(ws_path, "index/drafts/wip.md") and not is_note_rel(ws_path, "index/scratch.tmp.md")
    assert not is_note_rel(ws_path, "index/.obsidian/cfg.md")


def test_description_vectors_come_from_the_embedding_cache(ws_path: Path) -> None:
    for n in range(20):
        _write(ws_path / "index" / f"topic-{n}.md", f"---\ndescription: Notes about topic {n}\n---\n- Fact {n}.\n")
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        first = Categorizer(mem.embedder, mem.category_specs(), mem.indexer.embed_cached)._spec_vectors()
        sizes = {r[0] for r in mem.indexer.db.conn.execute("SELECT length(vec) FROM embeddings")}
        assert sizes == {mem.embedder.dim + 4}  # cached as int8 codes + a float32 scale
    finally:
        mem.close()
    mem = hashing_memory(ws_path)
    calls: list[int] = []
    real = mem.embedder.embed
    mem.embedder.embed = lambda texts: (calls.append(len(texts)), real(texts))[1]  # type: ignore[method-assign]
    try:
        again = Categorizer(mem.embedder, mem.category_specs(), mem.indexer.embed_cached)._spec_vectors()
    finally:
        mem.close()
    assert calls == [] and again.shape == first.shape and (again == first).all()


def test_writes_go_to_top_level_files_unless_the_nested_note_is_named(ws_path: Path) -> None:
    _write(ws_path / "index" / "projects" / "alpha.md", "# Alpha\n\nThe alpha project ships in May.\n")
    before = (ws_path / "index" / "projects" / "alpha.md").read_bytes()
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        assert all("/" not in s.name for s in mem.category_specs())
        mem.add("The alpha project uses Rust for its parser.")
        assert (ws_path / "index" / "projects" / "alpha.md").read_bytes() == before
        mem.add("Alpha's parser was rewritten in 2026.", category="index/projects/alpha")
        assert "rewritten in 2026" in (ws_path / "index" / "projects" / "alpha.md").read_text()
    finally:
        mem.close()


def test_the_daemon_sees_an_edit_in_a_subfolder(ws_path: Path) -> None:
    _write(ws_path / "index" / "projects" / "alpha" / "net.md", ALPHA)
    env = _env()
    proc = subprocess.Popen(MEMFS + ["daemon"], cwd=ws_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        assert "watching" in proc.stderr.readline()
        assert any(h["hit"] == "passage" for h in _recall(ws_path, "socket timeout"))
        _write(ws_path / "index" / "projects" / "beta" / "queue.md", "# Beta\n\nBeta drains the quokka queue hourly.\n")
        deadline = time.time() + 30
        while time.time() < deadline:
            if any("quokka" in h["text"] for h in _recall(ws_path, "quokka queue")):
                break
            time.sleep(0.2)
        else:
            raise AssertionError("the daemon did not index the new nested note")
    except AssertionError:
        proc.send_signal(signal.SIGTERM)
        raise AssertionError("daemon log: " + proc.communicate(timeout=30)[1]) from None
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err


@pytest.mark.parametrize("ignore", ["", "projects/\n"])
def test_forget_and_export_follow_the_walk(ws_path: Path, ignore: str) -> None:
    _write(ws_path / "index" / "projects" / "gamma.md", "- Gamma runs on the quince cluster.\n")
    (ws_path / ".memfsignore").write_text(ignore)
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        rels = mem.ws.category_rels()
        assert ("index/projects/gamma.md" in rels) == (not ignore)
        hits = [h for h in mem.recall("quince cluster") if "quince" in h.text]
        assert bool(hits) == (not ignore)
    finally:
        mem.close()


def test_a_big_nested_note_is_never_split(ws_path: Path) -> None:
    def body(tag: str) -> str:
        lines = [f"- Ana went hiking trip number {n} in {year}. <!-- id="
                 f"{hashlib.sha1(f'{tag}{year}{n}'.encode()).hexdigest()[:8]} type=event when={year}-05-01 -->\n"
                 for year in (2023, 2024) for n in range(25)]
        return "# Ana\n\n" + "".join(lines)

    nested = ws_path / "memory" / "people-notes" / "ana.md"
    _write(nested, body("n"))
    _write(ws_path / "memory" / "ana.md", body("t"))
    before = nested.read_bytes()
    mem = hashing_memory(ws_path)
    mem.config.memory.split_items = 10
    try:
        mem.sync()
    finally:
        mem.close()
    assert nested.read_bytes() == before
    assert list((ws_path / "memory" / "people-notes").iterdir()) == [nested]
    assert list((ws_path / "memory").glob("ana--*.md")), "the top-level file of the same shape is split"


def test_agent_tools_and_the_injected_block_cite_passages_by_lines(ws_path: Path) -> None:
    from memfs.agents.inject import render_block
    from memfs.agents.tools import AgentMemory, AgentTools
    from memfs.config import load_config

    _write(ws_path / "index" / "projects" / "alpha" / "net.md", ALPHA)
    config = load_config(ws_path, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"})
    with AgentMemory(ws_path, config=config) as mem:
        mem.sync()
        items = AgentTools(mem).recall("socket timeout", k=3).items
    top = items[0]
    assert top.hit == "passage" and top.anchor == "index/projects/alpha/net.md#L7-8"
    block = render_block(items, 2000) or ""
    assert "- [index/projects/alpha/net.md#L7-8] The alpha service" in block
