"""The chat's own "here" (issue #19 item 4): "Here's a pic of my fam" says who shared what.

A stored line is read alone; one opening "Here's ..." has no subject a reader can see, and
the speaker is the one showing. Toasts, explanations and announcements stay as said.
"""

from __future__ import annotations

import pytest

from memfs.extract.deixis import shown
from tests.test_dangle import lines


def test_what_a_speaker_shows_is_said_of_them() -> None:
    got = lines(("Tom", "How was the trip?"), ("Priya", "It was great! Here's a pic of my family at the beach."))
    assert "Priya shared a pic of Priya's family at the beach." in got, got
    assert not any(t.startswith("Here") for t in got), got


@pytest.mark.parametrize("text, want", [
    ("Here's a pic of John's fam at the beach.", "John shared a pic of John's fam at the beach."),
    ("Here's a recent photo of the garden.", "John shared a recent photo of the garden."),
    ("Here are some bowls of coconut ice cream John made.", "John showed some bowls of coconut ice cream John made."),
    ("Here is the recipe John likes.", "John showed the recipe John likes."),
    ("Here\u2019s Tim's latest one.", "John showed Tim's latest one."),
    ("Here's to a good year!", "Here's to a good year!"),  # a toast
    ("Here's how it works: you press twice.", "Here's how it works: you press twice."),
    ("Here's some good news - John got the job.", "Here's some good news - John got the job."),
    ("Here, look at this.", "Here, look at this."),
    ("John: Here's a pic.", "John: Here's a pic."),  # a quoted remark keeps its speaker's words
])
def test_shown(text: str, want: str) -> None:
    assert shown(text, "John") == want
