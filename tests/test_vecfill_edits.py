"""Vectors after the write are exactly-once and edit-safe (review of the daemon's default).

The same inputs end in the same lines and `seen` counts as embedding first (`memfs ingest`),
and a person's rewrite or move of either line of a near-duplicate pair is never merged
away: their text stays as its own item. T is the older line, X its near-duplicate.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from memfs.store import CategoryStore
from memfs.workspace import init_workspace
from tests.support.workspace import hashing_memory, item_set

T = "I work as a nurse at the hospital in town number 5."
X = "I work as a nurse at the hospital in town number 17."
T_LINE = "Farid works as a nurse at the hospital in town number 5."
X_LINE = "Farid works as a nurse at the hospital in town number 17."


def _chat(n: int, lines: list[str]) -> dict:
    return {"format": "memfs.conversation/1", "participants": ["Farid", "Sam"], "sessions": [{
        "id": "S1", "time": f"2024-0{n}-10T10:00:00", "turns": [
            {"id": f"D1:{i + 1}", "speaker": "Farid", "text": t} for i, t in enumerate(lines)]}]}


def _inputs(folder: Path, inputs: list[list[str]]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for n, lines in enumerate(inputs, 1):
        path = folder / f"in{n}.json"
        path.write_text(json.dumps(_chat(n, lines)))
        out.append(path)
    return out


def _nurses(root: Path) -> list[tuple[str, int, str]]:
    return sorted((text, seen, rel) for _, text, seen, rel in item_set(root) if "nurs" in text)


def _fill_all(mem) -> None:  # type: ignore[no-untyped-def]
    while mem.fill_vectors().more:
        pass


def _run(tmp: Path, name: str, inputs: list[Path], later: list[bool]):  # type: ignore[no-untyped-def]
    root = init_workspace(tmp / name, git=False).root
    mem = hashing_memory(root)
    for path, vl in zip(inputs, later):
        mem.ingest_file(path, vectors_later=vl)
    return root, mem


@pytest.mark.parametrize("inputs", [[[T], [X], [T, X]], [[T], [T, X], [X]]], ids=["double", "lost"])
def test_a_later_input_repeating_an_unchecked_line_counts_as_embedding_first(
        tmp_path: Path, inputs: list[list[str]]) -> None:
    """The marked line (or its twin) repeated before its check: the twin's one `via=` could
    not tell which inputs the line's own `seen` held (4 or 2 where embed-first says 3)."""
    paths = _inputs(tmp_path / "inputs", inputs)
    ref, mem = _run(tmp_path, "ref", paths, [False] * len(paths))
    mem.close()
    root, mem = _run(tmp_path, "w", paths, [True] * len(paths))
    try:
        _fill_all(mem)
    finally:
        mem.close()
    assert _nurses(root) == _nurses(ref) == [(T_LINE, 3, "memory/work.md")]


class _Killed(BaseException):
    """Stands for a SIGKILL (tests/test_vecfill.py kills a real process at the same point)."""


@pytest.mark.parametrize("later", [False, True], ids=["ingest", "daemon"])
def test_a_kill_mid_merge_then_an_input_repeating_the_twin_counts_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, later: bool) -> None:
    """Killed after the twin was reinforced and before the line's removal; then an input
    repeating the twin is taken before the check resumes (its `via=` is that input's by
    then): the resumed merge must not reinforce again."""
    paths = _inputs(tmp_path / "inputs", [[T], [X], [T]])
    root, mem = _run(tmp_path, "w", paths[:2], [True, True])
    real = CategoryStore.edit

    def edit(self, rel, change, attempts=5):  # type: ignore[no-untyped-def]
        if change.__name__ == "drop":
            raise _Killed
        return real(self, rel, change, attempts)

    monkeypatch.setattr(CategoryStore, "edit", edit)
    with pytest.raises(_Killed):
        mem.fill_vectors()
    monkeypatch.setattr(CategoryStore, "edit", real)
    mem.close()
    assert _nurses(root) == [(X_LINE, 1, "memory/work.md"), (T_LINE, 2, "memory/work.md")]
    mem = hashing_memory(root)
    try:
        mem.ingest_file(paths[2], vectors_later=later)
        mem.sync()  # makes the owed check (a daemon start does the same)
        assert mem.status().checks_pending == 0
    finally:
        mem.close()
    assert _nurses(root) == [(T_LINE, 3, "memory/work.md")]


def _around_drop(monkeypatch: pytest.MonkeyPatch, before_drop) -> None:  # type: ignore[no-untyped-def]
    real = CategoryStore.edit
    done: list[bool] = []

    def edit(self, rel, change, attempts=5):  # type: ignore[no-untyped-def]
        if change.__name__ == "drop" and not done:
            done.append(True)
            before_drop()
        return real(self, rel, change, attempts)

    monkeypatch.setattr(CategoryStore, "edit", edit)


