"""Filing one chat exchange into inbox/ as a memfs.conversation/1 file.

Only the new part of a conversation is filed: the user turns since the last assistant
message, and the answer. A client resends the whole history with every request; filing
it each time would reinforce every earlier fact again and again.

The file is written under a hidden temp name and renamed in (the daemon takes a
renamed-in file at once and never reads half of one). With no daemon running, the
caller may ingest it at once (`process_if_no_daemon`), so the next request already
recalls it.
"""

from __future__ import annotations

import json
import socket
import uuid
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memfs.agents.inject import HEADER, message_text
from memfs.fsutil import atomic_write

if TYPE_CHECKING:
    from memfs.agents.tools import AgentTools
    from memfs.workspace import Workspace

MAX_NAME = 80


def new_user_turns(messages: list[dict[str, Any]]) -> list[str]:
    """The user messages after the last assistant message (what this request adds)."""
    out: list[str] = []
    for message in reversed(messages):
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "assistant":
            break
        if role == "user":
            text = message_text(message).strip()
            if text and not text.startswith(HEADER):
                out.append(text)
    return out[::-1]


def speaker_name(value: object, default: str) -> str:
    """The request's `user` field as a speaker name (one line, bounded), else `default`."""
    if isinstance(value, str):
        name = " ".join(value.split())[:MAX_NAME].strip()
        if name:
            return name
    return default


def conversation(user_turns: list[str], answer: str, speaker: str, assistant: str,
                 when: datetime | None = None, title: str | None = None) -> dict[str, Any]:
    """A memfs.conversation/1 document of one exchange."""
    when = when or datetime.now().astimezone()
    turns = [{"id": f"u{n}", "speaker": speaker, "text": text} for n, text in enumerate(user_turns, start=1)]
    if answer.strip():
        turns.append({"id": "a1", "speaker": assistant, "text": answer.strip()})
    return {"format": "memfs.conversation/1", "title": title or f"Chat with {assistant}",
            "participants": [speaker, assistant],
            "sessions": [{"id": "S1", "time": when.replace(microsecond=0).isoformat(), "turns": turns}]}


def file_exchange(ws: "Workspace", user_turns: list[str], answer: str, speaker: str, assistant: str,
                  source: str = "proxy") -> Path | None:
    """Write the exchange into inbox/ (temp name, then rename). None if there is nothing to file."""
    if not user_turns:
        return None
    doc = conversation(user_turns, answer, speaker, assistant)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    target = ws.safe_target(f"inbox/{source}-{stamp}-{uuid.uuid4().hex[:8]}.json")
    atomic_write(target, json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
    return target


def daemon_serving(ws: "Workspace", timeout: float = 0.5) -> bool:
    """True if a daemon answers on `.memfs/daemon.sock` (it will file the inbox itself)."""
    from memfs.warm import socket_path

    path = socket_path(ws.state)
    if not path.exists():
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(path))
            sock.sendall(b'{"verb": "ping"}\n')
            return bool(sock.recv(4096))
    except OSError:
        return False


def process_if_no_daemon(tools: "AgentTools", path: Path | None) -> str | None:
    """Ingest a filed exchange now unless a daemon will; the ingest status, or None."""
    if path is None or not tools.memory.config.agents.ingest_without_daemon or daemon_serving(tools.memory.ws):
        return None
    return tools.ingest_path(path).status
