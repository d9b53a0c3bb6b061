"""A question that asks for one slot of someone (where they live, where they work) lifts
the facts that fill it (memfs/index/intent.py, issue #19): "where does Priya live now"
finds "Priya moved to Leeds", not the fact that merely says "now"."""

from __future__ import annotations

from pathlib import Path

import pytest

from memfs.index.intent import fills, intent_of
from tests.support.workspace import hashing_memory


@pytest.mark.parametrize("query, attributes, who, past", [
    ("where does Priya live now", {"residence"}, "priya", False),
    ("Where is Tom Baker based these days?", {"residence"}, "tom baker", False),
    ("where does priya live", {"residence"}, "priya", False),
    ("where does O’Brien live", {"residence"}, "o'brien", False),
    ("where did Priya live in 2020", {"residence"}, "priya", True),
    ("Where does Priya work?", {"role", "employer"}, "priya", False),
    ("what does Tom do for a living", {"role", "employer"}, "tom", False),
    ("What is Priya's job", {"role", "employer"}, "priya", False),
    ("who does Émile work for now", {"role", "employer"}, "émile", False),
])
def test_questions_that_ask_for_a_slot(query: str, attributes: set[str], who: str, past: bool) -> None:
    intent = intent_of(query)
    assert intent is not None and intent.attributes == attributes and intent.who == who and intent.past == past


@pytest.mark.parametrize("query", ["what does Priya like", "where is the meeting", "when did Priya move",
                                   "Priya's favourite food", "does Priya live alone",
                                   # no one named, or someone by relation (found by review)
                                   "where do I live", "what city does she live in", "where does the config live",
                                   "where is it based", "where does Priya's mother live", "What is Priya's mother's job",
                                   "a-" * 20000])
def test_other_questions_ask_for_none(query: str) -> None:
    assert intent_of(query) is None


def test_which_facts_fill_the_slot() -> None:
    home, job = intent_of("where does Priya live now"), intent_of("where does Priya work")
    then = intent_of("where did Priya live before")
    assert home and job and then
    assert fills(home, "Priya moved to Leeds in October.") and fills(home, "Priya lives in Leeds.")
    assert not fills(home, "Tom lives in Leeds.")  # another person
    assert not fills(home, "Priya now works as a data analyst at Monzo.")
    assert not fills(home, "Priya lived in Manchester.") and fills(then, "Priya lived in Manchester.")
    assert fills(job, "Priya now works as a data analyst at Monzo.") and fills(job, "Priya works at Monzo.")
    assert not fills(job, "Priya left Monzo last month.")  # ended: says where she no longer works
    baker = intent_of("where does Tom Baker live")
    assert baker and fills(baker, "Tom Baker lives in Leeds.") and not fills(baker, "Tom Hanks lives in Leeds.")
    obrien = intent_of("where does O'Brien live")
    assert obrien and fills(obrien, "O’Brien lives in Cork.")
    nobody = intent_of("where does config live")  # no person: matches no fact's subject
    assert nobody and not fills(nobody, "The config lives in /etc.") and not fills(nobody, "Tom lives in Leeds.")


def test_recall_finds_the_current_home_for_a_where_does_she_live_question(tmp_path: Path) -> None:
    from memfs.workspace import init_workspace

    root = init_workspace(tmp_path / "w", git=False).root
    with hashing_memory(root) as mem:
        for fact in ("Priya now works as a data analyst at Monzo.", "Priya loves the team at work now.",
                     "Priya moved to Leeds in October.", "Priya now reads a lot of novels."):
            mem.add(fact, category="profile")
        top = mem.recall("where does Priya live now", k=1)
        assert [h.text for h in top] == ["Priya moved to Leeds in October."]
        assert mem.recall("where does Priya work", k=1)[0].text == "Priya now works as a data analyst at Monzo."
