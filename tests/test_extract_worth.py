"""Lines worth keeping (issue #19 item 5): chat talk that reads as a statement but holds no fact.

One test per rule of ``memfs.extract.worth``: the talk is not stored, and a similar line that
does hold a fact is.
"""

from __future__ import annotations

from datetime import datetime, timezone

from memfs.core.segment import ParsedSource, Segment
from memfs.extract import extract_offline
from memfs.extract.worth import no_fact

REF = datetime(2024, 3, 4, 10, 0, tzinfo=timezone.utc)


def lines(*turns: tuple[str, str]) -> list[str]:
    segs = [Segment(anchor=f"D1:{i}", speaker=spk, text=text, time=REF)
            for i, (spk, text) in enumerate(turns, 1)]
    return [f.text for f in extract_offline(ParsedSource(
        kind="conversation", format="test", participants=["Ravi", "Lena"], time=REF, segments=segs))]


def test_well_wishing_is_not_stored() -> None:
    got = lines(("Lena", "My bakery finally got its permit from the city."),
                ("Ravi", "Congrats on getting the permit for the bakery after all that waiting!"),
                ("Lena", "My grandmother fell and broke her wrist on Monday."),
                ("Ravi", "Wishing Lena's grandmother a quick recovery from the fall."))
    assert not any(line.startswith("Ravi") for line in got), got
    assert any("permit" in line and line.startswith("Lena") for line in got), got


def test_sympathy_with_news_after_but_is_kept() -> None:
    got = lines(("Lena", "The movers broke two of my plates."),
                ("Ravi", "Sorry about the plates, but I can lend you my spare set from Ikea."))
    assert any("Ravi" in line and "spare set" in line for line in got), got


def test_cheering_is_not_stored() -> None:
    got = lines(("Lena", "The thesis defense is next month and I'm nervous."),
                ("Ravi", "Don't give up now, the hard part is nearly behind you."),
                ("Ravi", "Cherish those quiet evenings of writing while they last."))
    assert not any(line.startswith("Ravi") for line in got), got


def test_advice_with_a_subject_is_kept() -> None:
    got = lines(("Lena", "I'm buying a used car next week."),
                ("Ravi", "Make sure a mechanic checks the brakes and the timing belt before paying."))
    assert any(line.startswith("Ravi") and "timing belt" in line for line in got), got


def test_a_look_at_what_was_shown_is_not_stored() -> None:
    got = lines(("Lena", "I baked a lemon tart for the party."),
                ("Ravi", "That tart looks so good, I can almost taste it."))
    assert not any(line.startswith("Ravi") for line in got), got


def test_a_pointed_line_with_a_number_is_kept() -> None:
    assert not no_fact("Ravi: That marathon took 4 hours and 12 minutes.", "Ravi")
    assert no_fact("Ravi: Those bowls are amazing.", "Ravi")
    assert not no_fact("Ravi: This is the cafe where Lena works.", "Ravi")
    assert not no_fact("Ravi: That hike to the glacier was brutal.", "Ravi")  # his own news


def test_a_feeling_about_nothing_is_not_stored() -> None:
    assert no_fact("Lena is so excited and thankful.", "Lena")
    assert no_fact("Lena is excited for the future.", "Lena")
    got = lines(("Lena", "I'm so grateful!"), ("Lena", "I'm excited to start the pottery course in May."))
    assert not any(line == "Lena is so grateful." for line in got), got
    assert any("pottery course" in line for line in got), got


def test_a_feeling_with_an_object_is_kept() -> None:
    assert not no_fact("Lena is grateful for the scholarship from her college.", "Lena")
    assert not no_fact("Lena is proud of her son's robotics team.", "Lena")
    assert not no_fact("Ravi: Congrats on the bakery.", "")


def test_a_plan_on_a_pointer_is_not_stored() -> None:
    got = lines(("Lena", "You should watch the documentary about the Antarctic base."),
                ("Ravi", "I'll check it out!"),
                ("Ravi", "I'll check out the Antarctic documentary on Friday."))
    assert "Ravi will check it out." not in got, got
    assert any("Antarctic documentary" in line for line in got), got


def test_a_resolve_on_nothing_is_not_stored() -> None:
    assert no_fact("Lena won't give up, no matter what.", "Lena")
    assert no_fact("Lena will keep pushing forward.", "Lena")
    got = lines(("Lena", "I won't give up!"), ("Lena", "I won't give up on the bakery, whatever the bank says."))
    assert "Lena won't give up." not in got, got
    assert any("bakery" in line for line in got), got


def test_empathy_is_not_stored_but_knowing_a_subject_is() -> None:
    assert no_fact("Ravi understands how Lena feels.", "Ravi")
    assert no_fact("Ravi understands.", "Ravi")
    assert not no_fact("Ravi understands Spanish and a little Portuguese.", "Ravi")
    got = lines(("Lena", "The audition went badly."), ("Ravi", "I understand how frustrating that can be."))
    assert not any(line.startswith("Ravi") for line in got), got


def test_a_promise_to_keep_the_listener_posted_is_not_stored() -> None:
    got = lines(("Lena", "How is the house hunt going?"),
                ("Ravi", "I will make sure to keep you updated."))
    assert got == [], got


