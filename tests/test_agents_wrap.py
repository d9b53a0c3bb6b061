"""`memfs.wrap_openai`: the real OpenAI client, wrapped, against a real 127.0.0.1 upstream."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

import memfs
from memfs.agents.tools import AgentTools
from tests.support.fake_openai import FakeOpenAI, failing, ok, refusing_system
from tests.support.workspace import hashing_memory


@pytest.fixture
def upstream() -> Iterator[FakeOpenAI]:
    up = FakeOpenAI(answer="Noted, Rex sounds lovely!").start()
    yield up
    up.stop()


def _blocks(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["json"]["messages"] if m["role"] == "system"]


def test_wrapped_client_files_then_recalls(ws_path: Path, upstream: FakeOpenAI) -> None:
    from openai import OpenAI

    with hashing_memory(ws_path) as mem:
        client = memfs.wrap_openai(OpenAI(base_url=upstream.url, api_key="k", max_retries=0), mem, speaker="Alice")
        first = client.chat.completions.create(model="m", messages=[{"role": "user",
                                                                     "content": "I adopted a dog called Rex."}])
        assert first.choices[0].message.content == "Noted, Rex sounds lovely!"
        assert client.models.list().data[0].id == "fake-model"  # everything else is the client's own
        assert not list((ws_path / "inbox").glob("*.json"))  # filed and ingested (no daemon)
        stream = client.chat.completions.create(model="m", stream=True,
                                                messages=[{"role": "user", "content": "What is my dog called?"}])
        assert "".join(c.choices[0].delta.content or "" for c in stream) == "Noted, Rex sounds lovely!"
        chats = upstream.chat_requests()
        assert not _blocks(chats[0]) and "Alice adopted a dog called Rex" in _blocks(chats[1])[0]
        hits = mem.recall("dog called Rex", k=5)
        assert any(h.text.startswith("Alice") for h in hits)
        assert len(list((ws_path / "resources").rglob("*.json"))) == 2  # the streamed exchange too


def test_wrapped_async_client(ws_path: Path, upstream: FakeOpenAI) -> None:
    from openai import AsyncOpenAI

    out: dict[str, str] = {}

    async def run() -> None:
        with hashing_memory(ws_path) as mem:
            client = memfs.wrap_openai(AsyncOpenAI(base_url=upstream.url, api_key="k", max_retries=0), mem)
            r = await client.chat.completions.create(model="m", user="Carol",
                                                     messages=[{"role": "user", "content": "I play the cello."}])
            out["first"] = r.choices[0].message.content
            stream = await client.chat.completions.create(
                model="m", stream=True, user="Carol", messages=[{"role": "user", "content": "Do I play the cello?"}])
            out["second"] = "".join([c.choices[0].delta.content or "" async for c in stream])

    anyio.run(run)
    assert out == {"first": "Noted, Rex sounds lovely!", "second": "Noted, Rex sounds lovely!"}
    assert "Carol plays the cello" in _blocks(upstream.chat_requests()[1])[0]


class _Broken(AgentTools):
    def recall(self, *args: Any, **kwargs: Any) -> Any:
        raise OSError("disk on fire")


def test_memfs_failure_and_refusal_never_break_the_call(ws_path: Path, upstream: FakeOpenAI) -> None:
    from openai import OpenAI

    with hashing_memory(ws_path) as mem:
        messages = [{"role": "user", "content": "I adopted a dog called Rex."}]
        broken = memfs.wrap_openai(OpenAI(base_url=upstream.url, api_key="k", max_retries=0), _Broken(mem))
        assert broken.chat.completions.create(model="m", messages=messages).choices[0].message.content
        assert upstream.chat_requests()[0]["json"]["messages"] == messages
        upstream.responder = refusing_system("memfs", then=lambda body: ok(upstream.answer))
        client = memfs.wrap_openai(OpenAI(base_url=upstream.url, api_key="k", max_retries=0), mem)
        answer = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "My dog Rex?"}])
        assert answer.choices[0].message.content == "Noted, Rex sounds lovely!"
        refused, retried = upstream.chat_requests()[1:3]
        assert _blocks(refused) and not _blocks(retried)
        upstream.responder = failing(500, "upstream exploded")
        from openai import InternalServerError

        with pytest.raises(InternalServerError):  # the upstream's own error stays the caller's
            client.chat.completions.create(model="m", messages=messages)


def test_speaker_comes_from_the_request_else_config(ws_path: Path, upstream: FakeOpenAI) -> None:
    import json

    from openai import OpenAI

    with hashing_memory(ws_path) as mem:
        mem.config.agents.speaker = "Erin"
        mem.config.agents.assistant = "Robo"
        client = memfs.wrap_openai(OpenAI(base_url=upstream.url, api_key="k", max_retries=0), mem)
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "I grow tomatoes."}])
        client.chat.completions.create(model="m", user="Frank", messages=[{"role": "user", "content": "I bake bread."}])
    convs = [json.loads(p.read_text()) for p in sorted((ws_path / "resources").rglob("*.json"))]
    speakers = sorted(tuple(t["speaker"] for t in c["sessions"][0]["turns"]) for c in convs)
    assert speakers == [("Erin", "Robo"), ("Frank", "Robo")]
