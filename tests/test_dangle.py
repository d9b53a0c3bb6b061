"""No stored line opens on a pronoun that points at nothing (issue #19 item 4).

A line opening a turn on "It"/"They"/"That"/"He" is resolved when the context names
exactly one thing (the question before it, the sentence before it, the speaker's own turn
the question asks about), rewritten when the pointer only frames a fact that names its
subject, and otherwise kept as said. A wrong guess writes a false fact, so two candidates
resolve nothing. (Dropping the unresolved lines was measured and not kept: they are the
evidence some LoCoMo questions retrieve, hit@10 0.812 -> 0.783.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memfs.core.segment import ParsedSource, Segment
from memfs.extract import extract_offline
from memfs.extract.dangle import pointer, settle
from tests.support.cli import init, run
from tests.test_extract_lines import REF

PEOPLE = ("Priya", "Tom")
_OPENS_ON_POINTER = re.compile(r"^(?:\w+: )?(?:It|It's|They|They're|Their|That's|He|She|This)\b")


def lines(*turns: tuple[str, str]) -> list[str]:
    segs = [Segment(anchor=f"D1:{i}", speaker=spk, text=text, time=REF)
            for i, (spk, text) in enumerate(turns, 1)]
    src = ParsedSource(kind="conversation", format="test", participants=list(PEOPLE), time=REF, segments=segs)
    return [f.text for f in extract_offline(src)]


def of_turn(got: list[str], n: int, *turns: tuple[str, str]) -> list[str]:
    """The lines of turn `n` (1-based): what the extractor makes of it after the turns before."""
    before = lines(*turns[: n - 1])
    return [t for t in got if t not in before]


def test_the_thing_the_question_asks_about_becomes_the_subject() -> None:
    turns = (("Tom", "How was the pottery class?"), ("Priya", "It ran for three hours and ended with a glaze demo."))
    got = lines(*turns)
    assert any("The pottery class ran for three hours and ended with a glaze demo" in t for t in got), got
    assert not any(_OPENS_ON_POINTER.match(t) for t in got)


def test_a_question_naming_its_kind_of_thing_resolves_it() -> None:
    got = lines(("Tom", "Which bakery was it?"), ("Priya", "It was Dough and Co on Elm Street."))
    assert any("The bakery was Dough and Co on Elm Street" in t for t in got), got


def test_the_speakers_own_turn_before_the_question_names_it() -> None:
    got = lines(("Priya", "I finally joined a climbing gym."), ("Tom", "Nice! What made you pick it?"),
                ("Priya", "It stays open until midnight on weekdays."))
    assert any(t.endswith("The climbing gym stays open until midnight on weekdays.") for t in got), got


def test_two_candidates_resolve_nothing_and_the_line_is_not_stored() -> None:
    # A yes-no question names no one thing; nothing else in reach does (``reach``).
    got = lines(("Tom", "Did you take the train or the bus?"), ("Priya", "It broke down twice near Crewe."))
    assert not any("It broke down twice near Crewe" in t for t in got), got
    assert not any(w in t for t in got for w in ("train broke", "bus broke")), got  # a guess either way


def test_a_question_that_itself_points_further_back_resolves_nothing() -> None:
    turns = (("Priya", "I read two books and watched a documentary about the war."),
             ("Tom", "What did you learn from it?"),
             ("Priya", "It taught me patience and how to ask for help."))
    got = lines(*turns)
    assert not any("It taught Priya patience" in t for t in got), got  # the books? the documentary?
    assert not any(w in t for t in got for w in ("books taught", "documentary taught")), got


def test_a_statement_by_the_other_speaker_with_an_indefinite_thing_is_no_topic() -> None:
    got = lines(("Tom", "We had a blast at a karaoke bar downtown."),
                ("Priya", "It helps me unwind after long shifts at the hospital."))
    assert not any("karaoke bar helps" in t for t in got), got  # no topic: quoted, not resolved
    assert ('Priya, after Tom said "We had a blast at a karaoke bar downtown.": It helps Priya unwind after '
            "long shifts at the hospital.") in got, got


def test_a_frame_around_a_fact_that_names_its_subject_goes() -> None:
    got = lines(("Tom", "How are you holding up?"), ("Priya", "It's been rough, but I'm sleeping better now."))
    assert "Priya is sleeping better now." in got, got
    got = lines(("Tom", "Good for you!"), ("Priya", "That's why I started cycling to work."))
    assert any(t.startswith("Priya started cycling to work") for t in got), got


def test_agreement_before_a_view_goes_and_the_view_stays() -> None:
    got = lines(("Tom", "Gardening calms me down."), ("Priya", "It's true, fresh air has a way of clearing my head."))
    assert any("Fresh air has a way of clearing" in t for t in got), got
    assert not any(_OPENS_ON_POINTER.match(t) for t in got), got


@pytest.mark.parametrize("text", [
    "It's been two years since I moved to Leeds.",  # a dummy "it" that points forward
    "There are three bakeries on my street.",  # existential "there"
])
def test_a_dummy_subject_is_no_pointer_and_stays(text: str) -> None:
    got = lines(("Priya", text))
    assert got and ("Leeds" in got[0] or "bakeries" in got[0]), got


def test_a_name_in_the_speakers_sentence_before_resolves_he() -> None:
    asked = "What's the worst thing Biscuit has done?"  # "Biscuit" is a name: capitalised mid-sentence
    assert settle("He chewed through Priya's charger cable.", "Priya", PEOPLE,
                  before="Biscuit's a menace!", previous=asked) == "Biscuit chewed through Priya's charger cable."
    # "Thanks, Tom!" names the listener, not what "he" is: nothing to resolve
    assert settle("He chewed through Priya's charger cable.", "Priya", PEOPLE,
                  before="Thanks, Tom!", previous="") == "He chewed through Priya's charger cable."


def test_the_pronoun_must_agree_with_the_one_candidate() -> None:
    # "They" cannot be "the pottery class"
    assert settle("They were really patient with beginners.", "Priya", PEOPLE, before="",
                  previous="How was the pottery class?", listener="Tom") == \
        "They were really patient with beginners."
    assert settle("They were really patient with beginners.", "Priya", PEOPLE, before="",
                  previous="How were the instructors?", listener="Tom") == \
        "Priya: The instructors were really patient with beginners."


def test_a_view_of_the_whole_situation_is_not_pinned_on_a_thing() -> None:
    # "It was tough" means the week, the move, all of it; "the move" would be a guess
    assert settle("It was tough on everyone.", "Priya", PEOPLE, before="", previous="How did the move go?",
                  listener="Tom") == "It was tough on everyone."


@pytest.mark.parametrize("text, expected", [
    ("It taught Priya patience.", "it"),
    ("That roadtrip was long.", None),  # a determiner names its thing
    ("That saves Dana a sprint.", "that"),  # ... but "that" before a verb is the pronoun
    ("It's great to see the sea again.", None),  # a dummy "it": what it is comes after
    ("It was nice seeing everyone at the reunion.", None),
    ("It's such a relief to have the keys at last.", None),
    ("It was so interesting and blew Priya away.", "it was"),  # "so interesting" is no dummy
    ("It was an amazing rush.", "it was"),
    ("It's like escaping to another world.", "it's"),  # "like": what "it" is, is said before
    ("It's moments like these that keep Priya going.", "it's"),  # a cleft: "these" points back
    ("Priya loved it.", None),
])
def test_pointer_reads_the_opening_only(text: str, expected: str | None) -> None:
    assert pointer(text) == expected


def test_pointers_are_resolved_or_kept_as_said_through_the_cli(tmp_path: Path) -> None:
    ws = init(tmp_path / "ws")
    chat = {"format": "memfs.conversation/1", "participants": ["Priya", "Tom"], "sessions": [{
        "id": "S1", "time": "2026-10-05T10:00:00", "turns": [
            {"id": "D1:1", "speaker": "Priya", "text": "I signed up for a sourdough course in York."},
            {"id": "D1:2", "speaker": "Tom", "text": "Cool! What's the course like?"},
            {"id": "D1:3", "speaker": "Priya", "text": "It meets every Thursday evening in a church hall."},
            {"id": "D1:4", "speaker": "Tom", "text": "What did you think of it?"},
            {"id": "D1:5", "speaker": "Priya", "text": "Thanks! It made me rethink a lot of things."},
            {"id": "D1:6", "speaker": "Tom", "text": "I saw a film and a play at the weekend."},
            {"id": "D1:7", "speaker": "Priya", "text": "They sound fun."}]}]}
    src = tmp_path / "chat.json"
    src.write_text(json.dumps(chat), encoding="utf-8")
    run(["ingest", str(src)], cwd=ws)
    texts = [ln.split(" <!--")[0][2:] for f in sorted((ws / "memory").rglob("*.md"))
             for ln in f.read_text(encoding="utf-8").splitlines() if ln.startswith("- ")]
    assert any("The course meets every Thursday evening in a church hall" in t for t in texts), texts
    assert not any(t.startswith(("It meets", "Priya: It meets")) for t in texts), texts
    # "it" asked about by a question that itself points back: kept as said, never guessed
    assert not any("course made" in t or "film" in t and "rethink" in t for t in texts), texts


def test_an_unresolved_follow_up_joins_the_line_just_before_it_in_the_turn() -> None:
    # "Her" has no candidate the rules may take ("a rescue greyhound" is no name or relative),
    # but the sentence just before it is a line: joined, the pair reads on its own.
    got = lines(("Priya", "We adopted a rescue greyhound last month. Her name is Pip and she sleeps all day."))
    assert got == ["Priya and others adopted a rescue greyhound in April 2023. Her name is Pip and she sleeps all day."]


def test_a_pointer_opening_the_turn_is_not_joined_to_the_line_after_it() -> None:
    # Only the sentence before a pointer can say what it means.
    got = lines(("Tom", "How was the week?"),
                ("Priya", "It was a long haul. I finished my thesis on Monday."))
    assert "Priya finished their thesis on 2023-05-08." in got, got


def test_a_question_that_names_nothing_asks_about_the_sentence_before_it() -> None:
    got = lines(("Tom", "Woah, that whiteboard has a bunch of good ideas! How are you going to keep track?"),
                ("Priya", "It helps me keep track of ideas and deadlines."))
    assert "The whiteboard helps Priya keep track of ideas and deadlines." in got, got


def test_a_question_that_names_nothing_after_an_indefinite_statement_resolves_nothing() -> None:
    got = lines(("Tom", "I found a new hiking trail! How do you stay so fit?"),
                ("Priya", "It helps me to swim every morning."))
    assert not any("trail helps" in t for t in got), got


@pytest.mark.parametrize("turn,expected", [
    # The frame goes when what follows names the speaker; their own singular "they" and an
    # idiom's "it" ("give it their best") point at nothing.
    ("Thanks! It's been a bumpy month, but I'm feeling good and ready to give it my best.",
     "Priya is feeling good and ready to give it their best."),
    ("It wasn't easy, but I'm proud of what I built.", "Priya is proud of what they built."),
    ("It means a lot that you liked the scarf I knitted.", "Tom liked the scarf Priya knitted."),
    ("That's okay, I'll try again at the spring race.", "Priya will try again at the spring race."),
])
def test_a_frame_before_the_speakers_own_fact_goes(turn: str, expected: str) -> None:
    got = lines(("Tom", "How did the week go?"), ("Priya", turn))
    assert expected in got, got


def test_a_frame_whose_rest_still_points_stays() -> None:
    # "them" after the name is not the speaker: the rest would still point at nothing.
    got = lines(("Tom", "What do you think of the new podcasts?"),
                ("Priya", "That's why I love them so much."))
    assert not any(t.startswith("Priya loves them") for t in got), got


@pytest.mark.parametrize("text", ["It means a lot to share this with you.", "It means so much having you in my corner."])
def test_thanks_said_as_it_means_a_lot_is_talk(text: str) -> None:
    assert lines(("Priya", text)) == []


def test_a_title_the_speakers_turn_went_on_about_is_what_a_pointing_question_asks_about() -> None:
    # The turn names one quoted title and goes on about it with "It"; its author after "by"
    # is not the topic. "It taught me" is otherwise a view of the situation: here it is the book.
    turns = (("Priya", 'I just finished "The Overstory" by Richard Powers. It is a novel about trees and '
                       'the people who love them. It made me cry twice.'),
             ("Tom", "Sounds great! What did you take away from it?"),
             ("Priya", "It taught me patience and to look up more often."))
    got = lines(*turns)
    assert "The Overstory taught Priya patience and to look up more often." in got, got
    assert not any("Richard Powers taught" in t for t in got), got


def test_two_titles_or_no_it_after_the_title_resolve_nothing() -> None:
    two = (("Priya", 'I read "Dune" and "Emma" this month. It was a good month for books.'),
           ("Tom", "Nice! What did you take away from it?"), ("Priya", "It taught me patience."))
    assert not any("taught Priya patience" in t for t in lines(*two))  # which book: not stored
    no_it = (("Priya", 'I read "Dune" this month. My sister lent it to me.'),
             ("Tom", "Nice! What did you take away from it?"), ("Priya", "It taught me patience."))
    assert not any("taught Priya patience" in t for t in lines(*no_it))


def test_a_reaction_before_the_question_names_nothing_so_the_speakers_turn_is_asked_about() -> None:
    turns = (("Tom", "We played Carcassonne all night. I love it!"),
             ("Priya", "Looks cool! Is it more of a competitive game or a chill one?"),
             ("Tom", "It can be both competitive and chill."))
    got = lines(*turns)
    assert "Tom: Carcassonne can be both competitive and chill." in got, got
