"""A line still opening on a pointer is stored with the sentence it points at (issue #19 item 4).

"Maria: It was in London." alone says nothing about what was in London; with the question
it answers it reads on its own. The context must be right, or it writes a false fact: the
tests hold positives and the cases where no context is the right answer.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memfs.core.segment import ParsedSource, Segment
from memfs.extract import extract_offline
from memfs.extract.context import MAX_CONTEXT_CHARS, in_context
from tests.test_extract_lines import REF

PEOPLE = ("John", "Maria")


def lines(*turns: tuple[str, str]) -> list[str]:
    segs = [Segment(anchor=f"D1:{i}", speaker=spk, text=text, time=REF)
            for i, (spk, text) in enumerate(turns, 1)]
    src = ParsedSource(kind="conversation", format="test", participants=list(PEOPLE), time=REF, segments=segs)
    return [f.text for f in extract_offline(src)]


def test_an_answer_keeps_the_question_it_answers() -> None:
    got = lines(("John", "That charity run sounds great. Where in England was it?"),
                ("Maria", "It was in London."))
    assert 'Maria, in reply to John\'s "Where in England was it?": It was in London.' in got


def test_an_answer_after_thanks_keeps_the_question() -> None:
    got = lines(("Maria", "Looks good! How did the extra funding help with building the school?"),
                ("John", "Thanks! It enabled needed repairs and renovations, making the classrooms safer."))
    assert got[-1] == ('John, in reply to Maria\'s "How did the extra funding help with building the school?": '
                       "It enabled needed repairs and renovations, making the classrooms safer.")


def test_a_pointer_at_the_speakers_own_sentence_keeps_it() -> None:
    got = lines(("John", "What do flowers mean to you?"),
                ("Maria", "Flowers bring joy. They represent growth and beauty to me."))
    assert 'Maria, after saying "Flowers bring joy.": They represent growth and beauty to Maria.' in got


def test_a_question_that_points_again_is_no_context() -> None:
    # "What inspired it?" does not say what "it" is either.
    got = lines(("John", "Wow, Maria, that looks amazing! What inspired it?"),
                ("Maria", "It was made for the old church on Elm Street in 2019."))
    assert not any("in reply to" in t for t in got)


def test_a_filler_question_is_no_context() -> None:
    got = lines(("John", "I went hiking with my brother last weekend. How about you?"),
                ("Maria", "It was in London, at the big charity run."))
    assert not any("in reply to" in t for t in got)


def test_the_speakers_own_question_is_no_context() -> None:
    got = lines(("John", "I finally finished the garden shed."),
                ("Maria", "Did you see the new library downtown? It opened last week in the old bank building."))
    assert not any("after saying" in t or "in reply to" in t for t in got)


def test_a_non_pointer_it_is_left_alone() -> None:
    got = lines(("John", "How is the weather in Seattle this week?"),
                ("Maria", "It is raining every single day this week."))
    assert not any("in reply to" in t for t in got)
    assert any("raining every single day" in t for t in got)


def test_no_reply_context_when_the_previous_turn_is_the_speakers_own() -> None:
    got = lines(("Maria", "Where in England was the charity run held?"),
                ("Maria", "It was in London."))
    assert not any("in reply to" in t for t in got)


def test_two_questions_before_make_the_answer_a_guess() -> None:
    got = lines(("John", "Wow, nice spot! Where is it? Got any other features you want before you decide?"),
                ("Maria", "It's downtown, which is awesome because it's easy to get to."))
    assert not any("in reply to" in t for t in got)


def test_a_yes_no_question_about_another_thing_is_no_context() -> None:
    got = lines(("John", "Congrats on the screenplay! Is Spider-Man your favorite superhero?"),
                ("Maria", "It was a real roller coaster, but seeing the hard work pay off was amazing."))
    assert not any("in reply to" in t for t in got)


def test_a_short_answer_of_the_speaker_is_no_context() -> None:
    got = lines(("John", "Have you been camping before?"),
                ("Maria", "Yeah, plenty of times. It's an awesome way to get away from the city."))
    assert not any("after saying" in t for t in got)


def test_a_bare_view_of_something_unnamed_is_not_stored() -> None:
    got = lines(("John", "You're so dedicated to helping people. How's it been going?"),
                ("Maria", "Thanks, John! It can be tough."))
    assert not any("tough" in t for t in got)


def test_a_longer_view_of_something_nothing_names_is_not_stored() -> None:
    # Praise and "How's it been going?" name nothing "it" could be (``reach``): issue #19
    # item 4 says such a line is not stored, though it is what the speaker finds.
    got = lines(("John", "You're so dedicated to helping people. How's it been going?"),
                ("Maria", "It can be tough, but it's really satisfying and worthwhile."))
    assert not any("satisfying and worthwhile" in t for t in got), got


def test_it_before_a_clause_with_its_own_subject_gets_no_quote() -> None:
    line = ("It feels like all the hard work John has put in has paid off now that he is an assistant "
            "manager.")
    assert in_context(line, "John", PEOPLE, "", "How did you feel when you found out?", "Maria", 300) == \
        "John feels all the hard work John has put in has paid off now that he is an assistant manager."


def test_a_long_question_is_quoted_cut() -> None:
    question = ("How did the extra funding from the city council and the parents' association help with "
                "building the new school?")
    assert len(question) > MAX_CONTEXT_CHARS
    got = lines(("Maria", question), ("John", "It enabled needed repairs and renovations."))
    assert ('John, in reply to Maria\'s "How did the extra funding from the city council and the parents\' '
            'association help with building\u2026": It enabled needed repairs and renovations.') in got, got


def test_a_line_that_reads_alone_is_unchanged() -> None:
    text = "Maria: The charity run was in London."
    assert in_context(text, "Maria", PEOPLE, "", "Where was it?", "John", 300) == text


@given(st.lists(st.sampled_from(["it", "was", "in", "London", "the", "run", "great", "Maria's", "school",
                                 "helped", "tough", "kids", "2023"]), min_size=1, max_size=40),
       st.sampled_from(["Where in England was it?", "How did the extra funding help with building the school?",
                        "What's the backstory on that trophy?", "Really?", ""]))
def test_the_line_stays_within_the_limit_and_ends_with_itself(words: list[str], question: str) -> None:
    body = "It " + " ".join(words) + "."
    got = in_context(f"Maria: {body}", "Maria", PEOPLE, "", question, "John", 120)
    # A line too long for its quote loses its end, never its opening (``reach``).
    assert got is None or got == f"Maria: {body}" or (
        len(got) <= 120 and (got.endswith(f": {body}") or (got.endswith("\u2026") and ": It " in got)))


def test_a_question_naming_its_thing_is_context_though_it_points() -> None:
    got = lines(("John", "Your kids must have loved it. What concert was it?"),
                ("Maria", "Thanks, John! It was Matt Patterson, he is so talented!"))
    assert any(t.startswith('Maria, in reply to John\'s "What concert was it?": It was Matt Patterson') for t in got)


def test_no_reply_context_between_roles() -> None:
    segs = [Segment(anchor="m1", speaker="assistant", text="Where in England was the trip?", time=REF),
            Segment(anchor="m2", speaker="user", text="It was in London, near the river.", time=REF)]
    src = ParsedSource(kind="conversation", format="test", time=REF, segments=segs)
    assert not any("in reply to" in f.text for f in extract_offline(src))
