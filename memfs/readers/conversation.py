"""Conversation readers: OpenAI-style message lists (JSON, {"messages": ...}, JSONL)
and memfs's own ``memfs.conversation/1`` format that keeps turn ids and sessions.

Each usable turn becomes one Segment whose anchor is what provenance will cite:
``m<index>`` for message lists (1-based position in the original list), the turn id
for memfs.conversation/1.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from memfs.core.segment import ParsedSource, Segment
from memfs.readers.errors import ReadError
from memfs.readers.jsonload import load_json
from memfs.readers.text import clean, one_line
from memfs.readers.timeparse import parse_time

FORMAT_ID = "memfs.conversation/1"
NOT_A_CONVERSATION = (
    'JSON is not a conversation: expected a list of messages, {"messages": [...]} '
    f"or {FORMAT_ID}"
)
NO_MESSAGES = "no messages with text"

SKIPPED_ROLES = frozenset({"system", "developer", "tool", "function"})
MESSAGE_TIME_KEYS = ("time", "timestamp", "created_at")
CONVERSATION_TIME_KEYS = ("time", "session_time", "date")
TEXT_PART_TYPES = frozenset({"text", "input_text", "output_text"})

# Ids end up in provenance ("resources/...json#D1:12") inside an HTML comment, so they
# must be a single token that cannot break out of it.
_ID_OK = re.compile(r"[^\s#<>\"'`\x00-\x1f\x7f]{1,100}")


def is_message(value: object) -> bool:
    """An object with a speaker-ish key (role/name/speaker) and a text-ish key (content/text)."""
    return (
        isinstance(value, dict)
        and any(key in value for key in ("role", "name", "speaker"))
        and any(key in value for key in ("content", "text"))
    )


def looks_like_conversation(value: object) -> bool:
    """Whether JSON was meant as a conversation (so its errors are worth reporting)."""
    if isinstance(value, list):
        return not value or any(is_message(item) for item in value)
    if isinstance(value, dict):
        fmt = value.get("format")
        return "messages" in value or is_message(value) or (
            isinstance(fmt, str) and fmt.startswith("memfs.conversation")
        )
    return False


def from_json(value: Any) -> ParsedSource:
    """Dispatch a parsed JSON value to the conversation shape it has."""
    if isinstance(value, list):
        items = [(i, f"message {i}", msg) for i, msg in enumerate(value, 1)]
        if value and not any(is_message(msg) for msg in value):
            raise ReadError(NOT_A_CONVERSATION)
        return _read_messages(items, fmt="openai-messages")
    if isinstance(value, dict):
        fmt = value.get("format")
        if isinstance(fmt, str) and fmt.startswith("memfs.conversation"):
            return _read_memfs(value)
        if "messages" in value:
            return _read_messages_object(value)
        if is_message(value):  # a lone message: a one-line JSONL file
            return _read_messages([(1, "message 1", value)], fmt="messages-jsonl")
    raise ReadError(NOT_A_CONVERSATION)


def read_jsonl(text: str) -> ParsedSource:
    """One message object per line; blank lines ignored; errors name the line."""
    items: list[tuple[int, str, object]] = []
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        where = f"line {lineno}"
        value = load_json(line, where=f"{where}: ")
        if not is_message(value):
            raise ReadError(f'{where}: expected a message object with "role" and "content"')
        items.append((len(items) + 1, where, value))
    return _read_messages(items, fmt="messages-jsonl")


# -- message lists -------------------------------------------------------------------

def _opt_str(value: object, where: str) -> str | None:
    """A cleaned optional string; non-strings are an error, blank is None."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ReadError(f"{where} must be a string, not {_type(value)}")
    return clean(value) or None


def _type(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false",
            int: "a number", float: "a number", type(None): "null"}.get(type(value), "a value")


def _first_key(obj: dict[str, Any], keys: tuple[str, ...]) -> tuple[str, object] | None:
    for key in keys:
        if obj.get(key) not in (None, ""):
            return key, obj[key]
    return None


def _content_text(content: object, where: str) -> str:
    """Plain text of a message's content: a string, or the text parts of a part list."""
    if content is None:
        return ""
    if isinstance(content, str):
        return clean(content)
    parts = [content] if isinstance(content, dict) else content
    if not isinstance(parts, list):
        raise ReadError(f"{where}: content must be text or a list of parts, not {_type(content)}")
    texts: list[str] = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and _part_type(part) in TEXT_PART_TYPES:
            text = part.get("text")
            if isinstance(text, str):
                texts.append(text)
            elif text is not None:
                raise ReadError(f"{where}: text part must be a string, not {_type(text)}")
    return clean("\n".join(t for t in (clean(t) for t in texts) if t))


def _part_type(part: dict[str, Any]) -> str | None:
    kind = part.get("type", "text")
    return kind if isinstance(kind, str) else None


def _participants(value: object) -> tuple[list[str], dict[str, str]]:
    """Participants as a list of names, or a role -> name mapping (also returned as list)."""
    if value is None:
        return [], {}
    if isinstance(value, dict):
        mapping: dict[str, str] = {}
        for role, name in value.items():
            cleaned = _opt_str(name, f'participant "{one_line(role)}"')
            if cleaned:
                mapping[clean(role)] = cleaned
        return list(dict.fromkeys(mapping.values())), mapping
    if isinstance(value, list):
        names = [_opt_str(name, "each participant") for name in value]
        return list(dict.fromkeys(n for n in names if n)), {}
    raise ReadError(f"participants must be a list of names or a role -> name object, not {_type(value)}")


