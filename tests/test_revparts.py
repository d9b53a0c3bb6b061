"""An adversarial review of the entry parts persisted in the index (entry/partstore.py):
each scenario a person or a second process could cause, against a regeneration of the
same Markdown from nothing (a fresh copy without .memfs/, parts never read or written)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from datetime import date
from pathlib import Path

import pytest

from memfs import views
from memfs.api import Memory
from memfs.entry import partstore, poolcache
from memfs.entry.poolcache import pool_for
from memfs.index.entryparts import parts_of
from memfs.views import forget_state
from tests.support.cli import MEMFS, env, run
from tests.support.workspace import hashing_memory
from tests.test_entryparts import BIG, _word, entry_files, min_items


def line(i: int, extra: str = "") -> str:
    """A big-file line no topic or keyword splits; some dated, reinforced or with a `when`."""
    meta = f"id=c{i:06d} type=knowledge"
    if i % 5 == 0:
        meta += f" src=resources/2026/{1 + i % 9:02d}/1{i % 10}-{_word(i + 3000)}.json#S1:1"
    if i % 7 == 0:
        meta += f" seen={2 + i % 3}"
    if i % 11 == 0:
        meta += f" when=2026-0{1 + i % 9}"
    return f"- Note {_word(i)} about {_word(i + 7919)}. <!-- {meta}{extra} -->\n"


def text(n: int, start: int = 0) -> str:
    return "---\ntitle: Big\n---\n" + "".join(line(i) for i in range(start, start + n))


def full_from_markdown(root: Path) -> dict[str, bytes]:
    """The root files a regeneration from nothing writes for this Markdown."""
    other = root.parent / (root.name + "-full")
    shutil.rmtree(other, ignore_errors=True)
    shutil.copytree(root, other, ignore=shutil.ignore_patterns(".memfs"))
    forget_state()
    try:
        with min_items(10**9), hashing_memory(other) as mem:
            mem.sync()
            with mem.lock("test"):
                mem.regenerate_views()
        return entry_files(other)
    finally:
        forget_state()
        shutil.rmtree(other, ignore_errors=True)


def assert_full(root: Path) -> None:
    got = entry_files(root)
    want = full_from_markdown(root)
    assert got.keys() == want.keys()
    for name in want:
        assert got[name] == want[name], f"{name} differs from a regeneration from nothing"


def fresh(root: Path) -> Memory:
    forget_state()
    return hashing_memory(root)


def big_store(root: Path, n: int) -> None:
    (root / BIG).write_text(text(n))
    with fresh(root) as mem:
        mem.sync()




@pytest.mark.parametrize("n", [999, 1000, 1001])
def test_files_at_the_threshold_through_adds_and_forgets(ws_path: Path, n: int) -> None:
    big_store(ws_path, n)
    for step in ("add", "forget", "forget", "add"):
        with fresh(ws_path) as mem:
            if step == "add":
                mem.add(f"Moved the {_word(50000 + n)} rollout to Friday.", category="index/big")
            else:
                mem.forget(f"c{(3 if 'id=c000003 ' in (ws_path / BIG).read_text() else 4):06d}")
            db = mem.indexer.db
            count, digest = db.conn.execute("SELECT items, hash FROM files WHERE path=?", (BIG,)).fetchone()
            # (The summary head and the written stamp are kept for every spliced write: not parts.)
            rows = {k: r for k, r in parts_of(db, BIG).items() if k not in ('["summary-head"]', '["written-stamp"]')}
            # Rows are written for the content of 1,000 items or more, and only for it.
            assert {r.digest for r in rows.values()} == ({digest} if count >= 1000 else {r.digest for r in rows.values()})
            assert count >= 1000 or digest not in {r.digest for r in rows.values()}
        assert_full(ws_path)


def test_a_checkout_of_an_older_version_with_another_horizon(ws_path: Path) -> None:
    """The older content's rows survive (the file fell under MIN_ITEMS between: nothing
    overwrote them) while the horizon moved; the older bytes come back."""
    big_store(ws_path, 1000)
    old = (ws_path / BIG).read_bytes()
    assert parts_of(hashing_memory(ws_path).indexer.db, BIG)
    with fresh(ws_path) as mem:
        mem.forget("c000001")  # 999 items: no row is written for this content
    events = ws_path / "memory" / "events.md"
    events.write_text("---\ntitle: Events\n---\n- Priya flew to Lisbon. <!-- id=e0000001 type=event "
                      "src=resources/2026/11/20-trip.json#S1:1 -->\n")
    with fresh(ws_path) as mem:
        mem.sync()
    assert_full(ws_path)
    (ws_path / BIG).write_bytes(old)  # git checkout of the older version
    with fresh(ws_path) as mem:
        mem.sync()
        assert partstore.MIN_ITEMS == 1000
    assert_full(ws_path)
    with fresh(ws_path) as mem:
        mem.add("Moved the zqlast rollout to Friday.", category="index/big")
    assert_full(ws_path)


@pytest.mark.parametrize("same_ns", [False, True])
def test_an_edit_that_keeps_the_size_and_the_second(ws_path: Path, same_ns: bool) -> None:
    big_store(ws_path, 1000)
    with fresh(ws_path) as mem:
        mem.add("Moved the zqfirst rollout to Friday.", category="index/big")
    path = ws_path / BIG
    st = os.stat(path)
    data = path.read_bytes()
    edited = data.replace(b"Note zqb about", b"Note zqx about", 1)
    assert len(edited) == len(data) and edited != data
    path.write_bytes(edited)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns if same_ns else st.st_mtime_ns + 1))
    with fresh(ws_path) as mem:
        mem.add("Moved the zqsecond rollout to Friday.", category="index/big")
    assert b"zqx" in path.read_bytes()
    assert_full(ws_path)


def test_supersession_by_hand_then_one_shot_adds(ws_path: Path) -> None:
    big_store(ws_path, 1000)
    path = ws_path / BIG
    path.write_text(path.read_text().replace("id=c000010 ", "id=c000010 superseded_by=c000011 until=2026-10 "))
    with fresh(ws_path) as mem:
        mem.sync()
    assert_full(ws_path)
    with fresh(ws_path) as mem:
        mem.add("Moved the zqsup rollout to Friday.", category="index/big")
    assert_full(ws_path)
    path.write_text(path.read_text().replace(" superseded_by=c000011 until=2026-10", ""))  # undone by hand
    with fresh(ws_path) as mem:
        mem.add("Moved the zqsup2 rollout to Friday.", category="index/big")
    assert_full(ws_path)


def test_two_one_shot_adds_at_once_and_a_cli_forget(tmp_path: Path) -> None:
    e = env()
    root = tmp_path / "w"
    run(["init", str(root), "--no-git"], tmp_path, e)
    (root / BIG).write_text(text(1000))
    run(["sync"], root, e)
    procs = [subprocess.Popen(MEMFS + ["add", f"Moved the {_word(60000 + k)} rollout to Friday.", "--category",
                                       "index/big"], cwd=root, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for k in range(2)]
    for p in procs:
        p.communicate(timeout=120)
        assert p.returncode == 0
    body = (root / BIG).read_text()
    assert all(f"{_word(60000 + k)} rollout" in body for k in range(2))
    assert_full(root)
    run(["forget", "c000002", "--yes"], root, e)
    assert_full(root)
    run(["sync", "--rebuild"], root, e)
    assert_full(root)


def test_a_long_lived_process_beside_one_shot_adds(ws_path: Path) -> None:
    """A daemon's pool (kept across its writes) while one-shot CLI adds and a person write the same file."""
    big_store(ws_path, 1000)
    e = env()
    forget_state()
    mem = hashing_memory(ws_path)
    try:
        for k in range(3):
            mem.add(f"Daemon wrote the {_word(70000 + k)} note.", category="index/big")
            run(["add", f"Cli wrote the {_word(71000 + k)} note.", "--category", "index/big"], ws_path, e)
            if k == 1:
                path = ws_path / BIG
                path.write_text(path.read_text().replace("id=c000020 ", "id=c000020 superseded_by=c000021 "))
            mem.sync()
            with mem.lock("test"):
                mem.regenerate_views()
            got = entry_files(ws_path)
            pools, states = dict(poolcache._POOLS), dict(views._STATES)
            want = full_from_markdown(ws_path)
            poolcache._POOLS.update(pools)
            views._STATES.update(states)
            assert got == want
    finally:
        mem.close()


