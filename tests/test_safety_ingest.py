"""Index-safety items of issue 10 on the ingest path: exactly-once with near-duplicates,
vanished reinforcement targets, FIFOs, non-finite settings.

Crashes are real SIGKILLs of a real `memfs ingest` process, at the exact point named."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memfs.config import load_config
from memfs.errors import ConfigError
from tests.support.cli import env, init, run
from tests.support.workspace import hashing_memory, item_set

#: Two turns whose facts are near-identical (cosine >= the dedupe threshold): a clean run
#: files one item with seen=2.
TWINS = {"format": "memfs.conversation/1", "participants": ["Ana", "Sam"], "sessions": [{
    "id": "S1", "time": "2024-03-10T10:00:00", "turns": [
        {"id": "D1:1", "speaker": "Ana", "text": "I adopted a dog named Rex from the shelter last week."},
        {"id": "D1:2", "speaker": "Sam", "text": "That's wonderful news!"},
        {"id": "D1:3", "speaker": "Ana", "text": "I adopted a dog named Rex from the animal shelter last week."},
        {"id": "D1:4", "speaker": "Ana", "text": "I work as a nurse at the hospital in town."}]}]}

#: Runs the real CLI, SIGKILLed by itself right when the input is about to be archived:
#: the category files are written, resources/ and the journal are not.
KILL_BEFORE_ARCHIVE = textwrap.dedent("""
    import os, signal, sys
    import memfs.pipeline.persist as m  # the archive is written by the persist step
    real = m.atomic_write
    def dying(path, data, precondition=None):
        if "/resources/" in str(path):
            os.kill(os.getpid(), signal.SIGKILL)
        return real(path, data, precondition)
    m.atomic_write = dying
    from memfs.cli import main
    sys.argv = ["memfs"] + sys.argv[1:]
    main()
