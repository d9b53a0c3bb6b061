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
                ("Ravi", "That tart with the candied peel looks so good, I can almost taste it."))
    assert not any(line.startswith("Ravi") for line in got), got


def test_a_pointed_line_with_a_number_is_kept() -> None:
    assert not no_fact("Ravi: That marathon took 4 hours and 12 minutes.", "Ravi")
    assert no_fact("Ravi: Those bowls are amazing.", "Ravi")
    assert not no_fact("Ravi: This is the cafe where Lena works.", "Ravi")


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
