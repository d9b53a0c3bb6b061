"""Shared by the export readers: times as exports write them (ISO strings, unix seconds or
milliseconds) and JSONL records whose errors name the format and the line."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memfs.readers.errors import ReadError
from memfs.readers.jsonload import load_json
from memfs.readers.timeparse import parse_time

#: Past these a number is milli-, micro- or nanoseconds, not seconds (1e11 s is the year 5138).
_SCALES = ((100_000_000_000_000_000, 1e9), (100_000_000_000_000, 1e6), (100_000_000_000, 1e3))


def export_time(label: str, where: str, value: object) -> datetime | None:
    """A naive datetime, None when absent; an unreadable time names the format and place."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = next((value / scale for limit, scale in _SCALES if abs(value) >= limit), value)
    try:
        return parse_time(value, where)
    except ReadError as err:
        raise ReadError(f"{label}: {err.message}") from None


def jsonl_records(text: str, label: str) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line; a broken line is refused by number."""
    out: list[tuple[int, dict[str, Any]]] = []
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            value = load_json(line, where=f"line {lineno}: ")
        except ReadError as err:
            raise ReadError(f"{label}: {err.message}") from None
        if not isinstance(value, dict):
            raise ReadError(f"{label}: line {lineno}: expected a JSON object")
        out.append((lineno, value))
    return out
