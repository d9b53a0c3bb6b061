"""Open WebUI chat exports: a list of ``{id, title, chat: {history: {messages, currentId}},
created_at, updated_at}`` (one chat exported alone is a list of one).

``history.messages`` is a tree (``parentId`` / ``childrenIds``): only the branch ending
at ``currentId`` is memorized, so regenerated answers are left out, as are system
messages and attached files.
"""

from __future__ import annotations

from typing import Any

from memfs.readers.export_model import Conversation, ExportError, name_of, safe_id
from memfs.readers.exporttime import export_time

FORMAT = "openwebui-export"
LABEL = "Open WebUI export"
SPEAKERS = {"user": "user", "assistant": "assistant"}


def _chat_of(record: object) -> dict[str, Any] | None:
    if not isinstance(record, dict):
        return None
    chat = record.get("chat", record)
    return chat if isinstance(chat, dict) and isinstance(chat.get("history"), dict) else None


def detect(value: object) -> bool:
    first = next((v for v in value if isinstance(v, dict)), None) if isinstance(value, list) else value
    chat = _chat_of(first)
    return chat is not None and "messages" in chat["history"] and "currentId" in chat["history"]


def read(value: Any) -> list[Conversation]:
    return [_one(rec, n) for n, rec in enumerate(value if isinstance(value, list) else [value], 1)]


def _one(record: object, n: int) -> Conversation:
    chat = _chat_of(record)
    if chat is None:
        raise ExportError(LABEL, f'chat {n}: expected an object with "chat": {{"history": ...}}')
    assert isinstance(record, dict)
    title = next((t for t in (record.get("title"), chat.get("title")) if isinstance(t, str) and t.strip()), None)
    where = f"chat {n}" + (f" ({name_of(title)})" if title else "")
    history = chat["history"]
    messages = history.get("messages")
    if not isinstance(messages, dict):
        raise ExportError(LABEL, f'{where}: "history.messages" must be an object of messages by id')
    conv = Conversation(format=FORMAT, label=LABEL, id=str(record.get("id") or chat.get("id") or "") or None,
                        title=title,
                        created=export_time(LABEL, f"{where} created_at", record.get("created_at") or chat.get("timestamp")),
                        updated=export_time(LABEL, f"{where} updated_at", record.get("updated_at")))
    current = history.get("currentId")
    if not messages:
        return conv
    if not isinstance(current, str) or current not in messages:
        raise ExportError(LABEL, f"{where}: currentId {name_of(current)} is not in history.messages")
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    node_id: object = current
    while node_id is not None:
        if not isinstance(node_id, str) or node_id not in messages:
            raise ExportError(LABEL, f"{where}: parentId {name_of(node_id)} is not in history.messages")
        if node_id in seen:
            raise ExportError(LABEL, f"{where}: the parentId links of message {name_of(node_id)} form a loop")
        seen.add(node_id)
        msg = messages[node_id]
        if not isinstance(msg, dict):
            raise ExportError(LABEL, f"{where}: message {name_of(node_id)} is not an object")
        chain.append({**msg, "id": msg.get("id", node_id)})
        node_id = msg.get("parentId")
    for msg in reversed(chain):
        mwhere = f"{where} message {name_of(msg['id'])}"
        role = msg.get("role") if isinstance(msg.get("role"), str) else None
        if role not in SPEAKERS:
            conv.skipped[f"{role if isinstance(role, str) else 'unknown'} messages"] += 1
            continue
        content = msg.get("content", "")
        if not isinstance(content, str):
            raise ExportError(LABEL, f'{mwhere}: "content" must be text')
        if isinstance(msg.get("files"), list) and msg["files"]:
            conv.skipped["attached files"] += len(msg["files"])
        time = export_time(LABEL, f"{mwhere} timestamp", msg.get("timestamp"))
        conv.add(safe_id(msg["id"], f"m{len(conv.turns) + 1}"), SPEAKERS[role], content, time)
    return conv
