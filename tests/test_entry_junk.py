"""What a reader of memory.md and people/ called wrong on LoCoMo's chats: a capitalised common
word that opens facts made a person ("Nature", "Writing", "Sometimes", "Since": 10-13 such
pages a conversation), and a pleasantry quoted into health.md showed as a constraint."""

from __future__ import annotations

from pathlib import Path

from memfs.entry.people import PageFront, common_word, find_people, lowercase_uses
from memfs.entry.pool import EntryItem
from memfs.views import forget_state
from tests.support.workspace import hashing_memory


def _item(k: int, text: str) -> EntryItem:
    return EntryItem(id=f"i{k:03d}", text=text, type="fact", when=None, src=None, seen=1, updated=None,
                     path="memory/events.md", line=k + 1)


def test_a_word_written_in_lower_case_more_than_it_opens_facts_is_no_one() -> None:
    counts = {"Writing": 3, "Caroline": 40, "Sometimes Nate": 2, "Will": 10, "Jade": 6}
    lowered = {"writing": 9, "sometimes": 1, "will": 80, "jade": 2}
    assert common_word("Writing", counts, lowered) and common_word("Sometimes Nate", counts, lowered)
    assert common_word("Will", counts, lowered)  # a name that is a common word needs its page
    assert not common_word("Caroline", counts, lowered) and not common_word("Jade", counts, lowered)
    assert not common_word("Writing", counts, None)  # no counts of the store: as before


def test_find_people_leaves_out_common_words_but_not_a_page_owned_name() -> None:
    texts = ["Writing helps Caroline relax.", "Writing is what Caroline does at night.",
             "Caroline is learning the piano.", "Caroline moved to Leeds.",
             "Will is Caroline's neighbour.", "Will fixed the fence.",
             "Caroline loves writing poems.", "Caroline will visit Oslo.", "Caroline said writing saves her."]
    items = [_item(k, t) for k, t in enumerate(texts)]
    lowered: dict[str, int] = {}
    from memfs.entry.indexfile import count_words

    for w, n in lowercase_uses(count_words(items)).items():
        lowered[w] = lowered.get(w, 0) + n
    names = {p.name for p in find_people(items, [], lowered)}
    assert "Caroline" in names and "Writing" not in names and "Will" not in names
    page = PageFront("people/will.md", "Will")
    assert {"Caroline", "Will"} <= {p.name for p in find_people(items, [page], lowered)}
    assert "Writing" in {p.name for p in find_people(items, [])}  # (what it was without the counts)


def test_no_page_for_a_common_word_in_the_entry_files(ws_path: Path) -> None:
    lines = ["Painting helps Mira relax after work.", "Painting is how Mira spends Sundays.",
             "Mira took up painting last spring.", "Mira sold a painting at the fair.",
             "Mira lives in Porto.", "Mira works as a nurse."]
    body = "".join(f"- {t} <!-- id=m{k:07d} type=fact -->\n" for k, t in enumerate(lines))
    (ws_path / "memory" / "hobbies.md").write_text("---\ntitle: Hobbies\n---\n" + body)
    forget_state()
    with hashing_memory(ws_path) as mem:
        mem.sync()
    pages = {p.name for p in (ws_path / "people").glob("*.md")}
    assert "mira.md" in pages and "painting.md" not in pages
    assert "## Painting" not in (ws_path / "memory.md").read_text()


def test_an_adverb_or_gerund_opening_a_fact_leads_no_name() -> None:
    from memfs.entry.people import _lead_names

    for text in ("Unfortunately, Gina lost her job in January.", "Losing Jon's job gave them a push.",
                 "Searching for a studio has been tricky.", "Winning a title is John's goal.",
                 "Mixing the new with the old is priceless."):
        assert _lead_names(text) == [], text
    assert _lead_names("Caroline went hiking with Mel.") == ["Caroline"]
    assert _lead_names("Caroline and Melanie moved to Leeds.") == ["Caroline"]
    assert _lead_names("Dana Whitfield joined the team.") == ["Dana", "Dana Whitfield"]
    assert _lead_names("Priya's sister works at the bank.") == ["Priya"]


def test_a_quoted_remark_filed_under_health_is_a_constraint_only_if_it_names_one() -> None:
    from memfs.entry.facets import is_filler

    names = ("Joanna", "Nate")
    assert is_filler("Joanna: The important thing is to stay positive.", "constraints", True, names)
    assert is_filler("Nate: Already doing that, but thanks for the advice.", "constraints", True, names)
    assert not is_filler("Joanna: I can't eat dairy, so no ice cream for me.", "constraints", True, names)
    assert not is_filler("Joanna has asthma.", "constraints", False, names)  # short, not quoted: kept


def test_a_line_filed_under_health_is_a_constraint_only_if_it_says_something_of_health() -> None:
    from memfs.entry.facets import facets_of

    assert facets_of("Caroline finds it empowering and cathartic.", "health", "profile", False) == ("other",)
    assert facets_of("Nature really helps Melanie reset and recharge.", "health", "profile", False) == ("other",)
    assert facets_of("Priya has asthma and carries an inhaler.", "health", "profile", False) == ("constraints",)
    assert facets_of("Tom sees a physiotherapist for his knee.", "health", "profile", False) == ("constraints",)
    assert facets_of("Priya is allergic to peanuts.", "health", "profile", False)[0] == "constraints"