""")


def _seen_by_text(ws: Path) -> dict[str, int]:
    return {text: seen for _, text, seen, _ in item_set(ws)}


@pytest.mark.slow
def test_sigkill_before_archive_with_near_twins_replays_to_the_clean_result(tmp_path: Path) -> None:
    e = env()
    src = tmp_path / "twins.json"
    src.write_text(json.dumps(TWINS))
    clean = init(tmp_path / "clean", e)
    run(["ingest", str(src)], clean, e)
    reference = item_set(clean)
    assert 2 in _seen_by_text(clean).values()  # the twins made one item, seen twice

    crashed = init(tmp_path / "crashed", e)
    killed = subprocess.run([sys.executable, "-c", KILL_BEFORE_ARCHIVE, "ingest", str(src)], cwd=crashed, env=e,
                            capture_output=True, text=True, timeout=120)
    assert killed.returncode == -9, killed.stderr
    assert not list((crashed / "resources").rglob("*.json"))  # died before the archive
    assert item_set(crashed) == reference  # ... but after the category writes
    run(["sync"], crashed, e)  # what a restarted daemon does first: the index now has the items
    run(["ingest", str(src)], crashed, e)
    assert item_set(crashed) == reference  # seen=2, not 3
    again = run(["ingest", str(src)], crashed, e)
    assert "already memorized" in again.stdout and item_set(crashed) == reference


def test_a_reinforcement_whose_target_vanished_is_not_reported_as_reinforced(ws_path: Path) -> None:
    mem = hashing_memory(ws_path)
    try:
        mem.add("Ana adopted a dog named Rex from the shelter.", category="events")
        target = ws_path / "memory" / "events.md"
        src = ws_path.parent / "again.md"
        src.write_text("Ana adopted a dog named Rex from the shelter.\n")
        memorizer = mem.memorizer
        real = memorizer.step_categorize

        def person_removes_the_target(state) -> None:  # type: ignore[no-untyped-def]
            real(state)  # decided: reinforce the existing item; now a person deletes its line
            target.write_text("".join(line for line in target.read_text().splitlines(keepends=True)
                                      if "Rex" not in line))

        memorizer.step_categorize = person_removes_the_target  # type: ignore[method-assign]
        memorizer.pipeline = memorizer.build()
        result = mem.ingest_file(src)
        assert result.status == "processed", result.error
        assert result.reinforced == []
        assert len(result.added) == 1
        texts = [t for _, t, _, _ in item_set(ws_path)]
        assert any("Rex" in t for t in texts)  # the fact was kept, as an item of its own
    finally:
        mem.close()


@pytest.mark.slow
def test_a_fifo_in_a_category_folder_is_skipped_and_never_hangs(tmp_path: Path) -> None:
    e = env()
    ws = init(tmp_path / "w", e)
    os.mkfifo(ws / "memory" / "pets.md")
    out = run(["sync"], ws, e, timeout=30)
    assert "memory/pets.md: not a regular file" in out.stderr
    added = run(["add", "Ana has a dog called Rex.", "-c", "pets"], ws, e, timeout=30, check=False)
    assert added.returncode == 1
    assert added.stderr.count("\n") == 1 and "not a regular file (a FIFO)" in added.stderr
    # Everything else still works, with the writer lock free again.
    run(["add", "Ana has a cat called Tom.", "-c", "hobbies"], ws, e, timeout=30)
    drop = tmp_path / "note.md"
    drop.write_text("Ana keeps bees in her garden.\n")
    run(["ingest", str(drop)], ws, e, timeout=30)


@pytest.mark.parametrize("toml, key", [
    ("[recall]\nrrf_k = inf\n", "recall.rrf_k"),
    ("[recall]\nrecency_weight = nan\n", "recall.recency_weight"),
    ("[recall]\nbm25_weight = -inf\n", "recall.bm25_weight"),
    ("[ingest]\nsettle_seconds = inf\n", "ingest.settle_seconds"),
    ("[llm]\ntimeout = nan\n", "llm.timeout"),
])
def test_non_finite_numbers_in_memfs_toml_are_refused(tmp_path: Path, toml: str, key: str) -> None:
    (tmp_path / "memfs.toml").write_text(toml)
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path, environ={})
    assert key in str(err.value) and "finite" in str(err.value) and "\n" not in str(err.value)


def test_non_finite_environment_override_is_refused_by_the_cli(tmp_path: Path) -> None:
    e = env()
    ws = init(tmp_path / "w", e)
    out = run(["recall", "tea", "--json"], ws, {**e, "MEMFS_RECALL_RRF_K": "inf"}, check=False)
    assert out.returncode == 1 and "MEMFS_RECALL_RRF_K" in out.stderr and out.stderr.count("\n") == 1


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_items_lost_through_a_git_discard_come_back_when_the_input_is_dropped_again(tmp_path: Path) -> None:
    e = {**env(), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
         "GIT_COMMITTER_EMAIL": "t@x"}
    ws = init(tmp_path / "w", e, git=True)
    run(["add", "Ana has a cat called Tom.", "-c", "pets"], ws, e)
    _git(ws, "add", "-A")
    _git(ws, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-qm", "before")
    src = tmp_path / "twins.json"
    src.write_text(json.dumps(TWINS))
    run(["ingest", str(src)], ws, e)
    after_ingest = item_set(ws)
    assert len(after_ingest) == 3
    _git(ws, "checkout", "--", ".")  # the person discards memfs' uncommitted edits
    assert len(item_set(ws)) == 1
    run(["sync"], ws, e)
    again = run(["ingest", str(src)], ws, e)
    assert "already memorized" not in again.stdout and "+2 added" in again.stdout, again.stdout
    assert item_set(ws) == after_ingest  # the same ids, texts and seen counts (the twin's seen=2 too)
    third = run(["ingest", str(src)], ws, e)
    assert "already memorized" in third.stdout and item_set(ws) == after_ingest


def test_dropping_a_processed_input_again_never_reinforces_twice(ws_path: Path) -> None:
    mem = hashing_memory(ws_path)
    try:
        mem.add("Ana adopted a dog named Rex from the shelter.", category="events")
        src = ws_path.parent / "again.md"
        src.write_text("Ana adopted a dog named Rex from the shelter.\n\nAna works as a nurse at the hospital.\n")
        first = mem.ingest_file(src)
        assert first.status == "processed" and len(first.reinforced) == 1
        before = item_set(ws_path)
        second = mem.ingest_file(src)
        assert second.status == "duplicate"
        assert item_set(ws_path) == before
        mem.forget(first.added[0])  # forgetting an item of it, then re-dropping: it comes back, alone
        third = mem.ingest_file(src)
        assert third.status == "processed" and third.restored == 1 and third.reinforced == []
        assert item_set(ws_path) == before
    finally:
        mem.close()


def _jsonl(lines: list[str]) -> str:
    return "".join(json.dumps({"role": "user", "name": "Ana", "content": t}) + "\n" for t in lines)


LOG_LINES = ["I adopted a dog named Rex from the shelter.", "I work as a nurse at the city hospital.",
             "My sister Mia lives in Porto and teaches chemistry.", "I bought a red bicycle called Zoom.",
             "My favourite book is Dune by Frank Herbert.", "I am allergic to peanuts and shellfish."]


@pytest.mark.slow
def test_a_grown_log_is_memorized_by_its_new_tail_exactly_once(tmp_path: Path) -> None:
    e = env()
    ws = init(tmp_path / "w", e)
    log = tmp_path / "chat.jsonl"
    log.write_text(_jsonl(LOG_LINES[:3]))
    first = run(["ingest", str(log), "--json"], ws, e)
    assert len(json.loads(first.stdout)[0]["added"]) == 3
    with log.open("a") as fh:  # the logger appended after memfs took the file
        fh.write(_jsonl(LOG_LINES[3:]))
    second = json.loads(run(["ingest", str(log), "--json"], ws, e).stdout)[0]
    assert len(second["added"]) == 3 and second["reinforced"] == []
    # the old lines are left out before extraction: by the message ledger (replayed) for a chat,
    # by the earlier archived version (skipped_earlier) for any input
    assert second["replayed"] == 3 or second["skipped_earlier"] == 3
    items = item_set(ws)
    assert len(items) == 6 and all(seen == 1 for _, _, seen, _ in items)
    # also with .memfs/ gone (the earlier version is found in resources/, not the journal)
    shutil.rmtree(ws / ".memfs")
    with log.open("a") as fh:
        fh.write(_jsonl(["I play the cello in a string quartet."]))
    third = json.loads(run(["ingest", str(log), "--json"], ws, e).stdout)[0]
    assert len(third["added"]) == 1 and third["reinforced"] == []
    assert len(item_set(ws)) == 7 and all(seen == 1 for _, _, seen, _ in item_set(ws))


def test_an_input_that_changes_while_it_is_processed_is_left_to_settle(ws_path: Path) -> None:
    mem = hashing_memory(ws_path)
    try:
        inbox = ws_path / "inbox" / "chat.jsonl"
        inbox.write_text(_jsonl(LOG_LINES[:2]))
        memorizer = mem.memorizer
        real = memorizer.step_extract

        def logger_appends_meanwhile(state) -> None:  # type: ignore[no-untyped-def]
            real(state)
            with inbox.open("a") as fh:
                fh.write(_jsonl(LOG_LINES[2:4]))

        memorizer.step_extract = logger_appends_meanwhile  # type: ignore[method-assign]
        memorizer.pipeline = memorizer.build()
        result = mem.ingest_file(inbox)
        assert result.status == "waiting" and "changed while memfs processed it" in (result.error or "")
        assert inbox.exists() and not list((ws_path / "resources").rglob("*.jsonl"))
        assert item_set(ws_path) == set()  # nothing was written
        memorizer.step_extract = real  # type: ignore[method-assign]
        memorizer.pipeline = memorizer.build()
        done = mem.ingest_file(inbox)
        assert done.status == "processed" and len(done.added) == 4 and not inbox.exists()
    finally:
        mem.close()
