"""Facet classifications kept in the index (entry/classseed.py): a fresh process serves a
fact's facets and filler from the table only where the rules, the fact and (for a text that
names someone) the people's names are what they were computed from; the entry files are
byte for byte those of a regeneration with the table empty."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfs.entry import classseed, facets
from memfs.entry.classseed import ClassSeed, classes, decode, encode
from memfs.index.db import IndexDB
from memfs.views import forget_state, state_for
from memfs.workspace import init_workspace
from tests.support.workspace import hashing_memory

PEOPLE = ("Priya", "Dana", "Tom", "Zed", "Mira")
TEXTS = ("{n}: great, thanks.", "{n} lives in Leeds with her partner.", "{n} is vegan.", "Thanks {n}, ok.",
         "That saves {n} a trip.", "{n} plans the Lisbon trip in May.", "Met {n}.", "{n}'s sister works at the bank.",
         "{n} went to a jazz concert.", "Sounds good to {n}!", "{n} and Dana moved to Oslo for a new job.")
CATEGORIES = ("memory/profile", "memory/events", "memory/goals", "index/knowledge", "memory/relationships")
TYPES = ("fact", "event", "preference", "knowledge")

fact = st.tuples(st.sampled_from(TEXTS), st.sampled_from(PEOPLE + ("zed", "PRIYA")), st.sampled_from(CATEGORIES),
                 st.sampled_from(TYPES), st.booleans(), st.booleans())
names_set = st.lists(st.sampled_from(PEOPLE), unique=True).map(lambda ns: tuple(sorted(ns)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(facts=st.lists(fact, min_size=1, max_size=12),
       steps=st.lists(st.lists(names_set, min_size=1, max_size=2), min_size=1, max_size=4))
def test_a_seed_serves_what_classifying_afresh_gives(tmp_path_factory: pytest.TempPathFactory,
                                                     facts: list[tuple], steps: list[list[tuple[str, ...]]]
                                                     ) -> None:  # type: ignore[type-arg]
    """Each step is a process (a seed loaded from the index, saved at its end) classifying
    every fact under one or two sets of names; each answer equals the rules' own."""
    db = IndexDB(tmp_path_factory.mktemp("seed") / "index.sqlite3")
    try:
        for step in steps:
            seed = ClassSeed()
            seed.load(db)
            for names in step:
                for text, who, category, type_, future, dated in facts:
                    said = text.format(n=who)
                    assert classes(seed, said, category, type_, future, names, dated) == \
                        classes(None, said, category, type_, future, names, dated), (said, names, seed.base_names)
            seed.save(db)
    finally:
        db.close()


def test_a_text_naming_someone_new_is_classified_again(tmp_path: Path) -> None:
    """"Zed: great, thanks." is a quoted remark (filler) only once Zed is someone; a row
    computed before is not served, and "Priya is vegan." (no changed name in it) is."""
    db = IndexDB(tmp_path / "index.sqlite3")
    try:
        seed = ClassSeed()
        seed.load(db)
        before = classes(seed, "Zed: great, thanks from the Leeds office.", "memory/events", "event", False,
                         ("Priya",), False)
        classes(seed, "Priya is vegan.", "memory/profile", "fact", False, ("Priya",), False)
        seed.save(db)
        later = ClassSeed()
        later.load(db)
        names = ("Priya", "Zed")
        assert classes(later, "Zed: great, thanks from the Leeds office.", "memory/events", "event", False, names,
                       False) != before
        assert later.hits == 0
        classes(later, "Priya is vegan.", "memory/profile", "fact", False, names, False)
        assert later.hits == 1
    finally:
        db.close()


def test_the_rules_digest_is_the_same_in_every_process() -> None:
    """A code object's repr holds its address: a digest over it would serve no row ever."""
    code = "from memfs.entry.classseed import rules_digest; print(rules_digest())"
    got = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
           for _ in range(2)}
    assert got == {classseed.rules_digest()}


def test_rows_made_by_other_rules_are_not_served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = IndexDB(tmp_path / "index.sqlite3")
    try:
        seed = ClassSeed()
        seed.load(db)
        classes(seed, "Priya is vegan.", "memory/profile", "fact", False, ("Priya",), False)
        seed.save(db)
        monkeypatch.setattr(facets, "_RULES", facets._RULES + (("habits", facets.re.compile(r"\bvegan\b")),))
        classseed.rules_digest.cache_clear()
        later = ClassSeed()
        later.load(db)
        assert later.base == {}
    finally:
        classseed.rules_digest.cache_clear()
        db.close()


def test_a_damaged_code_is_a_miss() -> None:
    for code in (-1, 1 << 12, 15, 3 << 10, 0x21):  # past the bits, no such facet, moved=3, a facet twice
        assert decode(code) is None
    for parts in ((("home",), False, True, None), (("plans", "people"), True, False, True)):
        assert decode(encode(*parts)) == parts


def test_a_fresh_process_reads_the_table_and_writes_the_same_entry_files(tmp_path: Path) -> None:
    root = init_workspace(tmp_path / "w", git=False).root
    forget_state()
    with hashing_memory(root) as mem:
        for n, name in enumerate(("Priya", "Dana", "Tom")):
            mem.add(f"{name} lives in Leeds with her partner.", category="memory/profile")
            mem.add(f"{name}: great, thanks.", category="memory/events")
            mem.add(f"{name} plans to visit Lisbon in May.", category="memory/goals", when="2027-05")
        mem.add("Zed: sounds good to me.", category="memory/events")
        before = {p.name: p.read_bytes() for p in [root / "memory.md", *sorted((root / "people").glob("*.md"))]}
        forget_state()  # a fresh process: classifications come from the table
        with mem.lock("test"):
            assert mem.regenerate_views() == []
        assert state_for(mem.ws).facets.seed.hits > 0
        db = mem.indexer.db
        with db.transaction() as conn:  # and with the table empty: the same bytes
            conn.execute("DELETE FROM fact_classes")
        forget_state()
        with mem.lock("test"):
            assert mem.regenerate_views() == []
        assert state_for(mem.ws).facets.seed.hits == 0
        assert {p.name: p.read_bytes() for p in [root / "memory.md", *sorted((root / "people").glob("*.md"))]} \
            == before
        assert json.loads(db.get_meta("fact_classes_names") or "[]")