def test_an_index_made_before_the_table(ws_path: Path) -> None:
    big_store(ws_path, 1000)
    conn = sqlite3.connect(ws_path / ".memfs" / "index.sqlite3")
    conn.execute("DROP TABLE entry_parts")
    conn.commit()
    conn.close()
    with fresh(ws_path) as mem:
        mem.add("Moved the zqold rollout to Friday.", category="index/big")
    assert_full(ws_path)
    with fresh(ws_path) as mem:
        mem.add("Moved the zqold2 rollout to Friday.", category="index/big")
    assert_full(ws_path)


def test_a_row_whose_count_is_damaged_is_a_miss(ws_path: Path) -> None:
    big_store(ws_path, 1000)
    conn = sqlite3.connect(ws_path / ".memfs" / "index.sqlite3")
    conn.execute("UPDATE entry_parts SET count='1000x' WHERE key='[\"words\"]'")
    conn.commit()
    conn.close()
    with fresh(ws_path) as mem:
        mem.add("Moved the zqdamaged rollout to Friday.", category="index/big")
    assert_full(ws_path)


def _on_day(monkeypatch: pytest.MonkeyPatch, day: date) -> None:
    class Day(date):
        @classmethod
        def today(cls) -> "Day":
            return cls(day.year, day.month, day.day)
    monkeypatch.setattr(poolcache, "date", Day)


