"""Replays reinforce nothing: a message already memorized is not processed again.

A re-exported chat, a log sent twice, a JSONL transcript that grew: each repeats
messages memfs has already turned into items. Counting them again would make ``seen``
count copies instead of independent mentions, so the segment step drops every message
whose fingerprint is already known and only the new ones are extracted.

A message's fingerprint is its speaker, time and text. A message without a time is
fingerprinted with the one before it (a hash chain from the start of the conversation),
so the same untimed words said again in another conversation still count, while a file
that only grew repeats its prefix exactly.

The ledger of known fingerprints is a cache in ``.memfs/`` derived from ``resources/``
only: each archived conversation is read once and its fingerprints recorded; after
``rm -rf .memfs`` (or a crash between archiving an input and recording it) the archived
conversations not yet in the ledger are simply read again. A resource removed by hand
takes its fingerprints with it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from memfs.core.segment import ParsedSource
from memfs.index import replay_store

if TYPE_CHECKING:
    from memfs.pipeline.runtime import PipelineRuntime

#: Archived conversations: memfs reads conversations from JSON and JSONL only.
CONVERSATION_EXTS = (".json", ".jsonl")


def fingerprints(source: ParsedSource) -> list[str]:
    """One fingerprint per segment of a conversation (none for a document)."""
    if source.kind != "conversation":
        return []
    out: list[str] = []
    previous = ""
    for seg in source.segments:
        if seg.time is not None:
            key = f"t\x1f{seg.speaker or ''}\x1f{seg.time.isoformat()}\x1f{seg.text}"
        else:
            key = f"c\x1f{seg.speaker or ''}\x1f{seg.text}\x1f{previous}"
        previous = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        out.append(previous)
    return out


class MessageLedger:
    """Which messages are already memorized; reconciled with resources/ once per process."""

    def __init__(self, rt: "PipelineRuntime") -> None:
        self.rt = rt
        self._ready = False

    def reset(self) -> None:
        """The index was reset (deleted, rebuilt): reconcile again, its tables made anew."""
        self._ready = False

    def _conversation_resources(self) -> set[str]:
        root = self.rt.ws.resources
        found: set[str] = set()
        for folder, dirs, files in os.walk(root):  # os.walk does not follow symlinked folders
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in files:
                if name.endswith(CONVERSATION_EXTS) and not name.startswith("."):
                    found.add(self.rt.ws.rel(Path(folder) / name))
        return found

    def _prepare(self) -> None:
        if self._ready:
            return
        from memfs.readers import ReadError, read_source

        db = self.rt.indexer.db
        replay_store.ensure_tables(db)
        on_disk = self._conversation_resources()
        known = replay_store.known_resources(db)
        gone, new = known - on_disk, sorted(on_disk - known)
        rows: list[tuple[str, str]] = []
        for rel in new:
            path = self.rt.ws.root / rel
            try:
                if path.is_symlink():
                    continue
                rows.extend((fp, rel) for fp in fingerprints(read_source(path.read_bytes(), path.name)))
            except (OSError, ReadError):
                pass  # unreadable: it holds no messages memfs could have memorized
        replay_store.reconcile(db, gone, rows, new)
        self._ready = True

    def split(self, source: ParsedSource, resource: str) -> tuple[ParsedSource, list[str], int]:
        """(the source with only its new messages, fingerprints of all of them, how many
        were dropped as already memorized). Messages of ``resource`` itself do not count:
        replaying the same input after a crash must reproduce its own items."""
        fps = fingerprints(source)
        if not fps:
            return source, fps, 0
        self._prepare()
        known = replay_store.known_elsewhere(self.rt.indexer.db, fps, resource)
        if not known:
            return source, fps, 0
        kept = [seg for seg, fp in zip(source.segments, fps) if fp not in known]
        return source.model_copy(update={"segments": kept}), fps, len(fps) - len(kept)

    def record(self, resource: str, fps: list[str]) -> None:
        """Remember an archived conversation's messages (after it is in resources/)."""
        if not fps:
            return
        self._prepare()
        replay_store.record(self.rt.indexer.db, resource, fps)
