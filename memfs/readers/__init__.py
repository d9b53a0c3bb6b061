"""Readers: turn one inbox file (bytes + file name) into a ParsedSource, or refuse it.

``read_source`` reads one input. (A chat export, which holds many conversations, is first
cut into one input per conversation by ``memfs.readers.unpack.unpack``.) It never guesses: input it cannot read with
confidence raises ReadError with one line saying why, which the daemon stores beside
the file in ``inbox/failed/``. No other exception escapes, whatever the bytes.
Supported formats are documented in FORMATS.md next to this file.
"""

from __future__ import annotations

import json

from memfs.core.segment import ParsedSource
from memfs.readers import conversation, detect, document
from memfs.readers.errors import ReadError
from memfs.readers.jsonload import BrokenJSON, load_json, load_json_once

__all__ = ["ReadError", "read_source", "DEFAULT_MAX_BYTES"]

DEFAULT_MAX_BYTES = 20_000_000


def read_source(data: bytes, filename: str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> ParsedSource:
    """Read one input file. ``filename`` is only a hint (its extension); it is never opened."""
    try:
        return _read(bytes(data), str(filename), max_bytes)
    except ReadError:
        raise
    except RecursionError:
        raise ReadError("input is nested too deeply to read") from None
    except Exception as exc:  # a reader bug must still fail just this one file, readably
        raise ReadError(f"internal reader error ({type(exc).__name__}): {exc}") from None


def _read(data: bytes, filename: str, max_bytes: int) -> ParsedSource:
    detect.check_size(data, max_bytes)
    text = detect.decode(data)
    if not text.strip():
        raise ReadError("empty file (only whitespace)")
    ext = detect.extension(filename)
    start = text.lstrip()[:1]
    text_hint = ext in detect.MARKDOWN_EXTS or ext in detect.TEXT_EXTS

    if start in ("{", "["):
        parsed = _read_json(text, ext, text_hint)
        if parsed is not None:
            return parsed
    elif ext in detect.JSONL_EXTS:
        return conversation.read_jsonl(text)  # names the first bad line
    elif ext in detect.JSON_EXTS:
        load_json(text)  # raises the decoder's own message ("Expecting value" at 1:1 ...)

    if ext in detect.MARKDOWN_EXTS or (not text_hint and detect.looks_like_markdown(text)):
        return document.read_markdown(text)
    return document.read_text(text)


def _read_json(text: str, ext: str, text_hint: bool) -> ParsedSource | None:
    """Read text that starts like JSON. None means "it is text after all": only when it
    does not parse as JSON, or is not a conversation, and the name says .md/.txt (or the
    name says nothing and the content does not look like JSON either)."""
    try:
        value = load_json_once(text)  # detection (unpack) may have just parsed it
    except BrokenJSON as exc:
        if ext in detect.JSONL_EXTS or (exc.reason == "Extra data" and _first_line_is_object(text)):
            return conversation.read_jsonl(text)
        if ext in detect.JSON_EXTS or (not text_hint and detect.looks_like_json(text)):
            raise
        return None
    if text_hint and not conversation.looks_like_conversation(value):
        return None
    return conversation.from_json(value)


def _first_line_is_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text.lstrip().split("\n", 1)[0]), dict)
    except (ValueError, RecursionError):
        return False