def test_a_new_day_moves_the_horizon_of_a_store_with_future_dates(ws_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A learned date past the wall clock clamps to today: the horizon moves every day and
    an item whose `when` falls between two days changes its learned date."""
    body = text(1000).replace("id=c000003 type=knowledge", "id=c000003 type=knowledge "
                              "src=resources/2027/01/05-zqfuture.json#S1:1")
    body = body.replace("id=c000004 type=knowledge", "id=c000004 type=knowledge "
                        "src=resources/2026/11/02-zqwhen.json#S1:1 when=2026-12-25")
    (ws_path / BIG).write_text(body)
    for k, day in enumerate((date(2026, 12, 20), date(2026, 12, 28), date(2027, 1, 9))):
        _on_day(monkeypatch, day)
        with fresh(ws_path) as mem:
            mem.sync()
            with mem.lock("test"):
                mem.regenerate_views()
            if k:
                assert pool_for(mem.ws).parts.served > 0
        assert_full(ws_path)
        with fresh(ws_path) as mem:
            mem.add(f"Moved the {_word(80000 + k)} rollout to Friday.", category="index/big")
        assert_full(ws_path)


def test_a_big_memory_file_about_a_few_people(ws_path: Path) -> None:
    """Under memory/ the parts are keyed by the alias map too, and a file with people builds its items."""
    rel = "memory/notes.md"
    people = {0: "Priya", 1: "Dana"}
    lines = "".join(f"- {people[i % 200] + ' said' if i % 200 in people else 'Note'} {_word(i)} about "
                    f"{_word(i + 7919)}. <!-- id=m{i:06d} type=fact{' seen=3' if i % 9 == 0 else ''} -->\n"
                    for i in range(1000))
    (ws_path / rel).write_text("---\ntitle: Notes\n---\n" + lines)
    with fresh(ws_path) as mem:
        mem.sync()
    assert parts_of(hashing_memory(ws_path).indexer.db, rel)
    assert_full(ws_path)
    for k, fact in enumerate(("Priya said the zqporto move is done.", "Tom said the zqlisbon trip is off.",
                              "Tom said the zqlisbon trip is on again.")):
        with fresh(ws_path) as mem:
            mem.add(fact, category="memory/notes")
            if k == 1:
                mem.forget("m000200")
        assert_full(ws_path)


def test_a_damaged_row_for_the_current_content_is_rewritten(ws_path: Path) -> None:
    """Computed afresh, and persisted again: not left damaged for every later process to recompute."""
    big_store(ws_path, 1000)
    conn = sqlite3.connect(ws_path / ".memfs" / "index.sqlite3")
    conn.execute("UPDATE entry_parts SET value='{' WHERE key='[\"words\"]'")
    conn.commit()
    conn.close()
    for _ in range(2):
        with fresh(ws_path) as mem:
            with mem.lock("test"):
                mem.regenerate_views()
        assert_full(ws_path)
    with fresh(ws_path) as mem:
        row = parts_of(mem.indexer.db, BIG)['["words"]']
        assert partstore.PartStore._decode("words", row.value) is not partstore.MISS
