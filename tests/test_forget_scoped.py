"""Scoped forgetting through the real CLI: every form previews and asks (or --yes), and
removes the item lines, the archived input, the index rows and cached embeddings, and
what derives from them; a forgotten input dropped again is refused unless --allow-relearn."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from memfs.api import Memory
from memfs.errors import MemfsError, NotFoundError
from tests.support.cli import env, init, run
from tests.support.workspace import hashing_memory

ZORB = {"messages": [
    {"role": "user", "name": "Zorblat", "content": "I adopted a tortoise named Quixotrix last week."},
    {"role": "user", "name": "Zorblat", "content": "I love painting sunsets by the lake every evening."},
    {"role": "user", "name": "Zorblat", "content": "I work as a glassblower in Vimmerby."}],
    "time": "2025-03-02T09:00:00"}
ALICE = {"messages": [
    {"role": "user", "name": "Alice", "content": "I moved to Lisbon in March and I love painting."},
    {"role": "user", "name": "Alice", "content": "My friend Zorblat taught me to bake sourdough bread."}],
    "time": "2025-04-02T09:00:00"}
ZORB_ONLY = ("quixotrix", "tortoise", "glassblower", "vimmerby", "sunsets")


def _workspace(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    e = env()
    ws = init(tmp_path / "w", e)
    for name, chat in (("zorb-chat.json", ZORB), ("alice.json", ALICE)):
        (tmp_path / name).write_text(json.dumps(chat))
        run(["ingest", str(tmp_path / name)], ws, e)
    return ws, e


def _all_text(ws: Path) -> str:
    """Every byte of the workspace (SQLite files included), lower-cased."""
    return b"\n".join(p.read_bytes() for p in ws.rglob("*") if p.is_file()).decode("utf-8", "replace").lower()


def _snapshot(ws: Path) -> dict[str, bytes]:
    return {str(p.relative_to(ws)): p.read_bytes() for p in ws.rglob("*")
            if p.is_file() and ".memfs" not in p.parts}


@pytest.mark.slow
def test_source_preview_refusal_then_forget_everywhere(tmp_path: Path) -> None:
    ws, e = _workspace(tmp_path)
    assert "quixotrix" in _all_text(ws)
    before = _snapshot(ws)
    # The preview names the input and every line; "n" (or no answer) changes nothing.
    for answer in ("n\n", ""):
        proc = subprocess_run(["forget", "--source", "zorb-chat.json"], ws, e, answer)
        assert proc.returncode == 1 and "nothing was changed" in proc.stderr
        assert "inputs to forget (zorb-chat.json)" in proc.stdout and "Quixotrix" in proc.stdout
        assert "items to remove: 3" in proc.stdout
    assert _snapshot(ws) == before
    proc = subprocess_run(["forget", "--source", "zorb-chat.json"], ws, e, "y\n")
    assert proc.returncode == 0, proc.stderr
    assert "forgot 3 items and 1 inputs (F1" in proc.stdout
    text = _all_text(ws)
    for word in ZORB_ONLY:
        assert word not in text, word
    assert "lisbon" in text and "sourdough" in text  # the other input is untouched
    assert not list((ws / "resources").rglob("*zorb-chat*"))
    db = sqlite3.connect(ws / ".memfs" / "index.sqlite3")
    unused = db.execute("SELECT count(*) FROM embeddings WHERE text_hash NOT IN (SELECT text_hash FROM items)")
    assert unused.fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM journal WHERE name='zorb-chat.json'").fetchone()[0] == 0
    db.close()
    record = json.loads((ws / "forgotten.json").read_text())
    assert record["forgets"][0]["scope"] == "source" and len(record["forgets"][0]["inputs"][0]) == 16
    assert "zorb" not in (ws / "forgotten.json").read_text().lower()
    hits = json.loads(run(["recall", "tortoise Quixotrix", "--json"], ws, e).stdout)
    assert hits and all("tortoise" not in h["text"].lower() for h in hits)


def subprocess_run(args: list[str], ws: Path, e: dict[str, str], answer: str):  # type: ignore[no-untyped-def]
    import subprocess

    from tests.support.cli import MEMFS

    return subprocess.run(MEMFS + args, cwd=ws, env=e, input=answer, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_forgotten_input_is_refused_even_after_the_cache_goes_unless_allowed(tmp_path: Path) -> None:
    ws, e = _workspace(tmp_path)
    run(["forget", "--source", "zorb-chat.json", "--yes"], ws, e)
    shutil.rmtree(ws / ".memfs")  # the record is in the workspace, not the cache
    run(["sync", "--rebuild"], ws, e)
    shutil.copy(tmp_path / "zorb-chat.json", ws / "inbox" / "zorb-chat.json")
    proc = run(["ingest", str(ws / "inbox" / "zorb-chat.json")], ws, e, check=False)
    assert proc.returncode == 1 and "this input was forgotten (F1 on" in proc.stderr and "--allow-relearn" in proc.stderr
    note = (ws / "inbox" / "failed" / "zorb-chat.json.error.txt").read_text()
    assert "forgotten (F1" in note
    shutil.rmtree(ws / "inbox" / "failed")  # the refused file itself is the person's own copy
    assert "quixotrix" not in _all_text(ws)
    (ws / "inbox" / "failed").mkdir()
    shutil.copy(tmp_path / "zorb-chat.json", ws / "inbox" / "failed" / "zorb-chat.json")
    proc = run(["ingest", "--allow-relearn", str(ws / "inbox" / "failed" / "zorb-chat.json")], ws, e)
    assert "+3 added" in proc.stdout
    assert json.loads((ws / "forgotten.json").read_text())["forgets"][0]["inputs"] == []
    assert any("Quixotrix" in h["text"] for h in json.loads(run(["recall", "Quixotrix", "--json"], ws, e).stdout))


def test_reinforcements_an_input_made_are_taken_back(ws_path: Path, tmp_path: Path) -> None:
    with hashing_memory(ws_path) as mem:
        first = tmp_path / "one.json"
        first.write_text(json.dumps({"messages": [{"role": "user", "name": "Rosa", "content":
                                                   "I planted three lemon trees in my garden."}]}))
        item_id = mem.ingest_file(first).added[0]
        again = tmp_path / "two.json"
        # An independent mention, not a replay of the first chat (another message leads).
        again.write_text(json.dumps({"messages": [
            {"role": "user", "name": "Rosa", "content": "I keep bees named after planets."},
            {"role": "user", "name": "Rosa", "content": "I planted three lemon trees in my garden."}]}))
        res = mem.ingest_file(again)
        assert item_id in res.reinforced
        assert mem.indexer.db.items_by_ids([item_id])[item_id].seen == 2
        plan = mem.plan_forget(source="two.json")
        assert [it.id for it in plan.unreinforce] == [item_id] and len(plan.items) == 1
        report = mem.apply_forget(plan)
        assert report.unreinforced == 1 and report.items_removed == 1
        row = mem.indexer.db.items_by_ids([item_id])[item_id]
        assert row.seen == 1
        assert "via=" not in (ws_path / row.path).read_text()


@pytest.mark.slow
def test_about_removes_items_naming_the_subject_and_lists_remaining_mentions(tmp_path: Path) -> None:
    ws, e = _workspace(tmp_path)
    proc = run(["forget", "--about", "zorblat", "--yes", "--json"], ws, e)
    out = json.loads(proc.stdout)
    texts = [it["text"] for it in out["plan"]["items"]]
    assert len(texts) == 4 and all("zorblat" in t.lower() for t in texts)  # Alice's fact names Zorblat too
    assert len(out["plan"]["mentions"]) == 2  # both archived chats still mention the name
    cats = "".join(p.read_text() for p in (ws / "memory").glob("*.md")) + (ws / "memory.md").read_text()
    assert "zorblat" not in cats.lower() and "Lisbon" in cats
    assert out["report"]["resources_removed"] == 0 and not (ws / "forgotten.json").exists()


def test_query_forgets_only_matching_items_and_ids_need_confirmation(ws_path: Path) -> None:
    with hashing_memory(ws_path) as mem:
        a = mem.add("The staging database runs PostgreSQL 16 on port 5433.", category="infrastructure")
        b = mem.add("Alice prefers green tea over coffee in the morning.")
        c = mem.add("The production database runs PostgreSQL 15 on port 5432.", category="infrastructure")
        plan = mem.plan_forget(query="staging database port", k=10)
        ids = [it.id for it in plan.items]
        assert ids[0] == a.id and b.id not in ids  # matches first; no word in common: not a match
        assert set(ids) <= {a.id, c.id}
        mem.apply_forget(mem.plan_forget(ids=[a.id, b.id]))
        assert set(mem.indexer.db.items_by_ids([a.id, b.id, c.id])) == {c.id}
        with pytest.raises(NotFoundError, match="no item with id"):
            mem.plan_forget(ids=["nope"])
        with pytest.raises(MemfsError, match="exactly one of"):
            mem.plan_forget(ids=[c.id], query="x")
        with pytest.raises(NotFoundError, match="no archived input"):
            mem.plan_forget(source="never-seen.json")


@pytest.mark.slow
def test_forget_by_id_through_the_cli_previews_and_needs_yes(tmp_path: Path) -> None:
    e = env()
    ws = init(tmp_path / "w", e)
    item = json.loads(run(["add", "Bruno collects antique typewriters.", "--json"], ws, e).stdout)
    proc = run(["forget", item["id"]], ws, e, check=False)
    assert proc.returncode == 1 and "typewriters" in proc.stdout and "nothing was changed" in proc.stderr
    proc = run(["forget", item["id"], "--yes"], ws, e)
    assert "forgot 1 items and 0 inputs" in proc.stdout
    assert "typewriters" not in _all_text(ws)


def test_memory_forget_api_still_removes_one_line(mem: Memory) -> None:
    item = mem.add("Carla speaks four languages.")
    assert mem.forget(item.id).id == item.id


def test_purge_history_outside_git_changes_nothing(mem: Memory, ws_path: Path) -> None:
    item = mem.add("Bruno collects antique typewriters.")
    before = _snapshot(ws_path)
    with pytest.raises(MemfsError, match="not a git repository; nothing was changed"):
        mem.apply_forget(mem.plan_forget(ids=[item.id]), purge_history=True)
    assert _snapshot(ws_path) == before


@pytest.mark.slow
def test_a_running_daemon_refuses_a_forgotten_input_dropped_again(tmp_path: Path) -> None:
    """The daemon learned the input (and cached that resources/ held it); a CLI forget runs
    beside it; the same file dropped again goes to failed/ naming the forget."""
    from tests.support.daemon import Daemon, wait

    e = env()
    ws = init(tmp_path / "w", e)
    with Daemon(ws, e, tmp_path / "daemon.log") as daemon:
        daemon.wait_ready(60)
        (ws / "inbox" / "zorb.json").write_text(json.dumps(ZORB))
        wait(lambda: not (ws / "inbox" / "zorb.json").exists(), 60, "first ingest")
        run(["forget", "--source", "zorb.json", "--yes"], ws, e, timeout=120)
        (ws / "inbox" / "zorb.json").write_text(json.dumps(ZORB))
        note = ws / "inbox" / "failed" / "zorb.json.error.txt"
        wait(note.exists, 60, "refusal")
        assert "this input was forgotten (F1" in note.read_text()
        assert daemon.stop() == 0
    assert "quixotrix" not in "".join(p.read_text().lower() for p in (ws / "memory").glob("*.md"))


def test_source_is_found_by_path_name_digest_or_file_even_without_the_cache(ws_path: Path, tmp_path: Path) -> None:
    import hashlib

    chat = tmp_path / "Zorb Chat.json"
    chat.write_text(json.dumps(ZORB))
    with hashing_memory(ws_path) as mem:
        resource = mem.ingest_file(chat).resource
        digest = hashlib.sha256(chat.read_bytes()).hexdigest()
        for spec in (resource, resource + "#m1", "Zorb Chat.json", digest, digest[:10], str(chat)):
            assert mem.plan_forget(source=spec).resources == [resource], spec
    shutil.rmtree(ws_path / ".memfs")  # no journal: the name is matched by the resource's slug
    with hashing_memory(ws_path) as mem:
        plan = mem.plan_forget(source="Zorb Chat.json")
        assert plan.resources == [resource] and len(plan.items) == 3


def test_the_hnsw_sidecar_is_rebuilt_without_forgotten_vectors(ws_path: Path) -> None:
    from memfs.index.vectors import HnswSidecar

    with hashing_memory(ws_path, exact_search_max=2) as mem:
        items = [mem.add(f"Fact number {n} about the orchard and its {n} pear trees.") for n in range(4)]
        assert (ws_path / ".memfs" / "vectors.hnsw").exists()
        victim = mem.indexer.db.items_by_ids([items[0].id])[items[0].id].label
        mem.apply_forget(mem.plan_forget(ids=[items[0].id]))
        sidecar = HnswSidecar(ws_path / ".memfs", mem.embedder.dim, mem.embedder.name)
        assert sidecar.load() and victim not in sidecar.labels and len(sidecar.labels) == 3
        assert [h.id for h in mem.recall("orchard pear trees", k=10)] and items[0].id not in {
            h.id for h in mem.recall("orchard pear trees", k=10)}


def test_forget_keeps_the_category_descriptions_vectors(tmp_path: Path) -> None:
    """Forgetting drops the cached vectors of what it removed, but not those of the category
    descriptions (no item or passage names them): they used to go too, so the next start or
    input embedded every description again (10,000 of them over 10,000 notes)."""
    from memfs.categorize import spec_texts
    from memfs.core.hashing import text_hash

    ws, e = _workspace(tmp_path)
    with hashing_memory(ws) as mem:
        mem.warm_up()
        wanted = {text_hash(t) for t in spec_texts(mem.runtime.category_specs())}
        db = mem.indexer.db

        def cached() -> set[str]:
            return {h for (h,) in db.conn.execute("SELECT text_hash FROM embeddings")}

        assert wanted and wanted <= cached()
    run(["forget", "--source", "zorb-chat.json", "--yes"], ws, e)
    with hashing_memory(ws) as mem:
        db = mem.indexer.db
        left = {h for (h,) in db.conn.execute("SELECT text_hash FROM embeddings")}
        assert wanted <= left
        assert not any(w in _all_text(ws).lower() for w in ("quixotrix", "glassblower"))
