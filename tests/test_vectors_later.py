"""Vectors after the write (issue #17 item 2): an input's items are written and found by
keyword before most of them are embedded; the vectors and the near-duplicate check follow
(pipeline/vecfill.py). Near-duplicate detection must end where it did when every fact was
embedded first, also across a crash, and recall by meaning must work once vectors land."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memfs.index.vecfill_store import count_marked, count_without_vectors
from memfs.store import CategoryStore
from memfs.workspace import init_workspace
from tests.support.cli import env, init, run
from tests.support.daemon import Daemon, wait
from tests.support.workspace import hashing_memory, item_set, recall


def _chat(time: str, *turns: str) -> dict:
    return {"format": "memfs.conversation/1", "participants": ["Ana", "Sam"], "sessions": [{
        "id": "S1", "time": time,
        "turns": [{"id": f"D1:{n}", "speaker": "Ana", "text": t} for n, t in enumerate(turns, 1)]}]}


FIRST = _chat("2024-03-10T10:00:00", "I adopted a dog named Rex from the shelter last week.",
              "I work as a nurse at the hospital in town.")
#: The same fact, paraphrased, in a later chat: the vector dedupe reinforces FIRST's item.
PARAPHRASE = _chat("2024-03-10T18:00:00", "I adopted a dog named Rex from the animal shelter last week.")
#: Near-identical facts inside one input: one item, seen twice.
TWINS = _chat("2024-03-10T10:00:00", "I adopted a dog named Rex from the shelter last week.",
              "That's wonderful news!", "I adopted a dog named Rex from the animal shelter last week.",
              "I work as a nurse at the hospital in town.")


def _files(tmp: Path, *chats: dict) -> list[Path]:
    out = []
    for n, chat in enumerate(chats):
        path = tmp / f"chat{n}.json"
        path.write_text(json.dumps(chat))
        out.append(path)
    return out


def _reference(tmp: Path, *chats: dict) -> set[tuple[str, str, int, str]]:
    """Every fact embedded before its write (the CLI's way): what the end state must be."""
    root = init_workspace(tmp / "reference", git=False).root
    mem = hashing_memory(root)
    try:
        for path in _files(tmp / "reference", *chats):
            mem.ingest_file(path)
    finally:
        mem.close()
    return item_set(root)


def _fill_all(mem) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    merged = []
    while True:
        report = mem.fill_vectors()
        merged += report.merged
        if not report.more:
            return merged


@pytest.mark.parametrize("chats", [(FIRST, PARAPHRASE), (TWINS,)], ids=["across-inputs", "within-one-input"])
def test_paraphrased_duplicates_still_merge(tmp_path: Path, chats: tuple[dict, ...]) -> None:
    want = _reference(tmp_path, *chats)
    assert any(seen == 2 for _, _, seen, _ in want)  # the vector dedupe merged the paraphrase
    root = init_workspace(tmp_path / "later", git=False).root
    mem = hashing_memory(root)
    try:
        for path in _files(tmp_path / "later", *chats):
            assert mem.ingest_file(path, vectors_later=True).status == "processed"
        # Written first: the paraphrase is its own line, found by keyword, not yet embedded.
        assert len(item_set(root)) == len(want) + 1
        assert count_marked(mem.indexer.db) > 0 and count_without_vectors(mem.indexer.db) > 0
        assert len([h for h in mem.recall("Rex shelter", k=5) if "Rex" in h.text]) == 2
        merged = _fill_all(mem)
        assert len(merged) == 1
        assert item_set(root) == want  # the same ids, texts, seen counts and files
        assert count_marked(mem.indexer.db) == 0 and count_without_vectors(mem.indexer.db) == 0
        assert [h.seen for h in mem.recall("Rex shelter", k=5) if "Rex" in h.text] == [2]
        assert "animal shelter" not in (root / "memory.md").read_text()  # root files follow the merge
    finally:
        mem.close()


def test_keyword_recall_at_once_and_meaning_once_the_vector_lands(tmp_path: Path) -> None:
    root = init_workspace(tmp_path / "w", git=False).root
    mem = hashing_memory(root)
    try:
        mem.ingest_file(_files(tmp_path, FIRST)[0], vectors_later=True)
        assert any("Rex" in h.text for h in mem.recall("Rex", k=3))  # BM25, the moment it is written
        assert mem.recall("adoptin a pupy", k=3) == []  # no shared word: only a vector finds it
        report = mem.fill_vectors()
        assert report.embedded >= 2 and not report.more
        assert any("Rex" in h.text for h in mem.recall("adoptin a pupy", k=3))
        assert mem.fill_vectors().idle  # nothing left
    finally:
        mem.close()


def test_a_merge_interrupted_half_way_counts_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    want = _reference(tmp_path, FIRST, PARAPHRASE)
    root = init_workspace(tmp_path / "w", git=False).root
    mem = hashing_memory(root)
    try:
        for path in _files(tmp_path / "w", FIRST, PARAPHRASE):
            mem.ingest_file(path, vectors_later=True)
        real = CategoryStore.edit
        calls = []

        def dying(self, rel, change, attempts=5):  # type: ignore[no-untyped-def]
            calls.append(rel)
            if len(calls) == 3:  # checked, the target reinforced; the paraphrase's removal "crashes"
                raise OSError(28, "No space left on device")
            return real(self, rel, change, attempts)

        monkeypatch.setattr(CategoryStore, "edit", dying)
        with pytest.raises(OSError):
            _fill_all(mem)
        monkeypatch.setattr(CategoryStore, "edit", real)
        mem.sync(vectors=False)  # the index catches up with the half-done merge
        assert count_marked(mem.indexer.db) > 0  # the mark survived: the check is made again
        _fill_all(mem)
        assert item_set(root) == want  # seen=2, not 3
    finally:
        mem.close()


#: Ingests FIRST normally, then PARAPHRASE with vectors after the write, and SIGKILLs itself
#: right after that write, before any vector or near-duplicate check.
CRASH = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from tests.support.workspace import hashing_memory
    mem = hashing_memory(Path(sys.argv[1]))
    mem.ingest_file(Path(sys.argv[2]))
    mem.ingest_file(Path(sys.argv[3]), vectors_later=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")


def _pending(ws: Path) -> tuple[int, int]:
    conn = sqlite3.connect(ws / ".memfs" / "index.sqlite3")
    try:
        marks = conn.execute("SELECT count(*) FROM dedupe_marks").fetchone()[0]
        novec = conn.execute("SELECT count(*) FROM items LEFT JOIN embeddings USING(text_hash) "
                             "WHERE embeddings.text_hash IS NULL").fetchone()[0]
    finally:
        conn.close()
    return int(marks), int(novec)


@pytest.mark.parametrize("restart", ["sync", pytest.param("daemon", marks=pytest.mark.slow)])
def test_a_crash_between_write_and_vector_is_filled_by_the_next_run(tmp_path: Path, restart: str) -> None:
    want = _reference(tmp_path, FIRST, PARAPHRASE)
    e = env(MEMFS_INGEST_VECTORS_AFTER_WRITE="true")
    ws = init(tmp_path / "crashed", e)
    first, second = _files(tmp_path, FIRST, PARAPHRASE)
    killed = subprocess.run([sys.executable, "-c", CRASH, str(ws), str(first), str(second)], cwd=Path.cwd(),
                            env={**e, "PYTHONPATH": os.pathsep.join(sys.path)}, capture_output=True, text=True,
                            timeout=120)
    assert killed.returncode == -9, killed.stderr
    assert _pending(ws) == (1, 1)  # the paraphrase: written and indexed, no vector, not checked
    assert len(item_set(ws)) == len(want) + 1
    if restart == "sync":
        run(["sync"], ws, e)
    else:
        with Daemon(ws, e, tmp_path / "daemon.log") as daemon:
            daemon.wait_ready()
            wait(lambda: _pending(ws) == (0, 0) and item_set(ws) == want, 30, "vectors filled at start")
            assert daemon.stop() == 0
    assert _pending(ws) == (0, 0)
    assert item_set(ws) == want
    assert any("Rex" in h["text"] for h in recall(ws, e, "adoptin a pupy"))


@pytest.mark.slow
def test_the_daemon_writes_first_and_merges_after(tmp_path: Path) -> None:
    want = _reference(tmp_path, FIRST, PARAPHRASE)
    e = env(MEMFS_INGEST_VECTORS_AFTER_WRITE="true")
    ws = init(tmp_path / "w", e)
    with Daemon(ws, e, tmp_path / "daemon.log") as daemon:
        daemon.wait_ready()
        for n, chat in enumerate((FIRST, PARAPHRASE)):
            tmp = ws / "inbox" / f".chat{n}.tmp"
            tmp.write_text(json.dumps(chat))
            os.rename(tmp, ws / "inbox" / f"chat{n}.json")
            wait(lambda: not (ws / "inbox" / f"chat{n}.json").exists(), 30, f"chat{n} taken")
        wait(lambda: "merged into" in daemon.log(), 30, "the merge")
        assert item_set(ws) == want and _pending(ws) == (0, 0)
        assert any("Rex" in h["text"] and h["seen"] == 2 for h in recall(ws, e, "adoptin a pupy"))
        assert daemon.stop() == 0


def test_a_waiting_input_cuts_a_fill_short_and_nothing_done_is_lost(tmp_path: Path) -> None:
    from memfs.pipeline.vecfill import SUB

    turns = [f"I bought {n} green kites from the harbour market on day {n}." for n in range(3 * SUB)]
    root = init_workspace(tmp_path / "w", git=False).root
    mem = hashing_memory(root)
    try:
        mem.ingest_file(_files(tmp_path, _chat("2024-03-10T10:00:00", *turns))[0], vectors_later=True)
        before = count_without_vectors(mem.indexer.db)
        assert before >= 2 * SUB
        cut = mem.fill_vectors(stop=lambda: True)  # an input is waiting: one sub-batch, then back
        assert cut.more and cut.embedded == SUB and cut.checked == 0
        assert count_without_vectors(mem.indexer.db) == before - SUB
        _fill_all(mem)
        assert count_without_vectors(mem.indexer.db) == 0 and count_marked(mem.indexer.db) == 0
        assert mem.recall("grean kytes harbor", k=3)  # found by meaning (no shared word)
    finally:
        mem.close()


def _later(tmp_path: Path):  # type: ignore[no-untyped-def]
    """FIRST then PARAPHRASE written with vectors later: (root, memory, the paraphrase's
    file and line) before the check after the write has run."""
    root = init_workspace(tmp_path / "w", git=False).root
    mem = hashing_memory(root)
    for path in _files(tmp_path / "w", FIRST, PARAPHRASE):
        assert mem.ingest_file(path, vectors_later=True).status == "processed"
    hits = [(p, ln) for p in sorted((root / "memory").rglob("*.md"))
            for ln in p.read_text().splitlines() if "animal shelter" in ln]
    assert len(hits) == 1, hits
    return root, mem, hits[0][0], hits[0][1]


@pytest.mark.parametrize("synced", [False, True], ids=["index-stale", "index-synced"])
def test_a_line_the_person_edited_before_the_check_is_never_removed(tmp_path: Path, synced: bool) -> None:
    """The check after the write merges only a line that still says what memfs wrote: a
    person's correction in between (same id, new words) stays, whether or not the index
    has seen it yet (a light edit is still a near-duplicate by meaning)."""
    root, mem, path, line = _later(tmp_path)
    try:
        edited = line.replace("animal shelter", "Animal Shelter")
        path.write_text(path.read_text().replace(line, edited))
        if synced:
            mem.sync(vectors=False)
        merged = _fill_all(mem)
        assert merged == []
        assert edited in path.read_text()
        assert count_marked(mem.runtime.indexer.db) == 0
    finally:
        mem.close()


def test_a_file_memfs_refuses_to_rewrite_does_not_block_the_checks(tmp_path: Path) -> None:
    """A marked line's file turned unreadable as UTF-8: that check is left (both lines
    stay, one warning), the marks are cleared and sync keeps working."""
    root, mem, path, line = _later(tmp_path)
    try:
        path.write_bytes(path.read_bytes() + b"\n- bad byte \xff\n")
        _fill_all(mem)
        assert count_marked(mem.runtime.indexer.db) == 0
        assert line in path.read_text(errors="replace")
    finally:
        mem.close()


def test_a_write_protected_new_line_counts_nothing_twice(tmp_path: Path) -> None:
    """The new line's file is write-protected: its near-duplicate is not reinforced either
    (else both lines would count the same sighting)."""
    root, mem, path, line = _later(tmp_path)
    try:
        # The person moved the older line (the near-duplicate) into a file of its own, so
        # the target's file is writable while the new line's is not.
        older = next(ln for ln in path.read_text().splitlines() if "from the shelter" in ln)
        path.write_text(path.read_text().replace(older + "\n", ""))
        (root / "memory" / "pets.md").write_text(f"# Pets\n\n{older}\n")
        mem.sync(vectors=False)
        before = item_set(root)
        path.chmod(0o444)  # memfs goes by the mode bits (even as root)
        assert _fill_all(mem) == []
        assert item_set(root) == before
    finally:
        path.chmod(0o644)
        mem.close()
