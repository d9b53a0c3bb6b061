"""Choosing a category file for a new item (memfs/categorize.py): the kind from the type,
an existing category named by the hint, else the nearest "name: description" by meaning.
Also the step end to end: `Memory.add` files into the category the categorizer picked."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from memfs.categorize import FALLBACK, Categorizer, CategorySpec
from memfs.core.categoryfile import parse_category
from memfs.providers.hashing import HashingEmbedder
from tests.support.workspace import hashing_memory

SPECS = [
    CategorySpec("memory", "pets", "dogs cats animals the vet"),
    CategorySpec("memory", "work", "job office meetings colleagues"),
    CategorySpec("index", "knowledge", "facts about the world"),
    CategorySpec("skill", "procedures", "how to do things"),
]


class CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__(256)
        self.calls = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        return super().embed(texts)


def _vec(e: HashingEmbedder, text: str) -> np.ndarray:
    return e.embed([text])[0]


def test_the_nearest_description_of_the_types_kind_wins() -> None:
    e = CountingEmbedder()
    cat = Categorizer(e, SPECS)
    assert cat.choose(_vec(e, "Ana took her dogs and cats to the vet"), "profile").name == "pets"
    assert cat.choose(_vec(e, "Ana has meetings at the office with colleagues"), "event").name == "work"
    # A skill-type fact never lands in memory/, however close its words are to a memory file.
    assert cat.choose(_vec(e, "dogs cats animals the vet"), "skill").rel == "skill/procedures.md"
    assert cat.choose(_vec(e, "dogs cats"), "knowledge").rel == "index/knowledge.md"
    before = e.calls
    cat.choose(_vec(e, "more dogs"), "profile")
    assert e.calls == before + 1  # the category vectors are embedded once, not per choice


def test_an_existing_hint_wins_over_meaning_and_a_missing_one_does_not() -> None:
    e = HashingEmbedder(256)
    cat = Categorizer(e, SPECS)
    dogs = _vec(e, "dogs cats animals the vet")
    assert cat.choose(dogs, "profile", hint="Work").name == "work"  # slugified, then matched
    assert cat.choose(dogs, "profile", hint="holidays").name == "pets"  # no such file: by meaning
    assert cat.choose(dogs, "profile", hint="procedures").name == "pets"  # a file of another kind is no target


def test_no_vector_one_candidate_a_foreign_dimension_or_no_category_at_all() -> None:
    e = HashingEmbedder(256)
    cat = Categorizer(e, SPECS)
    assert cat.choose(None, "profile").name == "pets"  # no vector: the kind's first file
    assert cat.choose(np.ones(7, dtype=np.float32), "profile").name == "pets"  # another embedder's vector
    assert cat.choose(_vec(e, "anything"), "tool").name == "procedures"  # the only skill file
    empty = Categorizer(e, [])
    for type_, kind in (("profile", "memory"), ("knowledge", "index"), ("skill", "skill")):
        spec = empty.choose(_vec(e, "x"), type_)
        assert (spec.kind, spec.name) == (kind, FALLBACK[kind])
    assert empty.choose(None, "no-such-type").kind == "memory"


def test_add_files_into_the_category_the_step_chose(ws_path: Path) -> None:
    (ws_path / "memory" / "beekeeping.md").write_text("---\ntitle: Beekeeping\n---\n")
    with hashing_memory(ws_path) as mem:
        specs = {s.rel for s in mem.category_specs()}
        assert "memory/beekeeping.md" in specs  # a file a person created is a target at once
        mem.add("Beekeeping: Ana keeps two beekeeping hives.", type="profile")  # by name: "beekeeping: "
    items = parse_category((ws_path / "memory" / "beekeeping.md").read_text(), "memory/beekeeping.md").items
    assert [i.text for i in items] == ["Beekeeping: Ana keeps two beekeeping hives."]


FAMILY = [
    CategorySpec("memory", "events", "things that happened trips meetings"),
    CategorySpec("memory", "events--maria", ""),
    CategorySpec("memory", "events--maria-2023", ""),
    CategorySpec("memory", "events--2022", ""),
    CategorySpec("memory", "pets", "dogs cats animals the vet"),
    CategorySpec("index", "knowledge", "facts about the world"),
    CategorySpec("index", "knowledge--postgres", ""),
]


def test_a_persons_part_is_no_target_by_meaning() -> None:
    """A part's name is a person: every fact naming them came nearer to it than to any
    description, so her feelings were filed as events. Parts of index/ (a keyword) stay."""
    e = HashingEmbedder(256)
    cat = Categorizer(e, FAMILY)
    for text in ("Maria Maria is so happy", "Maria thinks Maria is right"):
        assert "--" not in cat.choose(_vec(e, text), "profile").name
    assert cat.choose(_vec(e, "Maria took her dogs and cats to the vet"), "profile", text="Maria took her dogs and "
                      "cats to the vet").name == "pets"  # her part is only for what the parent takes
    assert cat.choose(_vec(e, "knowledge postgres"), "knowledge").name == "knowledge--postgres"


def test_the_family_is_chosen_by_its_parent_then_the_part_by_person_and_year() -> None:
    e = HashingEmbedder(256)
    cat = Categorizer(e, FAMILY)
    trip = _vec(e, "things that happened trips")
    assert cat.choose(trip, "event", text="Maria went to Porto.", when="2024-05-01").name == "events--maria"
    assert cat.choose(trip, "event", text="Maria's trip to Porto.", when="2023-05-01").name == "events--maria-2023"
    assert cat.choose(trip, "event", text="Tom went to Porto.", when="2022-03-01").name == "events--2022"
    assert cat.choose(trip, "event", text="Tom went to Porto.", when="2024-03-01").name == "events"
    assert cat.choose(trip, "event", text="Tom went to Porto.").name == "events"
    assert cat.choose(None, "event", hint="events", text="Maria went.").name == "events--maria"  # a hint too


def test_add_files_a_persons_event_into_their_part(ws_path: Path) -> None:
    body = "".join(f"- Maria did thing {i}. <!-- id=m{i:07d} type=event -->\n" for i in range(3))
    (ws_path / "memory" / "events--maria.md").write_text("---\ntitle: 'Events: maria'\n---\n" + body)
    with hashing_memory(ws_path) as mem:
        mem.add("Maria went to Lisbon for the jazz festival.", type="event", when="2024-05-01")
        mem.add("Tom went to Lisbon for the jazz festival.", type="event", when="2024-05-01")
    part = (ws_path / "memory" / "events--maria.md").read_text()
    assert "Maria went to Lisbon" in part and "Tom went" not in part
    assert "Tom went to Lisbon" in (ws_path / "memory" / "events.md").read_text()


def test_review_cases_a_unicode_lead_a_part_hinted_exactly_and_an_orphaned_part() -> None:
    e = HashingEmbedder(256)
    specs = [*FAMILY, CategorySpec("memory", "events--lise", ""), CategorySpec("memory", "events--elise", ""),
             CategorySpec("memory", "trips--tom", "")]  # trips.md itself is gone
    cat = Categorizer(e, specs)
    trip = _vec(e, "things that happened trips")
    assert cat.choose(trip, "event", text="Élise went to Porto.").name == "events--elise"  # not "lise"
    assert cat.choose(trip, "event", text="Maria’s trip to Porto.").name == "events--maria"  # a curly possessive
    assert cat.choose(None, "event", hint="events--maria-2023", text="Tom went.").name == "events--maria-2023"
    assert cat.choose(_vec(e, "trips tom"), "event", text="Tom went.").name == "trips--tom"  # a target again
    assert not cat.needs_vector("event", hint="events--maria")


def test_add_into_a_part_named_exactly(ws_path: Path) -> None:
    """`memfs add -c events--maria` (the name index.md lists) writes into that part, not into
    a new file `events-maria.md`."""
    (ws_path / "memory" / "events--maria.md").write_text("---\ntitle: 'Events: maria'\n---\n"
                                                        "- Maria did a thing. <!-- id=m0000001 type=event -->\n")
    with hashing_memory(ws_path) as mem:
        mem.add("Maria went to Faro for the beach.", category="events--maria", type="event")
        mem.add("Maria went to Braga for the cathedral.", category="memory/events--maria", type="event")
    assert not (ws_path / "memory" / "events-maria.md").exists()
    part = (ws_path / "memory" / "events--maria.md").read_text()
    assert "Faro" in part and "Braga" in part
