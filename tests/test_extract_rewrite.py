"""Chat sentences rewritten into what they mean (issue #19): the view gets its holder, a
general statement is its speaker's belief, hedges and thanks-talk go, a line never opens
on a "They" that points at nothing."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memfs.core.segment import ParsedSource, Segment
from memfs.extract import extract_offline
from memfs.extract.rewrite import drop_hedges, general_belief, speaker_view

REF = datetime(2023, 7, 17, 10, 0, tzinfo=timezone.utc)


def lines(*turns: tuple[str, str]) -> list[str]:
    segs = [Segment(anchor=f"D1:{i}", speaker=spk, text=text, time=REF)
            for i, (spk, text) in enumerate(turns, 1)]
    src = ParsedSource(kind="conversation", format="test", participants=["Gina", "Jon"],
                       time=REF, segments=segs)
    return [f.text for f in extract_offline(src)]


def test_an_evaluation_on_a_dummy_it_names_whose_view_it_is_and_stands_alone() -> None:
    got = lines(("Gina", "We went camping two weekends ago. It was great to unplug and hang with the kids."))
    assert "Gina found it great to unplug and hang with the kids." in got
    # before: glued onto the camping line as "... It was great to unplug ..."
    assert not any("camping" in t and "unplug" in t for t in got)


def test_a_bare_evaluation_names_the_one_thing_it_judges_and_stands_alone() -> None:
    got = lines(("Gina", "Last Friday I went to a council meeting for adoption. It was inspiring and emotional."))
    assert got == ["On 2023-07-14 Gina went to a council meeting for adoption.",
                   "Gina found the council meeting inspiring and emotional."]


def test_a_bare_evaluation_stays_with_the_fact_it_judges_when_it_could_mean_two_things() -> None:
    got = lines(("Gina", "Last Friday I took my kids to a concert in the park. It was inspiring and emotional."))
    assert got == ["On 2023-07-14 Gina took their kids to a concert in the park. "
                   "They found it inspiring and emotional."]


@pytest.mark.parametrize("sentence, expected", [
    ("It's been so helpful to have people around me", "I have found it so helpful to have people around me"),
    ("It was amazing seeing the community come together", "I found it amazing seeing the community come together"),
    ("It's amazing how art can show feelings", "I find it amazing how art can show feelings"),
])
def test_speaker_view_rewrites_the_dummy_it(sentence: str, expected: str) -> None:
    assert speaker_view(sentence) == (expected, True)


@pytest.mark.parametrize("sentence", [
    "It's great that you found a new job.",      # the listener's news: not the speaker's view
    "It's great to see you so happy.",           # speaks to the listener
    "It's special to me.",                       # "to me" is no complement
    "It feels great to have their trust.",       # "feels" is kept as said
    "It was inspiring.",                         # bare: only when joining a fact
])
def test_speaker_view_leaves_other_sentences_alone(sentence: str) -> None:
    assert speaker_view(sentence) == (sentence, False)


def test_a_named_view_that_is_only_a_reaction_is_still_dropped() -> None:
    assert lines(("Gina", "It's great to see that!")) == []


def test_a_general_statement_is_the_speakers_belief_a_specific_one_keeps_the_colon() -> None:
    got = lines(("Gina", "Confidence is important in business."),
                ("Jon", "The chandelier adds a nice glam feel to the store."))
    assert got == ["Gina believes confidence is important in business.",
                   "Jon: The chandelier adds a nice glam feel to the store."]


@pytest.mark.parametrize("text", [
    "Remember that staying positive is important.",   # an imperative, not a belief
    "Watching them is so calming.",                   # "them": something shown
    "Winning the game was amazing.",                  # the past: an event
    "Not much is new other than the screenplay.",
])
def test_general_belief_needs_a_general_present_statement(text: str) -> None:
    assert general_belief(text, "Gina") is None


def test_hedges_go_but_not_after_a_negation() -> None:
    assert drop_hedges("I honestly think the class is definitely worth it") == "I think the class is worth it"
    assert drop_hedges("I'm not totally sure about the move") == "I'm not totally sure about the move"
    assert drop_hedges("It was kinda scary at first") == "It was scary at first"


def test_thanks_talk_goes_and_a_dropped_subject_comes_back() -> None:
    got = lines(("Jon", "Your support, Gina, means a lot too. Really appreciate your help with the studio move."),
                ("Gina", "I appreciate Jon's encouragement - it means a lot."))
    assert got == ["Jon really appreciates Gina's help with the studio move.",
                   "Gina appreciates Jon's encouragement."]


def test_a_name_in_a_list_is_not_a_vocative() -> None:
    got = lines(("Jon", "I met Tom, Gina, and Priya at the dance fair yesterday."))
    assert got == ["Jon met Tom, Gina, and Priya at the dance fair on 2023-07-16."]


def test_a_follow_up_too_long_to_join_names_its_speaker() -> None:
    first = "I finally opened the studio downtown after months of paperwork, " + "inspections, " * 12 + "and repairs."
    got = lines(("Jon", first + " It made me so proud of how far the dancers and I have come together."))
    assert len(got) == 2
    # Alone it names its speaker and, quoted, the sentence "It" points at (``reach``).
    assert got[1].startswith('Jon, after saying "I finally opened the studio downtown')
    assert "It made Jon so proud" in got[1]


@pytest.mark.parametrize("text, expected", [
    ("Interesting things have happened since we last talked - I joined a group of travellers.",
     ["Jon joined a group of travellers."]),
    ("Since we chatted last, I've been blogging about politics.", ["Jon has been blogging about politics."]),
    ("Been a few days since we chatted.", []),
    ("Something massive happened since we last spoke.", []),
    ("If you need any help, let me know.", []),
    ("Your help matters to me.", []),
    ("Haven't talked in a few days.", []),
    ("Crazy things happened to me!", []),
    ("You too, take care!", []),
    ("Something awesome happened to me: I got a puppy named Max.", ["Jon got a puppy named Max."]),
])
def test_catching_up_and_offers_are_no_lines(text: str, expected: list[str]) -> None:
    assert lines(("Jon", text)) == expected


def test_an_existential_there_reads_on_its_own() -> None:
    got = lines(("Jon", "I went to a dance convention in Chicago last week. "
                        "There were food trucks and a live band every single night, all week long."))
    assert len(got) == 2 and got[1].startswith("Jon: There were food trucks")


def test_a_hard_stretch_is_had_by_the_speaker() -> None:
    assert lines(("Jon", "It's been a tough week for me with this knee injury.")) == \
        ["Jon has had a tough week with this knee injury."]


def test_a_view_inside_a_sentence_gets_its_holder_too() -> None:
    assert lines(("Jon", "Even though it can be hard, it's so rewarding to know I'm making a difference.")) == \
        ["Even though it can be hard, Jon finds it so rewarding to know they are making a difference."]


def test_remember_that_before_a_general_statement_is_framing() -> None:
    assert lines(("Gina", "Remember that staying positive is very important.")) == \
        ["Gina believes staying positive is very important."]


@pytest.mark.parametrize("text", ["These are for running.", "Those both can be therapeutic.",
                                  "Those reminders really help."])
def test_a_short_line_pointing_at_what_was_shown_is_no_line(text: str) -> None:
    assert lines(("Jon", text)) == []
