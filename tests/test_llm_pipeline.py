"""The LLM extractor inside the real memorize pipeline (wired the way the report describes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memfs.llm.config import LLMConfig
from memfs.llm.runtime import LLMRuntime, load_usage
from memfs.pipeline.memorize import Memorizer
from tests.support.cli import MEMFS
from tests.support.cli import env as cli_env
from tests.support.fake_openai import SECRET, FakeOpenAI, ok
from tests.support.workspace import hashing_memory

NOTE = "# Deploy\n\nRun make release, then push the tag.\n\n## Rollback\n\nRollbacks use the previous tag.\n"


def test_memorize_with_llm_extractor_and_usage(fake: FakeOpenAI, ws_path: Path, tmp_path: Path) -> None:
    mem = hashing_memory(ws_path)
    try:
        rt = LLMRuntime.from_config(LLMConfig(provider="openai", base_url=fake.url),
                                    environ={"OPENAI_API_KEY": SECRET}, state_dir=mem.ws.state, backoff_base=0.01)
        assert rt is not None
        names = [s.name for s in mem.category_specs()]
        mem.runtime.memorizer = Memorizer(mem.runtime, extractor=rt.extractor(categories=names))
        fake.responder = lambda body: ok({"facts": [
            {"text": "To release, run make release and push the tag.", "type": "skill", "turns": [1],
             "category": "procedures"},
            {"text": "Rollbacks use the previous tag.", "type": "knowledge", "turns": [2, 77]}]})
        src = tmp_path / "deploy.md"
        src.write_text(NOTE)
        result = mem.ingest_file(src)
        assert result.status == "processed" and len(result.added) == 2, result
        body = "".join(p.read_text() for p in mem.ws.root.glob("skill/*.md"))
        assert "To release, run make release and push the tag." in body
        with mem.lock():
            rt.persist_usage()
        usage = load_usage(mem.ws.state)
        assert usage.steps["extract"].calls >= 1 and usage.fallback_count() == 0
        assert SECRET not in (mem.ws.state / "llm-usage.json").read_text()
    finally:
        mem.close()


@pytest.mark.slow
def test_cli_turns_llm_mode_on_from_the_environment_alone(fake: FakeOpenAI, tmp_path: Path) -> None:
    """MEMFS_LLM=openai + OPENAI_BASE_URL + OPENAI_API_KEY: `memfs ingest` extracts through the
    server, `memfs status --json` reports the usage, and the key is written nowhere."""
    import json
    import os
    import subprocess
    import sys

    from memfs.workspace import init_workspace

    root = init_workspace(tmp_path / "w", git=False).root
    fake.responder = lambda body: ok({"facts": [
        {"text": "Priya keeps her passport in the blue folder.", "type": "profile", "turns": [1]}]})
    (tmp_path / "chat.json").write_text(json.dumps(
        [{"role": "user", "name": "Priya", "content": "My passport is in the blue folder, always."}]))
    env = cli_env(MEMFS_LLM="openai", MEMFS_LLM_MODEL="test-model", OPENAI_BASE_URL=fake.url,
                  OPENAI_API_KEY=SECRET)
    cli = MEMFS
    out = subprocess.run(cli + ["ingest", str(tmp_path / "chat.json")], cwd=root, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "blue folder" in "".join(p.read_text() for p in root.glob("memory/*.md"))
    status = json.loads(subprocess.run(cli + ["status", "--json"], cwd=root, env=env, capture_output=True,
                                       text=True, timeout=60).stdout)
    assert status["llm"] == "openai:test-model"
    assert status["llm_usage"]["steps"]["extract"]["calls"] >= 1
    assert fake.requests and fake.requests[-1]["json"]["model"] == "test-model"
    for path in root.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in out.stdout + out.stderr


def _dispatch(answers: dict[str, object]):  # type: ignore[no-untyped-def]
    """A responder that answers by the structured-output schema the request asks for."""
    import json

    def respond(body):  # type: ignore[no-untyped-def]
        wanted = json.dumps(body.get("response_format") or body.get("messages"))
        for key, answer in answers.items():
            if f'"{key}"' in wanted:
                return ok(answer(body) if callable(answer) else answer)
        return ok({})

    return respond


def test_llm_merge_update_supersedes_and_llm_recall_descends_to_sources(fake: FakeOpenAI, ws_path: Path,
                                                                          tmp_path: Path) -> None:
    import json

    from memfs.config import load_config
    from memfs.api import Memory

    config = load_config(ws_path, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing", "MEMFS_LLM": "openai",
                                           "OPENAI_BASE_URL": fake.url, "OPENAI_API_KEY": SECRET})
    mem = Memory(ws_path, config=config)
    try:
        facts = {"facts": [{"text": "Omar lives in Porto and works at the harbour office.", "type": "profile",
                            "turns": [1]}]}
        fake.responder = _dispatch({"facts": facts, "summary": {"summary": "Where Omar lives and works."}})
        (tmp_path / "a.json").write_text(json.dumps(
            [{"role": "user", "name": "Omar", "content": "I live in Porto and work at the harbour office."}]))
        first = mem.ingest_file(tmp_path / "a.json")
        assert len(first.added) == 1
        item_id = first.added[0]
        # A newer conversation contradicts it: the model says UPDATE existing memory 0.
        moved = {"facts": [{"text": "Omar lives in Lisbon now and works at the harbour office.", "type": "profile",
                            "turns": [1]}]}
        fake.responder = _dispatch({"facts": moved, "decisions": {"decisions": [
            {"fact": 0, "action": "UPDATE", "target": 0, "text": "Omar moved from Porto to Lisbon."}]},
            "summary": {"summary": "Omar moved from Porto to Lisbon."}})
        (tmp_path / "b.json").write_text(json.dumps(
            [{"role": "user", "name": "Omar", "content": "I moved to Lisbon, still at the harbour office."}]))
        second = mem.ingest_file(tmp_path / "b.json")
        # UPDATE supersedes: the old line stays as history (until=, superseded_by=), the
        # model's merged text is the new current line.
        assert second.updated == [item_id] and len(second.added) == 1
        new_id = second.added[0]
        rows = {r.id: r for r in mem.indexer.db.all_items()}
        assert rows[new_id].text == "Omar moved from Porto to Lisbon." and rows[new_id].superseded_by is None
        assert rows[item_id].text == "Omar lives in Porto and works at the harbour office."
        assert rows[item_id].superseded_by == new_id and rows[item_id].until
        body = (ws_path / rows[item_id].path).read_text()
        assert f"superseded_by={new_id}" in body and "Porto and works" in body
        # The model's "Where Omar lives." shares nothing but a name with the current line: rejected
        # (grounding), so no summary is stored and the index derives one from the items.
        assert "summary: Where Omar lives." not in body
        assert [h.id for h in mem.recall("where does Omar live")] == [new_id]
        assert {h.id for h in mem.recall("where does Omar live", history=True)} == {item_id, new_id}
        item_id = new_id

        # LLM recall: rewrite, re-rank, and not sufficient → the source passage is attached.
        fake.responder = _dispatch({"queries": {"queries": ["Omar city"]}, "order": {"order": [0]},
                                    "sufficient": {"sufficient": False}})
        hits = mem.recall("where is Omar based", mode="llm")
        assert hits[0].id == item_id and hits[0].passage and "Lisbon" in hits[0].passage
    finally:
        mem.close()


def test_llm_mode_condenses_memory_md_within_budget_and_only_when_items_change(fake: FakeOpenAI, ws_path: Path,
                                                                               tmp_path: Path) -> None:
    import json

    from memfs.api import Memory
    from memfs.config import load_config

    config = load_config(ws_path, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing", "MEMFS_LLM": "openai",
                                           "OPENAI_BASE_URL": fake.url, "OPENAI_API_KEY": SECRET})
    mem = Memory(ws_path, config=config)
    try:
        fake.responder = _dispatch({
            "facts": {"facts": [{"text": "Lea grows tomatoes on her balcony in Ghent.", "type": "profile",
                                 "turns": [1]}]},
            "summary": {"summary": "Lea is a balcony gardener in Ghent (tomatoes)."}})
        (tmp_path / "a.json").write_text(json.dumps(
            [{"role": "user", "name": "Lea", "content": "I grow tomatoes on my balcony in Ghent."}]))
        mem.ingest_file(tmp_path / "a.json")
        memory_md = (ws_path / "memory.md").read_text()
        assert "Lea is a balcony gardener in Ghent (tomatoes)." in memory_md and "[memory/" in memory_md
        calls = len(fake.requests)
        mem.sync()  # nothing changed: no new summary call, same bytes
        assert len(fake.requests) == calls and (ws_path / "memory.md").read_text() == memory_md
    finally:
        mem.close()
