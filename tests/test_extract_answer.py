"""A short answer to the other speaker's question is stored as the fact it completes; an
answer of another shape, or a question that points elsewhere, is left as said
(`memfs.extract.answer`)."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memfs.core.segment import ParsedSource, Segment
from memfs.extract import extract_offline
from memfs.extract.answer import answered

REF = datetime(2023, 5, 8, 13, 56)


@pytest.mark.parametrize("question, answer, expected", [
    ("How many followers do you have now?", "About 2,000.", "I have about 2,000 followers now."),
    ("Nice! How many books have you written?", "Three. The fourth is due in May.",
     "I have written three books. The fourth is due in May."),
    ("Where do you live these days?", "In Leeds, near the university.",
     "I live these days in Leeds, near the university."),
    ("Where do you work?", "Um, St James's hospital.", "I work in St James's hospital."),
    ("Where did you grow up?", "Lagos.", "I grew up in Lagos."),
    ("Where are you from originally?", "Manchester.", "I am from Manchester originally."),
    ("When is the wedding?", "June 14th.", "the wedding is on June 14th."),
    ("When is Lily's graduation?", "Next Friday, Tess!", "Lily's graduation is next Friday."),
    ("When do you start?", "Next Monday.", "I start next Monday."),
    ("How long have you been playing guitar?", "Since I was twelve.", "I have been playing guitar since I was twelve."),
    ("How long have you been married?", "5 years already!", "I have been married for 5 years already."),
    ("How old is your dog?", "She's three.", "my dog is three years old."),
    ("How old are your twins?", "Eight months.", "my twins are eight months old."),
    ("How many followers do you have?", "2.5 million.", "I have 2.5 million followers."),
    ("When is your birthday?", "May 3.", "my birthday is on May 3."),           # a month keeps its capital
    ("Where do you live?", "London, but moving soon.", "I live in London, but moving soon."),
    ("Where are you from?", "Originally, Lagos.", "I am from Lagos."),
    ("How old is your dog now?", "Ten.", "my dog is ten years old."),
    ("Welcome to Lisbon! What do you enjoy most?", "Pastel de nata with green tea every morning.",
     "what I enjoy most is pastel de nata with green tea every morning."),
    ("What do you read?", "Murakami.", "I read Murakami."),
])
def test_a_short_answer_completes_its_question(question: str, answer: str, expected: str) -> None:
    assert answered(answer, question, "Tess", "Ola") == expected


@pytest.mark.parametrize("question, answer", [
    ("Where did you buy it?", "At the market."),                  # a pointer: what is "it"?
    ("What's your plan for the future?", "Thanks!"),               # talk, no answer
    ("Where do you live?", "I live in Leeds."),                    # says it already
    ("Where are you going to stay?", "With my aunt."),             # not where they are going
    ("How many kids do you have?", "Enough, trust me."),           # no count
    ("When is the wedding?", "Not sure yet."),                     # no time
    ("How long have you been playing?", "Ages."),                  # no span
    ("What's your favorite movie?", "Hard to pick, there are so many great ones out there."),
    ("Where do you and I meet?", "The cafe."),                     # the asker is in it
    ("Do you live in Leeds?", "Leeds."),                           # a yes-no question: ``affirm``'s
    ("Where do you live? And what do you do?", "Leeds."),          # two questions: which?
    ("I moved to Leeds.", "Nice."),                                # no question
    ("What's your sister's name?", "Lily."),                       # a name: any capital reads as one
    ("What's your name?", "Sorry."),
    # a review's findings: each stored a false or garbled fact once
    ("What's your GPA?", "3.8."),                                  # not a name; "3." was its first sentence
    ("How old is your mom?", "She passed at 80."),                 # an age, but not now
    ("How old is your house?", "Built in 1920."),
    ("How old are your kids?", "5 and 7."),
    ("How old is your son?", "Turning 5."),
    ("Where do you live?", "Leeds? No, York."),                    # a question back
    ("What's your name?", "Guess."),
    ("When is the wedding?", "Tomorrow? Or Friday?"),
    ("Where are you working now?", "Unemployed, sadly."),          # no place
    ("Where are you from?", "Everywhere."),
    ("Where do you work?", "Home, mostly."),
    ("When is the wedding?", "Cancelled, sadly."),
    ("When is the wedding?", "Last Saturday, it was lovely."),     # past, asked as present
    ("Where do you live?", "Don't ask."),
    ("Where do you live?", "With my parents."),
    ("What's your favorite movie?", "Never thought about it."),
    ("Where do you live, Ben?", "In Leeds."),                      # asked of someone else
    ("How many kids do you have, Ben?", "Three."),
    ("How many kids do you and Tom have?", "Three."),
    ("How many kids do you have?", "0."),
    ("How many siblings do you have?", "Two brothers and a sister."),
    ("How many followers do you have?", "Lots? I never check."),
    # the second review's
    ("When do you think you'll be back?", "Monday."),            # a second "you"
    ("How many kids do you think you want?", "Three."),
    ("When do you guys leave?", "Friday."),                       # not the one listener
    ("How old is your son?", "2015."),                            # a year
    ("Where do you live, \u00c9lodie?", "Leeds."),               # asked of someone else
    ("Where do you live, Mrs Smith?", "Leeds."),
    ("Where do you live?", "Okay. Leeds."),                       # no answer in the first sentence
    ("Where do you live?", "With Tom."),
    ("Where do you live?", "Still Leeds."),
    ("What's your favorite movie?", "Hmm. Probably Dune."),
    ("How long have you been together?", "5 years."),
    ("Multiply by 9/5 and add 32. How many degrees do you have?", "About 30."),  # a measure
    ("When do you start?", "2019."),                               # a bare year, asked in the present
    # a third review's, on realistic chats: a later sentence that corrects, a hedge, a non-place
    ("How many kids do you have?", "Three. Wait, four."),
    ("Where do you live?", "Boston. Well, Cambridge technically."),
    ("Where are you from?", "Ohio. Just kidding, Texas."),
    ("How many employees do you have?", "Forty. Well, it was forty before the layoffs."),
    ("Where do you work?", "Deloitte. Well, until Friday."),
    ("Where did you grow up?", "Lagos, mostly."),
    ("Where do you work?", "Retired!"),
    ("Where do you work?", "Self-employed."),
    ("Where do you live?", "Upstairs."),
    ("Where are you staying?", "The Palmer House."),               # a stay to come, not where they are
    ("When is your lease up?", "August."),
    ("How many drinks have you had?", "Three."),
    ("How many tabs do you have open right now?", "47."),
    ("What do you enjoy most?", "I love the food here."),           # a sentence of its own
    ("What do you like?", "Paris is lovely."),
    ("What do you enjoy most?", "Hmm, hard to say."),
])
def test_anything_else_is_left_as_said(question: str, answer: str) -> None:
    assert answered(answer, question, "Tess", "Ola") == answer


def test_a_rewrite_that_fails_keeps_the_turns_facts(monkeypatch: pytest.MonkeyPatch) -> None:
    import memfs.extract.answer as answer

    def broken(*args: object, **kwargs: object) -> str:
        raise RuntimeError("a rule with a bug")

    monkeypatch.setattr(answer, "answered", broken)
    src = ParsedSource(kind="conversation", format="memfs.conversation/1", time=REF,
                       participants=["Tess", "Ola"], segments=[
        Segment(anchor="D1:1", speaker="Tess", text="How are things?", time=REF),
        Segment(anchor="D1:2", speaker="Ola", text="I moved to Leeds and I adopted a cat called Miso.", time=REF)])
    texts = [f.text for f in extract_offline(src)]
    assert any("Leeds" in t for t in texts) and any("Miso" in t for t in texts)


def test_only_the_other_speakers_question_counts() -> None:
    assert answered("Leeds.", "Where do you live?", "Ola", "Ola") == "Leeds."


def test_through_extraction_the_completed_fact_is_the_answerers() -> None:
    src = ParsedSource(kind="conversation", format="memfs.conversation/1", time=REF,
                       participants=["Tess", "Ola"], segments=[
        Segment(anchor="D1:1", speaker="Tess", text="How many followers do you have now?", time=REF),
        Segment(anchor="D1:2", speaker="Ola", text="About 2,000. I want to hit 5,000 by December.", time=REF),
        Segment(anchor="D1:3", speaker="Tess", text="How old is your dog?", time=REF),
        Segment(anchor="D1:4", speaker="Ola", text="She's three.", time=REF),
    ])
    facts = {(f.anchor, f.text) for f in extract_offline(src)}
    assert ("D1:2", "Ola has about 2,000 followers now.") in facts
    assert ("D1:4", "Ola's dog is three years old.") in facts


_WORDS = st.sampled_from(["Where", "where", "do", "you", "live", "How", "many", "cats", "have", "?", ".", "Leeds",
                          "In", "About", "2,000", "three", "I", "my", "your", "When", "is", "the", "wedding", "June",
                          "5th", "What's", "name", "Lily", "Tess", ",", "long", "been", "since", "old", "it"])


@given(st.lists(_WORDS, max_size=10).map(" ".join), st.lists(_WORDS, max_size=10).map(" ".join))
def test_never_raises_and_changes_only_an_answer_after_a_question(answer: str, question: str) -> None:
    out = answered(answer, question, "Tess", "Ola")
    if "?" not in question:
        assert out == answer
    if out != answer:
        assert out.startswith(("I ", "my ", "the ")) or out.split()[0].endswith("'s")
