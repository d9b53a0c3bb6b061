"""Claude.ai data export: ``conversations.json`` (a list of chats with ``chat_messages``)
and ``projects.json`` (projects with instructions and knowledge documents).

A chat's human and assistant text is memorized; thinking, tool use and tool results are
left out (counted in a note). An attachment's extracted text, and each project's
instructions and documents, become documents of their own.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memfs.readers.export_model import Conversation, Document, ExportError, name_of, safe_id
from memfs.readers.exporttime import export_time

FORMAT = "claude-export"
LABEL = "Claude.ai export"
PROJECTS_FORMAT = "claude-project"
PROJECTS_LABEL = "Claude.ai projects export"
SPEAKERS = {"human": "user", "assistant": "assistant"}
PART_NAMES = {"tool_use": "tool calls", "tool_result": "tool results", "thinking": "thinking blocks",
              "redacted_thinking": "thinking blocks", "image": "images"}
MARKDOWN_NAMES = (".md", ".markdown", ".txt", ".text")


def _first(value: object) -> object:
    if isinstance(value, list):
        return next((v for v in value if isinstance(v, dict)), None)
    return value


def detect(value: object) -> bool:
    first = _first(value)
    return isinstance(first, dict) and "chat_messages" in first and ("uuid" in first or "name" in first)


def detect_projects(value: object) -> bool:
    first = _first(value)
    return isinstance(first, dict) and "docs" in first and "prompt_template" in first


def read(value: Any) -> list[Conversation | Document]:
    out: list[Conversation | Document] = []
    for n, chat in enumerate(value if isinstance(value, list) else [value], 1):
        out.extend(_chat(chat, n))
    return out


def _chat(chat: object, n: int) -> list[Conversation | Document]:
    if not isinstance(chat, dict):
        raise ExportError(LABEL, f"conversation {n} is not an object")
    title = chat.get("name") if isinstance(chat.get("name"), str) and chat.get("name") else None
    where = f"conversation {n}" + (f" ({name_of(title)})" if title else "")
    messages = chat.get("chat_messages")
    if not isinstance(messages, list):
        raise ExportError(LABEL, f'{where}: "chat_messages" must be a list')
    conv = Conversation(format=FORMAT, label=LABEL, id=_str(chat.get("uuid")), title=title,
                        created=export_time(LABEL, f"{where} created_at", chat.get("created_at")),
                        updated=export_time(LABEL, f"{where} updated_at", chat.get("updated_at")))
    docs: list[Conversation | Document] = []
    for m, msg in enumerate(messages, 1):
        mwhere = f"{where} message {m}"
        if not isinstance(msg, dict):
            raise ExportError(LABEL, f"{mwhere} is not an object")
        sender = msg.get("sender") if isinstance(msg.get("sender"), str) else None
        if sender not in SPEAKERS:
            raise ExportError(LABEL, f'{mwhere}: "sender" must be "human" or "assistant", not {name_of(sender)}')
        text = _text(conv, msg, mwhere)
        time = export_time(LABEL, f"{mwhere} created_at", msg.get("created_at"))
        conv.add(safe_id(msg.get("uuid"), f"m{m}"), SPEAKERS[str(sender)], text, time)
        attachments = msg.get("attachments")
        for a, att in enumerate(attachments if isinstance(attachments, list) else [], 1):
            if isinstance(att, dict) and isinstance(att.get("extracted_content"), str) and att["extracted_content"].strip():
                fname = att.get("file_name") if isinstance(att.get("file_name"), str) else f"attachment {a}"
                docs.append(document(FORMAT, LABEL, f"{title or 'chat'} - {fname}", fname, att["extracted_content"],
                                     time or conv.created))
            else:
                conv.skipped["attachments without text"] += 1
        files = msg.get("files")
        if isinstance(files, list) and files:
            conv.skipped["files without text"] += len(files)
    return [conv, *docs]


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _text(conv: Conversation, msg: dict[str, Any], where: str) -> str:
    """The message's text parts (``content``); the flat ``text`` when there are none."""
    content = msg.get("content")
    if content is None or content == []:
        text = msg.get("text", "")
        if not isinstance(text, str):
            raise ExportError(LABEL, f'{where}: "text" must be a string')
        return text
    if not isinstance(content, list):
        raise ExportError(LABEL, f'{where}: "content" must be a list of parts')
    texts: list[str] = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):  # type: ignore[union-attr]
            texts.append(part["text"])  # type: ignore[index]
        else:
            conv.skipped[PART_NAMES.get(str(kind), "other parts")] += 1
    return "\n\n".join(t for t in texts if t.strip())


def document(fmt: str, label: str, title: str, file_name: str, content: str,
             time: datetime | None = None) -> Document:
    """Markdown and text stay as written; anything else (code, CSV) is kept in a fence."""
    text = content
    if not file_name.lower().endswith(MARKDOWN_NAMES):
        longest = max((len(run) for run in content.split("\n") if set(run) == {"`"}), default=0)
        fence = "`" * max(3, longest + 1)
        text = f"{fence}\n{content.rstrip()}\n{fence}"
    return Document(format=fmt, label=label, title=title, text=text, time=time)


def read_projects(value: Any) -> list[Document]:
    out: list[Document] = []
    for n, project in enumerate(value if isinstance(value, list) else [value], 1):
        if not isinstance(project, dict):
            raise ExportError(PROJECTS_LABEL, f"project {n} is not an object")
        name = project.get("name") if isinstance(project.get("name"), str) and project.get("name") else f"project {n}"
        docs = project.get("docs")
        if not isinstance(docs, list):
            raise ExportError(PROJECTS_LABEL, f'project {n} ({name_of(name)}): "docs" must be a list')
        where = f"project {n} ({name_of(name)})"
        when = export_time(PROJECTS_LABEL, f"{where} created_at", project.get("created_at"))
        intro = [s for s in (project.get("description"), project.get("prompt_template"))
                 if isinstance(s, str) and s.strip()]
        if intro:
            out.append(document(PROJECTS_FORMAT, PROJECTS_LABEL, f"{name} - project instructions",
                                "instructions.md", "\n\n".join(intro), when))
        for d, doc in enumerate(docs, 1):
            if not isinstance(doc, dict) or not isinstance(doc.get("content"), str):
                raise ExportError(PROJECTS_LABEL, f'project {n} ({name_of(name)}) document {d}: '
                                  'expected an object with "filename" and "content"')
            fname = doc.get("filename") if isinstance(doc.get("filename"), str) else f"document {d}"
            if doc["content"].strip():
                stamp = export_time(PROJECTS_LABEL, f"{where} document {d} created_at", doc.get("created_at"))
                out.append(document(PROJECTS_FORMAT, PROJECTS_LABEL, f"{name} - {fname}", fname, doc["content"],
                                    stamp or when))
    return out
