"""The rules under the entry files: facets, filler, people and aliases, learned dates."""

from __future__ import annotations

from collections import Counter
from datetime import date
from pathlib import Path

import pytest

from memfs.entry.facets import facets_of, is_filler
from memfs.entry.people import PageFront, find_people
from memfs.entry.pool import EntryItem, learned_dates


def item(text: str, n: int = 0, path: str = "memory/profile.md", when: str | None = None,
         src: str | None = "resources/2026/03/02-chat-0123456789abcdef.json#D1:1") -> EntryItem:
    return EntryItem(id=f"i{n:07d}", text=text, type="profile", when=when, src=src, seen=1, updated=None,
                     path=path, line=n + 1, learned="2026-03-02")


@pytest.mark.parametrize("text, want", [
    ("Priya is vegetarian and allergic to peanuts.", "constraints"),
    ("Priya stopped drinking coffee.", "constraints"),
    ("Priya now lives in Leeds, near Roundhay Park.", "home"),
    ("Big news: Priya moved to Leeds in August 2026.", "home"),
    ("Priya started as design lead at Brightwave.", "work"),
    ("Priya's dog Biscuit is a beagle.", "people"),
    ("Priya loves bouldering more than anything.", "preferences"),
    ("Priya goes bouldering every Thursday.", "habits"),
    ("Priya is planning to run a half marathon.", "plans"),
    ("Priya is training for the half marathon in April.", "plans"),
    ("Priya is called Pri by her friends.", "identity"),
])
def test_facets(text: str, want: str) -> None:
    assert facets_of(text, "events", "profile", future=False)[0] == want


def test_a_fact_can_have_two_facets_and_a_future_one_is_a_plan() -> None:
    assert facets_of("Priya lives in Manchester with her partner Tom.", "profile", "profile", False) == \
        ("home", "people")
    assert facets_of("Priya moves to Lisbon.", "profile", "profile", future=True) == ("plans",)
    assert facets_of("Nothing to see.", "hobbies", "profile", False) == ("preferences",)  # the file says it
    # A pet's name is no fact about who the person is.
    assert facets_of("Priya adopted a cat called Miso last spring.", "relationships", "profile", False) == ("people",)



@pytest.mark.parametrize("text, category", [
    ("Maria believes kindness is key.", "health"),
    ("Nate thinks Joanna should go to a writing convention.", "work"),
    ("Jon and Gina should make the studio look awesome.", "hobbies"),
    ("Tom really appreciates Priya's offer.", "relationships"),
    ("Priya is so glad the trip worked out.", "goals"),
    ("Nate shares a photo of a turtle on a rock.", "profile"),
])
def test_what_someone_thinks_or_showed_takes_no_facet_from_its_file(text: str, category: str) -> None:
    """Filed by meaning, such a line lands in the file of the topic it touches; it says
    nothing of the person's constraints, job or people, so it is an "other" fact."""
    assert facets_of(text, category, "profile", False) == ("other",)


@pytest.mark.parametrize("text, category, want", [
    ("Tom takes insulin before every meal.", "health", "health"),  # no opinion: the file says it
    ("Tom feels pain in his knee when he runs.", "health", "health"),  # a health word keeps it
    ("Priya thinks she is allergic to cats.", "health", "constraints"),  # the words say it
    ("John is off to do some taekwondo.", "health", "health"),  # the file: health, no constraint
    ("Priya thinks yoga helps her sleep.", "health", "other"),  # what she thinks, no health word
    ("Priya believes in hard work.", "relationships", "other"),
    ("Priya's friends threw her a party.", "relationships", "people"),
    ("Priya is a Scorpio through and through.", "events", "identity"),
    ("Looking back on those years is a blessing for Priya.", "profile", "identity"),  # the file, not "is a"
    ("Looking back on those years is a blessing for Priya.", "notes", "other"),
    # Verbs that often carry a fact keep the file's facet (a review's lines):
    ("Priya feels dizzy when she skips meals.", "health", "health"),
    ("Nate could not sleep without his CPAP machine.", "health", "health"),
    ("Tom is proud of his promotion to senior engineer.", "work", "work"),
    ("Maria is excited to start teaching at Lincoln High in September.", "work", "work"),
    ("Joanna knows Python, SQL and Go.", "profile", "identity"),
    ("Tom feels close to his stepdaughter Mia.", "relationships", "people"),
    ("Gina: I just opened my own online clothing store!", "work", "work"),  # a quoted remark too
    ("Gaming lets Nate make a living at something he is good at.", "notes", "other"),  # a living is no home
    ("Nate is living with his brother in Denver.", "notes", "home"),
    ("Melanie and Caroline enjoy each other's company at the lake.", "notes", "preferences"),
    ("Priya joined a new company in Leeds.", "notes", "work"),
    ("Priya founded a company of her own.", "notes", "work"),
    ("Melanie and Caroline enjoy each other\u2019s company at the lake.", "notes", "preferences"),
])
def test_the_file_is_the_facet_only_for_a_plain_statement(text: str, category: str, want: str) -> None:
    assert facets_of(text, category, "profile", False)[0] == want


