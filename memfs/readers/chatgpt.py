"""ChatGPT data export: ``conversations.json`` (or ``conversations-000.json`` ... in large
exports), a list of conversations, each a tree of message nodes.

Only the active branch is memorized: from ``current_node`` up through ``parent`` links.
Regenerated answers and abandoned edits sit on other branches and are left out, as are
system, tool and hidden messages, tool calls (an assistant message to a ``recipient``
other than ``all``), non-text content (code, browsing, reasoning) and non-text parts
(images, audio), each counted in a note.
"""

from __future__ import annotations

from typing import Any

from memfs.readers.export_model import Conversation, ExportError, name_of, safe_id
from memfs.readers.exporttime import export_time

FORMAT = "chatgpt-export"
LABEL = "ChatGPT export"
TEXT_CONTENT = frozenset({"text", "multimodal_text"})
PART_NAMES = {"image_asset_pointer": "images", "audio_asset_pointer": "audio clips",
              "real_time_user_audio_video_asset_pointer": "audio/video clips"}
SPEAKERS = {"user": "user", "assistant": "assistant"}


def is_conversation(value: object) -> bool:
    return isinstance(value, dict) and isinstance(value.get("mapping"), dict) and (
        "current_node" in value or "title" in value)


def detect(value: object) -> bool:
    """A list whose first object is a conversation with a node ``mapping`` (or one such object)."""
    if isinstance(value, list):
        first = next((v for v in value if isinstance(v, dict)), None)
        return first is not None and "mapping" in first and ("current_node" in first or "title" in first)
    return is_conversation(value)


def read(value: Any) -> list[Conversation]:
    items = value if isinstance(value, list) else [value]
    return [_conversation(conv, n) for n, conv in enumerate(items, 1)]


def _conversation(conv: object, n: int) -> Conversation:
    if not isinstance(conv, dict):
        raise ExportError(LABEL, f"conversation {n} is not an object")
    title = conv.get("title") if isinstance(conv.get("title"), str) else None
    where = f"conversation {n}" + (f" ({name_of(title)})" if title else "")
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict):
        raise ExportError(LABEL, f'{where}: "mapping" must be an object of message nodes')
    out = Conversation(format=FORMAT, label=LABEL, id=_str(conv.get("conversation_id") or conv.get("id")),
                       title=title, created=export_time(LABEL, f"{where} create_time", conv.get("create_time")),
                       updated=export_time(LABEL, f"{where} update_time", conv.get("update_time")))
    for node in _active_branch(mapping, conv.get("current_node"), where):
        _message(out, node, where)
    return out


def _str(value: object) -> str | None:
    return str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value) else None


def _active_branch(mapping: dict[str, Any], current: object, where: str) -> list[dict[str, Any]]:
    """Nodes from the root down to ``current_node``; a broken tree is refused, not guessed."""
    if not mapping:
        return []
    if current is None:
        raise ExportError(LABEL, f'{where}: "current_node" is missing, so the active branch is unknown')
    if not isinstance(current, str) or current not in mapping:
        raise ExportError(LABEL, f"{where}: current_node {name_of(current)} is not in the mapping")
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    node_id: object = current
    while node_id is not None:
        if not isinstance(node_id, str) or node_id not in mapping:
            raise ExportError(LABEL, f"{where}: parent {name_of(node_id)} of node "
                              f"{name_of(chain[-1].get('id'))} is not in the mapping")
        if node_id in seen:
            raise ExportError(LABEL, f"{where}: the parent links of node {name_of(node_id)} form a loop")
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            raise ExportError(LABEL, f"{where}: node {name_of(node_id)} is not an object")
        node.setdefault("id", node_id)
        chain.append(node)
        node_id = node.get("parent")
    chain.reverse()
    return chain


def _message(out: Conversation, node: dict[str, Any], where: str) -> None:
    msg = node.get("message")
    if msg is None:
        return  # the root node of every tree carries no message
    node_where = f"{where} node {name_of(node.get('id'))}"
    if not isinstance(msg, dict):
        raise ExportError(LABEL, f'{node_where}: "message" must be an object')
    author = msg.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    if not isinstance(role, str):
        raise ExportError(LABEL, f"{node_where}: message has no author.role")
    metadata = msg.get("metadata") if isinstance(msg.get("metadata"), dict) else {}
    if role not in SPEAKERS:
        out.skipped[f"{role} messages"] += 1
        return
    if metadata.get("is_visually_hidden_from_conversation"):
        out.skipped["hidden messages"] += 1
        return
    if role == "assistant" and msg.get("recipient", "all") != "all":
        out.skipped["tool calls"] += 1
        return
    content = msg.get("content")
    if not isinstance(content, dict):
        raise ExportError(LABEL, f'{node_where}: "content" must be an object')
    kind = content.get("content_type") if isinstance(content.get("content_type"), str) else None
    if kind not in TEXT_CONTENT:
        out.skipped[f"{kind if isinstance(kind, str) else 'unknown'} messages"] += 1
        return
    parts = content.get("parts", [content.get("text")] if "text" in content else None)
    if not isinstance(parts, list):
        raise ExportError(LABEL, f'{node_where}: "content.parts" must be a list')
    texts: list[str] = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str) and part.get("text"):
            texts.append(part["text"])  # e.g. an audio_transcription part of a voice chat
        elif isinstance(part, dict):
            ptype = part.get("content_type")
            out.skipped[PART_NAMES.get(ptype, "non-text parts") if isinstance(ptype, str) else "non-text parts"] += 1
    time = export_time(LABEL, f"{node_where} create_time", msg.get("create_time"))
    ident = safe_id(msg.get("id") or node.get("id"), f"n{len(out.turns) + 1}")
    out.add(ident, SPEAKERS[role], "\n\n".join(t for t in texts if t.strip()), time)