def test_awaiting_with_nothing_awaited_is_not_stored() -> None:
    assert no_fact("Lena can't wait to see what happens next.", "Lena")
    assert no_fact("Lena is excited to see where it takes her.", "Lena")
    assert no_fact("Lena is hoping for the best.", "Lena")
    assert not no_fact("Lena can't wait to see the northern lights in Tromso.", "Lena")
    got = lines(("Lena", "I sent the manuscript to three publishers. Can't wait to see what happens next!"))
    assert got and all("what happens next" not in line for line in got), got
    assert any("manuscript" in line for line in got), got


def test_sympathy_exclamations_are_not_stored() -> None:
    assert no_fact("Ravi: Bummer about the setback.", "Ravi")
    assert no_fact("Ravi: Always good to hear.", "Ravi")
    assert not no_fact("Ravi: Good hearing protection matters at concerts.", "Ravi")


def test_praise_of_a_virtue_is_not_stored() -> None:
    got = lines(("Lena", "I finished my first half marathon despite the knee injury."),
                ("Ravi", "Your determination is inspiring!"))
    assert not any(line.startswith("Ravi") for line in got), got
    assert no_fact("Ravi thinks Lena is an inspiration to everyone.", "Ravi", "Lena")
    assert not no_fact("Ravi thinks Lena is a gifted violinist and teacher.", "Ravi", "Lena")
    assert not no_fact("Ravi thinks Dune is great.", "Ravi", "Lena")  # a view of a book, not praise of Lena


def test_the_listeners_news_welcomed_is_not_stored() -> None:
    # "Glad you're ...": what follows is the listener's own news, told in their turn; as
    # "Ravi thinks Lena is finding ..." it would be a guess restating it.
    got = lines(("Lena", "I started volunteering at the animal shelter on weekends."),
                ("Ravi", "Hey Lena, glad you're finding something that keeps you busy on weekends."),
                ("Ravi", "It's great that you have a place to spend time with dogs."))
    assert not any(line.startswith("Ravi") for line in got), got
    assert any(line.startswith("Lena started volunteering") for line in got), got


def test_a_view_of_the_listener_without_a_welcome_is_kept() -> None:
    got = lines(("Lena", "I started volunteering at the animal shelter on weekends."),
                ("Ravi", "You're a natural with animals."))
    assert "Ravi thinks Lena is a natural with animals." in got, got


def test_a_suggestion_to_each_other_is_not_stored() -> None:
    got = lines(("Lena", "The garden club meets again soon."),
                ("Ravi", "We should plan something special for the club together!"),
                ("Ravi", "Let's spread some kindness around the neighborhood."))
    assert not any("should" in line for line in got), got


def test_a_suggestion_with_a_place_or_a_date_is_a_plan_and_kept() -> None:
    got = lines(("Lena", "We should meet at the Lisbon market on Saturday."),
                ("Ravi", "We should visit Porto together in May."))
    assert any("Lisbon market" in line for line in got), got
    assert any("Porto" in line for line in got), got


def test_a_guess_from_what_the_other_told_or_showed_is_not_stored() -> None:
    got = lines(("Lena", "The bakery sold out of croissants three days in a row."),
                ("Ravi", "Sounds like all your hard work is paying off."),
                ("Ravi", "Looks like Lena's bakery is growing."),
                ("Lena", "Here's the new cake I made."),
                ("Ravi", "Mmm, that looks delicious!"))
    assert not any(line.startswith("Ravi") for line in got), got


def test_a_look_at_the_listeners_thing_is_not_stored() -> None:
    assert no_fact("Ravi: Wow, Lena's garden looks amazing.", "Ravi", "Lena")
    assert no_fact("Ravi thinks Lena's new haircut looks great.", "Ravi", "Lena")


def test_a_guess_naming_a_place_or_a_look_at_ones_own_thing_is_kept() -> None:
    assert not no_fact("Ravi: That sounds like a plan for Saturday at Rosie's.", "Ravi", "Lena")
    assert not no_fact("Ravi: My garden looks amazing after the rain.", "Ravi", "Lena")
    assert not no_fact("Ravi: Lena's garden opens to visitors in May.", "Ravi", "Lena")
    got = lines(("Lena", "We could drive to Porto for the festival."),
                ("Ravi", "Sounds like the Porto festival trip is on for Saturday."))
    assert any(line.startswith("Ravi") and "Porto" in line for line in got), got


def test_a_teaser_is_not_stored_and_the_news_after_it_is() -> None:
    got = lines(("Lena", "Something exciting happened recently for me. I got the job at the Porto museum!"),
                ("Ravi", "Long story, but something pretty awesome happened to me too."))
    assert not any("happened" in line for line in got), got
    assert any("Porto museum" in line for line in got), got


def test_news_told_in_the_teaser_is_kept() -> None:
    assert not no_fact("Lena: Something big happened at the bakery: the oven caught fire.", "Lena", "Ravi")
    got = lines(("Lena", "Something new happened: my sister moved to Oslo."),)
    assert any("Oslo" in line for line in got), got
