"""Ingest: one input through the memorize pipeline, and what surrounds it.

Around `pipeline.memorize.Memorizer.run`: the writer lock, filing unreadable input in
`inbox/failed/` with its reason, the forget bookkeeping, removing the inbox copy once it
is archived (unless someone replaced it meanwhile), and the optional git commit. The CLI,
the daemon and the agents all come through here, so they report the same results.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from memfs.errors import MemfsError
from memfs.fsutil import has_writer
from memfs.readers.errors import ReadError
from memfs.services.runtime import Runtime
from memfs.views import views_stale

if TYPE_CHECKING:
    from memfs.pipeline.memorize import IngestResult
    from memfs.pipeline.vecfill import FillReport

#: (files done, files in all, items added so far) after each input.
IngestProgress = Callable[[int, int, int], None]


def ingest_file(rt: Runtime, path: Path, lock_timeout: float = 60.0, allow_relearn: bool = False,
                max_batches: int | None = None, autocommit: bool | None = None,
                vectors_later: bool = False) -> "IngestResult":
    """See `memfs.api.Memory.ingest_file`; `autocommit` overrides `[git] autocommit`.

    `vectors_later` (the daemon): offline, facts whose filing needs no vector are written
    and keyword-recallable before they are embedded; `fill_vectors` embeds them and makes
    their near-duplicate check afterwards (pipeline/vecfill.py)."""
    from memfs.inbox import move_to_failed
    from memfs.pipeline.memorize import IngestResult, Unsettled

    path = Path(path)
    in_inbox = path.parent.resolve() == rt.ws.inbox.resolve()
    with rt.lock("ingest", timeout=lock_timeout):
        try:
            if path.is_symlink():
                raise ReadError("symlink: memfs does not follow links in the inbox")
            if not path.is_file():
                raise ReadError("not a regular file")
            memorizer = rt.memorizer
            memorizer.ctx.vectors_later = vectors_later
            try:
                result = memorizer.run(path, allow_relearn=allow_relearn, max_batches=max_batches)
            except Unsettled as err:  # still being written: left where it is, taken later
                return IngestResult(name=path.name, status="waiting", error=f"{err}; left it to settle")
            finally:
                memorizer.ctx.vectors_later = False
                rt.indexer.deferred.clear()  # what is left without a vector, fill_vectors finds
                if rt.llm_used is not None:
                    rt.llm_used.persist_usage()
        except (ReadError, OSError, UnicodeError, ValueError, RecursionError, MemfsError) as err:
            reason = failure_reason(err)
            result = IngestResult(name=path.name, status="failed", error=reason)
            if in_inbox and (path.exists() or path.is_symlink()):
                move_to_failed(rt.ws, path, reason)
            return result
        if result.status == "duplicate" and views_stale(rt.ws, rt.indexer.db):
            rt.regenerate_views()  # a crash left them behind
        if result.status == "processed":
            from memfs.forget import after_ingest

            after_ingest(rt, result, allow_relearn)
        if in_inbox and result.status in ("processed", "duplicate"):
            _remove_if_unchanged(rt, path)
        commit = rt.config.git.autocommit if autocommit is None else autocommit
        if result.status == "processed" and commit:
            from memfs.gitops import commit_ingest

            commit_ingest(rt.ws, result)
    return result


def ingest(rt: Runtime, paths: list[Path], progress: IngestProgress | None = None,
           allow_relearn: bool = False) -> list["IngestResult"]:
    """Each path in turn; `progress(done, total, items_added)` after each."""
    results = []
    added = 0
    for n, path in enumerate(paths):
        results.append(ingest_file(rt, Path(path), allow_relearn=allow_relearn))
        added += len(results[-1].added)
        if progress:
            progress(n + 1, len(paths), added)
    return results


def fill_vectors(rt: Runtime, limit: int | None = None, lock_timeout: float = 60.0,
                 stop: Callable[[], bool] | None = None) -> "FillReport":
    """One chunk of vectors after the write and of the near-duplicate checks left for after
    it (pipeline/vecfill.py), under the writer lock; root files refreshed once the backlog
    is done, if lines merged."""
    from memfs.pipeline.vecfill import CHUNK, fill

    with rt.lock("vectors", timeout=lock_timeout):
        ctx = rt.memorizer.ctx
        report = fill(rt, rt.memorizer.searcher(), limit or CHUNK, stop)
        ctx.views_owed = ctx.views_owed or bool(report.merged)
        if ctx.views_owed and not report.more:  # once the backlog is done, not per chunk
            rt.regenerate_views()
            ctx.views_owed = False
        if not report.more:  # every text has its vector: a one-shot add's owed one too
            from memfs.index.vecfill_store import settle_owed

            settle_owed(rt.indexer.db)
    return report


def failure_reason(err: BaseException) -> str:
    """One line a person can act on; never a traceback, never a secret."""
    if isinstance(err, ReadError):
        return str(err)
    if isinstance(err, OSError):
        return f"{err.strerror or type(err).__name__} while processing ({type(err).__name__})"
    if isinstance(err, MemfsError):
        return str(err)
    return f"internal error: {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"


def file_failure(rt: Runtime, path: Path, err: BaseException) -> tuple[str, bool]:
    """An input that made ingest raise (outside the reasons `ingest_file` files itself):
    move it to inbox/failed/ with a one-line reason. Returns (reason, filed); not filed
    when even the note could not be written (a full disk): the input stays in the inbox."""
    from memfs.inbox import move_to_failed

    reason = f"internal error: {type(err).__name__}: {err}"
    if isinstance(err, OSError) and err.strerror:  # e.g. a full disk: say so plainly
        reason = f"{err.strerror} ({type(err).__name__})"
    try:
        if path.exists() or path.is_symlink():
            move_to_failed(rt.ws, path, reason)
    except OSError:
        return reason, False
    return reason, True


def _remove_if_unchanged(rt: Runtime, path: Path) -> None:
    """Delete the inbox copy, unless someone replaced the file while we worked on it."""
    from memfs.pipeline.memorize import content_digest

    try:
        data = path.read_bytes()
    except OSError:
        return
    if has_writer(path):  # a logger still has it open: what it appends must not go to an unlinked file
        return
    if rt.journal.is_done(content_digest(data)):
        path.unlink(missing_ok=True)