def test_keywords_hold_no_stem_of_a_negation() -> None:
    """"isn't" is "is" and "n't", never the keyword "isn" (index.md showed "isn")."""
    from memfs.entry.indexfile import count_words

    items = [item(t, n) for n, t in enumerate(["Joanna isn't sure the script doesn't work.",
                                                 "Nate couldn’t find the ledger, and it wasn't there.",
                                                 "Tom's e-mail about C++ v1.2 and the ledger."])]
    counts, surface = count_words(items)
    assert not {"isn", "doesn", "couldn", "wasn"} & set(counts)
    assert counts["ledger"] == 2 and counts["script"] == 1 and counts["c++"] == 1 and counts["e-mail"] == 1
    assert count_words(items, 1, (Counter(), {}, set())) == (counts, surface)  # the loop agrees

def test_filler() -> None:
    names = ("Dana", "Priya")
    assert is_filler("Dana: Great, that saves us a sprint.", "other", quoted=True, names=names)
    assert is_filler("That saves Dana and others a sprint.", "other", quoted=False, names=names)
    assert not is_filler("Priya is vegan.", "constraints", quoted=False, names=names)
    assert not is_filler("Priya: The first prototype is due on 2026-11-20.", "plans", quoted=True, names=names)


def test_people_aliases_and_two_word_names() -> None:
    items = [item("Melanie paints sunrises.", 0), item("Melanie lives in Ohio.", 1), item("Mel has two kids.", 2),
             item("Mel loves camping.", 3), item("Dana Whitfield runs product.", 4), item("Dana likes tea.", 5),
             item("Dana Whitfield lives in York.", 6), item("Stack: Python 3.12 everywhere.", 7, "index/k.md"),
             item("Python is the main language.", 8, "index/k.md"), item("Python runs the API.", 9, "index/k.md"),
             item("Melanie met Dana at the gallery.", 10)]
    page = PageFront("people/melanie.md", "Melanie", ("Mel",))
    people = {p.name: p for p in find_people(items, [page])}
    assert set(people) == {"Melanie", "Dana"}  # "Mel" is Melanie, "Python" opens no fact about people
    assert {it.id for it in people["Melanie"].subject} == {"i0000000", "i0000001", "i0000002", "i0000003",
                                                           "i0000010"}
    assert people["Dana"].aliases == ("Dana Whitfield",) and [it.id for it in people["Dana"].mentions] == ["i0000010"]
    assert people["Melanie"].rel == "people/melanie.md"


def test_names_that_share_a_slug_get_their_own_pages() -> None:
    items = [item("Zoë lives in Oslo.", 0), item("Zoë flies planes.", 1), item("Zoë likes tea.", 2),
             item("Zoe lives in Rome.", 3), item("Zoe paints.", 4)]
    rels = sorted(p.rel for p in find_people(items, []))
    assert rels == ["people/zoe-2.md", "people/zoe.md"]


def test_the_user_is_a_person_when_nobody_is_named() -> None:
    items = [item("The user lives in Lisbon.", 0), item("The user's cat is called Miso.", 1)]
    people = find_people(items, [])
    assert [p.name for p in people] == ["the user"] and len(people[0].subject) == 2


def test_learned_dates_never_in_the_future_and_multi_session_inputs() -> None:
    chat = "resources/2026/03/02-chat-0123456789abcdef.json#D2:2"
    rows = [(chat, None, "2026-09-14"),   # said in a later session of the same input
            (chat, None, "2027-04-18"),   # a plan: learned on its input's day
            ("resources/2026/10/07-notes-0123456789abcdef.md#intro", None, None),
            (None, "2026-11-30", "2099-05-01")]  # added by hand on 2026-11-30, about 2099
    assert learned_dates(rows, today=date(2026, 12, 1)) == ["2026-09-14", "2026-03-02", "2026-10-07",
                                                            "2026-11-30"]
    assert learned_dates([(None, "2030-01-01", None)], today=date(2026, 12, 1)) == ["2026-12-01"]


