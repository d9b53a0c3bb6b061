"""Tolerant JSON from a model's text: servers that ignore response_format still answer usefully.

Handles ```json fences, prose around the object, <think> preambles of reasoning models
and trailing commas. String-aware throughout: a brace or comma inside a string is text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_FENCE_RE = re.compile(r"```[ \t]*(?:json|JSON|javascript|js)?[ \t]*\n?(.*?)```", re.DOTALL)
_THINK_RE = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_CLOSE = {"{": "}", "[": "]"}


def parse_json_lenient(text: str) -> Any:
    """The first JSON object or array in ``text``; ValueError if there is none."""
    s = _THINK_RE.sub("", text or "").strip()
    if not s:
        raise ValueError("empty answer")
    try:
        return json.loads(s)
    except ValueError:
        pass
    # A fence is trusted only when it holds exactly one JSON value: a string inside the
    # JSON can itself contain ``` (the fence regex then cuts the value short, and the
    # piece it cut may hold a smaller balanced "[]" that is not the answer).
    for m in _FENCE_RE.finditer(s):
        inner = m.group(1).strip()
        if next(_balanced(inner), None) == inner and (value := _loads(inner)) is not _NONE:
            return value
    for block in _balanced(s):  # else the first bracketed block, from the start, that parses
        if (value := _loads(block)) is not _NONE:
            return value
    raise ValueError("answer is not JSON")


_NONE = object()


def _loads(block: str) -> Any:
    for attempt in (block, _drop_trailing_commas(block)):
        try:
            return json.loads(attempt)
        except ValueError:
            continue
    return _NONE


def _balanced(s: str) -> Iterator[str]:
    """Each outermost complete {...} or [...] in ``s``, left to right (brackets inside
    strings ignored): never a piece of a block that closes, so a block that fails to parse
    never yields its parts. One that never closes is skipped past its opening bracket, so
    what is inside it can still be found (the answer's schema check judges it)."""
    start = 0
    while start < len(s):
        end = _match(s, start) if s[start] in _CLOSE else None
        if end is None:
            start += 1
            continue
        yield s[start : end + 1]
        start = end + 1


def _match(s: str, start: int) -> int | None:
    stack: list[str] = []
    in_str = esc = False
    for i in range(start, len(s)):
        ch = s[i]
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch in _CLOSE:
            stack.append(_CLOSE[ch])
        elif ch in "}]":
            if not stack or stack.pop() != ch:
                return None
            if not stack:
                return i
    return None


def _drop_trailing_commas(s: str) -> str:
    """Remove a comma that only precedes a closing bracket: `[1, 2,]` -> `[1, 2]`."""
    out: list[str] = []
    in_str = esc = False
    i = 0
    while i < len(s):
        ch = s[i]
        if in_str:
            out.append(ch)
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
            out.append(ch)
        elif ch == ",":
            j = i + 1
            while j < len(s) and s[j].isspace():
                j += 1
            if j < len(s) and s[j] in "}]":
                i += 1
                continue
            out.append(ch)
        else:
            out.append(ch)
        i += 1
    return "".join(out)
