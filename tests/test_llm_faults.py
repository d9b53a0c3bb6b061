"""LLM mode is never worse than offline: the failure modes of a real small local model
(llama-cpp-python serving SmolLM2-135M), reproduced by tests/support/misbehaving.py (served
on 127.0.0.1 by tests/support/fake_openai.py), each against the client, the step it hits,
and (for the ones a user sees) the real CLI."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from memfs.core.segment import ParsedSource
from memfs.extract.offline import extract_offline
from memfs.llm.client import ChatClient
from memfs.llm.config import LLMConfig, ProfileConfig
from memfs.llm.endpoint import EndpointState
from memfs.llm.errors import CircuitOpen, LLMTimeout, LLMTruncated, LLMUnavailable
from memfs.llm.extract import LLMExtractor
from memfs.llm.merge import decide_merges
from memfs.llm.summarize import summarize_category, try_summarize_memory
from memfs.llm.usage import Budget, Usage
from memfs.workspace import init_workspace
from tests.support.cli import MEMFS, env as cli_env
from tests.support.factories import parsed_conversation
from tests.support.fake_openai import SECRET, FakeOpenAI, fail, make_client, ok, runaway
from tests.support.misbehaving import LLAMA_CPP_REJECTION, MisbehavingModel

MSGS = [{"role": "system", "content": "You answer."}, {"role": "user", "content": "Name a colour."}]


class Colour(BaseModel):
    name: str


RED = {"name": "red"}
CHAT = [
    {"role": "user", "name": "Priya", "content": "I moved to Leeds in March for a new job at the hospital."},
    {"role": "assistant", "content": "How do you like it?"},
    {"role": "user", "name": "Priya", "content": "I love the old library and I cycle to work every day."},
    {"role": "user", "name": "Priya", "content": "My sister Anika is visiting from Pune next month."},
]


def state_client(fake: FakeOpenAI, state: EndpointState, **kw: Any) -> ChatClient:
    profile = ProfileConfig(base_url=fake.url, model="tiny", timeout=kw.pop("timeout", 5.0),
                            retries=kw.pop("retries", 2), max_tokens=kw.pop("max_tokens", None))
    return ChatClient(profile, Usage(), budget=Budget(), environ={"OPENAI_API_KEY": SECRET}, backoff_base=0.01,
                      state=state, **kw)


def conversation(lines: list[tuple[str, str]]) -> ParsedSource:
    return parsed_conversation(lines, participants=sorted({s for s, _ in lines}), fmt="messages", anchor="m{i}")


LINES = [("Priya", "I moved to Leeds in March for a new job at the hospital."),
         ("Priya", "I love the old library and I cycle to work every day."),
         ("Priya", "My sister Anika is visiting from Pune next month."),
         ("Ben", "I have been learning to play the cello since last winter."),
         ("Ben", "My dog Biscuit is afraid of thunderstorms and hides under the bed."),
         ("Ben", "We are planning a hiking trip to the Lake District in June.")]


# -- 1. step down on rejection ----------------------------------------------------------------

def test_http_500_naming_json_schema_steps_down_at_once_and_is_remembered(fake: FakeOpenAI, tmp_path: Path) -> None:
    """llama-cpp-python answers 500 to json_schema: a rejection, not an outage (no retries)."""
    fake.push(fail(500, LLAMA_CPP_REJECTION), ok(RED))
    state = EndpointState(tmp_path / "llm-state.json")
    c = state_client(fake, state)
    assert c.complete_structured(MSGS, Colour, "extract").name == "red"
    assert [r["json"].get("response_format", {}).get("type") for r in fake.requests] == ["json_schema",
                                                                                          "json_object"]
    assert c.usage.steps["extract"].retries == 0 and c.usage.steps["extract"].errors == 0
    # The next process (a new state object from the same file) starts in json_object mode.
    fake.push(ok(RED))
    again = state_client(fake, EndpointState(tmp_path / "llm-state.json"))
    again.complete_structured(MSGS, Colour, "extract")
    assert fake.response_format()["type"] == "json_object"
    # ... per endpoint and model: another model on the same server starts from json_schema.
    other = ChatClient(ProfileConfig(base_url=fake.url, model="other"), Usage(), environ={"OPENAI_API_KEY": SECRET},
                       state=EndpointState(tmp_path / "llm-state.json"))
    assert other.mode == "json_schema"


def test_a_plain_500_is_still_an_outage(fake: FakeOpenAI) -> None:
    c = make_client(fake, retries=1)
    fake.push(fail(500, "CUDA out of memory"), fail(500, "CUDA out of memory"))
    with pytest.raises(LLMUnavailable, match="after 2 attempt"):
        c.complete_structured(MSGS, Colour, "extract")
    assert c.mode == "json_schema"


# -- 3. bound the cost ------------------------------------------------------------------------

def test_runaway_generation_is_cancelled_at_the_timeout(fake: FakeOpenAI) -> None:
    """Bytes keep coming (a read timeout never fires): the wall-clock deadline cuts it off."""
    fake.push(runaway(every=0.05, lasting=10.0))
    c = make_client(fake, timeout=0.6)
    t0 = time.monotonic()
    with pytest.raises(LLMTimeout, match="within 0.6s"):
        c.complete_structured(MSGS, Colour, "extract")
    assert time.monotonic() - t0 < 3.0
    assert len(fake.requests) == 1  # not retried: it would queue behind the runaway
    deadline = time.monotonic() + 3
    while fake.disconnects == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert fake.disconnects == 1  # the connection was closed: the server saw the cancel


def test_every_request_carries_a_default_max_tokens(fake: FakeOpenAI) -> None:
    cfg = LLMConfig(provider="openai", base_url=fake.url, profiles={"recall": {"max_tokens": 99}})
    assert cfg.profile("extract").max_tokens == 2048 and cfg.profile("summarize").max_tokens == 1024
    assert cfg.profile("recall").max_tokens == 99
    c = ChatClient(cfg.profile("merge"), Usage(), environ={"OPENAI_API_KEY": SECRET})
    fake.push(ok(RED))
    c.complete_structured(MSGS, Colour, "merge")
    assert fake.requests[-1]["json"]["max_tokens"] == 1024


def test_a_model_that_wants_max_completion_tokens_gets_it(fake: FakeOpenAI, client: ChatClient) -> None:
    fake.push(fail(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                        "'max_completion_tokens' instead."), ok(RED), ok(RED))
    c = ChatClient(LLMConfig(base_url=fake.url).profile("extract"), Usage(), environ={"OPENAI_API_KEY": SECRET})
    assert c.complete_structured(MSGS, Colour, "extract").name == "red"
    c.complete_structured(MSGS, Colour, "extract")
    bodies = [r["json"] for r in fake.requests]
    assert "max_tokens" in bodies[0] and bodies[1]["max_completion_tokens"] == 2048 and "max_tokens" not in bodies[2]


def test_answer_cut_at_max_tokens_is_not_repaired(fake: FakeOpenAI) -> None:
    r = ok('{"name": "re')
    r.finish_reason = "length"
    fake.push(r)
    with pytest.raises(LLMTruncated, match="max_tokens"):
        make_client(fake).complete_structured(MSGS, Colour, "extract")
    assert len(fake.requests) == 1


def test_circuit_breaker_opens_after_n_failures_then_cools_down(fake: FakeOpenAI, tmp_path: Path) -> None:
    clock = [1000.0]
    state = EndpointState(tmp_path / "s.json", failures=2, cooldown=60, clock=lambda: clock[0])
    c = state_client(fake, state, retries=0)
    fake.push(fail(503), fail(503))
    for _ in range(2):
        with pytest.raises(LLMUnavailable):
            c.complete_structured(MSGS, Colour, "extract")
    assert c.usage.events["extract"]["circuit-open"] == 1
    with pytest.raises(CircuitOpen, match="during this input"):
        c.complete_structured(MSGS, Colour, "extract")
    assert len(fake.requests) == 2  # nothing sent while open
    state.begin_input()  # the next input: still cooling down
    with pytest.raises(CircuitOpen, match="cooling down"):
        c.complete_structured(MSGS, Colour, "extract")
    # Another process sees the open breaker too (it is in .memfs/llm-state.json).
    assert EndpointState(tmp_path / "s.json", failures=2, cooldown=60, clock=lambda: clock[0]).is_open(c.key)
    clock[0] += 61  # cooled down: one call goes through (half-open); it fails, so it opens again at once
    fake.push(fail(503))
    with pytest.raises(LLMUnavailable):
        c.complete_structured(MSGS, Colour, "extract")
    state.begin_input()
    assert state.is_open(c.key)
    clock[0] += 61
    fake.push(ok(RED))
    assert c.complete_structured(MSGS, Colour, "extract").name == "red"
    assert not state.is_open(c.key) and len(fake.requests) == 4


def test_budget_message_says_what_it_counts(fake: FakeOpenAI) -> None:
    with pytest.raises(Exception, match=r"this process has used 0 of 5 tokens \(prompt \+ completion\)"):
        make_client(fake, budget=5).complete_structured(MSGS, Colour, "extract")


# -- 2. ground every output ---------------------------------------------------------------------

def test_uncited_facts_are_replaced_by_offline_facts_for_those_turns(fake: FakeOpenAI) -> None:
    fake.responder = MisbehavingModel(cite="none")
    src = conversation(LINES)
    ex = LLMExtractor(make_client(fake))
    facts = ex(src)
    offline = extract_offline(src)
    assert {f.anchor for f in facts} == {f.anchor for f in offline} and len(facts) >= len(offline)
    # 6 content-bearing turns, none cited: no split (it would only double the calls), the
    # turns are extracted offline at once.
    assert "coverage-split" not in ex.usage.events["extract"] and len(fake.requests) == 1
    assert ex.usage.fallbacks["extract"] == {"coverage": 1} and ex.usage.events["extract"]["batches"] == 1
    assert ex.usage.events["extract"]["dropped-uncited"] == 6


def test_first_topic_only_answer_is_completed_offline(fake: FakeOpenAI) -> None:
    fake.responder = MisbehavingModel(cite="first")
    src = conversation(LINES)
    ex = LLMExtractor(make_client(fake))
    facts = ex(src)
    assert facts[0].text == "Priya said: I moved to Leeds in March for a new job at the hospital." or \
        "Leeds" in facts[0].text
    anchors = {f.anchor for f in facts}
    assert anchors >= {f.anchor for f in extract_offline(src)}
    assert ex.usage.fallbacks["extract"].get("coverage", 0) >= 1


def test_an_invented_fact_citing_a_real_turn_is_dropped(fake: FakeOpenAI) -> None:
    fake.responder = MisbehavingModel(cite="invented")
    ex = LLMExtractor(make_client(fake), min_turn_coverage=0.0)
    facts = ex(conversation(LINES[:2]))
    assert not any("Zorblax" in f.text for f in facts)
    assert ex.usage.events["extract"]["dropped-ungrounded"] == 1


def test_a_bare_name_is_not_a_fact(fake: FakeOpenAI) -> None:
    fake.push(ok({"facts": [{"text": "Ben.", "turns": [1]}]}))
    ex = LLMExtractor(make_client(fake), min_turn_coverage=0.0)
    assert ex(conversation([("Ben", "Hi, I'm Ben, nice to meet you all here today.")])) == []


def test_truncated_answers_split_the_batch_then_go_offline(fake: FakeOpenAI) -> None:
    fake.responder = MisbehavingModel(finish_length=True)
    src = conversation(LINES)
    ex = LLMExtractor(make_client(fake))
    facts = ex(src)
    assert {f.anchor for f in facts} == {f.anchor for f in extract_offline(src)}
    assert ex.usage.events["extract"]["truncated-split"] >= 1 and ex.usage.fallbacks["extract"]["truncated"] >= 1


def test_placeholder_summary_is_rejected_for_the_extractive_one(fake: FakeOpenAI, client: ChatClient) -> None:
    items = ["Priya moved to Leeds in March.", "Priya cycles to work every day."]
    fake.push(ok({"summary": "The summary text."}))
    assert summarize_category(client, "Places", items, 240) == "Priya moved to Leeds in March; Priya cycles to work every day."
    fake.push(ok({"summary": "Quantum chromodynamics explains the strong force in hadrons."}))
    assert try_summarize_memory(client, items, 500) is None
    assert client.usage.fallbacks["summarize"] == {"placeholder": 1, "ungrounded": 1}
    fake.push(ok({"summary": "Priya lives in Leeds since March and cycles to work."}))
    assert try_summarize_memory(client, items, 500) == "Priya lives in Leeds since March and cycles to work."


# -- merge answers are validated ----------------------------------------------------------------

NEW = ["Priya moved to Leeds in March.", "Ben adopted a dog named Biscuit."]
NEAR = [[("k1", "Priya lives in Manchester.", 0.83), ("k2", "Priya works at the hospital.", 0.7)],
        [("k3", "Ben plays the cello.", 0.64)]]


def test_one_based_merge_numbers_are_shifted_back(fake: FakeOpenAI, client: ChatClient) -> None:
    fake.push(ok({"decisions": [{"fact": 1, "action": "UPDATE", "target": 1, "text": "Priya lives in Leeds now."},
                                {"fact": 2, "action": "ADD"}]}))
    out = decide_merges(client, NEW, NEAR)
    assert (out[0].action, out[0].target_id, out[0].text) == ("update", "k1", "Priya lives in Leeds now.")
    assert out[1].action == "add"
    assert client.usage.events["merge"]["one-based-facts"] == 1
    assert client.usage.events["merge"]["one-based-targets"] == 1


def test_one_based_targets_alone_are_detected_by_the_past_end_number(fake: FakeOpenAI, client: ChatClient) -> None:
    fake.push(ok({"decisions": [{"fact": 0, "action": "REINFORCE", "target": 2},
                                {"fact": 1, "action": "REINFORCE", "target": 1}]}))
    out = decide_merges(client, NEW, [[("k1", "Priya moved to Leeds in March 2024.", 0.95),
                                       ("k2", "Priya moved to Leeds.", 0.97)], [("k3", "Ben adopted Biscuit.", 0.9)]])
    assert [(d.action, d.target_id) for d in out] == [("reinforce", "k2"), ("reinforce", "k3")]


def test_reinforce_into_an_unrelated_item_becomes_add(fake: FakeOpenAI, client: ChatClient) -> None:
    fake.push(ok({"decisions": [{"fact": 0, "action": "REINFORCE", "target": 1},
                                {"fact": 1, "action": "REINFORCE", "target": 0}]}))
    out = decide_merges(client, NEW, NEAR)
    assert [d.action for d in out] == ["add", "add"]
    assert client.usage.events["merge"]["reinforce-not-near"] == 2


def test_update_that_changes_the_subject_becomes_add(fake: FakeOpenAI, client: ChatClient) -> None:
    fake.push(ok({"decisions": [{"fact": 0, "action": "UPDATE", "target": 0, "text": "Anika moved to Leeds in March."},
                                {"fact": 1, "action": "UPDATE", "target": 0, "text": "Ben adopted Biscuit."}]}))
    near = [NEAR[0], [("k3", "Anika plays the cello.", 0.64)]]
    out = decide_merges(client, NEW, near)
    assert [d.action for d in out] == ["add", "add"]  # the text, or the new fact itself, is about someone else
    assert client.usage.events["merge"]["update-subject-changed"] == 2


def test_update_whose_text_says_nothing_the_new_fact_says_becomes_add(fake: FakeOpenAI, client: ChatClient) -> None:
    fake.push(ok({"decisions": [{"fact": 0, "action": "UPDATE", "target": 0, "text": "Zorblax lives on the Moon."}]}))
    assert decide_merges(client, NEW[:1], NEAR[:1])[0].action == "add"
    assert client.usage.events["merge"]["update-text-ungrounded"] == 1


def test_update_with_a_placeholder_text_keeps_the_new_fact(fake: FakeOpenAI, client: ChatClient) -> None:
    fake.push(ok({"decisions": [{"fact": 0, "action": "UPDATE", "target": 0, "text": "Up-to-date memory text."}]}))
    out = decide_merges(client, NEW[:1], NEAR[:1])
    assert (out[0].action, out[0].text) == ("update", NEW[0])


# -- 4. say it: the real CLI ---------------------------------------------------------------------

def _env(fake: FakeOpenAI, **extra: str) -> dict[str, str]:
    return cli_env(MEMFS_LLM="openai", MEMFS_LLM_MODEL="tiny", OPENAI_BASE_URL=fake.url, OPENAI_API_KEY=SECRET,
                   **extra)


def _offline_items(tmp_path: Path, chat: Path) -> list[str]:
    """What the offline default files for the same input (in-process: same pipeline, faster)."""
    from tests.support.workspace import hashing_memory

    root = init_workspace(tmp_path / "offline", git=False).root
    with hashing_memory(root) as mem:
        mem.ingest_file(chat)
    return _items(root)


def _items(root: Path) -> list[str]:
    return [line for p in sorted(root.glob("memory/*.md")) for line in p.read_text().splitlines()
            if line.startswith("- ")]


def test_cli_small_model_server_is_never_worse_than_offline_and_says_so(fake: FakeOpenAI, tmp_path: Path) -> None:
    """500 on json_schema + uncited facts + placeholder summaries, through `memfs ingest`
    with autocommit: the facts offline would file are filed, the output, the commit message
    and `memfs status` say what happened, index.md shows no placeholder."""
    fake.responder = MisbehavingModel(reject_json_schema=True, cite="none", placeholder_summaries=True)
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(CHAT))
    root = init_workspace(tmp_path / "w", git=True).root
    env = _env(fake, MEMFS_GIT_AUTOCOMMIT="true")
    out = subprocess.run(MEMFS + ["ingest", str(chat)], cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "+4 added, 0 reinforced, 0 updated, 0 superseded" in out.stdout
    assert "llm: fell back offline for 1 of 1 batches (coverage 1)" in out.stdout
    assert "summaries kept extractive (placeholder" in out.stdout and "stepped down to json_object" in out.stdout
    assert len(_items(root)) >= len(_offline_items(tmp_path, chat)) == 4  # "I love the old library and I cycle to work": two facts, two lines
    assert "The summary text" not in (root / "index.md").read_text() + (root / "memory.md").read_text()
    message = subprocess.run(["git", "log", "-1", "--format=%B"], cwd=root, capture_output=True, text=True).stdout
    assert "added 4, reinforced 0, updated 0, superseded 0" in message
    assert "llm: fell back offline for 1 of 1 batches (coverage 1)" in message
    status = subprocess.run(MEMFS + ["status"], cwd=root, env=env, capture_output=True, text=True, timeout=60).stdout
    assert "fallbacks: coverage 1" in status and "dropped-uncited 3" in status and "mode:json_object 1" in status
    assert "summarize: last fallback: placeholder" in status
    assert f"llm state  {fake.url}|tiny: structured output json_object" in status
    assert SECRET not in out.stdout + out.stderr + message + status


@pytest.mark.slow
def test_cli_runaway_server_is_cut_off_and_the_input_is_filed_offline(fake: FakeOpenAI, tmp_path: Path) -> None:
    """A generation that never ends: each request is cancelled at llm.timeout, the breaker
    opens after 3, and the rest of the input (and the next one) goes offline at once."""
    fake.responder = MisbehavingModel(runaway=True)
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(CHAT))
    root = init_workspace(tmp_path / "w", git=False).root
    env = _env(fake, MEMFS_LLM_TIMEOUT="1")
    t0 = time.monotonic()
    out = subprocess.run(MEMFS + ["ingest", str(chat)], cwd=root, env=env, capture_output=True, text=True, timeout=120)
    took = time.monotonic() - t0
    assert out.returncode == 0, out.stderr
    assert len(fake.requests) == 3 and took < 60  # 3 × 1 s, not 20+ minutes
    assert "llm: fell back offline for 1 of 1 batches (timeout 1)" in out.stdout
    assert "circuit breaker opened" in out.stdout
    assert len(_items(root)) == len(_offline_items(tmp_path, chat))
    second = tmp_path / "more.json"
    second.write_text(json.dumps([{"role": "user", "name": "Priya", "content": "I bought a red bicycle in May."}]))
    out2 = subprocess.run(MEMFS + ["ingest", str(second)], cwd=root, env=env, capture_output=True, text=True,
                          timeout=120)
    assert out2.returncode == 0 and len(fake.requests) == 3  # cooling down: nothing sent
    assert "(circuit-open 1)" in out2.stdout
    status = subprocess.run(MEMFS + ["status"], cwd=root, env=env, capture_output=True, text=True, timeout=60).stdout
    assert f"llm state  {fake.url}|tiny: circuit open for" in status


@pytest.mark.slow
def test_usage_is_saved_by_add_and_by_recall_mode_llm(fake: FakeOpenAI, tmp_path: Path) -> None:
    fake.responder = MisbehavingModel()
    root = init_workspace(tmp_path / "w", git=False).root
    env = _env(fake)
    subprocess.run(MEMFS + ["add", "Priya cycles to work every day."], cwd=root, env=env, check=True,
                   capture_output=True, timeout=120)
    usage = json.loads((root / ".memfs" / "llm-usage.json").read_text())
    assert usage["steps"]["summarize"]["calls"] >= 1
    subprocess.run(MEMFS + ["recall", "how does Priya get to work", "--mode", "llm"], cwd=root, env=env, check=True,
                   capture_output=True, timeout=120)
    usage = json.loads((root / ".memfs" / "llm-usage.json").read_text())
    assert usage["steps"]["recall"]["calls"] == 2  # rewrite + sufficiency (a single hit needs no re-rank)


def test_memory_md_summary_that_fell_back_is_retried_when_the_model_is_back(fake: FakeOpenAI, ws_path: Path,
                                                                          tmp_path: Path) -> None:
    from memfs.api import Memory
    from memfs.config import load_config

    model = MisbehavingModel(placeholder_summaries=True)
    fake.responder = model
    config = load_config(ws_path, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing", "MEMFS_LLM": "openai",
                                           "OPENAI_BASE_URL": fake.url, "OPENAI_API_KEY": SECRET})
    (tmp_path / "a.json").write_text(json.dumps(CHAT))
    with Memory(ws_path, config=config) as mem:
        mem.ingest_file(tmp_path / "a.json")
        first = (ws_path / "memory.md").read_text()
        assert "The summary text" not in first and "Priya" in first
        model.placeholder_summaries = False  # the model is back
        mem.sync(rebuild=True)
        again = (ws_path / "memory.md").read_text()
        assert again != first and "## In short" in again
        calls = model.calls["SummaryAnswer"]
        mem.sync()  # nothing changed and the summary succeeded: not asked again
        assert model.calls["SummaryAnswer"] == calls


def test_daemon_log_says_what_the_model_did(fake: FakeOpenAI, ws_path: Path) -> None:
    from memfs.api import Memory
    from memfs.config import load_config
    from memfs.daemon import Daemon

    fake.responder = MisbehavingModel(reject_json_schema=True, cite="none")
    config = load_config(ws_path, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing", "MEMFS_LLM": "openai",
                                           "OPENAI_BASE_URL": fake.url, "OPENAI_API_KEY": SECRET})
    (ws_path / "inbox" / "chat.json").write_text(json.dumps(CHAT))
    lines: list[str] = []
    with Memory(ws_path, config=config) as mem:
        Daemon(mem, log=lines.append)._process(ws_path / "inbox" / "chat.json")
    log = "\n".join(lines)
    assert "chat.json: +4 added, 0 reinforced, 0 updated, 0 superseded" in log, log
    assert "chat.json: llm: fell back offline for 1 of 1 batches (coverage 1)" in log
    assert SECRET not in log


def test_report_line_is_built_from_the_usage_of_one_input() -> None:
    from memfs.llm.report import LLMReport

    u = Usage()
    u.record_call("extract", "m", 100, 20)
    u.record_event("extract", "batches", 5)
    before = u.snapshot()
    u.record_call("extract", "m", 300, 40)
    u.record_call("merge", "m", 50, 5)
    u.record_event("extract", "batches", 4)
    u.record_fallback("extract", "coverage")
    u.record_fallback("extract", "timeout")
    u.record_fallback("extract", "coverage")
    u.record_event("merge", "reinforce-not-near")
    u.record_event("merge", "one-based-targets")
    u.record_fallback("summarize", "placeholder")
    report = LLMReport.from_usage(u.delta_since(before))
    assert (report.calls, report.tokens, report.batches) == (2, 395, 4)
    assert report.line() == ("llm: fell back offline for 3 of 4 batches (coverage 2, timeout 1); 2 calls, 395 tokens; "
                             "merge decisions rejected: reinforce-not-near 1; summaries kept extractive (placeholder 1)")


def test_a_turn_cited_only_by_a_thin_fact_also_gets_its_offline_facts(fake: FakeOpenAI) -> None:
    fake.push(ok({"facts": [{"text": "Priya has a job.", "turns": [1]},
                            {"text": "Priya loves the old library and cycles to work every day.", "turns": [2]}]}))
    src = conversation(LINES[:2])
    ex = LLMExtractor(make_client(fake))
    facts = ex(src)
    by_anchor = {}
    for f in facts:
        by_anchor.setdefault(f.anchor, []).append(f.text)
    assert "Priya has a job." in by_anchor["m1"] and any("Leeds" in t for t in by_anchor["m1"])  # filled
    assert by_anchor["m2"] == ["Priya loves the old library and cycles to work every day."]  # covered: no fill
    assert ex.usage.events["extract"]["coverage-turns"] == 1
