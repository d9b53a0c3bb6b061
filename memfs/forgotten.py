"""The record of forgotten inputs: `forgotten.json` at the workspace root, tracked in git.

An input forgotten with `memfs forget --source` (or `--about`/`--query`/ids when a whole
input goes) must not come back when the same file is dropped again. `.memfs/` is a cache,
so the record lives beside the Markdown. It keeps no words of what was forgotten: only
the first 16 hex digits of each input's SHA-256 (what resources/ names carry), the date,
the scope's kind and counts.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

from pydantic import BaseModel, Field, ValidationError

from memfs.errors import MemfsError
from memfs.fsutil import atomic_write
from memfs.workspace import Workspace

RECORD_NAME = "forgotten.json"
FORMAT = "memfs.forgotten/1"


class ForgetEntry(BaseModel):
    """One `memfs forget` run that removed whole inputs."""

    id: str = Field(description="F1, F2, ... in the order of the forgets")
    at: str = Field(description="UTC time of the forget, ISO 8601")
    scope: str = Field(description="ids | source | about | query (never the name or query itself)")
    items: int = 0
    inputs: list[str] = Field(default_factory=list, description="sha256[:16] of each forgotten input")
    purged_history: bool = False


class ForgetRecord(BaseModel):
    format: str = FORMAT
    forgets: list[ForgetEntry] = Field(default_factory=list)


class InputForgotten(MemfsError):
    """This input was forgotten; it is learned again only with --allow-relearn."""


def load(ws: Workspace) -> ForgetRecord:
    path = ws.root / RECORD_NAME
    if not path.exists():
        return ForgetRecord()
    try:
        return ForgetRecord.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, ValidationError) as err:
        first = str(err).splitlines()[0]
        raise MemfsError(f"{RECORD_NAME}: not a valid record of forgotten inputs ({first}); fix or remove it") from None


def save(ws: Workspace, record: ForgetRecord) -> None:
    atomic_write(ws.root / RECORD_NAME, json.dumps(record.model_dump(), indent=2) + "\n")


def add(ws: Workspace, scope: str, items: int, digests: list[str], purged: bool = False) -> ForgetEntry:
    """Append one forget (call under the writer lock) and return it."""
    record = load(ws)
    entry = ForgetEntry(id=f"F{len(record.forgets) + 1}", at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                        scope=scope, items=items, inputs=sorted({d[:16] for d in digests}), purged_history=purged)
    record.forgets.append(entry)
    save(ws, record)
    return entry


def find(ws: Workspace, digest: str) -> ForgetEntry | None:
    """The forget that removed the input with this SHA-256 (or its 16-digit prefix), if any."""
    prefix = digest[:16]
    for entry in load(ws).forgets:
        if prefix in entry.inputs:
            return entry
    return None


def guard(ws: Workspace, digest: str, allow_relearn: bool) -> None:
    """Refuse an input a forget removed, naming that forget, unless relearning is allowed."""
    entry = find(ws, digest)
    if entry is not None and not allow_relearn:
        raise InputForgotten(f"this input was forgotten ({entry.id} on {entry.at[:10]}, forget --{entry.scope}); "
                             "to learn it again: memfs ingest --allow-relearn FILE")


def relearned(ws: Workspace, digest: str) -> None:
    """An input learned again on purpose is no longer refused (the entry keeps its counts)."""
    record = load(ws)
    prefix = digest[:16]
    changed = False
    for entry in record.forgets:
        if prefix in entry.inputs:
            entry.inputs.remove(prefix)
            changed = True
    if changed:
        save(ws, record)
