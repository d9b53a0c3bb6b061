"""A pointer inside a stored line (issue #19 item 4): resolved from the turn, joined, or kept.

"Priya hasn't tried it yet" read alone says nothing. An object "it" or a place "there" is
spelled out from the same turn's sentence before it when that sentence names exactly one
candidate; a line whose point is the unresolved pointer ("Priya highly recommends it.")
joins the line of the sentence just before it in the turn; any other line is kept as said,
since a true fact lost costs more than a line that dangles a little (and not storing the
hollow ones lost what LoCoMo questions ask about).
"""

from __future__ import annotations

import pytest

from memfs.extract.inner import settle_inner
from tests.test_dangle import lines

PEOPLE = ("Priya", "Tom")


def test_it_is_resolved_from_the_sentence_before_in_the_turn() -> None:
    got = lines(("Priya", "I signed up for a pottery class. I haven't tried it yet."))
    assert any("hasn't tried the pottery class yet" in t for t in got), got
    assert not any("tried it" in t for t in got), got


def test_there_is_resolved_to_the_one_place_named_before() -> None:
    got = lines(("Priya", "We flew to Lisbon in May. I checked out the old library there and loved it."))
    assert any("checked out the old library in Lisbon" in t for t in got), got


def test_an_unresolved_pointer_that_carries_the_point_joins_the_line_before() -> None:
    got = lines(("Priya", 'I just finished "The Hobbit" by Tolkien. I highly recommend it.'))
    assert any('"The Hobbit"' in t and t.endswith("Priya highly recommends it.") for t in got), got
    assert "Priya highly recommends it." not in got, got


def test_alone_in_its_turn_it_is_kept_as_said() -> None:
    got = lines(("Tom", "Wow, what a week that was!"), ("Priya", "I will never forget that."))
    assert "Priya will never forget that." in got, got


@pytest.mark.parametrize("text, before, want", [
    # two places, or two things: which one is a guess
    ("Priya checked out the library there.", "We drove to Porto and Braga. ", "Priya checked out the library there."),
    ("Priya loves it.", "We adopted a puppy and a kitten! ", "Priya loves it."),
    # a demonstrative pronoun means what was said, never one thing
    ("Priya loves it.", "That looks yummy. ", "Priya loves it."),
    # the line names the thing itself before the pointer
    ("Priya bought a bike and rides it daily.", "It was on sale. ", "Priya bought a bike and rides it daily."),
    # idioms and dummy objects point at nothing
    ("Priya made it to the finals.", "", "Priya made it to the finals."),
    ("Priya finds it hard to sleep.", "", "Priya finds it hard to sleep."),
    ("Priya thinks it is worth it.", "", "Priya thinks it is worth it."),
    ("Priya is out there hiking.", "", "Priya is out there hiking."),
    # the rest of the line still says something: kept as said
    ("Priya painted it after visiting the beach.", "", "Priya painted it after visiting the beach."),
    ("Priya thinks Tom is finding fulfillment there.", "", "Priya thinks Tom is finding fulfillment there."),
    # a clause's subject "it" may mean the clause before it
    ("Priya studied hard and it showed.", "I had an exam. ", "Priya studied hard and it showed."),
])
def test_no_guess_and_no_loss(text: str, before: str, want: str) -> None:
    assert settle_inner(text, "Priya", PEOPLE, before, before + "I said it.")[0] == want


@pytest.mark.parametrize("text", ["Priya won't forget that.", "Priya is so stoked about this.",
                                  "Priya can't wait to dive into it.", "Priya: Pretty proud of it.",
                                  "Priya highly recommends it for sure."])
def test_the_pointer_carries_the_point(text: str) -> None:
    assert settle_inner(text, "Priya", PEOPLE, "", "") == (text, True)


@pytest.mark.parametrize("text", ["Priya painted it after visiting the beach.", "Priya loves the band and saw it live.",
                                  "Priya thinks Tom is finding fulfillment there.", "Priya finds it hard to sleep."])
def test_the_rest_of_the_line_says_something(text: str) -> None:
    assert settle_inner(text, "Priya", PEOPLE, "", "") == (text, False)


def test_the_speakers_own_me_written_them_is_no_pointer() -> None:
    # attribution writes the speaker's "me" as "them": "It made them happy" is Priya.
    assert settle_inner("Priya is lucky to have them.", "Priya", PEOPLE, "", "I'm lucky to have me.") \
        == ("Priya is lucky to have them.", False)
    assert settle_inner("Priya is lucky to have them.", "Priya", PEOPLE, "", "I'm lucky to have them.") \
        == ("Priya is lucky to have them.", True)


def test_a_spelled_there_keeps_the_rest_of_the_line() -> None:
    got = settle_inner("Priya had dinner there with friends.", "Priya", PEOPLE,
                       "Last week I went to Rome. ", "Last week I went to Rome. I had dinner there with friends.")
    assert got == ("Priya had dinner in Rome with friends.", False)
