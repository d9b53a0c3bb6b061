"""bench/fact_ceiling.py: the incremental word-span search equals trying every span, and the
ceilings of a conversation of our own come out as their definitions say."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from fact_ceiling import best_span, ceilings, in_person  # noqa: E402
from llm_local import f1  # noqa: E402

WORDS = st.lists(st.sampled_from(["tea", "jazz", "oslo", "bike", "shed", "blue"]), max_size=9)


@given(WORDS, WORDS, WORDS)
def test_the_best_span_is_the_best_of_every_span(words: list[str], head: list[str], gold: list[str]) -> None:
    brute = max([f1(head, gold), *(f1(head + words[a:b], gold)
                                   for a in range(len(words)) for b in range(a + 1, len(words) + 1))])
    assert abs(best_span(words, head, gold) - brute) < 1e-12


def test_pronouns_become_the_speaker_and_the_listener() -> None:
    assert in_person("I told you my plan", "Ola", "Tess") == "Ola told Tess Ola plan"


def test_ceilings_of_a_small_conversation(tmp_path: Path) -> None:
    conv = {"speaker_a": "Ola", "speaker_b": "Tess",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ola", "dia_id": "D1:1",
                 "text": "Hi Tess! I keep my bicycle in the blue shed, and it rusts. Winters are long."},
                {"speaker": "Tess", "dia_id": "D1:2", "text": "I moved to Porto for a design job last spring."}],
            "session_1_observation": {
                "Ola": [["Ola keeps a bicycle in the blue shed.", "D1:1"]],
                "Tess": [["Tess moved to Porto for a design job.", "D1:2"],
                         ["Tess enjoys sailing on weekends.", "D1:2"]]}}
    (tmp_path / "c.json").write_text(json.dumps(conv), encoding="utf-8")
    out = ceilings(tmp_path)
    assert {row["gold"] for row in out.values()} == {3}
    # the sailing fact is in no turn: only its subject's name matches (F1 0.4), whatever the cut
    assert out["word span"]["coverage@0.5"] == 2 / 3 and out["word span"]["coverage@0.3"] == 1.0
    # each of the other two is a run of its speaker's words ("keep my bicycle ... shed": Ola's)
    assert abs(out["word span"]["mean_best_f1"] - (1.0 + 1.0 + 0.4) / 3) < 1e-9
    # her one sentence adds "last spring"; Ola's needs a clause cut
    assert out["sentence"]["mean_best_f1"] < out["clause"]["mean_best_f1"] <= out["word span"]["mean_best_f1"]
    for finer, coarser in (("sentences", "sentence"), ("clauses", "clause"), ("word span", "clauses")):
        assert out[finer]["mean_best_f1"] >= out[coarser]["mean_best_f1"]
