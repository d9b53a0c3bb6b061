"""One input file → one or more pipeline runs: a chat export is unpacked into one input
per conversation, each run through the normal memorize pipeline and archived as its
own resource (so the size limit, the content hash and provenance are per conversation).

Exactly once holds per conversation: a conversation already archived is a duplicate,
and the export as a whole is journalled only after all of its conversations are done,
so a crash halfway replays the export and only the rest is processed.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memfs.core.hashing import content_digest
from memfs.readers import detect
from memfs.readers.unpack import unpack

if TYPE_CHECKING:
    from memfs.pipeline.memorize import IngestResult, Memorizer

ZIP_MAGIC = b"PK\x03\x04"
_HEAD = 65536


def _candidate(path: Path, max_bytes: int, max_export_bytes: int) -> bool:
    """Whether the file could be an export, from its size and first bytes (cheap)."""
    st = path.lstat()
    if not stat.S_ISREG(st.st_mode):
        return False  # a FIFO or device: the pipeline refuses it without opening it
    size = st.st_size
    if size > max_export_bytes:
        return False
    with path.open("rb") as f:
        head = f.read(_HEAD)
    if head.startswith(ZIP_MAGIC):
        return True
    if head.removeprefix(detect.BOM).lstrip()[:1] not in (b"{", b"["):
        return False
    return size <= max_bytes or detect.export_hint(head.decode("utf-8", "replace")) is not None


def run_input(memorizer: "Memorizer", path: Path, result: "IngestResult", allow_relearn: bool = False) -> None:
    """Run ``path`` through the pipeline: as it is, or one conversation at a time."""
    limits = memorizer.rt.config.ingest
    if path.is_symlink() or not _candidate(path, limits.max_file_bytes, limits.max_export_bytes):
        run_one(memorizer, path, result, None, allow_relearn=allow_relearn)
        return
    from memfs.fsutil import read_regular

    data = read_regular(path)  # never blocks on a FIFO
    journal = memorizer.rt.journal
    digest = content_digest(data)
    from memfs.forgotten import guard

    guard(memorizer.rt.ws, digest, allow_relearn)  # before the journal: see step_ingest
    unpacked = unpack(data, max_bytes=limits.max_file_bytes, max_export_bytes=limits.max_export_bytes)
    if unpacked is None:  # not an export: the pipeline reads it itself (settled, never a FIFO) and
        run_one(memorizer, path, result, None, allow_relearn=allow_relearn)  # handles a repeat
        return
    if journal.is_done(digest):
        result.status, result.resource = "duplicate", journal.resource_of(digest)
        return
    result.conversations, result.notes = len(unpacked.parts), list(unpacked.notes)
    fresh = False
    for part in unpacked.parts:
        while True:  # a conversation larger than one batch runs batch after batch
            # The whole input's result class (memorize.IngestResult), not imported back from memorize.
            sub = type(result)(name=part.name, status="processed")
            run_one(memorizer, path, sub, part.data, defer_views=True, allow_relearn=allow_relearn)
            fresh = fresh or sub.status in ("processed", "partial")
            result.added += sub.added
            result.reinforced += sub.reinforced
            result.updated += sub.updated
            result.skipped_replay += sub.skipped_replay
            result.replayed += sub.replayed
            result.files = sorted(set(result.files) | set(sub.files))
            if sub.status != "partial":
                if sub.resource:
                    result.resources.append(sub.resource)
                break
    result.status = "processed" if fresh else "duplicate"
    result.resource = result.resources[0] if result.resources else None
    if fresh:
        memorizer.rt.regenerate_views()
    journal.mark_done(digest, result.name, result.resource or "")


def run_one(memorizer: "Memorizer", path: Path, result: "IngestResult", data: bytes | None,
            defer_views: bool = False, allow_relearn: bool = False) -> None:
    """One input through the pipeline (``data`` given: those bytes rather than the file's)."""
    state: dict[str, Any] = {"path": path, "name": result.name, "result": result, "allow_relearn": allow_relearn}
    if data is not None:
        state["data"] = data
    if defer_views:
        state["defer_views"] = True
    memorizer.pipeline.run(state)
    if state.get("restoring"):  # processed before: only what had left the Markdown came back
        result.restored = len(result.added)
        if not result.added:
            result.status = "duplicate"
    if result.status == "processed":
        memorizer.rt.journal.mark_done(state["digest"], result.name, result.resource or "")
