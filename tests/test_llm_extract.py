"""LLMExtractor: anchors, dates, names, batching, coverage splits, and every fault ending in facts."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfs.core.segment import Fact, ParsedSource, Segment
from memfs.extract.offline import extract_offline
from memfs.llm.errors import LLMOutputError
from memfs.llm.extract import ExtractedFact, ExtractionAnswer, LLMExtractor
from memfs.llm.usage import Usage
from tests.support.factories import parsed_conversation
from tests.support.fake_openai import FakeOpenAI, Reply, fail, make_client, ok, slow

T0 = datetime(2023, 5, 8, 13, 56)
LINES = [
    ("Caroline", "Hey Mel! I went to an LGBTQ support group yesterday and it was so powerful."),
    ("Melanie", "That's amazing, Caroline! I painted a sunrise over the lake last weekend."),
    ("Caroline", "I'm thinking of going back to school to study counseling next year."),
    ("Melanie", "You should! I take my kids camping every summer, they love the mountains."),
    ("Caroline", "My grandmother gave me a necklace from Sweden when I was ten."),
    ("Melanie", "I've been running every morning before work to clear my head."),
    ("Caroline", "I adopted a cat named Oliver from the shelter last month."),
    ("Melanie", "My husband and I are planning a trip to Portugal in October."),
    ("Caroline", "I started learning the guitar because of my friend Jess."),
    ("Melanie", "I read Charlotte's Web to my daughter every night at bedtime."),
    ("Caroline", "I volunteer at the youth center on Saturdays with teenagers."),
    ("Melanie", "I finished my first pottery class and made a blue bowl."),
]


def conversation(n: int = 4, time: datetime | None = T0) -> ParsedSource:
    return parsed_conversation(LINES[:n], when=time, participants=["Caroline", "Melanie"], fmt="locomo",
                               session="1")


def facts_answer(*facts: tuple[str, str, list[Any]] | dict[str, Any]) -> Reply:
    out = []
    for f in facts:
        out.append(f if isinstance(f, dict) else {"text": f[0], "type": f[1], "turns": f[2]})
    return ok({"facts": out})


GOOD = facts_answer(("Caroline went to an LGBTQ support group on 2023-05-07.", "event", [1]),
                    ("Melanie painted a sunrise over a lake.", "event", [2]),
                    ("Caroline plans to study counseling.", "profile", [3]),
                    ("Melanie takes her kids camping every summer.", "behavior", [4]))


def extractor(fake: FakeOpenAI, **kw: Any) -> LLMExtractor:
    """An extractor on the fake; coverage filling is off unless asked for (these tests check
    what the model's answer becomes; tests/test_llm_grounding.py checks the filling)."""
    client_kw = {k: kw.pop(k) for k in ("timeout", "retries", "budget") if k in kw}
    kw.setdefault("min_turn_coverage", 0.0)
    return LLMExtractor(make_client(fake, **client_kw), **kw)


# -- the happy path -----------------------------------------------------------------------

def test_facts_with_anchors_dates_and_speakers(fake: FakeOpenAI) -> None:
    ex = extractor(fake)
    fake.push(facts_answer(
        {"text": "Caroline went to an LGBTQ support group on 2023-05-07", "type": "event", "turns": [1],
         "when": "2023-05-07", "category": "events"},
        {"text": "Melanie painted a sunrise.", "type": "Event", "turns": ["T2"], "when": "last weekend"},
        {"text": "Caroline wants to study counseling.", "type": "goal", "turns": "3"},
        {"text": "Melanie takes her kids camping every summer.", "type": "habit", "turns": [4],
         "category": "made-up"}))
    facts = ex(conversation())
    assert [f.anchor for f in facts] == ["D1:1", "D1:2", "D1:3", "D1:4"]
    assert [f.type for f in facts] == ["event", "event", "profile", "behavior"]
    assert [f.speaker for f in facts] == ["Caroline", "Melanie", "Caroline", "Melanie"]
    assert facts[0].when == "2023-05-07" and facts[0].text.endswith(".")
    assert facts[1].when == "2023-05-08"  # no usable date of its own: the day it was said
    assert facts[0].category_hint == "events" and facts[3].category_hint is None
    assert ex.usage.fallbacks == {}


def test_prompt_has_date_weekday_numbered_turns_and_type_guide(fake: FakeOpenAI) -> None:
    fake.push(GOOD)
    extractor(fake)(conversation())
    system, user = fake.messages()[0]["content"], fake.messages()[1]["content"]
    assert "Monday 2023-05-08" in system and "Monday 2023-05-08" in user
    assert "(Caroline, Melanie)" in system and 'never write "I"' in system
    for t in ("profile:", "event:", "knowledge:", "behavior:", "skill:", "tool:"):
        assert t in system
    assert "[1] Caroline: Hey Mel!" in user and "[4] Melanie: You should!" in user
    assert "D1:" not in user  # the model cites small numbers, not anchors
    assert fake.response_format()["json_schema"]["name"] == "ExtractionAnswer"


def test_turn_date_shown_when_it_changes(fake: FakeOpenAI) -> None:
    src = conversation(3)
    src.segments[2].time = datetime(2023, 6, 1, 9, 0)
    fake.push(GOOD)
    extractor(fake)(src)
    assert "[3] (Thursday 2023-06-01) Caroline:" in fake.messages()[1]["content"]


def test_invalid_citations_are_dropped_never_invented(fake: FakeOpenAI) -> None:
    src = conversation(4)
    src.segments[3].speaker = "assistant"
    fake.push(facts_answer(("Invented fact from nowhere.", "profile", [99]),
                           ("Uncited fact.", "profile", []),
                           ("Melanie painted a sunrise.", "event", [0, 2, 42]),
                           ("The assistant suggested camping.", "profile", [4]),
                           ("Caroline went to a support group.", "event", [4, 1])))
    ex = extractor(fake)
    facts = ex(src)
    assert [(f.anchor, f.text) for f in facts] == [("D1:1", "Caroline went to a support group."),
                                                   ("D1:2", "Melanie painted a sunrise.")]
    assert ex.usage.events["extract"]["dropped-uncited"] == 3


def test_first_person_is_rewritten_with_the_speakers_name(fake: FakeOpenAI) -> None:
    fake.push(facts_answer(("I painted a sunrise over the lake.", "event", [2]),
                           ("The user went to a support group.", "event", [1])))
    facts = {f.anchor: f.text for f in extractor(fake)(conversation())}
    assert facts["D1:2"] == "Melanie painted a sunrise over the lake."
    assert facts["D1:1"] == "Caroline went to a support group."


def test_batches_map_turn_numbers_back_per_batch(fake: FakeOpenAI) -> None:
    fake.push(facts_answer(("Caroline went to a support group.", "event", [1])),
              facts_answer(("Caroline adopted a cat named Oliver.", "event", [2])),
              facts_answer(("Caroline volunteers at the youth center.", "behavior", [1])))
    facts = extractor(fake, batch_turns=5)(conversation(11))
    assert len(fake.requests) == 3
    assert [f.anchor for f in facts] == ["D1:1", "D1:7", "D1:11"]
    assert "[1] Melanie: I've been running" in fake.messages(1)[1]["content"]


def test_duplicate_texts_kept_once(fake: FakeOpenAI) -> None:
    fake.push(facts_answer(("Melanie painted a sunrise.", "event", [2]), ("melanie painted a sunrise", "event", [2])))
    assert len(extractor(fake)(conversation())) == 1


def test_document_source(fake: FakeOpenAI) -> None:
    doc = ParsedSource(kind="document", format="markdown", title="Deploy notes", segments=[
        Segment(anchor="deploy", heading="Deploy", text="Run make release, then push the tag to origin."),
        Segment(anchor="deploy/rollback", heading="Deploy / Rollback", text="Rollbacks use the previous tag.")])
    fake.push(facts_answer({"text": "To deploy, run make release and push the tag.", "type": "skill", "turns": [1]},
                           {"text": "Rollbacks use the previous tag.", "turns": [2]}))
    facts = extractor(fake)(doc)
    assert [(f.anchor, f.type) for f in facts] == [("deploy", "skill"), ("deploy/rollback", "knowledge")]
    assert facts[0].when is None
    user = fake.messages()[1]["content"]
    assert 'Document "Deploy notes"' in user and "[2] Deploy / Rollback\nRollbacks" in user


# -- coverage: first-topic dominance ----------------------------------------------------------

def test_low_coverage_splits_the_batch(fake: FakeOpenAI) -> None:
    fake.push(facts_answer(("Caroline went to a support group.", "event", [1])),  # 1 of 12 turns
              facts_answer(*[(f"{LINES[i - 1][0]} said: {LINES[i - 1][1]}", "profile", [i]) for i in range(1, 7)]),
              facts_answer(*[(f"{LINES[i + 5][0]} said: {LINES[i + 5][1]}", "profile", [i]) for i in range(1, 7)]))
    ex = extractor(fake)
    facts = ex(conversation(12))
    assert len(fake.requests) == 3
    assert [f.anchor for f in facts] == [f"D1:{i}" for i in range(1, 13)]
    assert ex.usage.events["extract"]["coverage-split"] == 1
    assert "[6] Melanie: I've been running" in fake.messages(1)[1]["content"]
    assert "[1] Caroline: I adopted a cat" in fake.messages(2)[1]["content"]


def test_short_batch_with_few_facts_is_accepted(fake: FakeOpenAI) -> None:
    fake.push(facts_answer(("Caroline went to a support group.", "event", [1])))
    assert len(extractor(fake)(conversation(4))) == 1
    assert len(fake.requests) == 1


def test_split_depth_is_bounded(fake: FakeOpenAI) -> None:
    fake.responder = lambda body: facts_answer(("Caroline went to a support group.", "event", [1]))
    ex = extractor(fake)
    facts = ex(conversation(12))
    # 12 -> 6 + 6 -> the first half (its turn 1 is Caroline's support group) splits again into
    # 3 + 3 (short: accepted); in the second half the same text cites a turn about a cat, so it
    # is ungrounded, nothing is covered and that half is not split: 1 + 2 + 2 calls.
    assert len(fake.requests) == 5
    assert ex.usage.events["extract"]["coverage-split"] == 2
    assert len(facts) == 1  # the same text from two batches is one fact


# -- faults: every one ends with facts, none raises ------------------------------------------

def offline_anchors(src: ParsedSource) -> list[str]:
    return [f.anchor for f in extract_offline(src)]


@pytest.mark.parametrize("first", [
    fail(429, "slow down"), fail(500, "boom"),
    ok('{"facts": [{"text": "Caroline went'),       # malformed JSON, then valid after the repair
    ok({"facts": [{"text": "no turns"}]}),          # schema-invalid, then valid
    ok({"items": []}),                               # wrong shape, then valid
])
def test_transient_faults_end_with_llm_facts(fake: FakeOpenAI, first: Reply) -> None:
    fake.push(first, GOOD)
    ex = extractor(fake, timeout=0.3)
    facts = ex(conversation())
    assert len(facts) == 4 and ex.usage.fallbacks == {}


def test_schema_invalid_retry_carries_the_error(fake: FakeOpenAI) -> None:
    fake.push(ok({"facts": [{"text": "no turns", "type": "event"}]}), GOOD)
    extractor(fake)(conversation())
    last = fake.messages()[-1]["content"]
    assert "does not match the schema" in last and "turns" in last


def test_fenced_text_answer(fake: FakeOpenAI) -> None:
    fake.push(ok("Sure:\n```json\n" + GOOD.content + "\n```"))  # type: ignore[operator]
    assert len(extractor(fake)(conversation())) == 4


def test_server_rejecting_json_schema(fake: FakeOpenAI) -> None:
    fake.push(fail(400, "response_format json_schema is not supported by this model"), GOOD)
    ex = extractor(fake)
    assert len(ex(conversation())) == 4
    assert fake.response_format() == {"type": "json_object"}


def test_empty_answer_falls_back_offline_with_reason(fake: FakeOpenAI) -> None:
    fake.push(ok(""), ok(""))
    ex = extractor(fake)
    src = conversation()
    facts = ex(src)
    assert facts and [f.anchor for f in facts] == offline_anchors(src)
    assert ex.usage.fallbacks == {"extract": {"output": 1}}
    assert "empty answer" in ex.usage.last_fallback["extract"]


def test_budget_exceeded_makes_no_call_and_falls_back(fake: FakeOpenAI) -> None:
    ex = extractor(fake, budget=0)
    src = conversation()
    facts = ex(src)
    assert fake.requests == []
    assert [f.text for f in facts] == [f.text for f in extract_offline(src)]
    assert ex.usage.fallbacks == {"extract": {"budget": 1}}


def test_endpoint_down_falls_back(fake: FakeOpenAI) -> None:
    ex = extractor(fake, retries=1)
    fake.server.shutdown()
    fake.server.server_close()
    src = conversation()
    assert [f.text for f in ex(src)] == [f.text for f in extract_offline(src)]
    assert ex.usage.fallbacks == {"extract": {"unavailable": 1}}


def test_only_the_failed_batch_goes_offline(fake: FakeOpenAI) -> None:
    calls: list[ParsedSource] = []

    def spy(src: ParsedSource) -> list[Fact]:
        calls.append(src)
        return extract_offline(src)

    fake.push(facts_answer(("Caroline went to a support group.", "event", [1])),
              fail(500), fail(500), fail(500))
    ex = extractor(fake, batch_turns=4, fallback=spy)
    facts = ex(conversation(8))
    assert len(calls) == 1 and [s.anchor for s in calls[0].segments] == ["D1:5", "D1:6", "D1:7", "D1:8"]
    assert calls[0].participants == ["Caroline", "Melanie"] and calls[0].time == T0
    assert facts[0].anchor == "D1:1" and {f.anchor for f in facts[1:]} <= {"D1:5", "D1:6", "D1:7", "D1:8"}
    assert len(facts) > 1
    assert ex.usage.fallbacks == {"extract": {"unavailable": 1}}


def test_oversized_segment_goes_offline(fake: FakeOpenAI) -> None:
    src = conversation(2)
    src.segments[1].text = "Melanie loves painting sunrises over the lake. " * 40
    fake.push(facts_answer(("Caroline went to a support group.", "event", [1])))
    ex = extractor(fake, batch_chars=1000)
    facts = ex(src)
    assert facts[0].anchor == "D1:1" and facts[1].anchor == "D1:2"
    assert ex.usage.fallbacks == {"extract": {"too-long": 1}}


def test_assistant_only_batch_makes_no_call(fake: FakeOpenAI) -> None:
    src = ParsedSource(kind="conversation", format="openai-messages",
                       segments=[Segment(anchor="m1", text="How can I help?", speaker="assistant")])
    assert extractor(fake)(src) == [] and fake.requests == []


# -- the invariant, without a server: whatever the model says, provenance stays real ---------

class StubClient:
    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.usage = Usage()

    def complete_structured(self, messages: Any, schema: Any, step: str) -> Any:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


fact_st = st.builds(ExtractedFact, text=st.text(max_size=400),
                    type=st.sampled_from(["profile", "event", "knowledge", "behavior", "skill", "tool", None]),
                    when=st.one_of(st.none(), st.text(max_size=12), st.sampled_from(["2023", "2023-13-40"])),
                    turns=st.lists(st.integers(-5, 30), max_size=4), category=st.none() | st.text(max_size=10))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(fact_st, max_size=12), st.integers(1, 12))
def test_any_answer_yields_real_provenance(facts: list[ExtractedFact], n: int) -> None:
    src = conversation(n)
    out = LLMExtractor(StubClient(ExtractionAnswer(facts=facts)))(src)  # type: ignore[arg-type]
    anchors = {s.anchor for s in src.segments}
    for f in out:
        assert f.anchor in anchors and f.text.strip() and len(f.text) <= 300
        assert f.when is None or f.when[:4].isdigit()


@pytest.mark.parametrize("err", [LLMOutputError("bad"), RuntimeError("bug"), KeyError("x")])
def test_any_client_error_goes_offline(err: Exception) -> None:
    src = conversation()
    ex = LLMExtractor(StubClient(err))  # type: ignore[arg-type]
    assert [f.text for f in ex(src)] == [f.text for f in extract_offline(src)]
    assert ex.usage.fallback_count("extract") == 1
