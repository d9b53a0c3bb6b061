"""A chat client for any OpenAI-compatible endpoint that returns validated pydantic objects.

Why not the SDK's own retries and `parse()`: local servers (Ollama, vLLM, llama.cpp,
LM Studio) differ in what they accept. This client
- retries 429/5xx/timeouts/connection errors itself with exponential backoff (honouring
  Retry-After), so each retry is counted in `Usage`;
- asks for `json_schema` structured output, and steps down to `json_object` mode when the
  server rejects it (a 400 naming response_format/json_schema), then to plain text; the
  schema is always in the prompt too, so every mode can work;
- parses answers tolerantly (fences, prose, trailing commas), validates with pydantic and
  gives the model one repair turn with the validation error before raising LLMOutputError;
- checks the shared `Budget` before every request;
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
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import openai
from pydantic import BaseModel, ValidationError

from memfs.errors import ConfigError
from memfs.fsutil import atomic_write
from memfs.llm.config import ProfileConfig
from memfs.llm.errors import BudgetExceeded, LLMOutputError, LLMUnavailable
from memfs.llm.jsonparse import parse_json_lenient
from memfs.llm.usage import Budget, Usage, estimate_tokens

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)
Message = dict[str, str]

MODES = ("json_schema", "json_object", "text")
_REJECT_WORDS = ("response_format", "response format", "json_schema", "json schema", "json_object",
                 "structured output", "guided_json", "grammar")
_RETRY_STATUS = {408, 409, 429}
_MAX_RETRY_AFTER = 30.0


def _host(url: str | None) -> str:
    """Where requests go, for messages: scheme://host:port only (no userinfo, no query)."""
    if not url:
        return "api.openai.com"
    try:
        parts = urlsplit(url)
        return parts.hostname + (f":{parts.port}" if parts.port else "") if parts.hostname else "endpoint"
    except ValueError:
        return "endpoint"


def _describe(err: BaseException) -> str:
    """Type and status only: the SDK's message may quote the server's body, which we do not trust."""
    status = getattr(err, "status_code", None)
    return f"{type(err).__name__}" + (f" (HTTP {status})" if status else "")


def _schema_name(schema: type[BaseModel]) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", schema.__name__)[:64] or "answer"