def test_a_file_protected_mid_merge_keeps_the_mark_and_counts_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Write-protected after the reinforcement, before the removal: the next check used to
    drop the mark on the refused read, leaving T seen 2 beside X (counted twice)."""
    paths = _inputs(tmp_path / "inputs", [[T], [X]])
    root, mem = _run(tmp_path, "w", paths, [True, True])
    work = root / "memory" / "work.md"
    _around_drop(monkeypatch, lambda: os.chmod(work, 0o444))
    try:
        _fill_all(mem)
        mem.sync()
        assert mem.status().checks_pending == 1  # still owed while the file is protected
        assert not mem.fill_vectors(limit=1).more  # no progress is not "more": loops end
        assert (X_LINE, 1, "memory/work.md") in _nurses(root)
        os.chmod(work, 0o644)
        mem.sync()
        assert mem.status().checks_pending == 0
    finally:
        os.chmod(work, 0o644)
        mem.close()
    assert _nurses(root) == [(T_LINE, 2, "memory/work.md")]


def test_a_line_edited_mid_merge_stays_and_its_reinforcement_is_undone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _inputs(tmp_path / "inputs", [[T], [X]])
    root, mem = _run(tmp_path, "w", paths, [True, True])
    work = root / "memory" / "work.md"
    _around_drop(monkeypatch, lambda: work.write_text(work.read_text().replace("number 17.", "number 17 (nights).")))
    try:
        _fill_all(mem)
        mem.sync()
        assert mem.status().checks_pending == 0
    finally:
        mem.close()
    assert _nurses(root) == [(X_LINE.replace("17.", "17 (nights)."), 1, "memory/work.md"),
                             (T_LINE, 1, "memory/work.md")]


def test_a_persons_rewrite_of_the_twin_is_not_merged_into(tmp_path: Path) -> None:
    """The daemon fills vectors before its debounced sync of edits: the check met T by its
    old indexed text and merged X into the person's new sentence (X's fact lost)."""
    paths = _inputs(tmp_path / "inputs", [[T], [X]])
    root, mem = _run(tmp_path, "w", paths, [True, True])
    work = root / "memory" / "work.md"
    work.write_text(work.read_text().replace(T_LINE, "Farid quit his nursing job in town 5 in 2024."))
    try:
        report = mem.fill_vectors()
        assert report.merged == []
        mem.sync()
    finally:
        mem.close()
    assert _nurses(root) == [("Farid quit his nursing job in town 5 in 2024.", 1, "memory/work.md"),
                             (X_LINE, 1, "memory/work.md")]


def test_a_moved_line_stays_where_the_person_put_it(tmp_path: Path) -> None:
    """X moved to a file of the person's own, and synced before its check: the index's path
    followed the move, so the check merged it away and deleted it from their file."""
    paths = _inputs(tmp_path / "inputs", [[T], [X]])
    root, mem = _run(tmp_path, "w", paths, [True, True])
    work = root / "memory" / "work.md"
    line = next(ln for ln in work.read_text().splitlines() if "number 17." in ln)
    work.write_text(work.read_text().replace(line + "\n", ""))
    (root / "memory" / "nursing.md").write_text(f"# Nursing\n\n{line}\n")
    try:
        mem.sync()
        assert mem.status().checks_pending == 0
    finally:
        mem.close()
    assert line in (root / "memory" / "nursing.md").read_text()
    assert _nurses(root) == [(X_LINE, 1, "memory/nursing.md"), (T_LINE, 1, "memory/work.md")]


def test_an_embed_first_ingest_while_checks_are_owed_keeps_the_older_line(tmp_path: Path) -> None:
    """`memfs ingest` while the daemon still owes T's vector: it could not see T, added a
    twin, and T's check then merged the older line into the newer (T's id gone)."""
    paths = _inputs(tmp_path / "inputs", [[T], [X]])
    ref, mem = _run(tmp_path, "ref", paths, [False, False])
    mem.close()
    root, mem = _run(tmp_path, "w", paths, [True, False])
    try:
        _fill_all(mem)
    finally:
        mem.close()
    want = {(i, t, s, r) for i, t, s, r in item_set(ref) if "nurse" in t}
    assert {(i, t, s, r) for i, t, s, r in item_set(root) if "nurse" in t} == want
    assert [s for _, _, s, _ in want] == [2]


def test_marks_of_a_previous_memfs_gain_their_columns_and_still_merge(tmp_path: Path) -> None:
    """A `.memfs/` whose marks table has only (id, text_hash): the new columns are added, and
    its marks (no path recorded) are checked as before."""
    paths = _inputs(tmp_path / "inputs", [[T], [X]])
    root, mem = _run(tmp_path, "w", paths, [True, True])
    db = mem.runtime.indexer.db
    rows = db.conn.execute("SELECT id, text_hash FROM dedupe_marks ORDER BY rowid").fetchall()
    mem.close()
    conn = sqlite3.connect(root / ".memfs" / "index.sqlite3")
    with conn:
        conn.execute("DROP TABLE dedupe_marks")
        conn.execute("CREATE TABLE dedupe_marks (id TEXT PRIMARY KEY, text_hash TEXT NOT NULL)")
        conn.executemany("INSERT INTO dedupe_marks VALUES(?, ?)", rows)
    conn.close()
    mem = hashing_memory(root)
    try:
        mem.sync()
        assert mem.status().checks_pending == 0
    finally:
        mem.close()
    assert _nurses(root) == [(T_LINE, 2, "memory/work.md")]


def test_a_failed_fill_in_the_daemon_is_tried_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An unexpected error (a full disk) used to clear `_vectors_due`: the owed checks then
    waited for the next input or a restart. Now they wait a pause, then run."""
    from memfs.daemon import Daemon

    paths = _inputs(tmp_path / "inputs", [[T], [X]])
    root, mem = _run(tmp_path, "w", paths, [True, True])
    try:
        daemon = Daemon(mem, log=lambda _line: None)
        real = mem.fill_vectors
        calls: list[int] = []

        def failing(*args, **kwargs):  # type: ignore[no-untyped-def]
            calls.append(1)
            if len(calls) == 1:
                raise OSError(28, "No space left on device")
            return real(*args, **kwargs)

        monkeypatch.setattr(mem, "fill_vectors", failing)
        daemon._fill_vectors()
        assert daemon._vectors_due and daemon._vectors_after > 0
        while daemon._vectors_due:
            daemon._fill_vectors()
        assert mem.status().checks_pending == 0
    finally:
        mem.close()
    assert _nurses(root) == [(T_LINE, 2, "memory/work.md")]


