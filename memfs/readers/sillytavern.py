"""SillyTavern chats (``.jsonl``): a header line ``{user_name, character_name, create_date,
chat_metadata}``, then one message per line ``{name, is_user, is_system, send_date, mes,
swipes, extra}``.

``mes`` is the chosen reply; other swipes are not memorized, nor hidden (``is_system``)
messages. Messages have no ids: the anchor is the line number (``l<n>``). SillyTavern
has written ``send_date`` in several ways over the years; one it does not recognise is
left out (the message keeps the chat's time) rather than refusing the chat.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from memfs.readers.export_model import Conversation, ExportError
from memfs.readers.exporttime import export_time
from memfs.readers.errors import ReadError

FORMAT = "sillytavern-chat"
LABEL = "SillyTavern chat"
# "2024-5-12 @16h 02m 13s 511ms" (create_date and older send_date)
_AT = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2}) ?@(\d{1,2})h ?(\d{1,2})m ?(\d{1,2})s(?: ?(\d{1,3})ms)?")
# "May 12, 2024 4:02pm" / "May 12, 2024 4:02 PM"
_HUMAN = re.compile(r"([A-Za-z]{3,9}) (\d{1,2}), (\d{4}),? (\d{1,2}):(\d{2})(?::(\d{2}))? ?([ap]m)", re.I)


def detect(records: list[tuple[int, dict[str, Any]]]) -> bool:
    head = [rec for _, rec in records[:20]]
    if head and {"user_name", "character_name"} <= head[0].keys():
        return True
    return any("mes" in rec and "is_user" in rec for rec in head)


def _time(value: object) -> datetime | None:
    if isinstance(value, str):
        m = _AT.fullmatch(value.strip())
        if m:
            y, mo, d, h, mi, s, ms = (int(g or 0) for g in m.groups())
            try:
                return datetime(y, mo, d, h, mi, s, ms * 1000)
            except ValueError:
                return None
        m = _HUMAN.fullmatch(value.strip())
        if m:
            try:
                stamp = datetime.strptime(f"{m[1][:3]} {m[2]} {m[3]} {m[4]}:{m[5]}:{m[6] or '00'} {m[7]}",
                                          "%b %d %Y %I:%M:%S %p")
            except ValueError:
                return None
            return stamp
    try:
        return export_time(LABEL, "send_date", value)
    except ReadError:
        return None


def read(records: list[tuple[int, dict[str, Any]]]) -> list[Conversation]:
    conv = Conversation(format=FORMAT, label=LABEL)
    body = records
    if records and {"user_name", "character_name"} <= records[0][1].keys():
        header = records[0][1]
        body = records[1:]
        character = header.get("character_name")
        if isinstance(character, str) and character.strip():
            conv.title = f"Chat with {character.strip()}"
        conv.created = _time(header.get("create_date"))
        user = header.get("user_name")
        conv.id = f"{user}-{character}-{header.get('create_date')}" if user and character else None
    last = None
    for lineno, msg in body:
        where = f"line {lineno}"
        if not isinstance(msg.get("mes"), str):
            raise ExportError(LABEL, f'{where}: a message needs "mes" text')
        if msg.get("is_system"):
            conv.skipped["hidden messages"] += 1
            continue
        name = msg.get("name")
        # The person keeps their name; a character is an AI persona, so it speaks as the
        # assistant (its name is in the title), and its lines are not facts about anyone.
        speaker = (name.strip() if isinstance(name, str) and name.strip() else "user") if msg.get("is_user") else "assistant"
        time = _time(msg.get("send_date"))
        last = time or last
        swipes = msg.get("swipes")
        if isinstance(swipes, list) and len(swipes) > 1:
            conv.skipped["unchosen swipes"] += len(swipes) - 1
        conv.add(f"l{lineno}", speaker, msg["mes"], time)
    conv.created = conv.created or next((t.time for t in conv.turns if t.time), None)
    conv.updated = last
    return [conv]
