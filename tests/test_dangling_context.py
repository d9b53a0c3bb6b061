"""A line still opening on a pointer is quoted with what is in reach, or not stored (issue #19 item 4).

``extract/reach.py``: after ``dangle`` and ``context``, a line opening on "It"/"They"/"That"
keeps, verbatim, the nearest sentence that names something -- the speaker's own, the other
speaker's in the turn before, or the attachment the chat showed -- and is dropped when
nothing in reach names anything. Reactions to what the other said hold no fact and go.
All sentences here are made up for these tests.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memfs.extract import extract_offline
from memfs.extract.reach import MAX_QUOTE_CHARS, framed, quoted
from tests.support.factories import parsed_conversation
from tests.test_extract_lines import REF

PEOPLE = ("Tom", "Priya")


def lines(*turns: tuple[str, str]) -> list[str]:
    return [f.text for f in extract_offline(parsed_conversation(turns, when=REF, participants=PEOPLE))]


def test_the_other_speakers_statement_is_quoted() -> None:
    got = lines(("Tom", "My cousin opened a bakery on Elm Street last spring."),
                ("Priya", "It has the best croissants in town."))
    assert ('Priya, after Tom said "My cousin opened a bakery on Elm Street last spring.": It has the best '
            "croissants in town.") in got, got


def test_filler_before_the_line_names_nothing_so_it_is_not_stored() -> None:
    got = lines(("Tom", "Wow, that's so cool!"), ("Priya", "It has the best croissants in town."))
    assert not any("croissants" in t for t in got), got


def test_thanks_and_praise_of_the_listener_are_no_context() -> None:
    for said in ("Your kind words mean a lot to me, honestly.", "You're such a good friend to everyone here.",
                 "Thanks so much for listening to me today."):
        got = lines(("Tom", said), ("Priya", "It has the best croissants in town."))
        assert not any("croissants" in t for t in got), (said, got)


def test_a_sentence_further_back_names_what_the_last_one_does_not() -> None:
    got = lines(("Tom", "We finally planted the apple tree in the backyard. What a day!"),
                ("Priya", "It will give you shade in a few years."))
    assert any(t.startswith('Priya, after Tom said "We finally planted the apple tree') for t in got), got


def test_a_quote_that_points_again_is_skipped() -> None:
    got = lines(("Tom", "It was a lovely way to spend the afternoon with him."),
                ("Priya", "It reminds me of summers at the lake."))
    assert not any("summers at the lake" in t for t in got), got


def test_two_questions_at_once_make_the_quote_a_guess() -> None:
    got = lines(("Tom", "Where did you go on Sunday? Who came along?"),
                ("Priya", "It was a small village near the coast of Kent."))
    assert not any("small village" in t for t in got), got


def test_one_question_is_quoted() -> None:
    got = lines(("Tom", "Where did you find the lamp in your hallway?"),
                ("Priya", "It came from a flea market in Ghent."))
    assert any(t.startswith("Priya, in reply to Tom's \"Where did you find the lamp") and "flea market" in t
               for t in got), got


def test_a_yes_no_question_about_something_else_is_no_context() -> None:
    got = lines(("Tom", "Is chess still your favorite game?"),
                ("Priya", "It was a long season but we won the cup."))
    assert not any("in reply to" in t for t in got), got


def test_the_attachment_the_speaker_shares_says_what_it_is() -> None:
    got = lines(("Tom", "Wow, what a view!"),
                ("Priya", "It was my first time paddling alone. Priya shares a photo of a red kayak on a lake."))
    assert "Priya, sharing a photo of a red kayak on a lake: It was Priya's first time paddling alone." in got, got


def test_a_reaction_to_what_the_other_said_is_no_fact() -> None:
    for said in ("That's a great way to spend a Sunday.", "That's just what you needed.",
                 "That sounds so fun to do with the kids."):
        got = lines(("Tom", "I taught my niece to ride a bike in the park today."), ("Priya", said))
        assert not any(t.startswith("Priya") for t in got), (said, got)


def test_a_reason_is_no_reaction() -> None:
    got = lines(("Tom", "Good for you!"), ("Priya", "That's why I started cycling to work."))
    assert any("Priya started cycling to work" in t for t in got), got


def test_an_impression_gets_its_holder() -> None:
    assert framed("It seems like the new manager is settling in well.", "Priya", PEOPLE) == \
        "Priya thinks the new manager is settling in well."
    assert framed("Priya: It felt like the whole town came out for the parade.", "Priya", PEOPLE) == \
        "Priya felt the whole town came out for the parade."


def test_an_impression_of_a_pointer_is_left_for_the_quote() -> None:
    line = "It looks like it will rain all week."
    assert framed(line, "Priya", PEOPLE) == line


def test_a_frame_before_but_keeps_the_clause_that_names_its_person() -> None:
    assert framed("It's one thing to plan a hike, but on the trail Priya learned to pace herself.", "Priya",
                  PEOPLE) == "On the trail Priya learned to pace herself."
    kept = "It's one thing to plan a hike, but it was harder than Priya thought."
    assert framed(kept, "Priya", PEOPLE) == kept  # the clause points again: left alone


def test_a_line_whose_place_in_the_turn_is_unknown_is_not_quoted() -> None:
    assert quoted("It has a garden.", "Priya", PEOPLE, None, "We bought a cottage in Kent.", "Tom", "") is None


@given(st.lists(st.sampled_from(["it", "was", "in", "Kent", "the", "garden", "great", "Priya's", "cottage",
                                 "helped", "tough", "kids", "2023"]), min_size=1, max_size=60),
       st.sampled_from(["We bought a cottage in Kent with a garden that goes all the way down to the river.",
                        "Where did you buy the cottage?", "Wow!", ""]),
       st.integers(min_value=80, max_value=300))
def test_a_quoted_line_stays_within_the_limit_and_ends_with_itself(words: list[str], previous: str,
                                                                   limit: int) -> None:
    body = "It " + " ".join(words) + "."
    got = quoted(f"Priya: {body}", "Priya", PEOPLE, "", previous, "Tom", "", limit)
    if got is not None:  # the line's end goes when the quote leaves no room
        assert len(got) <= limit and (got.endswith(f": {body}") or got.endswith("\u2026"))
        assert ": It " in got and len(got.split('"')[1]) <= MAX_QUOTE_CHARS


def test_a_view_of_a_clause_gets_its_holder() -> None:
    assert framed("It's great Tom and Priya both train on Sundays.", "Priya", PEOPLE) == \
        "Priya finds it great that Tom and Priya both train on Sundays."
    assert framed("It's a blessing to have neighbours who help out.", "Priya", PEOPLE) == \
        "Priya finds it a blessing to have neighbours who help out."
    kept = "It's great to see the garden in bloom."  # speaker_view's, not this one
    assert framed(kept, "Priya", PEOPLE) == kept


def test_encouragement_to_the_listener_is_no_fact() -> None:
    for said in ("It's hard moving cities, but don't let it get you down.", "When it gets rough, keep pushing on.",
                 "Hang in there, it will get easier.", "Keep up the great work!"):
        got = lines(("Tom", "My new job in Leeds is harder than I expected."), ("Priya", said))
        assert not any(t.startswith("Priya") for t in got), (said, got)


def test_a_resolve_or_a_dated_line_is_no_encouragement() -> None:
    got = lines(("Tom", "How is training going?"), ("Priya", "I never give up on a long run, even in the rain."))
    assert any("Priya" in t and "long run" in t for t in got), got
    got = lines(("Tom", "How is training going?"), ("Priya", "I keep going to the track on 3 May with my club."))
    assert any("track" in t for t in got), got


def test_a_plan_to_keep_going_is_no_encouragement() -> None:
    got = lines(("Tom", "How is the bakery doing?"), ("Priya", "I'm going to keep pushing and working hard."))
    assert any("keep pushing and working hard" in t for t in got), got


def test_encouragement_is_no_context_for_a_pointer() -> None:
    got = lines(("Tom", "Keep that positive outlook and keep going!"),
                ("Priya", "It's been my escape from stress since I was a kid."))
    assert not any("after Tom said" in t for t in got), got


def test_approval_of_what_the_other_said_is_an_acknowledgement_not_a_fact() -> None:
    """"Great, that saves us a sprint." after a colleague's plan: a reaction (issue #19 item 5)."""
    for said in ("Great, that saves us a sprint.", "Nice, this keeps the release on track."):
        got = lines(("Tom", "I will build the billing export in Rust next week."), ("Priya", said))
        assert not any(t.startswith("Priya") for t in got), (said, got)


def test_a_line_after_the_speakers_own_approval_keeps_its_quote() -> None:
    got = lines(("Tom", "My cousin opened a bakery on Elm Street last spring."),
                ("Priya", "Great news. It has the best croissants in town."))
    assert any("croissants" in t for t in got), got
