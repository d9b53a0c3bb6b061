"""Claude Code session transcripts: ``~/.claude/projects/<slug>/<session>.jsonl``.

Each line is an event ``{type, uuid, parentUuid, sessionId, timestamp, cwd, isSidechain,
message: {role, content}}``. What the person typed and the assistant's text are
memorized. Tool calls and tool output are not (they carry file contents and secrets),
nor thinking, sub-agent (sidechain) threads, injected meta messages, compaction
summaries, slash-command echoes or ``<system-reminder>`` blocks. Lines are kept in file
order; the anchor is the line's ``uuid``. A ``summary`` line, when present, is the title.
"""

from __future__ import annotations

import re
from typing import Any

from memfs.readers.export_model import Conversation, ExportError, safe_id
from memfs.readers.exporttime import export_time

FORMAT = "claude-code-session"
LABEL = "Claude Code session"
EVENT_TYPES = frozenset({"user", "assistant"})
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
_COMMAND = re.compile(r"\s*<(command-name|command-message|command-args|local-command-stdout|local-command-stderr)>")
_INTERRUPTED = re.compile(r"\s*\[Request interrupted by user[^\]]*\]\s*")


def detect(records: list[tuple[int, dict[str, Any]]]) -> bool:
    """Some early line is a user/assistant event with a ``sessionId`` and ``uuid``."""
    return any(_str(rec.get("type")) in EVENT_TYPES and "sessionId" in rec and "uuid" in rec and "message" in rec
               for _, rec in records[:20])


def read(records: list[tuple[int, dict[str, Any]]]) -> list[Conversation]:
    conv = Conversation(format=FORMAT, label=LABEL)
    first = last = None
    for lineno, rec in records:
        kind = _str(rec.get("type"))
        if kind == "summary" and isinstance(rec.get("summary"), str) and conv.title is None:
            conv.title = rec["summary"].strip() or None
        if kind not in EVENT_TYPES:
            continue
        where = f"line {lineno}"
        conv.id = conv.id or (rec.get("sessionId") if isinstance(rec.get("sessionId"), str) else None)
        time = export_time(LABEL, f"{where} timestamp", rec.get("timestamp"))
        first, last = first or time, time or last
        msg = rec.get("message")
        if not isinstance(msg, dict):
            raise ExportError(LABEL, f'{where}: a {kind} event needs a "message" object')
        if rec.get("isSidechain"):
            conv.skipped["sub-agent messages"] += 1
            continue
        if rec.get("isMeta"):
            conv.skipped["meta messages"] += 1
            continue
        if rec.get("isCompactSummary"):  # "This session is being continued ...": a recap, not new words
            conv.skipped["compaction summaries"] += 1
            continue
        text = _text(conv, msg.get("content"), where)
        if kind == "user" and text and (_COMMAND.match(text) or _INTERRUPTED.fullmatch(text)):
            conv.skipped["command messages"] += 1
            continue
        speaker = "user" if kind == "user" else "assistant"
        conv.add(safe_id(rec.get("uuid"), f"l{lineno}"), speaker, text, time)
    conv.created, conv.updated = first, last
    return [conv]


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _text(conv: Conversation, content: object, where: str) -> str:
    if isinstance(content, str):
        return _REMINDER.sub("", content)
    if not isinstance(content, list):
        raise ExportError(LABEL, f'{where}: "message.content" must be text or a list of blocks')
    texts: list[str] = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):  # type: ignore[union-attr]
            texts.append(_REMINDER.sub("", block["text"]))  # type: ignore[index]
        else:
            conv.skipped[{"tool_use": "tool calls", "tool_result": "tool results", "thinking": "thinking blocks",
                          "redacted_thinking": "thinking blocks", "image": "images"}.get(str(kind), "other blocks")] += 1
    return "\n\n".join(t for t in texts if t.strip())
