"""Keeping the index in line with the Markdown: sync, and healing a damaged index.

The index is a cache (invariant 1): damage is repaired by moving the file aside and
rebuilding from the Markdown, never reported as an error the user must fix.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memfs.fsutil import remove_stale_temp_files
from memfs.index.db import IndexDB
from memfs.index.heal import IndexDamaged, is_damage, quick_check
from memfs.index.repository import index_ready
from memfs.index.sync import SyncReport
from memfs.services.cachegc import collect_if_due
from memfs.services.runtime import Runtime
from memfs.views import views_stale

__all__ = ["heal_damaged_index", "index_path", "index_ready", "sync"]

#: Folders whose stale temp files (a write that died mid-way) a sync removes.
_TEMP_DIRS = ("memory", "index", "skill", "people", "resources", ".memfs")


def index_path(rt: Runtime) -> Path:
    return rt.ws.state / "index.sqlite3"


def sync(rt: Runtime, rebuild: bool = False, progress: Callable[..., None] | None = None,
         vectors: bool = True, lock_timeout: float | None = None, fill_limit: int | None = None) -> SyncReport:
    """Re-index what changed on disk (or everything, with rebuild) and refresh root files;
    with `vectors`, also embed what an ingest left without a vector and make its deferred
    near-duplicate checks (a daemon does that in chunks between inputs instead).
    `fill_limit` (a recall's sync): only if no check is owed and at most that many texts
    lack a vector; a bigger backlog is not a recall's to work off."""
    with rt.lock("sync", timeout=lock_timeout):
        remove_stale_temp_files([rt.ws.root / d for d in _TEMP_DIRS], shallow=[rt.ws.root])
        try:
            report = rt.indexer.sync(rebuild=rebuild, progress=progress)
        except Exception as err:  # a damaged index is a cache to rebuild, not an error
            if not is_damage(err):
                raise
            rt.reset_index(damaged=str(err))
            report = rt.indexer.sync(rebuild=True, progress=progress)
            rebuild = True
        report.vectors_dropped = collect_if_due(rt, report, rebuilt=rebuild)
        merged = _fill_all(rt) if vectors and (fill_limit is None or _small_backlog(rt, fill_limit)) else 0
        if report.changed or rebuild or merged or views_stale(rt.ws, rt.indexer.db):
            rt.regenerate_views()
    return report


def _small_backlog(rt: Runtime, limit: int) -> bool:
    """No near-duplicate check owed (a check may merge lines) and at most `limit` texts
    without a vector (a one-shot add's few, not a stopped daemon's backlog)."""
    from memfs.index.vecfill_store import has_marks, without_vectors

    if has_marks(rt.indexer.db):
        return False
    _texts, ids, labels = without_vectors(rt.indexer.db, limit + 1)
    return len(ids) + len(labels) <= limit


def _fill_all(rt: Runtime) -> int:
    """Every pending vector and deferred check (pipeline/vecfill.py); lines merged."""
    from memfs.index.vecfill_store import has_marks, owes_vectors, settle_owed

    if not has_marks(rt.indexer.db) and not owes_vectors(rt.indexer.db):
        return 0  # the common case: nothing deferred (no memorizer built, no scan)
    from memfs.pipeline.vecfill import fill

    merged = 0
    while True:
        report = fill(rt, rt.memorizer.searcher())
        merged += len(report.merged)
        if not report.more:
            settle_owed(rt.indexer.db)
            return merged


def heal_damaged_index(rt: Runtime) -> None:
    """A reader found damage: under the writer lock, check again (another process may
    have healed it meanwhile), move it aside if still damaged, rebuild."""
    with rt.lock("sync"):
        rt.reset_index()  # under the lock: no writer of ours is using the old handles
        db = IndexDB(index_path(rt))  # heals a damaged header by itself
        try:
            quick_check(db.conn)
            damage = None
        except IndexDamaged as err:
            damage = err.reason
        finally:
            db.close()
        if damage is not None:
            rt.reset_index(damaged=damage)
        rt.indexer.sync(rebuild=damage is not None)
        rt.regenerate_views()
