"""Vectors after the write, continued (issue #17 item 2): when a daemon is done, the order
and cost of the checks after the write, and a re-dropped input.

The SIGKILL loop (tests/test_daemon.py) once ended with a near-duplicate unmerged: the
killed daemon had reinforced its twin and died before removing it, and the "clean" daemon
was stopped as soon as the inbox was empty — before the check it owed. An empty inbox is
not a finished daemon any more; `status` says what is still owed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memfs.index.search import Searcher
from memfs.index.vecfill_store import count_marked
from memfs.workspace import init_workspace
from tests.support.cli import env, run
from tests.support.factories import conversation
from tests.support.workspace import hashing_memory, item_set

#: Three chats whose "works as a nurse ... number N" lines are near-duplicates (hashing
#: embedder): the first one's line ends seen 3, the other two merge into it.
CHATS = (5, 17, 29)


def _write(folder: Path, ns: tuple[int, ...] = CHATS) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for n in ns:
        path = folder / f"c{n:02d}.json"
        path.write_text(json.dumps(conversation(n)))
        out.append(path)
    return out


def _reference(tmp: Path) -> set[tuple[str, str, int, str]]:
    root = init_workspace(tmp / "reference", git=False).root
    mem = hashing_memory(root)
    try:
        for path in _write(tmp / "reference-inputs"):
            mem.ingest_file(path)
    finally:
        mem.close()
    want = item_set(root)
    assert any(seen == 3 and "nurse" in text for _, text, seen, _ in want)
    return want


def _fill_all(mem) -> None:  # type: ignore[no-untyped-def]
    while mem.fill_vectors().more:
        pass


#: Ingests the chats with vectors after the write, then makes the checks and SIGKILLs
#: itself inside the last merge: its twin reinforced, the line not yet removed.
KILLED_MID_MERGE = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from memfs.store import CategoryStore
    from tests.support.workspace import hashing_memory
    mem = hashing_memory(Path(sys.argv[1]))
    for p in sys.argv[2:]:
        mem.ingest_file(Path(p), vectors_later=True)
    real, drops = CategoryStore.edit, []
    def edit(self, rel, change, attempts=5):
        if change.__name__ == "drop" and rel == "memory/work.md":
            drops.append(rel)
            if len(drops) == 2:  # the second nurse line: its twin reinforced, its removal now
                os.kill(os.getpid(), signal.SIGKILL)
        return real(self, rel, change, attempts)
    CategoryStore.edit = edit
    while mem.fill_vectors().more:
        pass
""")


def test_an_empty_inbox_is_not_a_finished_daemon_status_says_what_is_owed(tmp_path: Path) -> None:
    want = _reference(tmp_path)
    e = env()
    ws = init_workspace(tmp_path / "w", git=False).root
    inputs = _write(tmp_path / "inputs")
    killed = subprocess.run([sys.executable, "-c", KILLED_MID_MERGE, str(ws), *map(str, inputs)],
                            env={**e, "PYTHONPATH": os.pathsep.join(sys.path)}, capture_output=True, text=True,
                            timeout=120)
    assert killed.returncode == -9, killed.stderr
    # What the kept failing run of the kill loop showed: the twin already counts the line
    # (seen 3), the line itself is still there (seen 1), and its check is still owed.
    got = item_set(ws)
    assert got != want and any(seen == 3 and "nurse" in text for _, text, seen, _ in got)
    assert "near-duplicate checks" in run(["status"], ws, e).stdout
    mem = hashing_memory(ws)
    try:
        st = mem.status()
        assert st.inbox_pending == 0 and st.checks_pending >= 1
        mem.sync()  # (a daemon start does the same: tests/test_vectors_later.py)
        st = mem.status()
        assert st.checks_pending == 0 and st.vectors_pending == 0
    finally:
        mem.close()
    assert item_set(ws) == want  # counted once, the line removed


