"""Incremental entry files (memfs/views.py ViewState, entry/poolcache.py): after any sequence of
adds, reinforcements, forgets and a person's edits, the root files and person pages a long-lived
process keeps up to date are byte for byte what a regeneration from nothing writes."""

from __future__ import annotations

import re
from datetime import date
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfs.api import Memory
from memfs.views import forget_state
from memfs.workspace import init_workspace
from tests.support.cli import env, run
from tests.support.daemon import Daemon, wait
from tests.support.workspace import hashing_memory

NAMES = ("Priya", "Dana", "Tom")
FACTS = ("{n} lives in Leeds with her partner.", "{n} works as a nurse at the county hospital.",
         "{n} prefers green tea over coffee.", "{n} is allergic to peanuts.", "{n} plans to visit Lisbon in May.",
         "{n} went to a jazz concert with Dana.", "{n} mentioned the quarterly budget review.",
         "Stack: the billing service runs on Postgres 16.", "Kubernetes rollouts use a canary stage first.",
         "Deploy: run make release from the main branch.", "Backups are verified every Sunday night.",
         "Painting helps {n} unwind after a long shift.", "{n} took up painting and hiking this spring.")
CATEGORIES = (None, "memory/preferences", "memory/work", "index/knowledge", "skill/tools", "memory/events")
SAID = ("I live in Leeds with my partner Tom.", "I work as a nurse at the county hospital.",
        "I prefer green tea over coffee.", "I am allergic to peanuts.", "I plan to visit Lisbon in May.",
        "I went to a jazz concert with Dana last week.", "We use Postgres 16 for the billing service.")
WHENS = (None, "2026-03-02", "2026-09", "2027-04-10")


def entry_files(root: Path) -> dict[str, bytes]:
    """index.md, memory.md, skill.md and every person page, by path."""
    out = {name: (root / name).read_bytes() for name in ("index.md", "memory.md", "skill.md")
           if (root / name).exists()}
    people = root / "people"
    if people.is_dir():
        out.update({f"people/{p.name}": p.read_bytes() for p in sorted(people.glob("*.md"))})
    return out


def assert_same_as_full_rebuild(mem: Memory) -> None:
    from memfs.entry.poolcache import Pool, pool_for
    from memfs.index import repository

    pool = pool_for(mem.ws)  # the pool's rows are the index's, whether re-read or spliced
    from memfs.views import _reference_day, state_for

    assert state_for(mem.ws).newest.get(pool) == _reference_day(pool)  # kept per file view (flat6)
    assert {p: fv.rows for p, fv in pool.files.items()} == {
        p: repository.entry_rows_of(mem.indexer.db, p) for p in repository.file_states(mem.indexer.db)}
    fresh = Pool()  # the kept items (learned dates reused from earlier views) are a fresh pool's
    with mem.indexer.db.snapshot():
        fresh.refresh(mem.ws, mem.indexer.db, pool.horizon)
    assert fresh.horizon == pool.horizon and dict(fresh.by_file()) == dict(pool.by_file())
    before = entry_files(mem.ws.root)
    forget_state()  # the next regeneration starts from nothing: a full rebuild
    with mem.lock("test"):
        written = mem.regenerate_views()
    assert written == [], f"a full rebuild rewrote {written}"
    assert entry_files(mem.ws.root) == before


def item_ids(root: Path) -> list[str]:
    return sorted(set(re.findall(r"id=([0-9a-zA-Z+_-]+)", "".join(
        p.read_text() for kind in ("memory", "index", "skill") for p in (root / kind).rglob("*.md")))))


op = st.one_of(
    st.tuples(st.just("add"), st.integers(0, len(FACTS) - 1), st.integers(0, len(NAMES) - 1),
              st.sampled_from(CATEGORIES), st.sampled_from(WHENS)),
    st.tuples(st.just("forget"), st.integers(0, 50)),
    st.tuples(st.just("edit"), st.integers(0, len(NAMES) - 1), st.sampled_from(WHENS)),
    st.tuples(st.just("supersede"), st.integers(0, 50)),
    st.tuples(st.just("alias"), st.integers(0, len(NAMES) - 1)),
    st.tuples(st.just("dated"), st.integers(0, len(FACTS) - 1), st.integers(0, len(NAMES) - 1), st.integers(1, 12)),
)
_ids = iter(range(10**6))


def dated_line(fact: str, month: int, day: int = 14) -> str:
    """An item line as memfs writes it for an input of that day (no `updated`): the store's
    newest day, and so its horizon and reference day, move with such lines. Every other
    line is dated a little after its input, so when it counts as learned moves with them."""
    n = next(_ids)
    when = f" when=2026-{min(12, month + 1):02d}-0{1 + n % 9}" if n % 2 else ""
    return (f"- {fact} <!-- id=h{n:07d} type=event{when} "
            f"src=resources/2026/{month:02d}/{day:02d}-chat-0123456789abcdef.json#S1:1 -->\n")


