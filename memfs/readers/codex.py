"""Codex CLI sessions: ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``.

Lines are ``{timestamp, type, payload}``; ``type == "response_item"`` with
``payload.type == "message"`` are the conversation. The environment and AGENTS.md
messages Codex injects as user turns, developer/system messages, reasoning, tool calls
and their output are left out. The older layout (a metadata line, then bare
``{"type": "message", ...}`` lines) is read too. Messages have no ids: the anchor is the
line number (``l<n>``), stable while the file only grows.
"""

from __future__ import annotations

import re
from typing import Any

from memfs.readers.export_model import Conversation, ExportError
from memfs.readers.exporttime import export_time

FORMAT = "codex-session"
LABEL = "Codex session"
ENVELOPE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
_INJECTED = re.compile(r"\s*(<environment_context>|<user_instructions>|# AGENTS\.md instructions|<INSTRUCTIONS>)")
SPEAKERS = {"user": "user", "assistant": "assistant"}


def detect(records: list[tuple[int, dict[str, Any]]]) -> bool:
    head = [rec for _, rec in records[:20]]
    if any(_str(rec.get("type")) in ENVELOPE_TYPES and isinstance(rec.get("payload"), dict) for rec in head):
        return True
    return bool(head) and {"id", "timestamp", "instructions"} <= head[0].keys() and any(
        rec.get("type") == "message" and "role" in rec for rec in head[1:])


def read(records: list[tuple[int, dict[str, Any]]]) -> list[Conversation]:
    conv = Conversation(format=FORMAT, label=LABEL)
    last = None
    for index, (lineno, rec) in enumerate(records):
        where = f"line {lineno}"
        if "payload" in rec:
            payload = rec["payload"]
            if not isinstance(payload, dict):
                raise ExportError(LABEL, f'{where}: "payload" must be an object')
            if rec.get("type") == "session_meta":
                conv.id = conv.id or _str(payload.get("id"))
                conv.created = conv.created or export_time(LABEL, f"{where} timestamp",
                                                           payload.get("timestamp") or rec.get("timestamp"))
                continue
            if rec.get("type") != "response_item":
                continue  # event_msg repeats the messages; turn_context, compacted: no text
            stamp = rec.get("timestamp")
        elif index == 0 and "type" not in rec:  # the older layout's metadata line
            conv.id = _str(rec.get("id"))
            conv.created = export_time(LABEL, f"{where} timestamp", rec.get("timestamp"))
            continue
        else:
            payload, stamp = rec, rec.get("timestamp")
        kind = payload.get("type")
        if kind != "message":
            if isinstance(kind, str) and kind not in ("message",):
                conv.skipped[{"reasoning": "reasoning items"}.get(kind, "tool calls and output")] += 1
            continue
        time = export_time(LABEL, f"{where} timestamp", stamp)
        last = time or last
        role = payload.get("role") if isinstance(payload.get("role"), str) else None
        if role not in SPEAKERS:
            conv.skipped[f"{role if isinstance(role, str) else 'unknown'} messages"] += 1
            continue
        text = _text(payload.get("content"), where)
        if role == "user" and _INJECTED.match(text):
            conv.skipped["injected environment/instructions messages"] += 1
            continue
        conv.add(f"l{lineno}", SPEAKERS[role], text, time)
    conv.created = conv.created or next((t.time for t in conv.turns if t.time), None)
    conv.updated = last
    return [conv]


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None  # type: ignore[return-value]


def _text(content: object, where: str) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise ExportError(LABEL, f'{where}: message "content" must be text or a list of parts')
    return "\n\n".join(part["text"] for part in content
                       if isinstance(part, dict) and isinstance(part.get("text"), str) and part["text"].strip()
                       and part.get("type", "text") in ("input_text", "output_text", "text"))
