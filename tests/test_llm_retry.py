"""Chat and embeddings share one retry loop (`ChatClient._retrying`): the same budget and
breaker checks before each attempt, the same backoff and counting, the same failures."""

from __future__ import annotations

import pytest

from memfs.llm.client import BudgetExceeded, CircuitOpen, LLMUnavailable
from memfs.llm.endpoint import EndpointState
from tests.support.fake_openai import FakeOpenAI, fail, make_client


def _embeds(fake: FakeOpenAI) -> int:
    return sum(1 for r in fake.requests if r["path"].endswith("/embeddings"))


def test_embeddings_retry_a_5xx_and_count_it(fake: FakeOpenAI) -> None:
    client = make_client(fake, retries=2)
    fake.embed_script.append(fail(503, "busy"))
    assert client.embed(["abc"]) == [[3.0, 1.0, 0.0]]
    step = client.usage.steps["embed"]
    assert (step.calls, step.retries, step.errors) == (1, 1, 0) and _embeds(fake) == 2


def test_embeddings_give_up_after_the_last_attempt(fake: FakeOpenAI) -> None:
    client = make_client(fake, retries=1)
    fake.embed_script.extend([fail(500, "down"), fail(500, "down")])
    with pytest.raises(LLMUnavailable, match="failed after 2 attempt"):
        client.embed(["abc"])
    step = client.usage.steps["embed"]
    assert (step.retries, step.errors) == (1, 1) and _embeds(fake) == 2


def test_an_embedding_4xx_is_not_retried(fake: FakeOpenAI) -> None:
    client = make_client(fake, retries=3)
    fake.embed_script.append(fail(401, "bad key"))
    with pytest.raises(LLMUnavailable, match="failed:"):
        client.embed(["abc"])
    assert _embeds(fake) == 1 and client.usage.steps["embed"].retries == 0


def test_budget_and_breaker_stop_embeddings_before_a_request(fake: FakeOpenAI) -> None:
    with pytest.raises(BudgetExceeded):
        make_client(fake, budget=1).embed(["a long enough text to cost more than one token"])
    state = EndpointState(failures=1)
    client = make_client(fake, state=state)
    state.failure(client.key)
    with pytest.raises(CircuitOpen):
        client.embed(["abc"])
    assert _embeds(fake) == 0


def test_chat_retries_a_429_through_the_same_loop(fake: FakeOpenAI) -> None:
    from pydantic import BaseModel

    from tests.support.fake_openai import ok

    class Answer(BaseModel):
        value: int

    client = make_client(fake, retries=2)
    fake.script.extend([fail(429, "slow down"), ok({"value": 7})])
    assert client.complete_structured([{"role": "user", "content": "seven"}], Answer, "test").value == 7
    step = client.usage.steps["test"]
    assert (step.calls, step.retries, step.errors) == (1, 1, 0)
