"""Writing a root file (index.md, memory.md, skill.md) without losing a person's notes.

Only the generated block between the two markers is memfs'; everything outside it is
the person's. The same read-verify-write as category files applies (issue #10, item 4):
the file is read whole once it has settled, the new block is put between *its* markers,
and right before the rename the file must still be exactly what was read — otherwise the
block is merged into the new version. A missing or duplicated marker is never guessed
around: memfs warns and leaves the file alone until a person repairs it.
"""

from __future__ import annotations

import logging
from pathlib import Path

from memfs.core.rootfiles import MarkerError, merge_generated
from memfs.fsutil import ChangedMeanwhile, Unsettled, atomic_write, read_settled, remember_written, unchanged_since

log = logging.getLogger(__name__)

#: Per root file this process wrote: the bytes it held just before (None: it was new).
_PREWRITE: dict[str, bytes | None] = {}


def prewrite_of(path: Path) -> bytes | None:
    """What `path` held before memfs last wrote it (for `daemon --commit`)."""
    return _PREWRITE.get(str(path))


def write_root_file(path: Path, generated: str, settle: float = 0.3, attempts: int = 5) -> bool:
    """Put `generated` into `path`'s block; True if the file changed. Warns (and writes
    nothing) for a damaged marker pair, a file that is not UTF-8, or one that keeps changing."""
    for _ in range(attempts):
        try:
            data = read_settled(path, window=max(settle, 0.05), max_wait=max(10.0, 20 * settle))
        except Unsettled:
            log.warning("%s kept changing; not regenerated this time", path.name)
            return False
        try:
            existing = data.decode("utf-8") if data is not None else None
        except UnicodeDecodeError as err:
            log.warning("%s is not valid UTF-8 (byte %d); memfs does not rewrite it", path.name, err.start)
            return False
        if existing is not None and existing.startswith("\ufeff"):
            new = "\ufeff" + merge_generated(existing[1:], generated) if _ok(path, existing[1:]) else None
        else:
            new = merge_generated(existing, generated) if _ok(path, existing) else None
        if new is None or new == existing:
            return False
        try:
            atomic_write(path, new, precondition=lambda: unchanged_since(path, data))
        except ChangedMeanwhile:
            continue  # a person saved meanwhile: merge into their version
        remember_written(path)
        _PREWRITE[str(path)] = data
        return True
    log.warning("%s kept changing while memfs wrote it; not regenerated this time", path.name)
    return False


def _ok(path: Path, existing: str | None) -> bool:
    try:
        merge_generated(existing, "")
    except MarkerError as err:
        log.warning("%s: %s; memfs leaves the file as it is (restore the pair of memfs:begin/end "
                    "generated markers, or delete both to get a fresh block at the end)", path.name, err)
        return False
    return True
