"""A "yes" to the other speaker's plain yes-no question is stored as the fact it affirms;
any other opening, question or turn is left as said (`memfs.extract.affirm`)."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memfs.core.segment import ParsedSource, Segment
from memfs.extract import extract_offline
from memfs.extract.affirm import affirmed

REF = datetime(2023, 5, 8, 13, 56)


@pytest.mark.parametrize("question, answer, expected", [
    ("Are you going to be a bridesmaid?", "Yes, and I have to give a speech.",
     "I am going to be a bridesmaid. I have to give a speech."),
    ("Oh nice! Did you end up moving to the new apartment?", "Yes, I did.", "I ended up moving to the new apartment."),
    ("Did you get the job at Google?", "Yes I did! I start on January 6.", "I got the job at Google. I start on January 6."),
    ("Do you still play guitar?", "Yes, every Sunday with my band.", "I still play guitar, every Sunday with my band."),
    ("Have you been to Japan?", "Yeah, twice!", "I have been to Japan, twice!"),
    ("Is your sister coming to the wedding?", "Yep!", "my sister is coming to the wedding."),
    ("Are you coming to the party on Friday?", "Sure thing, Tess! I'll be there.",
     "I am coming to the party on Friday. I'll be there."),
    ("Do you like your new job?", "Absolutely! I love the team.", "I like my new job. I love the team."),
    ("Are you going to the concert in Leeds?", "Yes", "I am going to the concert in Leeds."),
])
def test_a_yes_says_what_it_affirms(question: str, answer: str, expected: str) -> None:
    assert affirmed(answer, question, "Tess", "Ola") == expected


@pytest.mark.parametrize("question, answer", [
    ("Did you make it?", "Yes, I made it in pottery class."),                 # a pointer: what is "it"?
    ("Do you have any pets?", "Yes, two cats."),                               # turned, it would claim "any"
    ("Have you ever been to Japan?", "Yes, twice."),
    ("Are you vegetarian or vegan?", "Yes, vegan."),                            # which one?
    ("Can you send me the recipe?", "Sure, I'll email it tonight."),           # the asker's "me"
    ("Would you like me to book a table?", "Yes please, but I'm vegetarian."),  # an offer
    ("Are you okay?", "Yes, thanks."),                                         # nothing once turned
    ("Did you join in?", "Yes, I did."),                                       # about what was said before
    ("Are you coming? Is Tom coming too?", "Yes!"),                            # two questions: which?
    ("Do you guys like jazz?", "Yes, we love it."),                            # not the one listener
    ("I moved to Leeds.", "Yes, I heard."),                                    # no question
    ("Are you going to the concert in Leeds?", "Yesterday I went to Leeds."),  # no "yes"
    ("Are you going to the concert in Leeds?", "Yeah right, as if."),          # "yeah" opens a phrase
    ("Is your sister Lily coming?", "Yes!"),                                   # a name after the noun
    # a review's findings: each stored a false fact once
    ("Did you not get the email?", "Yes, I did."),                             # a negated question
    ("Are you not coming tonight?", "Yes, I'm coming!"),
    ("Did you get the job?", "Yeah, I didn't."),                               # a yes taken back
    ("Are you moving to Paris?", "Of course I'm not."),
    ("Are you pregnant?", "Yes, I wish!"),
    ("Do you live in Leeds?", "Yeah, I used to."),
    ("Are you moving to Paris?", "Yes, my husband is, I'm staying."),          # someone else's yes
    ("Are you moving to Paris?", "Yeah, no."),
    ("Do you live in Leeds?", "Yeah, not anymore."),
    ("Are you a doctor?", "Yes, a nurse actually."),
    ("Do you live in Leeds?", "Yes, but in Bristol now, not Leeds."),
    ("Are you a genius?", "Oh yeah, totally. Not."),                           # sarcasm
    ("Are you going to be a bridesmaid?", "Yes! Just kidding."),
    ("Are you coming to the party?", "Sure, maybe."),                          # a hedge
    ("Are you moving to Paris?", "Sure, if I get the job."),
    ("Do you live in Leeds?", "Yes, until last month."),
    ("Do you have a dog?", "Yes, two."),                                       # the count says otherwise
    ("Do you mind opening the window?", "Sure."),                             # manners, no fact
    ("Did you know Sarah is pregnant?", "Yes."),
    ("Can you pick up milk on the way home?", "Sure."),                       # a request
    ("Have you got a minute?", "Sure."),
    ("Are you coming to the wedding, Ben?", "Yes!"),                          # asked of someone else
    ("Are you pregnant? That's what my boss asked me today.", "Yes, so rude!"),  # reported
    ("Guess what he asked me. Are you pregnant?", "Yes, so rude."),
    ("Are you and Tom still together?", "Yes."),                              # not "you" alone
    ("ARE YOU GOING TO BE A BRIDESMAID?", "Yes."),                            # shouted
    ("Are you Ola's brother?", "Yes."),                                       # the answerer's own name
    # the second review's: the yes taken back later, someone else's, anyone's, a game
    ("Do you have a dog?", "Yes. He passed away last year."),
    ("Do you work at Google?", "Yes. Got laid off yesterday."),
    ("Are you a teacher?", "Yes! Retired now."),
    ("Are you engaged?", "Yes. Was. We called it off."),
    ("Is your sister coming to the wedding?", "Yep, she's flying in from Toronto."),
    ("Are you moving to Denver?", "Yes, she is."),
    ("Are you going to the wedding?", "Yeah, Tom and Sue are."),
    ("Are you going to the wedding?", "Yes, my parents."),
    ("Do you need a visa to visit Japan?", "Yes, you do."),
    ("Let's play 20 questions. Do you have four legs?", "Yes."),
    ("Are you coming to dinner, \u00c1ngel?", "Yes!"),
    ("Did you get the tickets, honey?", "Yes."),
    ("Is your birthday party on Saturday?", "Yes!"),                         # "party" is no verb
    ("Was your trip to Paris fun?", "Yes!"),
    ("Are you hungry?", "Yes."),                                              # passes with the day
    ("Are you for real?", "Yes."),
    ("Are you having a laugh?", "Yes."),
    # a third review's, on realistic chats: a hedged yes, a rule rather than a fact
    ("Are you on the Fiber 300 plan?", "Yes, I think so."),
    ("Are you staying at the Hilton again?", "Yeah I think so."),
    ("Are you going to take the job?", "Yes, I think I will."),
    ("Are you covered by the new policy?", "Yes, I'm pretty sure."),
    ("Are you vegetarian?", "Yes, mostly."),
    ("Do you need a permit to camp in Yosemite?", "Yes, for the backcountry."),
])
def test_anything_else_is_left_as_said(question: str, answer: str) -> None:
    assert affirmed(answer, question, "Tess", "Ola") == answer


def test_in_a_group_the_question_must_name_the_answerer() -> None:
    assert affirmed("Yes, she is.", "Are you moving to Denver?", "Nate", "Tom", group=True) == "Yes, she is."
    assert affirmed("Yes!", "Are you moving to Denver?", "Nate", "Tom", group=True) == "Yes!"
    assert affirmed("Yes!", "Tom, are you moving to Denver?", "Nate", "Tom", group=True) == "I am moving to Denver."


def test_a_game_two_turns_back_is_no_fact() -> None:
    assert affirmed("Yes.", "Do you have four legs?", "assistant", "Priya",
                    earlier="I'm Priya. Let's play 20 questions. I'm thinking of an animal.") == "Yes."


def test_only_the_other_speakers_question_counts() -> None:
    assert affirmed("Yes.", "Are you going to the concert in Leeds?", "Ola", "Ola") == "Yes."
    assert affirmed("Yes.", "Are you going to the concert in Leeds?", "", "Ola") == "Yes."


def test_through_extraction_the_affirmed_fact_is_the_answerers() -> None:
    src = ParsedSource(kind="conversation", format="memfs.conversation/1", time=REF,
                       participants=["Tess", "Ola"], segments=[
        Segment(anchor="D1:1", speaker="Tess", text="Are you going to be a bridesmaid at Lily's wedding?", time=REF),
        Segment(anchor="D1:2", speaker="Ola", text="Yes, and I have to give a speech.", time=REF),
        Segment(anchor="D1:3", speaker="Tess", text="Are you training for the half marathon in April?", time=REF),
        Segment(anchor="D1:4", speaker="Ola", text="Yeah!", time=REF),
    ])
    facts = {(f.anchor, f.text) for f in extract_offline(src)}
    assert ("D1:2", "Ola is going to be a bridesmaid at Lily's wedding.") in facts
    assert ("D1:4", "Ola is training for the half marathon in April 2024.") in facts  # said in May: forward
    assert not any(anchor in ("D1:1", "D1:3") for anchor, _ in facts)  # a question is no fact of the asker's


_WORDS = st.sampled_from(["yes", "Yes,", "yeah!", "Sure", "Tess", "are", "you", "your", "did", "I", "my", "it",
                          "going", "to", "the", "concert", "?", ".", "and", "twice", "-", "sister", "is", "Oh"])


@given(st.lists(_WORDS, max_size=12).map(" ".join), st.lists(_WORDS, max_size=12).map(" ".join))
def test_never_raises_and_changes_only_a_yes_after_a_question(answer: str, question: str) -> None:
    out = affirmed(answer, question, "Tess", "Ola")
    if "?" not in question:
        assert out == answer
    if out != answer:
        assert out.lower().startswith(("i ", "my "))
        assert "tess" not in out.lower().split()[:1]


def test_a_users_yes_to_the_assistant_is_a_fact_of_the_user() -> None:
    src = ParsedSource(kind="conversation", format="openai-messages", time=REF, segments=[
        Segment(anchor="m1", speaker="user", text="Hi, I'm Priya. Can you help me plan meals for next week?", time=REF),
        Segment(anchor="m2", speaker="assistant", text="Of course! Are you vegetarian?", time=REF),
        Segment(anchor="m3", speaker="user", text="Yes, and I'm allergic to peanuts.", time=REF),
        Segment(anchor="m4", speaker="assistant", text="Noted. Are you okay with spicy food?", time=REF),
        Segment(anchor="m5", speaker="user", text="Yes.", time=REF)])
    facts = [(f.anchor, f.text) for f in extract_offline(src)]
    assert ("m3", "Priya is vegetarian.") in facts and ("m3", "Priya is allergic to peanuts.") in facts
    assert ("m5", "Priya is okay with spicy food.") in facts  # okay with something: a preference
