"""Lines that are true, current and readable: dates people mean, speakers, no filler."""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path

import pytest

from memfs.core.segment import ParsedSource, Segment
from memfs.extract import extract_offline
from memfs.extract.dates import resolve_dates
from memfs.extract.deixis import resolve_place
from memfs.extract.docdate import date_document, name_date
from memfs.extract.intro import drop_introduction, introduced_name
from memfs.extract.transcript import turns_of
from memfs.readers import read_source
from tests.support.workspace import hashing_memory

OCT = date(2026, 10, 10)


def _texts(source: ParsedSource) -> list[str]:
    return [f.text for f in extract_offline(source)]


def _chat(*turns: str, when: str = "2026-10-10T09:00:00") -> ParsedSource:
    return ParsedSource(kind="conversation", format="test", time=datetime.fromisoformat(when),
                        segments=[Segment(anchor=f"m{i}", text=t, speaker="user") for i, t in enumerate(turns, 1)])


def test_plans_resolve_forward_and_the_past_backward() -> None:
    assert resolve_dates("I'm training for the half marathon in April.", OCT)[1] == "2027-04"
    assert resolve_dates("I'm starting on January 6.", OCT)[1] == "2027-01-06"
    assert resolve_dates("I ran a half marathon in April.", OCT)[1] == "2026-04"
    assert resolve_dates("I'm running the Berlin marathon in September.", OCT)[1] == "2027-09"
    text, when = resolve_dates("I'm off from December 21 to January 4.", OCT)
    assert when == "2026-12-21" and "2027-01-04" in text  # a period dates its start; its end is after it
    assert resolve_dates("I was born on March 3.", OCT) == ("I was born on March 3.", None)


def test_a_document_is_dated_by_header_line_or_file_name() -> None:
    src = read_source(b"# Weekly sync - 24 November 2026\n\nThe launch moves to next Friday.\n", "notes.md")
    dated = date_document(src, "notes.md")
    assert dated.time is not None and dated.time.date() == date(2026, 11, 24)
    facts = extract_offline(dated)
    assert any("2026-11-27" in f.text for f in facts)
    assert name_date("2026-12-01-standup.md") == date(2026, 12, 1) and name_date("v1.2.3.md") is None
    plain = read_source(b"Note from 2026-12-01\n\nWe ship on Monday.\n", "x.txt")
    assert date_document(plain, "x.txt").time.date() == date(2026, 12, 1)


def test_transcript_lines_are_turns_of_their_speaker(ws_path: Path, tmp_path: Path) -> None:
    notes = tmp_path / "sync.md"
    notes.write_text("# Weekly sync - 24 November 2026\n\nDana: Okay, let's start.\n"
                     "Marcus: I have capped the warehouse budget at 40k.\nPriya: Noted.\n"
                     "Dana: Marcus will send the vendor list by Wednesday.\nPriya: Sounds good.\n")
    mem = hashing_memory(ws_path)
    try:
        mem.ingest_file(notes)
        lines = [ln for f in sorted(ws_path.rglob("*.md")) if f.parent.name in ("memory", "index", "skill")
                 for ln in f.read_text().splitlines() if ln.startswith("- ")]
    finally:
        mem.close()
    texts = [ln.split(" <!--")[0][2:] for ln in lines]
    assert "Marcus has capped the warehouse budget at 40k." in texts
    assert "Marcus will send the vendor list by 2026-11-25." in texts  # action item: owner and due date
    assert not any("author" in t or "Noted" in t or "start" in t or "Sounds good" in t for t in texts)
    assert turns_of("Install: pip install memfs\nPort: 5433") is None  # fields, not a transcript


def test_a_self_introduced_user_is_named_and_a_pleasantry_keeps_its_fact() -> None:
    texts = _texts(_chat("Hi! I'm Priya, I work at the library.",
                         "Yes please, but keep in mind I'm vegetarian and allergic to peanuts.",
                         "Tom and I have two cats.", "Thanks, that's great.", "Noted."))
    assert texts == ["Priya works at the library.", "Priya is vegetarian and allergic to peanuts.",
                     "Tom and Priya have two cats."]
    assert introduced_name(["I'm British, by the way."]) is None


@pytest.mark.parametrize("said, expected", [
    # an appositive after the name says who they are: not the fragment "Priya: A designer ..."
    ("Hi! I'm Priya, a designer from Leeds.", "Priya is a designer from Leeds."),
    ("My name is Priya, the new design lead at Brightwave.", "Priya is the new design lead at Brightwave."),
    ("I'm Priya, I just moved here from Leeds.", "Priya just moved from Leeds."),  # a clause: dropped
])
def test_a_self_introduction_keeps_who_they_are(said: str, expected: str) -> None:
    assert _texts(_chat(said)) == [expected]


