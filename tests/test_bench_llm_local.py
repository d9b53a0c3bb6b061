"""bench/llm_local.py end to end against the scripted server (the real model is run by hand)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from tests.support.fake_openai import FakeOpenAI
from tests.support.misbehaving import MisbehavingModel

BENCH = Path(__file__).resolve().parent.parent / "bench" / "llm_local.py"

SAMPLE = {
    "speaker_a": "Priya", "speaker_b": "Ben",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [
        {"speaker": "Priya", "dia_id": "D1:1", "text": "I moved to Leeds in March for a new job at the hospital."},
        {"speaker": "Ben", "dia_id": "D1:2", "text": "Nice! I have been learning to play the cello since winter."},
        {"speaker": "Priya", "dia_id": "D1:3", "text": "My sister Anika is visiting from Pune next month."},
    ],
    "session_2_date_time": "2:10 pm on 20 May, 2023",
    "session_2": [
        {"speaker": "Ben", "dia_id": "D2:1", "text": "My dog Biscuit hides under the bed during thunderstorms."},
        {"speaker": "Priya", "dia_id": "D2:2", "text": "I cycle to the hospital every day, even in the rain."},
    ],
    "session_1_observation": {"Priya": [["Priya moved to Leeds in March for a job at the hospital.", "D1:1"],
                                        ["Priya's sister Anika is visiting from Pune.", "D1:3"]],
                              "Ben": [["Ben is learning to play the cello.", "D1:2"]]},
    "session_2_observation": {"Ben": [["Ben's dog Biscuit hides under the bed during thunderstorms.", "D2:1"]],
                              "Priya": [["Priya cycles to the hospital every day.", "D2:2"]]},
    "qa": [],
}


def test_bench_runs_both_modes_and_checks_llm_is_not_below_offline(fake: FakeOpenAI, tmp_path: Path,
                                                                   capsys) -> None:  # type: ignore[no-untyped-def]
    fake.responder = MisbehavingModel(reject_json_schema=True, cite="first", placeholder_summaries=True)
    data = tmp_path / "sample.json"
    data.write_text(json.dumps(SAMPLE))
    spec = importlib.util.spec_from_file_location("llm_local", BENCH)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["llm_local"] = module
    spec.loader.exec_module(module)
    out = tmp_path / "r.json"
    code = module.main(["--data", str(data), "--sessions", "2", "--base-url", fake.url, "--model", "tiny",
                        "--timeout", "10", "--json", str(out)])
    printed = capsys.readouterr().out
    res = json.loads(out.read_text())
    assert code == 0 and res["not_below_offline"] is True, printed
    assert res["gold"] == 5 and res["turns"] == 5
    off, llm = res["offline"], res["llm"]
    assert llm["facts"] >= off["facts"] > 0 and llm["coverage@0.3"] >= off["coverage@0.3"]
    assert llm["calls"] > 0 and llm["batches"] == 2 and llm["fallbacks"] == {"coverage": 2}
    assert off["calls"] == 0 and 0 < off["grounded_share"] <= 1
    assert "| facts filed |" in printed and "fell back offline for 1 of 1 batches (coverage 1)" in printed
