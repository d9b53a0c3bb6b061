"""Exports in, inputs out: recognise a chat export by its shape and cut it into one input
per conversation (a ``memfs.conversation/1`` document each), plus documents.

``unpack`` returns None for anything that is not an export, so ordinary inputs take the
ordinary path (``read_source``) unchanged. A file of a known export shape that is
damaged is refused with a ReadError naming the format and what is wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memfs.readers import archive, chatgpt, claude, claude_code, codex, detect, openwebui, sillytavern
from memfs.readers.errors import ReadError
from memfs.readers.export_model import Conversation, Document, ExportError, Part, Unpacked, describe_skipped, name_of
from memfs.readers.exporttime import jsonl_records
from memfs.readers.jsonload import BrokenJSON, hand_over, load_json

Items = list[Conversation | Document]
JSON_FORMATS: tuple[tuple[str, Callable[[Any], bool], Callable[[Any], Any]], ...] = (
    (chatgpt.LABEL, chatgpt.detect, chatgpt.read),
    (claude.LABEL, claude.detect, claude.read),
    (claude.PROJECTS_LABEL, claude.detect_projects, claude.read_projects),
    (openwebui.LABEL, openwebui.detect, openwebui.read),
)
Records = list[tuple[int, dict[str, Any]]]
JSONL_FORMATS: tuple[tuple[str, Callable[[Records], bool], Callable[[Records], Any]], ...] = (
    (claude_code.LABEL, claude_code.detect, claude_code.read),
    (codex.LABEL, codex.detect, codex.read),
    (sillytavern.LABEL, sillytavern.detect, sillytavern.read),
)
_HEAD_LINES = 20


def unpack(data: bytes, *, max_bytes: int, max_export_bytes: int) -> Unpacked | None:
    """The parts of an export (a .zip as downloaded, or one export file); None if ``data``
    is not an export. ``max_bytes`` bounds each part, ``max_export_bytes`` a .zip's content.
    Like ``read_source``, it raises ReadError and nothing else, whatever the bytes."""
    try:
        return _unpack(data, max_bytes, max_export_bytes)
    except ReadError:
        raise
    except RecursionError:
        raise ReadError("input is nested too deeply to read") from None
    except Exception as exc:  # a reader bug must still fail just this one file, readably
        raise ReadError(f"internal reader error ({type(exc).__name__}): {exc}") from None


def _unpack(data: bytes, max_bytes: int, max_export_bytes: int) -> Unpacked | None:
    if data.startswith(b"PK\x03\x04"):
        found = archive.read_zip(data, read_export, max_export_bytes)
        label = found[0][0] if len({lab for lab, _ in found}) == 1 else "Chat export archive"
        return _finish(label, [item for _, items in found for item in items], max_bytes)
    read = read_export(data, hand_on=True)
    return _finish(*read, max_bytes) if read else None


def read_export(data: bytes, hand_on: bool = False) -> tuple[str, Items] | None:
    """(format label, conversations and documents) if ``data`` is an export file, else None.
    ``hand_on``: a parsed JSON value that is no export is handed to ``read_source``, which
    reads the same file next (so it is parsed once)."""
    try:
        text = detect.decode(data)
    except ReadError:
        return None
    if text.lstrip()[:1] not in ("{", "["):
        return None
    try:
        value = load_json(text)
    except BrokenJSON as exc:
        hint = detect.export_hint(text)
        if exc.reason == "Extra data" or hint in _JSONL_LABELS:
            return _read_jsonl(text, hint)
        if hint:
            raise ExportError(hint, f"{exc.message} (is the file cut short?)") from None
        return None
    except ReadError:
        return None
    for label, matches, read in JSON_FORMATS:
        if matches(value):
            return label, read(value)
    found = _read_jsonl(text, None, value) if isinstance(value, dict) else None  # a one-line JSONL transcript
    if found is None and hand_on:
        hand_over(text, value)
    return found


_JSONL_LABELS = frozenset(label for label, _, _ in JSONL_FORMATS)


def _read_jsonl(text: str, hint: str | None, whole: Any = None) -> tuple[str, Items] | None:
    """Recognise a JSONL export from its first lines (a broken line there is skipped for
    recognition), then read every line strictly, refusing a broken one by number.
    ``whole``: the text already parsed as one JSON value, so its only line is not parsed again."""
    head: Records = []
    size = len(text.strip()) if whole is not None else -1
    for lineno, line in enumerate(text.split("\n", 200)[:200], 1):
        if len(head) >= _HEAD_LINES:
            break
        if line.strip():
            try:  # a line as long as the whole stripped text is the whole text
                value = whole if len(line.strip()) == size else load_json(line)
            except ReadError:
                continue
            if isinstance(value, dict):
                head.append((lineno, value))
    for label, matches, read in JSONL_FORMATS:
        if matches(head) or hint == label:
            return label, read(jsonl_records(text, label))
    return None


def _finish(label: str, items: Items, max_bytes: int) -> Unpacked:
    """Items to parts: empty conversations are noted, a part over the size limit refused."""
    out = Unpacked(label=label)
    seen: set[bytes] = set()
    empty = 0
    for item in items:
        if isinstance(item, Conversation) and not item.turns:
            empty += 1
            continue
        data = item.document()
        if len(data) > max_bytes:
            what = "conversation" if isinstance(item, Conversation) else "document"
            raise ExportError(label, f"{what} {name_of(item.title or getattr(item, 'id', '') or '?')} is "
                              f"{len(data) / 1e6:.1f} MB, over the {max_bytes / 1e6:.1f} MB limit per input "
                              "(ingest.max_file_bytes)")
        if isinstance(item, Document) and not _readable(data, item.file_name()):
            out.notes.append(f"{label}: skipped document {name_of(item.title)} (no text)")
            continue
        if data in seen:
            continue
        seen.add(data)
        out.parts.append(Part(name=item.file_name(), data=data, title=item.title))
    if empty:
        out.notes.append(f"{label}: skipped {empty} conversation{'s' if empty > 1 else ''} without text")
    out.notes.extend(describe_skipped(label, [i for i in items if isinstance(i, Conversation)]))
    if not out.parts:
        raise ExportError(label, "no messages with text in any conversation")
    return out


def _readable(data: bytes, name: str) -> bool:
    from memfs.readers import read_source

    try:
        read_source(data, name)
    except ReadError:
        return False
    return True