def _read_messages_object(obj: dict[str, Any]) -> ParsedSource:
    """{"messages": [...], "time": ..., "participants": ..., "title": ...}."""
    messages = obj["messages"]
    if not isinstance(messages, list):
        raise ReadError(f'"messages" must be a list, not {_type(messages)}')
    found = _first_key(obj, CONVERSATION_TIME_KEYS)
    when = parse_time(found[1], f'conversation "{found[0]}"') if found else None
    names = obj.get("participants", obj.get("names"))
    participants, role_names = _participants(names)
    items = [(i, f"message {i}", msg) for i, msg in enumerate(messages, 1)]
    return _read_messages(
        items, fmt="messages-object", title=_opt_str(obj.get("title"), "title"),
        when=when, participants=participants, role_names=role_names,
    )


def _read_messages(
    items: list[tuple[int, str, object]],
    *,
    fmt: str,
    title: str | None = None,
    when: datetime | None = None,
    participants: list[str] | None = None,
    role_names: dict[str, str] | None = None,
) -> ParsedSource:
    """Shared core of all message-list shapes: (anchor index, where, message) triples."""
    role_names = role_names or {}
    segments: list[Segment] = []
    for index, where, msg in items:
        if not is_message(msg):
            raise ReadError(f'{where}: expected an object with "role" and "content"')
        assert isinstance(msg, dict)
        role = _opt_str(msg.get("role"), f"{where}: role")
        if role is not None and role.lower() in SKIPPED_ROLES:
            continue
        text = _content_text(msg.get("content", msg.get("text")), where)
        if not text:
            continue
        name = _opt_str(msg.get("name"), f"{where}: name") or _opt_str(msg.get("speaker"), f"{where}: speaker")
        speaker = name or (role_names.get(role) if role is not None else None) or role
        found = _first_key(msg, MESSAGE_TIME_KEYS)
        turn_time = parse_time(found[1], where) if found else None
        segments.append(Segment(anchor=f"m{index}", text=text, speaker=speaker, time=turn_time or when))
    return _finish(segments, fmt=fmt, title=title, when=when, participants=participants)


def _finish(
    segments: list[Segment],
    *,
    fmt: str,
    title: str | None,
    when: datetime | None,
    participants: list[str] | None,
) -> ParsedSource:
    if not segments:
        raise ReadError(NO_MESSAGES)
    if not participants:
        participants = list(dict.fromkeys(s.speaker for s in segments if s.speaker))
    first_time = when or next((s.time for s in segments if s.time), None)
    return ParsedSource(kind="conversation", format=fmt, title=title,
                        participants=participants, time=first_time, segments=segments)


# -- memfs.conversation/1 ------------------------------------------------------------

def _check_id(value: object, where: str, what: str) -> str:
    if not isinstance(value, str):
        raise ReadError(f'{where}: "id" is required and must be a string')
    ident = clean(value)
    if not _ID_OK.fullmatch(ident):
        raise ReadError(f"{where}: {what} id {one_line(value)!r} must be 1-100 characters "
                        "without spaces, '#', quotes or angle brackets")
    return ident


def _read_memfs(obj: dict[str, Any]) -> ParsedSource:
    """Our own format: sessions of turns with required unique ids."""
    if obj["format"] != FORMAT_ID:
        raise ReadError(f"unsupported format {one_line(obj['format'])!r} (this version reads {FORMAT_ID})")
    participants, _ = _participants(obj.get("participants"))
    sessions = obj.get("sessions")
    if not isinstance(sessions, list):
        raise ReadError(f'"sessions" must be a list, not {_type(sessions)}')
    segments: list[Segment] = []
    session_ids: set[str] = set()
    turn_ids: dict[str, str] = {}
    first_session_time: datetime | None = None
    for s_index, session in enumerate(sessions, 1):
        if not isinstance(session, dict):
            raise ReadError(f'session {s_index}: expected an object with "turns"')
        where = f"session {s_index}"
        sid = _check_id(session["id"], where, "session") if "id" in session else f"S{s_index}"
        if sid in session_ids:
            raise ReadError(f"{where}: duplicate session id {sid!r}")
        session_ids.add(sid)
        found = _first_key(session, CONVERSATION_TIME_KEYS)
        s_time = parse_time(found[1], f"session {sid}") if found else None
        first_session_time = first_session_time or s_time
        turns = session.get("turns")
        if not isinstance(turns, list):
            raise ReadError(f'session {sid}: "turns" must be a list, not {_type(turns)}')
        for t_index, turn in enumerate(turns, 1):
            where = f"session {sid} turn {t_index}"
            if not isinstance(turn, dict):
                raise ReadError(f"{where}: expected an object with id, speaker and text")
            tid = _check_id(turn.get("id"), where, "turn")
            if tid in turn_ids:
                raise ReadError(f"{where}: duplicate turn id {tid!r} (first used in session {turn_ids[tid]})")
            turn_ids[tid] = sid
            speaker = _opt_str(turn.get("speaker"), f"{where}: speaker")
            if not speaker:
                raise ReadError(f'{where}: "speaker" is required')
            if "text" not in turn:
                raise ReadError(f'{where}: "text" is required')
            text = _opt_str(turn["text"], f"{where}: text")
            t_time = parse_time(turn.get("time"), where)
            if text:
                segments.append(Segment(anchor=tid, text=text, speaker=speaker,
                                        time=t_time or s_time, session=sid))
    return _finish(segments, fmt=FORMAT_ID, title=_opt_str(obj.get("title"), "title"),
                   when=first_session_time, participants=participants)