def apply(mem: Memory, step: tuple) -> None:  # type: ignore[type-arg]
    root = mem.ws.root
    kind = step[0]
    if kind == "add":  # an exact twin of an earlier add is a reinforcement
        _, f, n, category, when = step
        mem.add(FACTS[f].format(n=NAMES[n]), category=category, when=when)
    elif kind == "forget":
        ids = item_ids(root)
        if ids:
            mem.forget(ids[step[1] % len(ids)])
    elif kind == "edit":  # a person appends a line by hand, then memfs syncs
        path = root / "memory" / "relationships.md"
        text = path.read_text() if path.exists() else "---\ntitle: Relationships\n---\n"
        when = f" ({step[2]})" if step[2] else ""
        path.write_text(text + f"- {NAMES[step[1]]} has a sister called Mira{when}.\n")
        mem.sync()
    elif kind == "supersede":  # a person marks one item as superseded by another
        ids = item_ids(root)
        if len(ids) < 2:
            return
        old, new = ids[step[1] % len(ids)], ids[(step[1] + 1) % len(ids)]
        for path in (p for k in ("memory", "index", "skill") for p in (root / k).rglob("*.md")):
            text = path.read_text()
            if f"id={old} " in text or f"id={old}-->" in text:
                path.write_text(text.replace(f"id={old}", f"id={old} superseded_by={new} until=2026-10", 1))
                break
        mem.sync()
    elif kind == "dated":  # a line from an input of a later (or earlier) day
        path = root / "memory" / "events.md"
        text = path.read_text() if path.exists() else "---\ntitle: Events\n---\n"
        path.write_text(text + dated_line(FACTS[step[1]].format(n=NAMES[step[2]]), step[3]))
        mem.sync()
    elif kind == "alias":  # a person gives someone an alias on their page
        name = NAMES[step[1]]
        page = root / "people" / f"{name.lower()}.md"
        page.parent.mkdir(exist_ok=True)
        page.write_text(f"---\ntitle: {name}\naliases: [{name[:3]}]\n---\n")
        mem.sync()


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(op, min_size=1, max_size=7), by_hand=st.booleans())
def test_incremental_entry_files_equal_a_full_rebuild(tmp_path_factory: pytest.TempPathFactory,
                                                      steps: list[tuple], by_hand: bool) -> None:  # type: ignore[type-arg]
    root = init_workspace(tmp_path_factory.mktemp("inc") / "w", git=False).root
    forget_state()
    if by_hand:  # a store of dated inputs' lines: later inputs move its horizon and reference day
        lines = "".join(dated_line(FACTS[k].format(n=NAMES[k % 3]), 1 + k % 3) for k in range(len(FACTS)))
        (root / "memory" / "events.md").write_text("---\ntitle: Events\n---\n" + lines)
    with hashing_memory(root) as mem:
        mem.sync()
        for n, name in enumerate(NAMES):  # a few people, so pages and profiles exist from the start
            if by_hand:
                break
            mem.add(FACTS[n].format(n=name), category="memory/profile")
            mem.add(FACTS[n + 3].format(n=name), category="memory/preferences", when="2026-03-02")
        for step in steps:
            apply(mem, step)
            assert_same_as_full_rebuild(mem)
    shutil.rmtree(root, ignore_errors=True)


def test_a_kept_line_learned_again_when_a_write_moves_the_horizon(ws_path: Path) -> None:
    """A line dated after its input counts as learned on its date once the store's newest
    day passes it: a write into its file that moves that day must not keep its old date."""
    events = ws_path / "memory" / "events.md"
    line = ("- Priya plans to visit Lisbon in May. <!-- id=h0000001 type=event when=2026-02-05 "
            "src=resources/2026/01/14-chat-0123456789abcdef.json#S1:1 -->\n")
    events.write_text("---\ntitle: Events\n---\n" + line)
    forget_state()
    with hashing_memory(ws_path) as mem:
        mem.sync()
        assert_same_as_full_rebuild(mem)
        events.write_text(events.read_text() + dated_line("Dana went to a jazz concert with Tom.", 3))
        mem.sync()
        assert_same_as_full_rebuild(mem)


