"""bench/dangling.py's counters, on sentences of our own: a line opening on a pointer at
nothing (`opener`) and a pointer further in that nothing in the line names (`inner`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from dangling import inner, opener  # noqa: E402


@pytest.mark.parametrize("text, word", [
    ("Priya checked out the museum there, it had old maps.", "there"),
    ("Tom thinks Priya is finding peace there.", "there"),
    ("Priya has a reminder of all that.", "that"),
    ("Watching it with Tom's family was great.", "it"),
    ("Priya highly recommends it.", "it"),
    ("Tom: Pretty proud of it.", "it"),
    ("Tom has grown fond of them.", "them"),
    ("Priya won't forget that.", "that"),
    ("Tom did that last week.", "that"),
])
def test_an_inner_pointer_at_nothing_is_counted(text: str, word: str) -> None:
    found = inner(text)
    assert found is not None and found[0] == word


@pytest.mark.parametrize("text", [
    "Tom's shop looks great, Priya remembers it.",          # the line names it first
    "Priya went to Oslo and loved it there.",                 # a place before "there"
    "Priya loves the dogs and walks them daily.",             # a plural before "them"
    "Priya thought it would be fun to paint.",                # a dummy "it"
    "Priya finds it hard to sleep.",                          # a dummy object
    "Priya made it to the finals.",                           # an idiom
    "Priya is out there hiking.",                             # an idiom
    "There is a park near Tom's house.",                      # existential
    "Priya studied hard and it showed.",                      # a clause's subject: the clause before
    "Books guide Priya and help them grow.",                  # them = Priya, the extractor's singular they
    "Priya can create that space.",                           # a determiner, not a pointer
    "Priya read a book. She loved it.",                       # a later sentence goes on about the first
])
def test_a_named_or_dummy_pointer_is_not_counted(text: str) -> None:
    assert inner(text) is None


def test_a_line_opening_on_a_pointer_is_the_other_count() -> None:
    assert opener("It taught Priya self-acceptance.") == ("it", "pronoun")
    assert inner("It taught Priya self-acceptance.") is None  # the opener is not counted again
