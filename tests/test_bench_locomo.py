"""The LoCoMo benchmark's metric and conversion code (bench/locomo_metric.py), and one
small end-to-end run of the harness (bench/locomo.py) with the hashing embedder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import locomo_metric as lm  # noqa: E402

# A tiny LoCoMo sample in the flat layout of the LoCoMo sample files:
# 2 sessions, 6 turns, 3 scored questions (+ one adversarial, + one without evidence).
TINY = {
    "speaker_a": "Caroline",
    "speaker_b": "Melanie",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [
        {"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel! Good to see you!"},
        {"speaker": "Melanie", "dia_id": "D1:2", "text": "I painted a sunrise over the lake last week.",
         "img_url": ["https://example.invalid/x.jpg"], "query": "painting sunrise",
         "blip_caption": "a photo of a painting of a sunrise over a lake"},
        {"speaker": "Caroline", "dia_id": "D1:3",
         "text": "I went to a LGBTQ support group yesterday and it was so powerful."},
    ],
    "session_2_date_time": "10:37 am on 27 June, 2023",
    "session_2": [
        {"speaker": "Melanie", "dia_id": "D2:1", "text": "We went camping in the mountains with the kids."},
        {"speaker": "Caroline", "dia_id": "D2:2",
         "text": "I am researching adoption agencies because I want to build a family."},
        {"speaker": "Melanie", "dia_id": "D2:3", "text": "That sounds wonderful, good luck!"},
    ],
    "session_3_date_time": "9:00 am on 1 July, 2023",  # a date without a session: ignored
    "qa": [
        {"question": "When did Caroline go to the LGBTQ support group?", "answer": "7 May 2023",
         "evidence": ["D1:3"], "category": 2},
        {"question": "What did Caroline research?", "answer": "Adoption agencies",
         "evidence": ["D2:2; D1:3"], "category": 1},
        {"question": "Where did Melanie go camping?", "answer": "The mountains",
         "evidence": ["D2:1", "D"], "category": 4},
        {"question": "What did Melanie paint in the forest?", "adversarial_answer": "a bear",
         "evidence": ["D1:2"], "category": 5},
        {"question": "Would Melanie like a museum?", "answer": "Likely yes", "evidence": [], "category": 3},
    ],
}


@pytest.fixture
def conv() -> lm.Conversation:
    return lm.conversation_from_json(json.loads(json.dumps(TINY)), "tiny")


# -- reading and conversion --------------------------------------------------------------
def test_reads_flat_and_released_layouts(conv, tmp_path):
    assert conv.name == "tiny"
    assert conv.speakers == ["Caroline", "Melanie"]
    assert [(s.number, s.date_time, len(s.turns)) for s in conv.sessions] == [
        (1, "1:56 pm on 8 May, 2023", 3), (2, "10:37 am on 27 June, 2023", 3)]
    assert conv.turn_ids() == {"D1:1", "D1:2", "D1:3", "D2:1", "D2:2", "D2:3"}
    # The released locomo10.json: a list of {"sample_id", "conversation": {...}, "qa": [...]}.
    body = {k: v for k, v in TINY.items() if k != "qa"}
    path = tmp_path / "locomo10.json"
    path.write_text(json.dumps([{"sample_id": "conv-26", "conversation": body, "qa": TINY["qa"]}]))
    (released,) = lm.load_file(path)
    assert released.name == "conv-26"
    assert len(released.qa) == 5 and [s.number for s in released.sessions] == [1, 2]


def test_locomo_time_to_iso():
    assert lm.locomo_time_to_iso("1:56 pm on 8 May, 2023") == "2023-05-08T13:56:00"
    assert lm.locomo_time_to_iso("10:37 am on 27 June, 2023") == "2023-06-27T10:37:00"
    assert lm.locomo_time_to_iso("12:09 am on 13 September, 2023") == "2023-09-13T00:09:00"
    assert lm.locomo_time_to_iso(None) is None
    assert lm.locomo_time_to_iso("2023-05-08") == "2023-05-08"  # other shapes pass through


def test_turn_text_includes_the_photo_caption():
    assert lm.turn_text(TINY["session_1"][1]) == (
        "I painted a sunrise over the lake last week. Melanie shares a photo of a painting of a sunrise over a lake.")
    assert lm.turn_text({"speaker": "Tim", "text": "", "blip_caption": "a photography of a red car"}) == (
        "Tim shares a photo of a red car.")
    assert lm.turn_text(TINY["session_1"][0]) == "Hey Mel! Good to see you!"


def test_session_to_memfs(conv):
    doc = lm.session_to_memfs(conv, conv.sessions[1])
    assert doc == {
        "format": "memfs.conversation/1",
        "title": "Caroline and Melanie, session 2",
        "participants": ["Caroline", "Melanie"],
        "sessions": [{"id": "S2", "time": "2023-06-27T10:37:00", "turns": [
            {"id": "D2:1", "speaker": "Melanie", "text": "We went camping in the mountains with the kids."},
            {"id": "D2:2", "speaker": "Caroline",
             "text": "I am researching adoption agencies because I want to build a family."},
            {"id": "D2:3", "speaker": "Melanie", "text": "That sounds wonderful, good luck!"},
        ]}],
    }


def test_memfs_reads_the_converted_session(conv):
    from memfs.readers import read_source

    doc = lm.session_to_memfs(conv, conv.sessions[0])
    source = read_source(json.dumps(doc).encode(), "s1.json")
    assert [s.anchor for s in source.segments] == ["D1:1", "D1:2", "D1:3"]
    assert [s.speaker for s in source.segments] == ["Caroline", "Melanie", "Caroline"]
    assert all(s.time is not None and s.time.isoformat() == "2023-05-08T13:56:00" for s in source.segments)
    assert "shares a photo of a painting of a sunrise" in source.segments[1].text


def test_turn_documents(conv):
    docs = lm.turn_documents(conv)
    assert [d for d, _ in docs] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2", "D2:3"]
    assert docs[0][1] == "[1:56 pm on 8 May, 2023] Caroline: Hey Mel! Good to see you!"
    assert docs[5][1] == "[10:37 am on 27 June, 2023] Melanie: That sounds wonderful, good luck!"


# -- evidence ------------------------------------------------------------------------------
def test_normalize_evidence():
    assert lm.normalize_evidence(["D8:6; D9:17"]) == ["D8:6", "D9:17"]
    assert lm.normalize_evidence(["D1:3, D1:4", "D1:3"]) == ["D1:3", "D1:4"]
    assert lm.normalize_evidence(["D1:14", "D:11:26"]) == ["D1:14", "D11:26"]
    assert lm.normalize_evidence(["D1:18", "D", "D1:20"]) == ["D1:18", "D1:20"]
    assert lm.normalize_evidence(["D01:03"]) == ["D1:3"]
    assert lm.normalize_evidence("D2:1") == ["D2:1"]
    assert lm.normalize_evidence([]) == [] and lm.normalize_evidence(None) == []
    # An id that names no turn of the conversation cannot be retrieved: dropped.
    assert lm.normalize_evidence(["D2:14", "D10:19"], known_ids={"D2:14"}) == ["D2:14"]


def test_scored_questions(conv):
    questions, skipped = lm.scored_questions(conv)
    assert [(q["category"], ev) for q, ev in questions] == [
        (2, ["D1:3"]), (1, ["D2:2", "D1:3"]), (4, ["D2:1"])]
    assert skipped == 1  # the category-3 question with no evidence; category 5 is not counted


def test_anchor_of():
    assert lm.anchor_of("resources/2023/05/08-locomo-26-ab12.json#D1:3") == "D1:3"
    assert lm.anchor_of("resources/x.json#D01:3") == "D1:3"
    assert lm.anchor_of("resources/doc.md#setup/install") == "setup/install"
    assert lm.anchor_of("resources/x.json") is None
    assert lm.anchor_of(None) is None


# -- scoring -------------------------------------------------------------------------------
def test_score_ranking_by_hand():
    ranked = ["D2:3", "D1:3", None, "D1:3", "D2:1", "D1:1", "D1:2", "D1:1", "D2:3", "D1:2", "D2:2"]
    # single evidence at rank 2
    assert lm.score_ranking(ranked, ["D1:3"]) == {
        "hit@1": 0.0, "hit@5": 1.0, "hit@10": 1.0, "hit@20": 1.0, "all@10": 1.0}
    # two evidence turns: D1:3 at rank 2, D2:2 only at rank 11 -> all@10 fails
    assert lm.score_ranking(ranked, ["D2:2", "D1:3"]) == {
        "hit@1": 0.0, "hit@5": 1.0, "hit@10": 1.0, "hit@20": 1.0, "all@10": 0.0}
    # evidence first seen at rank 11
    assert lm.score_ranking(ranked, ["D2:2"]) == {
        "hit@1": 0.0, "hit@5": 0.0, "hit@10": 0.0, "hit@20": 1.0, "all@10": 0.0}
    # rank 1; and D2:1 at rank 5 completes all@10
    assert lm.score_ranking(ranked, ["D2:3", "D2:1"]) == {
        "hit@1": 1.0, "hit@5": 1.0, "hit@10": 1.0, "hit@20": 1.0, "all@10": 1.0}
    assert lm.score_ranking([], ["D1:1"]) == {"hit@1": 0.0, "hit@5": 0.0, "hit@10": 0.0, "hit@20": 0.0, "all@10": 0.0}
    assert lm.score_ranking(ranked, ["D1:3"], ks=[2]) == {"hit@2": 1.0, "all@10": 1.0}
    assert lm.first_rank(ranked, ["D2:2", "D2:1"]) == 5
    assert lm.first_rank(ranked, ["D9:9"]) is None


def test_aggregate_by_hand():
    def q(cat, m, b):
        return lm.QuestionResult("c", "q?", cat, ["D1:1"], {"memfs": m, "bm25_turns": b})

    one = {"hit@1": 1.0, "hit@5": 1.0, "hit@10": 1.0, "hit@20": 1.0, "all@10": 1.0}
    zero = {k: 0.0 for k in one}
    mid = {"hit@1": 0.0, "hit@5": 1.0, "hit@10": 1.0, "hit@20": 1.0, "all@10": 0.0}
    res = lm.aggregate([q(1, one, zero), q(1, mid, mid), q(2, zero, one), q(4, one, mid)], ("memfs", "bm25_turns"))
    assert res["questions"] == 4
    assert res["memfs"] == {"hit@1": 0.5, "hit@5": 0.75, "hit@10": 0.75, "hit@20": 0.75, "all@10": 0.5}
    assert res["bm25_turns"] == {"hit@1": 0.25, "hit@5": 0.75, "hit@10": 0.75, "hit@20": 0.75, "all@10": 0.25}
    assert list(res["by_category"]) == ["1", "2", "4"]
    assert res["by_category"]["1"] == {
        "memfs": {"hit@1": 0.5, "hit@5": 1.0, "hit@10": 1.0, "hit@20": 1.0, "all@10": 0.5},
        "bm25_turns": {"hit@1": 0.0, "hit@5": 0.5, "hit@10": 0.5, "hit@20": 0.5, "all@10": 0.0},
        "questions": 2}
    assert res["by_category"]["2"]["questions"] == 1 and res["by_category"]["2"]["bm25_turns"] == one
    assert lm.aggregate([], ("memfs",))["memfs"]["hit@10"] == 0.0


def test_percentile():
    assert lm.percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert lm.percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert lm.percentile([], 50) == 0.0


def test_porter_stemmer():
    stem = lm.PorterStemmer()
    assert stem(["painted", "painting", "researching", "caroline"]) == ["paint", "paint", "research", "carolin"]


def test_bm25_tokenize():
    assert lm.bm25_tokenize("[1:56 pm on 8 May, 2023] Caroline: I painted a sunrise!") == [
        "56", "pm", "may", "2023", "caroline", "painted", "sunrise"]
    assert lm.bm25_tokenize("When did Caroline paint?", lm.PorterStemmer()) == ["when", "did", "carolin", "paint"]


def test_bm25lite_by_hand():
    import math

    corpus = [["a", "b", "b"], ["a", "c"], ["c", "d", "e", "e"]]
    bm = lm.Bm25Lite(corpus)  # k1 = 1.5, b = 0.75, avgdl = 3
    idf_b = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    assert bm.scores(["b"])[0] == pytest.approx(idf_b * 2 / (2 + 1.5))  # dl = avgdl
    assert bm.scores(["b"])[1:] == [0.0, 0.0]
    idf_a = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    assert bm.scores(["a"])[1] == pytest.approx(idf_a / (1 + 1.5 * (0.25 + 0.75 * 2 / 3)))
    assert bm.top(["a"], 5) == [(1, bm.scores(["a"])[1]), (0, bm.scores(["a"])[0])]  # shorter doc first
    assert bm.top(["zzz"], 5) == []


def test_bm25lite_matches_bm25s(conv):
    bm25s = pytest.importorskip("bm25s")
    stem = lm.PorterStemmer()
    docs = [lm.bm25_tokenize(t, stem) for _, t in lm.turn_documents(conv)]
    ref = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    ref.index(docs, show_progress=False)
    lite = lm.Bm25Lite(docs)
    for q in ("When did Caroline go to the LGBTQ support group?", "Melanie camping mountains kids"):
        tokens = [t for t in lm.bm25_tokenize(q, stem) if t in ref.vocab_dict]
        assert lite.scores(tokens) == pytest.approx([float(x) for x in ref.get_scores(tokens)], abs=1e-5)


# -- end to end ------------------------------------------------------------------------------
def test_harness_end_to_end(tmp_path, capsys):
    import locomo  # BM25 runs on bm25s if installed (the bench extra), else on the identical Bm25Lite

    data = tmp_path / "data"
    data.mkdir()
    (data / "tiny.json").write_text(json.dumps(TINY), encoding="utf-8")
    out = tmp_path / "out.json"
    details = tmp_path / "details.jsonl"
    assert locomo.main(["--data", str(data), "--embedder", "hashing", "--json", str(out),
                        "--details", str(details)]) == 0
    res = json.loads(out.read_text())
    keys = ["hit@1", "hit@5", "hit@10", "hit@20", "all@10"]
    assert list(res) == ["memfs", "bm25_turns", "questions", "by_category", "ingest_seconds", "recall_ms_p50", "items"]
    assert list(res["memfs"]) == keys and list(res["bm25_turns"]) == keys
    assert res["questions"] == 3
    assert list(res["by_category"]) == ["1", "2", "4"]
    assert all(res["by_category"][c]["questions"] == 1 for c in ("1", "2", "4"))
    # BM25 over 6 turns: "lgbtq support group" and "research" name their turns outright;
    # the second evidence turn of q2 (D1:3) matches "Caroline" and is in the top 10.
    assert res["by_category"]["2"]["bm25_turns"]["hit@1"] == 1.0
    assert res["by_category"]["1"]["bm25_turns"]["hit@1"] == 1.0
    assert res["by_category"]["1"]["bm25_turns"]["all@10"] == 1.0
    assert res["bm25_turns"]["hit@20"] == 1.0  # "Melanie" + "camping" reach D2:1 too
    # memfs: a handful of items, so every item is within the top 20; each evidence turn
    # states a fact, so each question's evidence is reachable.
    assert 0 < res["items"] <= 20
    assert res["memfs"]["hit@20"] == 1.0
    assert all(0.0 <= v <= 1.0 for v in res["memfs"].values())
    assert res["ingest_seconds"] > 0 and res["recall_ms_p50"] > 0
    rows = [json.loads(line) for line in details.read_text().splitlines()]
    assert [r["evidence"] for r in rows] == [["D1:3"], ["D2:2", "D1:3"], ["D2:1"]]
    assert rows[0]["evidence_turns"]["D1:3"].startswith("I went to a LGBTQ support group")
    assert rows[0]["stored"]["D1:3"], "the support-group turn should have become at least one item"
    table = capsys.readouterr().out
    assert "memfs / bm25" in table and "by category" in table and "target hit@10" in table


def test_llm_flag_explains_itself(tmp_path):
    import os

    import locomo

    env = {k: v for k, v in os.environ.items() if k not in locomo.LLM_ENV}
    proc = subprocess.run([sys.executable, str(BENCH / "locomo.py"), "--llm", "--data", str(tmp_path)],
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 2
    expected = locomo.LLM_NOT_CONFIGURED if locomo.llm_available() else locomo.LLM_UNAVAILABLE
    assert proc.stderr.strip() == expected


def test_llm_profile_from_memfs_toml(tmp_path, monkeypatch):
    import locomo

    if not locomo.llm_available():
        pytest.skip("this memfs has no LLM profile")
    for key in locomo.LLM_ENV:
        monkeypatch.delenv(key, raising=False)
    toml = tmp_path / "memfs.toml"
    toml.write_text('[llm]\nprovider = "openai"\nmodel = "tiny-model"\nbase_url = "http://127.0.0.1:9/v1"\n')
    root = tmp_path / "ws"
    root.mkdir()
    cfg = locomo.make_config(root, "hashing", locomo.read_llm_table(toml))
    assert cfg.llm.enabled and cfg.llm.model == "tiny-model" and cfg.embedder.provider == "hashing"
    assert not locomo.make_config(root, "hashing").llm.enabled  # without --llm: offline, whatever the env
    monkeypatch.setenv("MEMFS_LLM", "openai")
    assert not locomo.make_config(root, "hashing").llm.enabled
    assert locomo.make_config(root, "hashing", {}).llm.enabled  # --llm without --config: the environment


def test_baseline_same_without_bm25s(conv, monkeypatch):
    import locomo

    questions = [str(q["question"]) for q in TINY["qa"]]
    stem = lm.PorterStemmer()
    first = locomo.Bm25Turns(conv, stem)
    monkeypatch.setitem(sys.modules, "bm25s", None)  # import bm25s -> ImportError
    lite = locomo.Bm25Turns(conv, stem)
    assert lite.engine == "bm25lite"
    assert lite.rank(questions, 20) == first.rank(questions, 20)
    assert lite.rank(["When did Caroline go to the LGBTQ support group?"], 1) == [["D1:3"]]