def test_a_redropped_input_counts_nothing_twice(tmp_path: Path) -> None:
    """Re-dropping a processed input restores what of it left the Markdown. A line the check
    after the write merged away had left it too; restored, and merged again into a twin a
    later input reinforced since (its `via=` no longer this input's), it counted twice."""
    want = _reference(tmp_path)
    root = init_workspace(tmp_path / "w", git=False).root
    mem = hashing_memory(root)
    try:
        inputs = _write(tmp_path / "inputs")
        for path in inputs:
            mem.ingest_file(path, vectors_later=True)
        _fill_all(mem)
        assert item_set(root) == want
        again = mem.ingest_file(inputs[1], vectors_later=True)  # c17 once more
        _fill_all(mem)
        got = item_set(root)
        assert got == want, (sorted(want - got), sorted(got - want), again)
    finally:
        mem.close()


def _move_nurse_line(root: Path, n: int) -> None:
    """A person moves chat n's nurse line into a file of its own (sorted after work.md)."""
    work = root / "memory" / "work.md"
    line = next(ln for ln in work.read_text().splitlines() if f"town number {n}." in ln)
    work.write_text(work.read_text().replace(line + "\n", ""))
    (root / "memory" / "zz-nursing.md").write_text(f"# Nursing\n\n{line}\n")


def test_checks_follow_the_order_facts_were_taken_in_not_labels(tmp_path: Path) -> None:
    """A rebuild renumbers items file by file: here the later chat's line gets the lower
    label. The checks still go in the order the facts were deduplicated in, so the line
    that stays is the one an embed-first run keeps (the first, reinforced by the second)."""
    ref = init_workspace(tmp_path / "reference", git=False).root
    mem = hashing_memory(ref)
    try:
        first, second = _write(tmp_path / "inputs", (5, 17))
        mem.ingest_file(first)
        _move_nurse_line(ref, 5)
        mem.sync()
        mem.ingest_file(second)
    finally:
        mem.close()
    want = item_set(ref)
    assert ("cc5365f7", "Farid works as a nurse at the hospital in town number 5.", 2,
            "memory/zz-nursing.md") in want
    root = init_workspace(tmp_path / "w", git=False).root
    mem = hashing_memory(root)
    try:
        for path in (first, second):
            mem.ingest_file(path, vectors_later=True)
        _move_nurse_line(root, 5)
        mem.sync(rebuild=True, vectors=False)  # labels anew, file by file; the marks stay
        db = mem.runtime.indexer.db
        labels = {r.text[-3:]: r.label for r in db.all_items() if "nurse" in r.text}
        assert labels["17."] < labels[" 5."]
        _fill_all(mem)
        assert item_set(root) == want
    finally:
        mem.close()


def test_a_check_asks_few_neighbours_whatever_the_backlog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each chunk used to ask every marked row for len(backlog) + 2 neighbours (quadratic in
    the backlog); now `FIRST_K`, more only where all of those are ineligible twins."""
    from memfs.pipeline import vecfill

    asked: list[int] = []
    real = Searcher.nearest

    def nearest(self, vectors, k):  # type: ignore[no-untyped-def]
        asked.append(k)
        return real(self, vectors, k)

    monkeypatch.setattr(Searcher, "nearest", nearest)
    root = init_workspace(tmp_path / "w", git=False).root
    mem = hashing_memory(root)
    try:
        for path in _write(tmp_path / "inputs", tuple(range(30))):
            mem.ingest_file(path, vectors_later=True)
        backlog = count_marked(mem.runtime.indexer.db)
        assert backlog >= 100
        _fill_all(mem)
        assert asked and max(asked) <= vecfill.FIRST_K * 4 < backlog
        assert count_marked(mem.runtime.indexer.db) == 0
    finally:
        mem.close()


@pytest.mark.parametrize("first_k", [1, 2])
def test_asking_for_more_neighbours_ends_where_embedding_first_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first_k: int) -> None:
    """With one or two neighbours asked first, the nearest is often the row itself or a
    twin still waiting: the check asks for more and still merges each line as a clean
    embed-first run does."""
    from memfs.pipeline import vecfill

    monkeypatch.setattr(vecfill, "FIRST_K", first_k)
    want = _reference(tmp_path)
    root = init_workspace(tmp_path / "w", git=False).root
    mem = hashing_memory(root)
    try:
        for path in _write(tmp_path / "inputs"):
            mem.ingest_file(path, vectors_later=True)
        _fill_all(mem)
        assert item_set(root) == want
    finally:
        mem.close()