def test_a_stop_out_of_time_still_refreshes_the_views(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stop budget ran out after some lines merged: the root files were refreshed only
    once the whole backlog was done, so they stayed stale until the next start."""
    from memfs import daemon as daemon_mod
    from memfs.views import views_stale

    paths = _inputs(tmp_path / "inputs", [[T], [X]])
    root, mem = _run(tmp_path, "w", paths, [True, True])
    try:
        db = mem.runtime.indexer.db
        merged: list[tuple[str, str]] = []
        while not merged:  # one check per chunk: the backlog is never "done" meanwhile
            report = mem.fill_vectors(limit=1)
            merged += report.merged
            assert report.more
        assert views_stale(mem.ws, db)  # X merged into T, the views not refreshed yet
        monkeypatch.setattr(daemon_mod, "FINISH_SECONDS", -1.0)  # the budget is spent at once
        d = daemon_mod.Daemon(mem, log=lambda _line: None)
        d._finish_vectors()
        assert not views_stale(mem.ws, db)
    finally:
        mem.close()


@pytest.mark.slow
@pytest.mark.parametrize("after", ["true", "false"])
def test_a_real_daemon_taking_two_inputs_together_counts_as_embedding_first(tmp_path: Path, after: str) -> None:
    """The review's daemon case: [T] ingested, then [X] and [T, X] renamed into the inbox
    together; the daemon took both before X's check and ended at seen 4. Either setting of
    `[ingest] vectors_after_write` must end as `memfs ingest` of the three does."""
    from tests.support.cli import env, init, run
    from tests.support.daemon import Daemon, wait

    paths = _inputs(tmp_path / "inputs", [[T], [X], [T, X]])
    e = env(MEMFS_INGEST_VECTORS_AFTER_WRITE=after)
    ref = init(tmp_path / "ref", e)
    run(["ingest", *map(str, paths)], ref, e)
    ws = init(tmp_path / "w", e)
    run(["ingest", str(paths[0])], ws, e)
    with Daemon(ws, e, tmp_path / "daemon.log") as daemon:
        daemon.wait_ready()
        staging = ws / "inbox" / ".tmp"
        staging.mkdir()
        for path in paths[1:]:
            (staging / path.name).write_bytes(path.read_bytes())
        for path in paths[1:]:
            (staging / path.name).rename(ws / "inbox" / path.name)

        def settled() -> bool:
            st = json.loads(run(["status", "--json"], ws, e).stdout)
            return not (st["inbox_pending"] or st["checks_pending"] or st["vectors_pending"])

        wait(lambda: settled() and not any((ws / "inbox").glob("*.json")), 60, "daemon settled")
        assert daemon.stop() == 0, daemon.log()
    assert _nurses(ws) == _nurses(ref) == [(T_LINE, 3, "memory/work.md")]