def test_a_big_file_write_reuses_the_other_files_and_stays_identical(ws_path: Path) -> None:
    """Many files, one written: only that file is re-read from the index, and the output is
    still what a rebuild from nothing gives."""
    from memfs.entry.poolcache import pool_for

    for k in range(12):
        lines = "".join(f"- Fact {i} about topic {k} and Priya's project {i % 7}. <!-- id=t{k:02d}{i:04d} "
                        f"type=knowledge -->\n" for i in range(40))
        (ws_path / "index" / f"topic-{k:02d}.md").write_text(f"---\ntitle: Topic {k}\n---\n" + lines)
    forget_state()
    with hashing_memory(ws_path) as mem:
        mem.sync()
        pool = pool_for(mem.ws)
        kept = {p: fv for p, fv in pool.files.items()}
        mem.add("Priya moved the project review to Thursday.", category="index/topic-03")
        assert pool.changed == {"index/topic-03.md"}
        assert all(pool.files[p] is fv for p, fv in kept.items() if p != "index/topic-03.md")
        assert_same_as_full_rebuild(mem)


@pytest.mark.slow
def test_a_running_daemon_keeps_entry_files_equal_to_a_fresh_rebuild(tmp_path: Path) -> None:
    """A real daemon ingests chats one by one (its views kept incrementally in its process);
    afterwards a fresh `memfs` process regenerating from nothing writes the same bytes."""
    e = env()
    root = tmp_path / "w"
    run(["init", str(root)], tmp_path, e)
    with Daemon(root, e, tmp_path / "daemon.log") as d:
        d.wait_ready()
        for n in range(4):
            turns = "\n".join(f"{NAMES[(n + t) % 3]}: {SAID[(n * 3 + t) % len(SAID)]}" for t in range(6))
            (root / "inbox" / f"chat-{n}.txt").write_text(turns + f"\nPriya: Chat number {n} is over.\n")
            wait(lambda n=n: not (root / "inbox" / f"chat-{n}.txt").exists(), 60, f"chat {n} taken")
        time.sleep(1.5)  # the last input's views
        before = entry_files(root)
    assert "index.md" in before and any(k.startswith("people/") for k in before)
    script = ("import sys\nfrom memfs.api import Memory\nm = Memory(sys.argv[1])\n"
              "with m.lock('test'):\n    print(m.regenerate_views())\nm.close()\n")
    out = subprocess.run([sys.executable, "-c", script, str(root)], env=e, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
    assert entry_files(root) == before


def test_the_kept_reference_day_follows_dated_lines_in_any_file(ws_path: Path) -> None:
    """`NewestDay` (branch flat6) keeps each file's newest day with its view: lines of later
    and earlier days, in several files, forgotten again, move it as a full pass does."""
    import random

    from memfs.entry.poolcache import pool_for
    from memfs.views import _reference_day, state_for

    forget_state()
    rng = random.Random(3)
    with hashing_memory(ws_path) as mem:
        mem.sync()
        for _ in range(14):
            path = ws_path / "memory" / rng.choice(["events.md", "trips.md", "work.md"])
            text = path.read_text() if path.exists() else "---\ntitle: Events\n---\n"
            if rng.random() < 0.25 and text.count("\n- ") > 1:  # forget its newest line
                text = text[:text.rstrip("\n").rfind("\n") + 1]
            else:
                text += dated_line(FACTS[rng.randrange(len(FACTS))].format(n=NAMES[0]), rng.randint(1, 12))
            path.write_text(text)
            mem.sync()
            pool = pool_for(mem.ws)
            assert state_for(mem.ws).newest.get(pool) == _reference_day(pool)


def test_a_kept_files_day_follows_a_horizon_that_moves_back(ws_path: Path) -> None:
    """A line dated after its input counts as learned on its date once the horizon passes
    it: another file's newer line moves the horizon past it, and forgetting that line moves
    it back. The kept file's view is the same object throughout; its day must follow."""
    from memfs.entry.poolcache import pool_for
    from memfs.views import _reference_day, state_for

    def line(n: int, month: int, when: str = "") -> str:
        return (f"- Fact number {n} about the garden <!-- id=k{n:07d} type=event{when} "
                f"src=resources/2026/{month:02d}/14-chat-0123456789abcdef.json#S1:1 -->\n")

    forget_state()
    head = "---\ntitle: Notes\n---\n"
    a, b = ws_path / "memory" / "alpha.md", ws_path / "memory" / "beta.md"
    a.write_text(head + line(1, 5, " when=2026-07-01"))
    days = []
    with hashing_memory(ws_path) as mem:
        for text in (head + line(2, 6) + line(3, 8), head + line(2, 6), head + line(2, 6) + line(3, 8)):
            b.write_text(text)
            mem.sync()
            pool = pool_for(mem.ws)
            days.append(_reference_day(pool))
            assert state_for(mem.ws).newest.get(pool) == days[-1]
    assert days[0] == days[2] != days[1] == date(2026, 6, 14)  # not alpha's July 1 of the first