class ResponseCache:
    """Validated answers on disk under `.memfs/llm-cache/`: derived state, safe to delete."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> Any | None:
        try:
            return json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def put(self, key: str, value: Any) -> None:
        try:
            atomic_write(self._path(key), json.dumps(value, ensure_ascii=False))
        except OSError as err:  # a cache must never fail the call
            log.debug("llm cache write failed: %s", type(err).__name__)


class ChatClient:
    """One profile (model, endpoint, timeout, retries) and its accounting."""

    def __init__(self, profile: ProfileConfig, usage: Usage | None = None, *, budget: Budget | None = None,
                 environ: Mapping[str, str] | None = None, backoff_base: float = 1.0,
                 sleep: Callable[[float], None] = time.sleep, cache: ResponseCache | None = None) -> None:
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
        self._mode = MODES[0]
        self._sdk = openai.OpenAI(api_key=key, base_url=profile.base_url, timeout=profile.timeout, max_retries=0)
        self.host = _host(profile.base_url or str(self._sdk.base_url))

    def __repr__(self) -> str:
        return f"ChatClient(model={self.profile.model!r}, host={self.host!r}, mode={self._mode!r})"

    @property
    def model(self) -> str:
        return self.profile.model

    @property
    def mode(self) -> str:
        """The structured-output mode this server accepts, as learned so far."""
        return self._mode

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

    def _request(self, messages: list[Message], step: str, response_format: dict[str, Any] | None) -> str:
        """One answer's text; retries transient failures. BadRequestError passes through to the caller."""
        p = self.profile
        estimate = sum(estimate_tokens(m.get("content", "")) for m in messages)
        kwargs: dict[str, Any] = {"model": p.model, "messages": messages, "temperature": p.temperature}
        if p.max_tokens:
            kwargs["max_tokens"] = p.max_tokens
        if response_format is not None:
            kwargs["response_format"] = response_format
        attempts = p.retries + 1
        for attempt in range(attempts):
            self.budget.check(estimate)
            try:
                resp = self._sdk.chat.completions.create(**kwargs)
            except (openai.BadRequestError, openai.UnprocessableEntityError):
                raise  # the caller decides: a rejected response_format steps down a mode
            except (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError,
                    openai.InternalServerError, openai.APIStatusError) as err:
                status = getattr(err, "status_code", None)
                transient = status is None or status in _RETRY_STATUS or status >= 500
                if transient and attempt + 1 < attempts:
                    delay = self._delay(attempt, err)
                    self.usage.record_retry(step, p.model)
                    log.info("llm %s: %s from %s, retry %d of %d in %.2fs", step, _describe(err), self.host,
                             attempt + 1, attempts - 1, delay)
                    self._sleep(delay)
                    continue
                self.usage.record_error(step, p.model)
                hint = f" (check ${p.api_key_env})" if status in (401, 403) else ""
                raise LLMUnavailable(self.scrub(f"{step}: request to {self.host} failed after {attempt + 1} "
                                                f"attempt(s): {_describe(err)}{hint}")) from None
            except Exception as err:  # malformed response body, SDK surprises: never a crash upstream
                self.usage.record_error(step, p.model)
                raise LLMUnavailable(self.scrub(f"{step}: bad response from {self.host}: {_describe(err)}")) from None
            text = ""
            if getattr(resp, "choices", None):
                text = (resp.choices[0].message.content or "") if resp.choices[0].message else ""
            u = getattr(resp, "usage", None)
            if u is not None and getattr(u, "prompt_tokens", None) is not None:
                prompt, completion, est = int(u.prompt_tokens or 0), int(u.completion_tokens or 0), False
            else:
                prompt, completion, est = estimate, estimate_tokens(text), True
            self.usage.record_call(step, p.model, prompt, completion, estimated=est)
            self.budget.charge(prompt + completion)
            return text
        raise AssertionError("unreachable")  # pragma: no cover

    def _format_for(self, mode: str, schema: type[BaseModel]) -> dict[str, Any] | None:
        if mode == "json_schema":
            return {"type": "json_schema", "json_schema": {"name": _schema_name(schema),
                                                           "schema": schema.model_json_schema(), "strict": False}}
        if mode == "json_object":
            return {"type": "json_object"}
        return None

    def _ask(self, messages: list[Message], schema: type[BaseModel], step: str, mode: str) -> tuple[str, str]:
        """(text, mode used): steps down (for good) when the server rejects a response_format."""
        while True:
            try:
                return self._request(messages, step, self._format_for(mode, schema)), mode
            except (openai.BadRequestError, openai.UnprocessableEntityError) as err:
                body = f"{getattr(err, 'message', '')} {getattr(err, 'body', '')}".lower()
                if mode != "text" and any(w in body for w in _REJECT_WORDS):
                    lower = MODES[MODES.index(mode) + 1]
                    log.info("llm %s: %s rejects response_format %s; using %s", step, self.host, mode, lower)
                    self.usage.record_event(step, f"mode:{lower}")
                    mode = self._mode = lower
                    continue
                self.usage.record_error(step, self.profile.model)
                raise LLMUnavailable(self.scrub(f"{step}: {self.host} rejected the request: "
                                                f"{_describe(err)}")) from None

    # -- structured output ----------------------------------------------------------
    def _cache_key(self, messages: list[Message], schema: type[BaseModel]) -> str:
        p = self.profile
        blob = json.dumps([p.model, p.temperature, p.max_tokens, messages, schema.model_json_schema()],
                          sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def complete_structured(self, messages: list[Message], schema: type[T], step: str) -> T:
        """The model's answer as a validated ``schema`` instance.

        Raises LLMOutputError (invalid twice), LLMUnavailable (endpoint failed) or
        BudgetExceeded (nothing sent). All are LLMError: callers fall back on that.
        """
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
        conv = _with_instructions(messages, schema)
        mode = self._mode
        problem = ""
        for turn in range(2):
            if turn:
                self.usage.record_repair(step, self.profile.model)
            text, mode = self._ask(conv, schema, step, mode)
            try:
                data = _shape(parse_json_lenient(text), schema)
            except ValueError as err:
                problem = str(err)
                if mode != "text":  # the server did not enforce the format: try the next mode once
                    mode = MODES[MODES.index(mode) + 1]
                what = "empty" if problem == "empty answer" else "not valid JSON"
                conv = conv + ([{"role": "assistant", "content": text[:4000]}] if text.strip() else []) + [
                    {"role": "user", "content": f"Your answer was {what}. "
                     "Reply with only the JSON object described above, nothing else."}]
                continue
            try:
                obj = schema.model_validate(data)
            except ValidationError as err:
                problem = "schema mismatch: " + _short_errors(err)
                conv = conv + [{"role": "assistant", "content": text[:4000]},
                               {"role": "user", "content": "Your JSON does not match the schema: "
                                f"{_short_errors(err, 8)}. Reply with the corrected JSON object only."}]
                continue
            if self.cache is not None:
                self.cache.put(key, obj.model_dump(mode="json"))
            return obj
        raise LLMOutputError(self.scrub(f"{step}: {self.profile.model} gave no valid {schema.__name__} "
                                        f"after 2 answers ({problem})")[:300])


def _with_instructions(messages: list[Message], schema: type[BaseModel]) -> list[Message]:
    """The schema in the system prompt too: json_object and text modes need it, and it says 'JSON'."""
    note = ("Answer with one JSON object only (no prose, no code fences) that validates against this "
            "JSON Schema:\n" + json.dumps(schema.model_json_schema(), separators=(",", ":")))
    out = [dict(m) for m in messages]
    if out and out[0].get("role") == "system":
        out[0]["content"] = out[0]["content"].rstrip() + "\n\n" + note
    else:
        out.insert(0, {"role": "system", "content": note})
    return out


def _shape(data: Any, schema: type[BaseModel]) -> Any:
    """A bare array where the schema wants `{field: [...]}` (one list field) is wrapped, not rejected."""
    if isinstance(data, list):
        fields = [n for n, f in schema.model_fields.items() if f.is_required()] or list(schema.model_fields)
        if len(fields) == 1:
            return {fields[0]: data}
    return data


def _short_errors(err: ValidationError, limit: int = 3) -> str:
    parts = []
    for e in err.errors()[:limit]:
        loc = ".".join(str(x) for x in e["loc"]) or "(root)"
        parts.append(f"{loc}: {e['msg']}")
    more = err.error_count() - limit
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


__all__ = ["BudgetExceeded", "ChatClient", "LLMOutputError", "LLMUnavailable", "ResponseCache", "Usage", "Budget"]
