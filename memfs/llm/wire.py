"""The chat client's wire-level helpers: error classification, messages, the answer cache.

Apart from `client.py` so the client's class holds only the request ladder (retries,
deadlines, the response_format step-down, repair); nothing here talks to a server.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import openai
from pydantic import BaseModel, ValidationError

from memfs.fsutil import atomic_write

log = logging.getLogger("memfs.llm.client")

Message = dict[str, str]

_REJECT_WORDS = ("response_format", "response format", "json_schema", "json schema", "json_object",
                 "structured output", "guided_json", "grammar")
_RETRY_STATUS = {408, 409, 429}
_MAX_RETRY_AFTER = 30.0
MAX_BODY_BYTES = 4_000_000  # an answer larger than this is a runaway, whatever max_tokens said


class _FormatRejected(Exception):
    """Internal: the server refused the response_format (any status); the caller steps down."""

    def __init__(self, status: int | None) -> None:
        super().__init__(status)
        self.status = status


class _Deadline(Exception):
    """Internal: the whole answer did not arrive within the timeout (or grew too large)."""


def _is_timeout(err: BaseException) -> bool:
    return isinstance(err, (TimeoutError, openai.APITimeoutError)) or "timeout" in type(err).__name__.lower()


def _names_token_param(err: BaseException) -> bool:
    body = f"{getattr(err, 'message', '')} {getattr(err, 'body', '')}".lower()
    return "max_tokens" in body and "max_completion_tokens" in body


def _names_format(err: BaseException) -> bool:
    body = f"{getattr(err, 'message', '')} {getattr(err, 'body', '')}".lower()
    return any(w in body for w in _REJECT_WORDS)


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

    def discard(self, key: str) -> None:
        try:
            self._path(key).unlink()
        except OSError:
            pass

    def put(self, key: str, value: Any) -> None:
        try:
            atomic_write(self._path(key), json.dumps(value, ensure_ascii=False))
        except OSError as err:  # a cache must never fail the call
            log.debug("llm cache write failed: %s", type(err).__name__)


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