@pytest.mark.parametrize("said", [
    # a clause after the introduction is no appositive: "Priya is the weather in Leeds is awful" (review)
    "Hi! I'm Priya, our dog Rex died last week.",
    "Hello, I'm Priya, the weather in Leeds is awful today.",
    "I'm Priya, team meeting moved to Friday at 5.",
    "I'm Priya, the kids love the park.",
])
def test_a_clause_after_a_self_introduction_is_not_who_they_are(said: str) -> None:
    assert not any(t.startswith("Priya is the") or t.startswith("Priya is team") or "Priya is Priya" in t
                   for t in _texts(_chat(said)))
    assert "i'm" not in drop_introduction(said, "Priya").lower()  # the clause stays a clause
    assert drop_introduction("Tim Priya, the boss, said hi", "Priya") == "Tim Priya, the boss, said hi"


def test_a_named_speakers_own_introduction_is_not_a_fact_about_their_name() -> None:
    """A transcript's speaker introducing themselves: "I'm Marcus, the backend engineer" by
    Marcus was stored as "Marcus is Marcus, the backend engineer"."""
    segs = [Segment(anchor=f"T{i}", speaker=who, text=text, time=datetime(2026, 10, 6, 10, 0))
            for i, (who, text) in enumerate([
                ("Marcus", "I'm Marcus, the backend engineer on the team. I will build the signup API in Go."),
                ("Dana", "Hi all, I'm Dana and I lead the platform team."),
                ("Tim", "I'm Tim, head of sales for the northern region."),
                ("Dana", "I'm Dana Whitfield, head of product at Brightwave."),  # the full name says more: kept
            ], 1)]
    texts = _texts(ParsedSource(kind="conversation", format="test", participants=["Marcus", "Dana", "Tim"],
                                time=datetime(2026, 10, 6), segments=segs))
    assert texts == ["Marcus is the backend engineer on the team.", "Marcus will build the signup API in Go.",
                     "Dana leads the platform team.", "Tim is head of sales for the northern region.",
                     "Dana is Dana Whitfield, head of product at Brightwave."]


def test_there_is_resolved_from_context_or_the_fact_is_dropped() -> None:
    assert resolve_place("Priya's last day there is on Friday.", "I work at Acme.") == \
        "Priya's last day at Acme is on Friday."
    assert resolve_place("Priya loved the food there.", "") is None
    assert resolve_place("There is a lake.", "") == "There is a lake."
    assert resolve_place("Priya will be there for Tom.", "") == "Priya will be there for Tom."
    assert resolve_place("Priya just moved here from Leeds.", "") == "Priya just moved from Leeds."
    assert resolve_place("Alice moved to Lisbon and loves the food here.", "") == \
        "Alice moved to Lisbon and loves the food in Lisbon."
    assert resolve_place("Priya likes it here.", "") == "Priya likes it here."  # the speaker's own place
    texts = _texts(ParsedSource(kind="conversation", format="test", time=datetime(2026, 10, 10),
                                participants=["Priya", "Tom"],
                                segments=[Segment(anchor="1", text="I went to Lisbon in May.", speaker="Priya"),
                                          Segment(anchor="2", text="I loved the food there so much!",
                                                  speaker="Priya")]))
    assert "Priya loved the food in Lisbon so much." in texts


def test_updated_is_never_a_future_date(ws_path: Path, tmp_path: Path) -> None:
    chat = tmp_path / "plan.json"
    chat.write_text(json.dumps([{"role": "user", "name": "Priya", "content": "My wedding is on June 12, 2099."}]))
    mem = hashing_memory(ws_path)
    try:
        mem.ingest_file(chat)
    finally:
        mem.close()
    for f in (ws_path / "memory").glob("*.md"):
        body = f.read_text()
        if "2099" in body:
            assert "updated: '2099" not in body and "updated=2099" not in body


def test_reactions_catching_up_and_attachments_are_not_lines() -> None:
    src = ParsedSource(kind="conversation", format="test", time=datetime(2023, 7, 20), participants=["Mel", "Caro"],
                       segments=[
        Segment(anchor="1", speaker="Mel", text="A lot's happened since we last chatted - I joined a choir last Tuesday."),
        Segment(anchor="2", speaker="Caro", text="That pic is cool! Pets bring so much joy. "
                                                 "Caro shares a photo of a dog on a beach."),
        Segment(anchor="3", speaker="Mel", text="It's been super busy here. Mel shares a photo of a cake."),
    ])
    texts = _texts(src)
    assert "Mel joined a choir on 2023-07-18." in texts
    assert "Caro believes pets bring so much joy." in texts  # a general statement: their belief
    assert not any("pic is cool" in t or "since" in t or "busy" in t for t in texts)
    assert not any("photo of a dog" in t for t in texts)   # beside a real fact: context only
    assert any("photo of a cake" in t for t in texts)      # the turn's only content: kept


