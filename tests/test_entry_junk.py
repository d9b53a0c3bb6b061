"""What a reader of memory.md and people/ called wrong on LoCoMo's chats: a capitalised common
word that opens facts made a person ("Nature", "Writing", "Sometimes", "Since": 10-13 such
pages a conversation), and a pleasantry quoted into health.md showed as a constraint."""

from __future__ import annotations

from pathlib import Path

from memfs.entry.people import common_word, find_people
from memfs.entry.pool import EntryItem
from memfs.views import forget_state
from tests.support.workspace import hashing_memory


def _item(k: int, text: str) -> EntryItem:
    return EntryItem(id=f"i{k:03d}", text=text, type="fact", when=None, src=None, seen=1, updated=None,
                     path="memory/events.md", line=k + 1)


def test_a_word_written_in_lower_case_and_never_capitalised_inside_a_sentence_is_no_one() -> None:
    counts = {"Writing": 3, "Caroline": 40, "Writing Nate": 2, "Rose": 6, "Dana": 6, "Max": 4}
    case = {"Writing": (9, 4), "Caroline": (0, 55), "Rose": (3, 10), "Dana": (3, 6), "Max": (4, 9)}
    assert common_word("Writing", counts, case) and common_word("Writing Nate", counts, case)
    assert not common_word("Caroline", counts, case)
    assert not common_word("Rose", counts, case)  # "with Rose" inside sentences, "rose" now and then
    assert not common_word("Dana", counts, case)  # "hey dana" in chat text, fewer times than her facts
    assert not common_word("Max", counts, case)  # "max speed", but "told Max" five times
    assert not common_word("Writing", counts, None)  # no counts of the store: as before



def test_a_plain_verb_opening_lines_whose_subject_was_lost_is_no_one() -> None:
    """"Makes Melanie feel connected." twice made a page "Makes": the store never writes
    "makes" as a keyword (a plain verb), so no lower-case count could tell."""
    counts = {"Makes": 2, "Makes Melanie": 2, "Mabel": 2}
    case = {"Makes": (0, 2), "Mabel": (0, 2)}
    assert common_word("Makes", counts, case) and common_word("Makes Melanie", counts, case)
    assert common_word("Makes", counts, None)
    assert not common_word("Mabel", counts, case)

def test_find_people_leaves_out_common_words_but_not_names() -> None:
    from memfs.entry.incremental import CaseUses
    from memfs.entry.indexfile import count_words

    texts = ["Writing helps Caroline relax.", "Writing is what Caroline does at night.",
             "Caroline is learning the piano.", "Caroline moved to Leeds.",
             "Rose is Caroline's neighbour.", "Rose fixed the fence.", "Caroline planted a rose for Rose.",
             "Caroline loves writing poems.", "Caroline said writing saves her.", "Painting with Rose was fun."]
    items = [_item(k, t) for k, t in enumerate(texts)]
    case = CaseUses([count_words(items)])
    names = {p.name for p in find_people(items, [], case)}
    assert {"Caroline", "Rose"} <= names and "Writing" not in names
    assert "Writing" in {p.name for p in find_people(items, [])}  # (what it was without the counts)


def test_an_adverb_or_gerund_opening_a_fact_leads_no_name() -> None:
    from memfs.entry.people import _lead_names

    for text in ("Unfortunately, Gina lost her job in January.", "Losing Jon's job gave them a push.",
                 "Searching for a studio has been tricky.", "Winning a title is John's goal.",
                 "Mixing the new with the old is priceless.", "Living in Porto suits Tom.",
                 "Sometimes it is hard for Jon.", "Seeing them happy makes Gina smile."):
        assert _lead_names(text) == [], text
    assert _lead_names("Caroline went hiking with Mel.") == ["Caroline"]
    assert _lead_names("Caroline and Melanie moved to Leeds.") == ["Caroline"]
    assert _lead_names("Dana Whitfield joined the team.") == ["Dana", "Dana Whitfield"]
    assert _lead_names("Priya's sister works at the bank.") == ["Priya"]
    assert _lead_names("Caroline, a counselor, lives in Leeds.") == ["Caroline"]
    assert _lead_names("Dana Whitfield's team won the cup.") == ["Dana", "Dana Whitfield"]
    assert _lead_names("Jon the plumber fixed the sink.") == ["Jon"]
    assert _lead_names("Caroline with Mel visited Oslo.") == ["Caroline"]


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


def test_a_quoted_remark_filed_under_health_is_kept_only_if_it_names_a_health_matter() -> None:
    from memfs.entry.facets import facets_of, is_filler

    names = ("Joanna", "Nate")
    assert facets_of("Joanna: The important thing is to stay positive.", "health", "profile", False) == ("health",)
    assert is_filler("Joanna: The important thing is to stay positive.", "health", True, names)
    assert is_filler("Nate: Already doing that, but thanks for the advice.", "health", True, names)
    assert facets_of("Joanna: I can't eat dairy, so no ice cream for me.", "health", "profile", False) == \
        ("constraints",)
    assert not is_filler("Joanna: I can't eat dairy, so no ice cream for me.", "constraints", True, names)
    assert not is_filler("Joanna has asthma.", "health", False, names)  # short, not quoted: kept
    assert not is_filler("Nate: Fine.", "constraints", True, names)  # a constraint never is
    for said in ("Tom: No alcohol for me, I'm pregnant.", "Tom: I can't have sugar, doctor's orders.",
                 "Tom: I need my insulin before we eat.", "Tom: I can't do stairs anymore."):
        assert not is_filler(said, "health", True, ("Tom",)), said
