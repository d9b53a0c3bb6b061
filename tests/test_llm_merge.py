"""decide_merges: small integers in, real ids out; invented numbers become ADD; failure is ADD."""

from __future__ import annotations

from memfs.llm.merge import MergeDecision, decide_merges
from tests.support.fake_openai import FakeOpenAI, fail, ok

NEW = ["Melanie now lives in Lisbon.", "Melanie loves sunrises.", "Melanie said hi.", "Caroline has a cat."]
NEAR = [
    [("k1aaaaaa", "Melanie lives in Porto."), ("k2bbbbbb", "Melanie moved in 2020.")],
    [("k3cccccc", "Melanie enjoys painting."), ("k4dddddd", "Melanie loves painting sunrises.")],
    [("k5eeeeee", "Melanie greets people.")],
    [],
]


def test_integers_map_back_to_ids(fake: FakeOpenAI, client) -> None:  # type: ignore[no-untyped-def]
    fake.push(ok({"decisions": [
        {"fact": 0, "action": "UPDATE", "target": 0, "text": "Melanie lives in Lisbon (moved from Porto)."},
        {"fact": 1, "action": "reinforce", "target": "1"},
        {"fact": 2, "action": "NONE"}]}))
    out = decide_merges(client, NEW, NEAR)
    assert out == [
        MergeDecision(action="update", target_id="k1aaaaaa", text="Melanie lives in Lisbon (moved from Porto)."),
        MergeDecision(action="reinforce", target_id="k4dddddd"),
        MergeDecision(action="none"),
        MergeDecision(action="add", fallback=True),  # no neighbours: not even asked
    ]
    prompt = fake.prompt()
    assert "0: \"Melanie lives in Porto.\"" in prompt and "NEW fact 2:" in prompt
    assert "Caroline has a cat" not in prompt
    for item_id, _ in sum(NEAR, []):
        assert item_id not in prompt  # the model never sees ids, so it cannot invent one


def test_invented_or_missing_indexes_become_add(fake: FakeOpenAI, client) -> None:  # type: ignore[no-untyped-def]
    fake.push(ok({"decisions": [
        {"fact": 0, "action": "REINFORCE", "target": 7},          # out of range
        {"fact": 1, "action": "UPDATE", "text": "x"},             # no target
        {"fact": 1, "action": "REINFORCE", "target": 0},          # second answer for fact 1: ignored
        {"fact": 9, "action": "REINFORCE", "target": 0},          # a fact we did not show
        {"fact": 2, "action": "DELETE", "target": 0}]}))          # unknown verb
    out = decide_merges(client, NEW, NEAR)
    assert [d.action for d in out] == ["add", "add", "add", "add"]
    assert all(d.target_id is None for d in out)
    assert client.usage.events["merge"]["invalid-target"] == 2


def test_unanswered_fact_is_add(fake: FakeOpenAI, client) -> None:  # type: ignore[no-untyped-def]
    fake.push(ok({"decisions": [{"fact": 1, "action": "REINFORCE", "target": 0}]}))
    out = decide_merges(client, NEW[:2], NEAR[:2])
    assert out[0] == MergeDecision(action="add", fallback=True)
    assert out[1].target_id == "k3cccccc"
    assert client.usage.events["merge"]["unanswered"] == 1


def test_update_without_text_uses_the_new_fact(fake: FakeOpenAI, client) -> None:  # type: ignore[no-untyped-def]
    fake.push(ok({"decisions": [{"fact": 0, "action": "UPDATE", "target": 1, "text": "  "}]}))
    assert decide_merges(client, NEW[:1], NEAR[:1])[0].text == NEW[0]


def test_failure_is_add_for_all(fake: FakeOpenAI, client) -> None:  # type: ignore[no-untyped-def]
    fake.push(fail(500), fail(500), fail(500))
    out = decide_merges(client, NEW, NEAR)
    assert [d.action for d in out] == ["add"] * 4 and all(d.fallback for d in out)
    assert client.usage.fallbacks == {"merge": {"unavailable": 1}}


def test_no_neighbours_no_call(fake: FakeOpenAI, client) -> None:  # type: ignore[no-untyped-def]
    assert [d.action for d in decide_merges(client, ["a", "b"], [[], []])] == ["add", "add"]
    assert decide_merges(client, [], []) == []
    assert fake.requests == []


def test_chunks(fake: FakeOpenAI, client) -> None:  # type: ignore[no-untyped-def]
    facts = [f"fact {i}" for i in range(5)]
    near = [[(f"id{i}", f"old {i}")] for i in range(5)]
    fake.responder = lambda body: ok({"decisions": [{"fact": k, "action": "REINFORCE", "target": 0}
                                                    for k in range(3)]})
    out = decide_merges(client, facts, near, chunk=3)
    assert len(fake.requests) == 2
    assert [d.target_id for d in out] == [f"id{i}" for i in range(5)]