def test_filing_home_job_pets_and_how_to() -> None:
    from memfs.extract.classify import classify

    names = ("Priya",)
    assert classify("Priya moved to Leeds on 2026-03-01.", kind="conversation", dated=True, names=names) == \
        ("profile", "profile")
    assert classify("Priya started a new job at Acme on 2026-10-05.", kind="conversation", dated=True,
                    names=names) == ("profile", "work")
    assert classify("Priya is a software engineer.", kind="conversation", names=names) == ("profile", "work")
    assert classify("Priya has a golden retriever called Biscuit.", kind="conversation", names=names)[1] == \
        "relationships"
    assert classify("The trick to crispy tofu is to press it for 20 minutes.", kind="conversation",
                    names=names) == ("skill", "procedures")
    assert classify("Priya wants to run a marathon in 2027.", kind="conversation", dated=True,
                    names=names) == ("profile", "goals")
    assert classify("Priya went to Paris on 2026-05-01.", kind="conversation", dated=True, names=names)[0] == "event"


def test_filing_commitments_and_dated_job_changes() -> None:
    from memfs.extract.classify import classify

    names = ("Priya", "Tom")
    assert classify("Priya will send Tom the slides.", kind="conversation", names=names) == ("profile", "goals")
    assert classify("Priya will send Tom the slides on 2026-10-09.", kind="conversation", dated=True,
                    names=names)[0] == "event"  # dated: it happens then
    assert classify("Priya will love the new office.", kind="conversation", names=names)[1] != "goals"
    assert classify("Priya started as a nurse at Northfield in March 2026.", kind="conversation", dated=True,
                    names=names) == ("profile", "work")
    assert classify("Priya was laid off from Brightwave in September 2026.", kind="conversation", dated=True,
                    names=names) == ("profile", "work")


@pytest.mark.parametrize("said,expected", [
    ("I quit my job at Acme.", "Priya quit"),
    ("I hurt my knee playing football.", "Priya hurt"),
    ("I split up with Tom.", "Priya split"),
    ("I upset my mum.", "Priya upset"),
    ("I always quit when it gets hard.", "Priya always quits"),  # it recurs: present
])
def test_a_verb_that_reads_the_same_in_the_past_is_past_unless_it_recurs(said: str, expected: str) -> None:
    raw = json.dumps([{"role": "user", "name": "Priya", "content": said, "timestamp": "2026-10-05T10:00:00"}])
    assert _texts(read_source(raw.encode(), "d.json"))[0].startswith(expected + " ")


@pytest.mark.parametrize("said,expected", [
    ("I live in Leeds with my sister.", ["Priya lives in Leeds.", "Priya lives with their sister."]),
    ("I live in New York with Tom and Ana.", ["Priya lives in New York.", "Priya lives with Tom and Ana."]),
    ("I live in Leeds with two cats and a dog.", ["Priya lives in Leeds.", "Priya lives with two cats and a dog."]),
    ("I live in Leeds with no regrets.", ["Priya lives in Leeds with no regrets."]),
    ("I live in Leeds with anxiety and Tom.", ["Priya lives in Leeds with anxiety and Tom."]),
    ("I live in Leeds with Tom during the week.", ["Priya lives in Leeds with Tom during the week."]),
    ("I live in Leeds with Tom for now.", ["Priya lives in Leeds with Tom for now."]),
    ("I live in Leeds with MS.", ["Priya lives in Leeds with MS."]),
])
def test_a_shared_home_is_split_only_when_the_with_part_is_people(said: str, expected: list[str]) -> None:
    raw = json.dumps([{"role": "user", "name": "Priya", "content": said, "timestamp": "2026-10-05T10:00:00"}])
    assert _texts(read_source(raw.encode(), "d.json")) == expected


def test_near_duplicates_with_different_dates_are_two_facts() -> None:
    from memfs.extract.supersede import conflicts

    # A plan that moved, or the same kind of event twice: merging would keep the older date.
    assert conflicts("In August 2023 Caroline is having an LGBTQ art show with their paintings.",
                     "Caroline is having an LGBTQ art show with their paintings in September 2023.")
    assert conflicts("Nate won a video game tournament on 2022-01-10.", "Nate won a video game tournament on 2022-09-26.")
    # Dates that fit each other, or one undated line, are no reason to keep both.
    assert not conflicts("Caroline went to a support group on 2023-05-07.", "In May 2023 Caroline went to a support group.")
    assert not conflicts("Caroline went to a support group on 2023-05-07.", "Caroline went to a support group.")


def test_a_day_that_is_the_subject_gets_no_preposition() -> None:
    ref = datetime(2023, 8, 14, 10)
    assert resolve_dates("Last night was amazing.", ref)[0] == "the night of 2023-08-13 was amazing."
    assert resolve_dates("Yesterday was great.", ref)[0] == "2023-08-13 was great."
    assert resolve_dates("Yesterday I went home.", ref)[0] == "on 2023-08-13 I went home."
