"""`memfs.wrap_openai(client, memory)`: the proxy's behaviour, in-process.

    from openai import OpenAI
    from memfs import Memory, wrap_openai
    client = wrap_openai(OpenAI(), Memory("~/memory"))
    client.chat.completions.create(model=..., messages=[...])   # memory in, exchange filed

`chat.completions.create` (sync or async client, streaming or not) gets the same memory
block as through `memfs proxy`, and the exchange is filed into inbox/ once the answer is
complete (ingested at once when no daemon runs, so the next call recalls it). Everything
else is the client's own. memfs never breaks a call: a failing recall sends the messages
unchanged; a 4xx on the call with memory is retried without it; filing errors are logged.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import anyio.to_thread

from memfs.agents.exchange import file_exchange, new_user_turns, process_if_no_daemon, speaker_name
from memfs.agents.inject import memory_block, message_text, with_block
from memfs.agents.tools import AgentTools
from memfs.api import Memory

log = logging.getLogger("memfs.wrap")


def wrap_openai(client: Any, memory: Memory | AgentTools, *, speaker: str | None = None) -> Any:
    """An object that behaves like `client`, with memory around `chat.completions.create`."""
    tools = memory if isinstance(memory, AgentTools) else AgentTools(memory)
    return _Delegate(client, chat=_Delegate(client.chat, completions=_Completions(client.chat.completions, tools,
                                                                                    speaker)))


class _Delegate:
    """Attribute access falls through to `inner`, except for the overrides given."""

    def __init__(self, inner: Any, **overrides: Any) -> None:
        self.__dict__["_inner"] = inner
        self.__dict__.update(overrides)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _Completions(_Delegate):
    def __init__(self, inner: Any, tools: AgentTools, speaker: str | None) -> None:
        super().__init__(inner)
        self.__dict__["_tools"] = tools
        self.__dict__["_speaker"] = speaker
        if inspect.iscoroutinefunction(inspect.unwrap(inner.create)):  # openai wraps AsyncCompletions.create
            self.__dict__["create"] = self._acreate
        else:
            self.__dict__["create"] = self._create

    # -- shared -------------------------------------------------------------------
    def _prepare(self, kwargs: dict[str, Any]) -> tuple[dict[str, Any] | None, tuple[list[str], str] | None]:
        """(kwargs with memory or None, (user turns, speaker) to file or None); never raises."""
        messages = kwargs.get("messages")
        try:
            messages = list(messages) if messages is not None else None
        except TypeError:
            return None, None
        if not messages or not all(isinstance(m, dict) for m in messages):
            return None, None
        cfg = self._tools.memory.config.agents
        filing = (new_user_turns(messages), speaker_name(kwargs.get("user") or self._speaker, cfg.speaker))
        try:
            block = memory_block(self._tools, messages, cfg.inject_k, cfg.inject_chars)
        except Exception as err:  # noqa: BLE001 - memfs failing must never fail the call
            log.warning("memfs: recall failed (%s: %s); calling without memory", type(err).__name__, err)
            return None, filing
        return ({**kwargs, "messages": with_block(messages, block)} if block else None), filing

    def _file(self, filing: tuple[list[str], str] | None, answer: str) -> None:
        if filing is None:
            return
        try:
            path = file_exchange(self._tools.memory.ws, filing[0], answer, filing[1],
                                 self._tools.memory.config.agents.assistant, source="wrap")
            process_if_no_daemon(self._tools, path)
        except Exception as err:  # noqa: BLE001 - the answer is already the caller's
            log.warning("memfs: could not file the exchange (%s: %s)", type(err).__name__, err)

    @staticmethod
    def _refused(err: BaseException) -> bool:
        status = getattr(err, "status_code", None)
        return isinstance(status, int) and 400 <= status < 500

    # -- sync -----------------------------------------------------------------------
    def _create(self, *args: Any, **kwargs: Any) -> Any:
        with_memory, filing = self._prepare(kwargs)
        try:
            result = self._inner.create(*args, **(with_memory or kwargs))
        except Exception as err:
            if with_memory is None or not self._refused(err):
                raise
            log.warning("memfs: the call with memory was refused (%s); calling without it", err)
            result = self._inner.create(*args, **kwargs)
        if kwargs.get("stream"):
            return _Stream(result, lambda text: self._file(filing, text))
        self._file(filing, _answer(result))
        return result

    # -- async ----------------------------------------------------------------------
    async def _acreate(self, *args: Any, **kwargs: Any) -> Any:
        with_memory, filing = self._prepare(kwargs)
        try:
            result = await self._inner.create(*args, **(with_memory or kwargs))
        except Exception as err:
            if with_memory is None or not self._refused(err):
                raise
            log.warning("memfs: the call with memory was refused (%s); calling without it", err)
            result = await self._inner.create(*args, **kwargs)
        if kwargs.get("stream"):
            return _AsyncStream(result, lambda text: self._file(filing, text))
        await anyio.to_thread.run_sync(self._file, filing, _answer(result))
        return result


def _answer(result: Any) -> str:
    try:
        message = result.choices[0].message
        content = message.content
        return content if isinstance(content, str) else message_text({"content": content})
    except (AttributeError, IndexError, TypeError):
        return ""


def _delta(chunk: Any) -> str:
    try:
        for choice in chunk.choices or []:
            if getattr(choice, "index", 0) == 0 and isinstance(choice.delta.content, str):
                return str(choice.delta.content)
    except (AttributeError, TypeError):
        pass
    return ""


class _Stream(_Delegate):
    """The client's stream, unchanged; files the exchange when it is exhausted."""

    def __init__(self, inner: Any, done: Callable[[str], None]) -> None:
        super().__init__(inner)
        self.__dict__["_done"] = done

    def __iter__(self) -> Iterator[Any]:
        parts: list[str] = []
        for chunk in self._inner:
            parts.append(_delta(chunk))
            yield chunk
        self._done("".join(parts))

    def __enter__(self) -> "_Stream":
        self._inner.__enter__()
        return self

    def __exit__(self, *exc: object) -> Any:
        return self._inner.__exit__(*exc)


class _AsyncStream(_Delegate):
    def __init__(self, inner: Any, done: Callable[[str], None]) -> None:
        super().__init__(inner)
        self.__dict__["_done"] = done

    async def __aiter__(self) -> AsyncIterator[Any]:
        parts: list[str] = []
        async for chunk in self._inner:
            parts.append(_delta(chunk))
            yield chunk
        await anyio.to_thread.run_sync(self._done, "".join(parts))

    async def __aenter__(self) -> "_AsyncStream":
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> Any:
        return await self._inner.__aexit__(*exc)
