"""A chat client for any OpenAI-compatible endpoint that returns validated pydantic objects.

Why not the SDK's own retries and `parse()`: local servers (Ollama, vLLM, llama.cpp,
LM Studio) differ in what they accept, and a small model misbehaves in ways a hosted one
does not. This client
- retries 429/5xx/connection errors itself with exponential backoff (honouring
  Retry-After), so each retry is counted in `Usage`; a timeout is *not* retried (a
  single-slot server may still be generating the abandoned answer: a retry would queue
  behind it);
- bounds every request: `max_tokens` (a default per step) and a wall-clock deadline of
  `timeout` seconds over the whole answer, enforced while the body is read, after which
  the connection is closed (a trickling or never-ending answer cannot hold memfs);
- asks for `json_schema` structured output, and steps down to `json_object` mode, then to
  plain text, when the server *rejects* it: any 4xx/5xx whose body names response_format /
  json_schema (llama-cpp-python answers HTTP 500 "Input should be 'text' or 'json_object'")
  is a rejection, not an outage, and is never retried. The working mode is remembered per
  endpoint and model (`EndpointState`, persisted in `.memfs/llm-state.json`); the schema is
  always in the prompt too, so every mode can work;
- parses answers tolerantly (fences, prose, trailing commas), validates with pydantic and
  gives the model one repair turn with the validation error before raising LLMOutputError
  (no repair after an answer cut at max_tokens: that is LLMTruncated, the caller splits);
- checks the shared `Budget` and the endpoint's circuit breaker before every request, and
  reports each call's success or failure to the breaker;
- optionally caches validated answers on disk, keyed by model and prompt, so replaying an
  input after a crash yields the same facts (the same item ids: ingestion stays idempotent).

The API key comes only from the environment variable the profile names. It lives inside
the SDK client and is scrubbed from every message this module builds; it is never logged,
never part of an exception or of ``repr``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import openai
from pydantic import BaseModel, ValidationError

from memfs.errors import ConfigError
from memfs.llm.config import ProfileConfig
from memfs.llm.endpoint import MODES, EndpointState, endpoint_key
from memfs.llm.errors import (
    BudgetExceeded, CircuitOpen, LLMError, LLMOutputError, LLMTimeout, LLMTruncated, LLMUnavailable,
)
from memfs.llm.jsonparse import parse_json_lenient
from memfs.llm.usage import Budget, Usage, estimate_tokens
from memfs.llm.wire import (
    _MAX_RETRY_AFTER, _RETRY_STATUS, MAX_BODY_BYTES, Message, ResponseCache, _Deadline, _describe, _FormatRejected,
    _host, _is_timeout, _names_format, _names_token_param, _schema_name, _shape, _short_errors, _with_instructions,
)

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")
_API_ERRORS = (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError, openai.APIStatusError)
# Embeddings retry a timeout too: a request of vectors holds no single-slot generation.
_EMBED_TRANSIENT = (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError,
                    openai.APITimeoutError)


def _chat_transient(err: BaseException) -> bool:
    """A chat error worth retrying: no connection, 429, 5xx (a timeout never reaches here)."""
    if not isinstance(err, _API_ERRORS):
        return False
    status = getattr(err, "status_code", None)
    return status is None or status in _RETRY_STATUS or status >= 500

class ChatClient:
    """One profile (model, endpoint, timeout, retries) and its accounting."""

    def __init__(self, profile: ProfileConfig, usage: Usage | None = None, *, budget: Budget | None = None,
                 environ: Mapping[str, str] | None = None, backoff_base: float = 1.0,
                 sleep: Callable[[float], None] = time.sleep, cache: ResponseCache | None = None,
                 state: EndpointState | None = None) -> None:
        env = os.environ if environ is None else environ
        key = (env.get(profile.api_key_env) or "").strip()
        if not key:
            if not profile.base_url:
                raise ConfigError(f"llm provider is openai but ${profile.api_key_env} is not set "
                                  "(set it, or set llm.base_url for a local server)")
            key = "unused"  # local servers (Ollama, vLLM ...) take any key
        self.profile = profile
        self.usage = usage if usage is not None else Usage()
        self.budget = budget if budget is not None else Budget()
        self.backoff_base = backoff_base
        self.cache = cache
        self._sleep = sleep
        self._secrets = tuple(sorted({s for s in (key, key[-12:]) if len(s) >= 8}, key=len, reverse=True))
        self.state = state if state is not None else EndpointState()
        self._token_param = "max_tokens"
        self.key = endpoint_key(profile.base_url, profile.model)
        self._sdk = openai.OpenAI(api_key=key, base_url=profile.base_url, timeout=profile.timeout, max_retries=0)
        self.host = _host(profile.base_url or str(self._sdk.base_url))

    def __repr__(self) -> str:
        return f"ChatClient(model={self.profile.model!r}, host={self.host!r}, mode={self.mode!r})"

    @property
    def model(self) -> str:
        return self.profile.model

    @property
    def mode(self) -> str:
        """The structured-output mode this server and model accept, as learned so far."""
        return self.state.mode(self.key)

    def scrub(self, text: str) -> str:
        """Remove the key (and its tail) from any text we are about to log or raise."""
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text

    # -- transport -----------------------------------------------------------------
    def _delay(self, attempt: int, err: BaseException) -> float:
        delay = self.backoff_base * (2 ** attempt)
        response = getattr(err, "response", None)
        retry_after = response.headers.get("retry-after") if response is not None else None
        if retry_after:
            try:
                delay = max(delay, min(float(retry_after), _MAX_RETRY_AFTER))
            except ValueError:
                pass
        return delay

    def _post(self, kwargs: dict[str, Any]) -> tuple[str, str | None, dict[str, Any] | None]:
        """(content, finish_reason, usage) of one request, read against a wall-clock deadline.

        The body is read chunk by chunk so that a server trickling bytes (or never ending
        its answer) is cut off at `timeout`: leaving the `with` closes the connection."""
        deadline = time.monotonic() + self.profile.timeout
        body = bytearray()
        with self._sdk.chat.completions.with_streaming_response.create(**kwargs) as raw:
            try:
                for chunk in raw.iter_bytes():
                    body += chunk
                    if time.monotonic() > deadline or len(body) > MAX_BODY_BYTES:
                        raise _Deadline()
            except _Deadline:
                raise
            except Exception as err:
                if _is_timeout(err):
                    raise _Deadline() from None
                raise
        doc = json.loads(bytes(body))
        choice = (doc.get("choices") or [{}])[0] or {}
        message = choice.get("message") or {}
        content = message.get("content")
        return (content if isinstance(content, str) else ""), choice.get("finish_reason"), doc.get("usage")

    def _retrying(self, step: str, estimate: int, once: Callable[[], R], *,
                  transient: Callable[[BaseException], bool], failure: Callable[[BaseException, int], LLMError],
                  passthrough: tuple[type[BaseException], ...] = ()) -> R:
        """`once()` inside the loop chat and embeddings share, so both count, back off and fail
        the same way: the budget and the circuit breaker are checked before every attempt; an
        error `transient` accepts is retried with backoff (each retry counted in Usage) while
        attempts remain; any other error, or the last one, is counted and raised as
        `failure(err, attempts made)`. An LLMError, a format rejection or a `passthrough`
        error raised by `once` is already decided and goes up unchanged."""
        p = self.profile
        attempts = p.retries + 1
        for attempt in range(attempts):
            self.budget.check(estimate)
            why = self.state.open_reason(self.key)
            if why is not None:
                raise CircuitOpen(f"{step}: {p.model} at {self.host} switched off: {why}")
            try:
                return once()
            except (LLMError, _FormatRejected) + passthrough:
                raise
            except Exception as err:
                if transient(err) and attempt + 1 < attempts:
                    delay = self._delay(attempt, err)
                    self.usage.record_retry(step, p.model)
                    log.info("llm %s: %s from %s, retry %d of %d in %.2fs", step, _describe(err), self.host,
                             attempt + 1, attempts - 1, delay)
                    self._sleep(delay)
                    continue
                self.usage.record_error(step, p.model)
                raise failure(err, attempt + 1) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _request(self, messages: list[Message], step: str, response_format: dict[str, Any] | None) -> tuple[str, str | None]:
        """(answer text, finish_reason); retries transient failures.

        Raises _FormatRejected (the caller steps down a mode), BadRequestError /
        UnprocessableEntityError (the caller decides), LLMTimeout, LLMUnavailable,
        CircuitOpen or BudgetExceeded."""
        p = self.profile
        estimate = sum(estimate_tokens(m.get("content", "")) for m in messages)
        kwargs: dict[str, Any] = {"model": p.model, "messages": messages, "temperature": p.temperature}
        if p.max_tokens:
            kwargs[self._token_param] = p.max_tokens
        if response_format is not None:
            kwargs["response_format"] = response_format

        def once() -> tuple[str, str | None]:
            try:
                text, finish, u = self._post(kwargs)
            except (openai.BadRequestError, openai.UnprocessableEntityError) as err:
                if response_format is not None and _names_format(err):
                    raise _FormatRejected(getattr(err, "status_code", None)) from None
                if p.max_tokens and self._token_param == "max_tokens" and _names_token_param(err):
                    # Newer OpenAI models refuse max_tokens for max_completion_tokens: same bound.
                    self._token_param = "max_completion_tokens"
                    kwargs["max_completion_tokens"] = kwargs.pop("max_tokens")
                    log.info("llm %s: %s wants max_completion_tokens; using it", step, self.host)
                    return once()
                raise  # the caller decides
            except (_Deadline, openai.APITimeoutError):
                self.usage.record_error(step, p.model)
                self.usage.record_event(step, "timeout")
                raise LLMTimeout(self.scrub(f"{step}: no complete answer from {self.host} within {p.timeout:g}s "
                                            "(llm.timeout); request cancelled")) from None
            except openai.APIStatusError as err:
                if response_format is not None and _names_format(err):
                    raise _FormatRejected(err.status_code) from None  # e.g. llama.cpp's HTTP 500: not an outage
                raise
            if isinstance(u, dict) and isinstance(u.get("prompt_tokens"), int):
                prompt, completion, est = int(u["prompt_tokens"]), int(u.get("completion_tokens") or 0), False
            else:
                prompt, completion, est = estimate, estimate_tokens(text), True
            self.usage.record_call(step, p.model, prompt, completion, estimated=est)
            self.budget.charge(prompt + completion)
            return text, finish

        return self._retrying(step, estimate, once, transient=_chat_transient,
                              failure=lambda err, n: self._chat_failure(step, err, n),
                              passthrough=(openai.BadRequestError, openai.UnprocessableEntityError))

    def _chat_failure(self, step: str, err: BaseException, attempts: int) -> LLMError:
        if isinstance(err, _API_ERRORS):
            status = getattr(err, "status_code", None)
            hint = f" (check ${self.profile.api_key_env})" if status in (401, 403) else ""
            return LLMUnavailable(self.scrub(f"{step}: request to {self.host} failed after {attempts} "
                                             f"attempt(s): {_describe(err)}{hint}"))
        # a malformed response body, an SDK surprise: never a crash upstream
        return LLMUnavailable(self.scrub(f"{step}: bad response from {self.host}: {_describe(err)}"))

    def embed(self, texts: list[str], step: str = "embed") -> list[list[float]]:
        """Embedding vectors for `texts` (one request), through the same budget, circuit
        breaker, retries and usage accounting as chat. Raises an LLMError (a MemfsError)."""
        p = self.profile
        estimate = sum(estimate_tokens(t) for t in texts)

        def once() -> list[list[float]]:
            resp = self._sdk.embeddings.create(model=p.model, input=texts)
            vectors = [list(d.embedding) for d in sorted(resp.data, key=lambda d: d.index)]
            used = getattr(getattr(resp, "usage", None), "prompt_tokens", None)
            tokens = int(used) if isinstance(used, int) else estimate
            self.usage.record_call(step, p.model, tokens, 0, estimated=not isinstance(used, int))
            self.budget.charge(tokens)
            return vectors

        def failure(err: BaseException, attempts: int) -> LLMError:
            if isinstance(err, _EMBED_TRANSIENT):
                return LLMUnavailable(self.scrub(f"{step}: request to {self.host} failed after {attempts} "
                                                 f"attempt(s): {_describe(err)}"))
            # an HTTP error, a malformed body: never a crash upstream
            return LLMUnavailable(self.scrub(f"{step}: request to {self.host} failed: {_describe(err)}"))

        return self._retrying(step, estimate, once, transient=lambda err: isinstance(err, _EMBED_TRANSIENT),
                              failure=failure)

    def _format_for(self, mode: str, schema: type[BaseModel]) -> dict[str, Any] | None:
        if mode == "json_schema":
            return {"type": "json_schema", "json_schema": {"name": _schema_name(schema),
                                                           "schema": schema.model_json_schema(), "strict": False}}
        if mode == "json_object":
            return {"type": "json_object"}
        return None

    def _ask(self, messages: list[Message], schema: type[BaseModel], step: str,
             mode: str) -> tuple[str, str | None, str]:
        """(text, finish_reason, mode used): steps down (for good) when the server rejects a response_format."""
        while True:
            try:
                text, finish = self._request(messages, step, self._format_for(mode, schema))
                return text, finish, mode
            except _FormatRejected as rej:
                if mode == "text":  # pragma: no cover - text mode sends no response_format
                    raise LLMUnavailable(f"{step}: {self.host} rejected a request without response_format") from None
                lower = MODES[MODES.index(mode) + 1]
                log.info("llm %s: %s rejects response_format %s (HTTP %s); using %s", step, self.host, mode,
                         rej.status, lower)
                self.usage.record_event(step, f"mode:{lower}")
                self.state.set_mode(self.key, lower)
                mode = lower
            except (openai.BadRequestError, openai.UnprocessableEntityError) as err:
                self.usage.record_error(step, self.profile.model)
                raise LLMUnavailable(self.scrub(f"{step}: {self.host} rejected the request: "
                                                f"{_describe(err)}")) from None

    # -- structured output ----------------------------------------------------------
    def _cache_key(self, messages: list[Message], schema: type[BaseModel]) -> str:
        p = self.profile
        blob = json.dumps([p.model, p.temperature, p.max_tokens, messages, schema.model_json_schema()],
                          sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def discard_cached(self, messages: list[Message], schema: type[BaseModel]) -> None:
        """Forget a cached answer the caller rejected (a placeholder summary must not be
        served again once the model is back)."""
        if self.cache is not None:
            self.cache.discard(self._cache_key(messages, schema))

    def complete_structured(self, messages: list[Message], schema: type[T], step: str) -> T:
        """The model's answer as a validated ``schema`` instance.

        Raises LLMOutputError (invalid twice; LLMTruncated if cut at max_tokens),
        LLMUnavailable (endpoint failed; LLMTimeout, CircuitOpen) or BudgetExceeded
        (nothing sent). All are LLMError: callers fall back on that. Each call's outcome
        feeds the endpoint's circuit breaker."""
        key = self._cache_key(messages, schema) if self.cache is not None else ""
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                try:
                    obj = schema.model_validate(hit)
                    self.usage.record_cached(step, self.profile.model)
                    return obj
                except ValidationError:
                    pass
        try:
            obj = self._complete(messages, schema, step)
        except (BudgetExceeded, CircuitOpen):
            raise  # nothing was sent: not the endpoint's failure
        except LLMError:
            if self.state.failure(self.key):
                self.usage.record_event(step, "circuit-open")
                log.warning("llm: %s at %s failed %d calls in a row; offline for the rest of this input and %gs",
                            self.profile.model, self.host, self.state.failures, self.state.cooldown)
            raise
        self.state.success(self.key)
        if self.cache is not None:
            self.cache.put(key, obj.model_dump(mode="json"))
        return obj

    def _complete(self, messages: list[Message], schema: type[T], step: str) -> T:
        conv = _with_instructions(messages, schema)
        mode = self.mode
        problem = ""
        for turn in range(2):
            if turn:
                self.usage.record_repair(step, self.profile.model)
            text, finish, mode = self._ask(conv, schema, step, mode)
            try:
                data = _shape(parse_json_lenient(text), schema)
            except ValueError as err:
                if finish == "length":
                    self.usage.record_event(step, "truncated")
                    raise LLMTruncated(self.scrub(f"{step}: {self.profile.model}'s answer was cut at "
                                                  f"max_tokens={self.profile.max_tokens} before its JSON ended"
                                                  )[:300]) from None
                problem = str(err)
                if mode != "text":  # the server did not enforce the format: try the next mode once
                    mode = MODES[MODES.index(mode) + 1]
                what = "empty" if problem == "empty answer" else "not valid JSON"
                conv = conv + ([{"role": "assistant", "content": text[:4000]}] if text.strip() else []) + [
                    {"role": "user", "content": f"Your answer was {what}. "
                     "Reply with only the JSON object described above, nothing else."}]
                continue
            try:
                return schema.model_validate(data)
            except ValidationError as err:
                problem = "schema mismatch: " + _short_errors(err)
                conv = conv + [{"role": "assistant", "content": text[:4000]},
                               {"role": "user", "content": "Your JSON does not match the schema: "
                                f"{_short_errors(err, 8)}. Reply with the corrected JSON object only."}]
                continue
        raise LLMOutputError(self.scrub(f"{step}: {self.profile.model} gave no valid {schema.__name__} "
                                        f"after 2 answers ({problem})")[:300])


__all__ = ["BudgetExceeded", "ChatClient", "CircuitOpen", "LLMTimeout", "LLMTruncated", "LLMOutputError", "LLMUnavailable", "ResponseCache", "Usage", "Budget"]
