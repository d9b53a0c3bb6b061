"""index/ and skill/ files with no headings or sources split by a keyword their items
share (issue #18 item 4: one index/knowledge.md grew to 11,874 lines during ingest)."""

from __future__ import annotations

import random
from pathlib import Path

from memfs.core.categoryfile import parse_category
from memfs.entry.pool import EntryItem
from memfs.entry.split import keyword_topics, plan_split
from tests.support.workspace import hashing_memory

TOPICS = {
    "postgres": ["replica", "vacuum", "index", "connection pool", "WAL archive", "autovacuum"],
    "kafka": ["partition", "consumer group", "broker", "retention", "offset commit", "topic lag"],
    "terraform": ["state lock", "module", "provider", "plan output", "workspace", "drift"],
}
FILLER = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]


def _facts(n: int, seed: int = 3) -> list[str]:
    """Facts about three tools, each naming its tool once, with varied other words."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        tool = list(TOPICS)[i % 3]
        out.append(f"The {tool} {rng.choice(TOPICS[tool])} on cluster {FILLER[i % 10]}{i} was tuned in step {i}.")
    return out


def _all(root: Path, kind: str) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for path in sorted((root / kind).glob("*.md")):
        rel = f"{kind}/{path.name}"
        for it in parse_category(path.read_text(), rel).items:
            assert it.id not in out, f"{it.id} in two files"
            out[it.id] = (it.text, rel)
    return out


def _item(i: int, text: str, path: str = "index/notes.md") -> EntryItem:
    return EntryItem(id=f"i{i:05d}", text=text, type="knowledge", when=None, src=None, seen=1, updated=None,
                     path=path, line=i)


def test_keyword_topics_take_the_most_shared_word_first_and_never_a_word_nearly_all_hold() -> None:
    items = [_item(i, t) for i, t in enumerate(_facts(90))]
    got = keyword_topics(items, min_part=20)
    # "cluster", "tuned" and "step" are in every item: no topic. Each tool names 30 items.
    assert sorted(got) == ["kafka", "postgres", "terraform"]
    assert sorted(len(v) for v in got.values()) == [30, 30, 30]
    assert keyword_topics([_item(i, f"Fact number {i} about nothing in particular.") for i in range(300)]) == {}


def test_the_keyword_fallback_only_takes_what_headings_and_sources_left_over_the_limit() -> None:
    facts = _facts(90)
    items = [_item(i, f"{'Stack' if i < 60 else 'Decisions'}: {t}") for i, t in enumerate(facts)]
    assert sorted(plan_split(items, {}, limit=50)) == ["decisions", "stack"]  # headings took them all
    same = [_item(i, f"Stack: {t}") for i, t in enumerate(facts)]  # one heading holds everything:
    assert sorted(plan_split(same, {}, limit=50)) == ["kafka", "postgres", "terraform"]  # no topic
    few = [_item(i, t) for i, t in enumerate(_facts(40))]
    assert plan_split(few, {}, limit=50) == {}  # what is left is under the limit: stays in the parent


def test_a_big_index_file_without_headings_or_sources_splits_by_keyword(ws_path: Path) -> None:
    facts = _facts(240)
    (ws_path / "index" / "notes.md").write_text("# Notes\n\n" + "".join(f"- {t}\n" for t in facts))
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        after = _all(ws_path, "index")
        assert set(facts) <= {t for t, _ in after.values()}  # every fact kept, each once (_all)
        parts = sorted(p.name for p in (ws_path / "index").glob("notes--*.md"))
        assert parts == ["notes--kafka.md", "notes--postgres.md", "notes--terraform.md"]
        by_file = {rel: sum(1 for t, r in after.values() if r == rel and t in facts) for rel in
                   {r for _, r in after.values()}}
        assert by_file["index/notes--postgres.md"] == 80 and by_file.get("index/notes.md", 0) == 0
        assert "notes--kafka.md" in (ws_path / "index.md").read_text()
        mem.sync()
        assert _all(ws_path, "index") == after  # a second pass has nothing left to split
    finally:
        mem.close()


def test_a_skill_file_splits_by_keyword_too(ws_path: Path) -> None:
    facts = [f"To deploy with {tool} run the {rng} step number {i} first." for i, (tool, rng) in
             enumerate((["helm", "ansible", "docker"][i % 3], FILLER[i % 10]) for i in range(240))]
    (ws_path / "skill" / "deploy.md").write_text("# Deploy\n\n" + "".join(f"- {t}\n" for t in facts))
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        parts = sorted(p.name for p in (ws_path / "skill").glob("deploy--*.md"))
        assert parts == ["deploy--ansible.md", "deploy--docker.md", "deploy--helm.md"]
        assert {t for t, _ in _all(ws_path, "skill").values()} >= set(facts)
    finally:
        mem.close()


def test_a_file_fed_one_fact_at_a_time_stays_bounded(ws_path: Path) -> None:
    """What ingest does to a growing index/ file: every write past the limit splits it."""
    mem = hashing_memory(ws_path)
    mem.config.memory.split_items = 40
    try:
        largest = 0
        for text in _facts(150):
            mem.add(text, category="index/notes")
            largest = max(largest, (ws_path / "index" / "notes.md").read_text().count("\n- "))
        sizes = {p.name: p.read_text().count("\n- ") for p in (ws_path / "index").glob("notes*.md")}
        # Past the limit, the parent splits as soon as a keyword is shared by MIN_PART (20) items.
        assert largest <= 40 + 3 * 20, largest
        assert {"notes--kafka.md", "notes--postgres.md", "notes--terraform.md"} <= set(sizes)
        assert sum(sizes.values()) == 150  # nothing lost, nothing twice
    finally:
        mem.close()


def _nested_facts() -> list[str]:
    """300 facts: three tools (100 each), and under each tool two subjects (50 each)."""
    subjects = {"postgres": ("replica", "vacuum"), "kafka": ("broker", "retention"), "terraform": ("module", "drift")}
    return [f"The {tool} {subjects[tool][(i // 3) % 2]} on host {FILLER[i % 10]}{i} was checked in run {i}."
            for i in range(300) for tool in [list(subjects)[i % 3]]]


def test_a_part_past_the_limit_splits_again_into_siblings(ws_path: Path) -> None:
    """A keyword's part can hold a third of the notes: it splits like its parent did, into
    siblings of the same family (`notes--postgres-replica.md`), in the same sync."""
    facts = _nested_facts()
    (ws_path / "index" / "notes.md").write_text("# Notes\n\n" + "".join(f"- {t}\n" for t in facts))
    mem = hashing_memory(ws_path)
    mem.config.memory.split_items = 60
    try:
        mem.sync()
        after = _all(ws_path, "index")  # each item once (asserted by _all)
        assert {t for t, _ in after.values()} >= set(facts)
        sizes = {p.name: p.read_text().count("\n- ") for p in (ws_path / "index").glob("notes*.md")}
        assert max(sizes.values()) <= 60, sizes
        assert {"notes--postgres-replica.md", "notes--postgres-vacuum.md", "notes--kafka-broker.md",
                "notes--terraform-drift.md"} <= set(sizes), sizes
        index_md = (ws_path / "index.md").read_text()
        assert "notes--postgres-replica.md" in index_md
        assert "title: 'Notes: postgres replica'" in (ws_path / "index" / "notes--postgres-replica.md").read_text()
        mem.sync()
        assert _all(ws_path, "index") == after  # nothing left to split
    finally:
        mem.close()


def _priya_part(ws_path: Path, toms: int) -> None:
    """memory/events--priya.md: 150 of Priya's events over 2023 and 2024, and `toms` of Tom's."""
    lines = [f"- Priya went hiking at lake number {i} with her club. <!-- id=p{i:04d} type=event "
             f"when={2023 + i % 2}-05-{1 + i % 28:02d} -->\n" for i in range(150)]
    lines += [f"- Tom repaired bicycle number {i} in his garage. <!-- id=t{i:04d} type=event when=2024-03-03 -->\n"
              for i in range(toms)]
    (ws_path / "memory" / "events.md").write_text("---\ntitle: Events\n---\n- Dana baked bread on Sunday.\n")
    (ws_path / "memory" / "events--priya.md").write_text("---\ntitle: 'Events: priya'\n---\n" + "".join(lines))


def test_a_persons_part_of_memory_splits_by_year_and_hands_others_facts_to_their_part(ws_path: Path) -> None:
    """Under memory/, a part past the limit is its person's: another person's facts in it go
    to the family's part for them ("events--tom.md"), its own stay and split by year
    ("events--priya-2023.md"); nothing is lost or held twice (a part's own topic is never
    moved onto itself)."""
    _priya_part(ws_path, toms=30)
    mem = hashing_memory(ws_path)
    mem.config.memory.split_items = 60
    try:
        mem.sync()
        held: dict[str, str] = {}
        for path in sorted((ws_path / "memory").glob("events*.md")):
            for it in parse_category(path.read_text(), f"memory/{path.name}").items:
                assert it.id not in held, f"{it.id} in {held.get(it.id)} and {path.name}"
                held[it.id] = path.name
        assert len([i for i in held if i[0] in "pt"]) == 180
        assert {held[f"t{i:04d}"] for i in range(30)} == {"events--tom.md"}
        assert {held[f"p{i:04d}"] for i in range(150)} == {"events--priya-2023.md", "events--priya-2024.md"}
        assert "title: 'Events: tom'" in (ws_path / "memory" / "events--tom.md").read_text()
        assert "Events: priya 2023" in (ws_path / "memory" / "events--priya-2023.md").read_text()
    finally:
        mem.close()


def test_a_part_never_splits_its_own_topic_off_nor_hands_it_back(ws_path: Path) -> None:
    """Found by review: a person's part with a few facts about someone else never split (its
    own person was the plan, and a move onto itself is skipped), and a year's part handed its
    person's facts back to the person's part; an index/ part moved its own heading into
    `notes--stack-stack.md`. A part's own topic is never one of its parts."""
    _priya_part(ws_path, toms=3)
    stack = [f"- Stack: service {i} runs on postgres cluster {FILLER[i % 10]}{i}.\n" for i in range(50)]
    stack += [f"- Deploy: service {i} ships from the main branch at step {i}.\n" for i in range(25)]
    (ws_path / "index" / "notes.md").write_text("# Notes\n\n- The notes start here.\n")
    (ws_path / "index" / "notes--stack.md").write_text("---\ntitle: 'Notes: stack'\n---\n" + "".join(stack))
    mem = hashing_memory(ws_path)
    mem.config.memory.split_items = 60
    try:
        mem.sync()
        sizes = {p.name: p.read_text().count("\n- ") for k in ("memory", "index")
                 for p in (ws_path / k).glob("*--*.md")}
        assert sizes["events--priya-2023.md"] == 75 and sizes["events--priya-2024.md"] == 78, sizes
        assert sizes["events--priya.md"] == 0 and "events--priya-priya.md" not in sizes
        assert sizes["notes--stack.md"] == 50 and sizes["notes--stack-deploy.md"] == 25, sizes
        assert "notes--stack-stack.md" not in sizes
        mem.sync()
        assert {p.name: p.read_text().count("\n- ") for k in ("memory", "index")
                for p in (ws_path / k).glob("*--*.md")} == sizes  # settled: nothing moves back and forth
    finally:
        mem.close()
