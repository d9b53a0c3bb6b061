"""One fact a line: long chat sentences cut into clauses, follow-ups resolved (issue #19).

A clause after the cut keeps its own subject or inherits the first person of the clause
before it; a follow-up opening on "It"/"They" becomes its own line only when the sentence
before names exactly one thing it can mean. Anything else stays whole: never a line that
opens on a pronoun pointing at nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memfs.extract.antecedent import resolve_opening, resolve_view
from memfs.extract.clauses import split_clauses
from tests.support.cli import init, run
from tests.test_extract_lines import lines


def test_a_clause_with_its_own_subject_is_a_line_of_its_own() -> None:
    got = lines(("Tim", "I lost my job as a banker yesterday, so I'm going to start my own business."))
    assert got == ["Tim lost Tim's job as a banker on 2023-05-07.", "Tim is going to start their own business."] \
        or got == ["Tim lost their job as a banker on 2023-05-07.", "Tim is going to start their own business."]


def test_a_clause_without_a_subject_inherits_the_speakers() -> None:
    assert split_clauses("I ran a half marathon last weekend, and finished in under two hours.") == [
        "I ran a half marathon last weekend.", "I finished in under two hours."]
    got = lines(("Tim", "I ran a half marathon last weekend, and finished in under two hours."))
    assert got[1] == "Tim finished in under two hours."
    assert got[0].startswith("Tim ran a half marathon")


@pytest.mark.parametrize("sentence", [
    "I went to the park and it was great, the kids loved it.",  # "it": what the park was like
    "I signed up for a pottery class yesterday, and I really love it so far.",  # "it" inside
    "I usually watch movies, hike, and have game nights at my place.",  # a list of what I do
    "My favorite was when we were down 10 in the 4th and I hit the buzzer-beater to win.",
    "My teammates believing in me and my love for improving my skills keep me going.",
    "Are you going to the park on Saturday, and can I bring my dog along?",
    "I just finished the intro to my next script, and I decided to include this at the beginning.",
    "I can't stop thinking about the screenplay, so I just started writing another one.",
])
def test_no_cut_where_a_clause_would_not_stand_alone(sentence: str) -> None:
    assert split_clauses(sentence) == [sentence]


def test_it_becomes_the_one_thing_named_before() -> None:
    assert lines(("Tim", "I painted that lake sunrise last year. It's special to me.")) == [
        "Tim painted that lake sunrise in 2022.", "The lake sunrise is special to Tim."]
    assert resolve_opening("It's on Fridays at 6.", "Melanie signed up for a pottery class.") == \
        "The pottery class is on Fridays at 6."
    assert resolve_opening("She loves the beach.", "Tim took Tim's daughter to Cornwall.") == \
        "Tim's daughter loves the beach."
    assert resolve_view("They found it inspiring and emotional.", "Gina went to a council meeting.", "Gina") == \
        "Gina found the council meeting inspiring and emotional."


@pytest.mark.parametrize(("follow_up", "before"), [
    ("It was really peaceful.", "Joanna took this photo at a beautiful location."),  # two things
    ("It made me reflect on how far I've come.", "Caroline talked about her journey."),  # the event
    ("It's been a wild ride.", "Gina built a new website."),
    ("It's great that you came.", "Tim baked a cake."),  # a dummy "it"
    ("It's nice to see it grow.", "Tim planted a tree."),
    ("It was so nice and refreshing.", "Tim and John got to take a break from everything."),  # an activity
    ("It is so smooth.", "Coconut ice cream is at the top of Nate's list."),  # "the top", "Nate's list"
    ("It was really fun.", "It reminds Tim of a trip."),  # a pointer after a pointer
    ("They were an important part of the decor.", "They remind Melanie to enjoy the small moments."),
])
def test_a_pointer_that_could_mean_anything_else_is_not_resolved(follow_up: str, before: str) -> None:
    assert resolve_opening(follow_up, before) is None


def test_an_unresolved_follow_up_stays_with_its_fact() -> None:
    got = lines(("Tim", "I took this photo at a beautiful spot called Whispering Falls. It was really peaceful and serene."))
    assert len(got) == 1 and "peaceful" in got[0] and "photo" in got[0]
    assert not any(t.split()[0] in ("It", "They", "The") for t in got)


def test_the_markdown_holds_one_fact_a_line_through_the_cli(tmp_path: Path) -> None:
    ws = init(tmp_path / "ws")
    chat = {"format": "memfs.conversation/1", "participants": ["Melanie", "Caroline"], "sessions": [{
        "id": "S1", "time": "2023-05-08T13:56:00", "turns": [
            {"id": "D1:1", "speaker": "Melanie", "text": "I painted that lake sunrise last year! It's special to me."},
            {"id": "D1:2", "speaker": "Caroline",
             "text": "I lost my job at the bank on Friday, so I'm going to open my own bakery."}]}]}
    src = tmp_path / "chat.json"
    src.write_text(json.dumps(chat), encoding="utf-8")
    run(["ingest", str(src)], cwd=ws)
    texts = [ln.split(" <!--")[0][2:] for f in sorted((ws / "memory").rglob("*.md"))
             for ln in f.read_text(encoding="utf-8").splitlines() if ln.startswith("- ")]
    assert "The lake sunrise is special to Melanie." in texts
    assert "Melanie painted that lake sunrise in 2022." in texts
    assert "Caroline is going to open their own bakery." in texts
    assert not any(t.startswith(("It ", "It's", "They ")) for t in texts)


def test_a_sentence_about_us_stays_whole_so_we_keeps_its_people() -> None:
    sentence = "We were teammates for four years in high school, so we have played together for quite some time."
    assert split_clauses(sentence) == [sentence]
    [line] = lines(("Tim", sentence))
    assert line.startswith("Tim and John were teammates") and "others" not in line


# Cuts that stored false or dangling lines (review items 7-10): each stays whole now.
@pytest.mark.parametrize("sentence", [
    # a purpose after "so": cut off, "Rosa could buy a house near the lake" reads as a fact
    "I saved up for two years so I could buy a house near the lake.",
    "I'm taking evening classes downtown, so I can become a nurse next year.",
    "I quit my job at the law firm so I could spend more time with my kids.",
    "I bought a second freezer so I'd have room for all the venison from hunting season.",
    # an intention, attempt or near miss before "but": its half alone says it happened
    "I was going to adopt a dog, but my landlord said no pets allowed.",
    "I planned to visit Japan in April, but canceled the trip after my surgery.",
    "I wanted to go to the concert but I had to work a double shift on Friday.",
    "I tried to fix the old boiler myself, but I ended up calling a plumber.",
    "I almost bought the red car, but I picked a cheaper model in the end.",
    # a half that points back into the other one
    "My son Leo plays soccer on Saturdays and I coach his team sometimes.",
    "My parents moved to a new flat in Leeds, and I painted their kitchen last month.",
    "I went to my cousin's wedding on Saturday, and I met my future wife that night.",
    "I looked at three used cars last week, and I bought the silver one yesterday.",
    "I signed up for the pottery class downtown, and I'm going every Tuesday night.",
    "I lost twenty pounds last year and I kept the weight off since then.",
])
def test_no_cut_that_would_store_a_false_or_dangling_half(sentence: str) -> None:
    assert split_clauses(sentence) == [sentence]


@pytest.mark.parametrize(("sentence", "cut"), [
    ("I lost my job at the bank on Friday, so I'm going to open my own bakery.",
     ["I lost my job at the bank on Friday.", "I'm going to open my own bakery."]),  # a result, not a purpose
    ("I used to smoke a pack a day, but I quit cold turkey in 2020.",
     ["I used to smoke a pack a day.", "I quit cold turkey in 2020."]),  # a habit, not an intention
    ("I joined a running club in March, and I'm going to the track every Sunday.",
     ["I joined a running club in March.", "I'm going to the track every Sunday."]),  # the destination is there
])
def test_results_habits_and_trips_with_their_destination_are_still_cut(sentence: str, cut: list[str]) -> None:
    assert split_clauses(sentence) == cut


@pytest.mark.parametrize(("follow_up", "before"), [
    ("It was way too long.", "Rosa watched the new Batman movie on Friday."),  # cut at "Batman": "The new"
    ("It has amazing tiramisu.", "Rosa tried the new Italian restaurant on Elm Street."),
])
def test_a_phrase_cut_at_a_name_is_no_antecedent(follow_up: str, before: str) -> None:
    assert resolve_opening(follow_up, before) is None


def test_a_phrase_ends_before_its_preposition() -> None:
    assert resolve_opening("It is open around the clock.", "Rosa joined a gym near their office.") == \
        "The gym is open around the clock."
    assert resolve_opening("It has great bagels.", "Rosa found a bakery across from their office.") == \
        "The bakery has great bagels."
