"""Summaries and recall helpers: bounded outputs, ids never invented, identity fallbacks."""

from __future__ import annotations

from memfs.llm.recall import rerank, rewrite_query, sufficient
from memfs.llm.summarize import extractive_category, extractive_memory, summarize_category, summarize_memory
from tests.support.fake_openai import FakeOpenAI, fail, ok

ITEMS = ["Melanie loves painting sunrises.", "Melanie camps with her kids every summer.",
         "Caroline went to an LGBTQ support group on 2023-05-07."]
DOWN = (fail(500), fail(500), fail(500))


def test_summarize_category(fake: FakeOpenAI, client) -> None:  # type: ignore[no-untyped-def]
    fake.push(ok({"summary": "Melanie paints   sunrises and camps with her kids. " * 10}))
    text = summarize_category(client, "Preferences", ITEMS, 120)
    assert 0 < len(text) <= 120 and "  " not in text and text.startswith("Melanie paints sunrises")
    assert '"Preferences"' in fake.messages()[0]["content"] and "- Melanie loves painting" in fake.prompt()


def test_summarize_category_fallback_is_extractive(fake: FakeOpenAI, client) -> None:  # type: ignore[no-untyped-def]
    fake.push(*DOWN)
    text = summarize_category(client, "Preferences", ITEMS, 80)
    assert text == extractive_category(ITEMS, 80) and text.startswith("Melanie loves painting sunrises; ")
    assert len(text) <= 80
    assert client.usage.fallbacks == {"summarize": {"unavailable": 1}}
    assert summarize_category(client, "Empty", [], 80) == "" and len(fake.requests) == 3


def test_summarize_memory(fake: FakeOpenAI, client) -> None:  # type: ignore[no-untyped-def]
    fake.push(ok({"summary": "## Melanie\n- paints sunrises\n" * 50}))
    text = summarize_memory(client, ITEMS, token_budget=50)
    assert len(text) <= 200 and text.startswith("## Melanie")
    fake.push(ok({"summary": ""}), *DOWN)
    assert summarize_memory(client, ITEMS, 50) == extractive_memory(ITEMS, 50)
    assert summarize_memory(client, ITEMS, 50) == extractive_memory(ITEMS, 50)
    assert client.usage.fallbacks["summarize"] == {"output": 1, "unavailable": 1}
    assert extractive_memory(ITEMS, 15).count("\n") == 0  # 60 chars: one bullet fits


def test_rewrite_query(fake: FakeOpenAI, client) -> None:  # type: ignore[no-untyped-def]
    fake.push(ok({"queries": ["Melanie hobbies", "melanie HOBBIES", "What does Mel like?", "painting", "extra"]}))
    assert rewrite_query(client, "What does Mel like?") == ["What does Mel like?", "Melanie hobbies", "painting"]
    fake.push(*DOWN)
    assert rewrite_query(client, "q") == ["q"]
    assert client.usage.fallbacks == {"recall": {"unavailable": 1}}


def test_rerank_maps_drops_and_appends(fake: FakeOpenAI, client) -> None:  # type: ignore[no-untyped-def]
    cands = [("a1", "alpha"), ("b2", "beta"), ("c3", "gamma"), ("d4", "delta")]
    fake.push(ok({"order": [2, "0", 99, -1, 2, "b2"]}))
    assert rerank(client, "q", cands) == ["c3", "a1", "b2", "d4"]
    assert "a1" not in fake.prompt() and '2: "gamma"' in fake.prompt()
    fake.push(*DOWN)
    assert rerank(client, "q", cands) == ["a1", "b2", "c3", "d4"]
    assert rerank(client, "q", cands[:1]) == ["a1"] and len(fake.requests) == 4


def test_sufficient(fake: FakeOpenAI, client) -> None:  # type: ignore[no-untyped-def]
    fake.push(ok({"sufficient": False}), ok({"sufficient": True}))
    assert sufficient(client, "q", ["x"]) is False
    assert sufficient(client, "q", ["x"]) is True
    assert sufficient(client, "q", []) is False
    fake.push(*DOWN)
    assert sufficient(client, "q", ["x"]) is True
