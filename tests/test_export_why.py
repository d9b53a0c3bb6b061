"""`memfs export --about NAME` (a data-subject request) and `memfs why ID` (provenance)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from memfs.errors import MemfsError, NotFoundError
from memfs.workspace import init_workspace
from tests.support.cli import env, run
from tests.support.workspace import hashing_memory

CHAT = {"messages": [
    {"role": "user", "name": "Zorblat", "content": "I adopted a tortoise named Quixotrix last week."},
    {"role": "user", "name": "Alice", "content": "Zorblat, that is lovely! I moved to Lisbon in March."},
    {"role": "user", "name": "Alice", "content": "I play the cello on Thursdays."}],
    "time": "2025-03-02T09:00:00"}


def _ingest(root: Path, tmp_path: Path, autocommit: bool = False) -> None:
    (tmp_path / "catchup.json").write_text(json.dumps(CHAT))
    with hashing_memory(root) as mem:
        mem.config.git.autocommit = autocommit
        assert mem.ingest_file(tmp_path / "catchup.json").status == "processed"
        mem.add("Zorblat's birthday is in October.")


def test_export_about_writes_items_and_source_passages(ws_path: Path, tmp_path: Path) -> None:
    _ingest(ws_path, tmp_path)
    out = tmp_path / "zorblat.md"
    proc = run(["export", "--about", "Zorblat", "--out", str(out)], ws_path, env())
    assert "about Zorblat" in proc.stderr
    text = out.read_text()
    assert text.startswith("# Everything memfs holds about Zorblat")
    assert "Quixotrix" in text and "birthday is in October" in text  # ingested and added by hand
    assert "cello" not in text.split("## Source passages")[0]  # Alice's own fact is not about Zorblat
    passages = text.split("## Source passages")[1]
    assert "**Zorblat:** I adopted a tortoise" in passages  # spoken by them
    assert "**Alice:** Zorblat, that is lovely!" in passages  # mentions them
    assert "cello" not in passages
    data = json.loads(run(["export", "--about", "zorblat", "--json"], ws_path, env()).stdout)
    assert {it["text"] for it in data["items"]} >= {"Zorblat's birthday is in October."}
    assert all(it["passage"] for it in data["items"] if it["source"])


def test_export_needs_a_name(ws_path: Path) -> None:
    with hashing_memory(ws_path) as mem, pytest.raises(MemfsError, match="needs a name"):
        mem.export_about("  ")


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_why_shows_file_source_passage_input_and_commit(tmp_path: Path) -> None:
    root = init_workspace(tmp_path / "w", git=True).root
    _ingest(root, tmp_path, autocommit=True)
    with hashing_memory(root) as mem:
        hit = next(h for h in mem.recall("tortoise Quixotrix", k=5) if "Quixotrix" in h.text)
        prov = mem.why(hit.id)
        assert prov.item.path == hit.path and prov.item.line
        assert prov.input_name == "catchup.json" and prov.resource_exists
        assert prov.item.passage == "Zorblat: I adopted a tortoise named Quixotrix last week."
        assert prov.added_in is not None and prov.added_in.subject == "memfs: ingest catchup.json"
        hand = next(h for h in mem.recall("birthday October", k=5) if "birthday" in h.text)
        assert mem.why(hand.id).item.source is None
        with pytest.raises(NotFoundError):
            mem.why("nope")
    proc = run(["why", hit.id], root, env())
    assert "ingested as catchup.json" in proc.stdout and "passage   Zorblat: I adopted" in proc.stdout
    assert "added in" in proc.stdout
    assert json.loads(run(["why", hit.id, "--json"], root, env()).stdout)["item"]["id"] == hit.id
    assert subprocess.run(["git", "-C", str(root), "status", "--porcelain"], capture_output=True,
                          text=True).returncode == 0


def test_why_names_the_input_that_last_reinforced_an_item(ws_path: Path, tmp_path: Path) -> None:
    _ingest(ws_path, tmp_path)
    again = {"messages": [CHAT["messages"][2]], "time": "2025-04-01T09:00:00"}
    (tmp_path / "again.json").write_text(json.dumps(again))
    with hashing_memory(ws_path) as mem:
        res = mem.ingest_file(tmp_path / "again.json")
        assert res.reinforced
        prov = mem.why(res.reinforced[0])
        assert prov.reinforced_by and "again.json" in prov.reinforced_by and prov.item.seen == 2
