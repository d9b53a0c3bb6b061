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

PEOPLE = ("Priya", "Dana", "Tom", "Zed", "Mira", "İpek")
TEXTS = ("{n}: great, thanks.", "{n} lives in Leeds with her partner.", "{n} is vegan.", "Thanks {n}, ok.",
         "That saves {n} a trip.", "{n} plans the Lisbon trip in May.", "Met {n}.", "{n}'s sister works at the bank.",
         "{n} went to a jazz concert.", "Sounds good to {n}!", "{n} and Dana moved to Oslo for a new job.")
CATEGORIES = ("memory/profile", "memory/events", "memory/goals", "index/knowledge", "memory/relationships")
TYPES = ("fact", "event", "preference", "knowledge")

fact = st.tuples(st.sampled_from(TEXTS), st.sampled_from(PEOPLE + ("zed", "PRIYA", "İpek".lower())),
                 st.sampled_from(CATEGORIES), st.sampled_from(TYPES), st.booleans(), st.booleans())
names_set = st.lists(st.sampled_from(PEOPLE), unique=True).map(lambda ns: tuple(sorted(ns)))
# (which of two long-lived processes, the names of each of its lookups before it saves)
step = st.tuples(st.integers(0, 1), st.lists(names_set, min_size=1, max_size=3), st.booleans(), st.integers(1, 12))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(facts=st.lists(fact, min_size=1, max_size=12), steps=st.lists(step, min_size=1, max_size=6))
def test_a_seed_serves_what_classifying_afresh_gives(tmp_path_factory: pytest.TempPathFactory,
                                                     facts: list[tuple], steps: list[tuple]) -> None:  # type: ignore[type-arg]
    """Two processes (a daemon and one-shot ingests, say) take turns writing the table; each
    classifies every fact under one to three sets of names before it saves (or starts
    afresh, a new process); each answer equals the rules' own."""
    db = IndexDB(tmp_path_factory.mktemp("seed") / "index.sqlite3")
    seeds: list[ClassSeed | None] = [None, None]
    try:
        for who, lookups, restart, upto in steps:
            if seeds[who] is None or restart:
                seeds[who] = ClassSeed()
                with db.snapshot():
                    seeds[who].load(db)  # type: ignore[union-attr]
            seed = seeds[who]
            assert seed is not None
            for names in lookups:
                for text, n, category, type_, future, dated in facts[:upto]:  # (new facts come later)
                    said = text.format(n=n)
                    assert classes(seed, said, category, type_, future, names, dated) == \
                        classes(None, said, category, type_, future, names, dated), (said, names, seed.base_names)
            seed.save(db)
    finally:
        db.close()


def test_a_table_another_process_rewrote_under_other_names_is_not_added_to(tmp_path: Path) -> None:
    """A daemon (p0) keeps its seed; a one-shot ingest (p1) rewrites the table under other
    names; the daemon's next save must not stamp its names over p1's rows."""
    db = IndexDB(tmp_path / "index.sqlite3")
    met = ("Met Priya.", "memory/events", "event", False)
    try:
        p0 = ClassSeed()
        p0.load(db)
        classes(p0, *met, ("Priya",), False)
        p0.save(db)
        p1 = ClassSeed()
        p1.load(db)
        classes(p1, *met, (), False)  # "Priya" is nobody to p1: the row is computed again, under ()
        p1.save(db)
        classes(p0, "Priya is vegan.", "memory/profile", "fact", False, ("Priya",), False)  # a row of p0's own
        p0.save(db)
        p2 = ClassSeed()
        p2.load(db)
        assert classes(p2, *met, ("Priya",), False) == classes(None, *met, ("Priya",), False)
    finally:
        db.close()


def test_a_save_rolled_back_changes_nothing_the_seed_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The seed takes its new names only once the table has them: after a failed commit, a
    later save must not label the old names' rows with the new names."""
    from memfs.index import factclasses

    db = IndexDB(tmp_path / "index.sqlite3")
    try:
        seed = ClassSeed()
        seed.load(db)
        text = "Zed: great, thanks from the Leeds office."
        classes(seed, text, "memory/events", "event", False, ("Priya",), False)
        seed.save(db)  # the table: computed under (Priya,)
        classes(seed, text, "memory/events", "event", False, ("Priya", "Zed"), False)
        real = factclasses.save

        def failing(*args: object, **kwargs: object) -> None:
            real(*args, **kwargs)  # type: ignore[arg-type]
            raise OSError("disk full")

        monkeypatch.setattr(factclasses, "save", failing)
        with pytest.raises(OSError):
            seed.save(db)
        monkeypatch.setattr(factclasses, "save", real)
        assert seed.base_names == ("Priya",)
        classes(seed, "Priya is vegan.", "memory/profile", "fact", False, ("Priya", "Zed"), False)
        seed.save(db)
        fresh = ClassSeed()
        fresh.load(db)
        names = ("Priya", "Zed")
        assert classes(fresh, text, "memory/events", "event", False, names, False) == \
            classes(None, text, "memory/events", "event", False, names, False)
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



@pytest.mark.parametrize("name", ["_SAID", "_HEALTH", "_DANGLING", "_WORD"])
def test_a_pattern_whose_flags_changed_is_other_rules(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A flag-only edit (IGNORECASE) changes what a pattern matches: rows made before it are stale."""
    before = classseed.rules_digest()
    rx = getattr(facets, name)
    monkeypatch.setattr(facets, name, facets.re.compile(rx.pattern, rx.flags | facets.re.IGNORECASE | facets.re.DOTALL))
    classseed.rules_digest.cache_clear()
    try:
        assert classseed.rules_digest() != before
    finally:
        classseed.rules_digest.cache_clear()

def test_any_text_has_a_key() -> None:
    assert classseed.key_of("caf\udce9 opens at 9", "memory/events", "event", False) != \
        classseed.key_of("caf\udce8 opens at 9", "memory/events", "event", False)


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


def test_every_pattern_the_rules_read_is_in_the_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    """A module-level pattern the classification reads by name (its code names it, not its
    text) must be digested itself: changing it must serve no row computed with the old one."""
    import re

    before = classseed.rules_digest()
    for name in ("_HEALTH", "_DANGLING", "_WORD"):
        monkeypatch.setattr(facets, name, re.compile(getattr(facets, name).pattern + "|zz"))
        classseed.rules_digest.cache_clear()
        assert classseed.rules_digest() != before, name
        monkeypatch.undo()
    classseed.rules_digest.cache_clear()
