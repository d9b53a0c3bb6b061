"""Ingest: one input through the memorize pipeline, and what surrounds it.

Around `pipeline.memorize.Memorizer.run`: the writer lock, filing unreadable input in
`inbox/failed/` with its reason, the forget bookkeeping, removing the inbox copy once it
is archived (unless someone replaced it meanwhile), and the optional git commit. The CLI,
the daemon and the agents all come through here, so they report the same results.
"""

from __future__ import annotations

import time
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

#: Inputs with more behind them leave the root files owed for at most this long: a bulk
#: import keeps index.md this fresh while paying for it once per interval, not per input.
VIEWS_EVERY = 5.0


class ViewDebt:
    """When a run of inputs refreshes the root files: once after the last of them, and
    meanwhile whenever they have been owed VIEWS_EVERY seconds.

    Regenerating index.md, memory.md, skill.md and the people pages costs what the store's
    size makes it (~0.13 s at 100,000 items against ~0.03 s at 1,000), while the rest of an
    input hardly grows with the store: a bulk import paid that regeneration again and again
    for files nobody reads until it is over. A deferred input still splits the category
    files grown too large (`Runtime.split_oversized_files`), so what is filed where does not
    depend on when the views are paid. The views are derived: if the process dies while
    they are owed, `views_stale` finds them behind the index and the next sync (or daemon
    start) regenerates them. Not when each input is committed to git (`[git] autocommit`):
    that commit holds the input's root files."""

    def __init__(self, rt: Runtime, autocommit: bool | None = None) -> None:
        self.rt = rt
        self.enabled = not (rt.config.git.autocommit if autocommit is None else autocommit)
        self._made: int | None = None  # regenerations when the last input was deferred
        self._since: float | None = None  # when the oldest owed input was deferred

    def defer(self, more_behind: bool) -> bool:
        """Whether the next input should leave the root files owed."""
        if not (self.enabled and more_behind):
            return False
        self._made = self.rt.views_made
        self._since = time.monotonic() if self._since is None else self._since
        return True

    def due(self, final: bool = False) -> bool:
        """True (once) when the owed root files should be regenerated now: the run is over
        (`final`) or they have been owed VIEWS_EVERY seconds. Any regeneration since the
        last deferred input (the next input's own, a vector fill's) has paid them."""
        if self._made is None or self._since is None:
            return False
        if self.rt.views_made <= self._made and not final and time.monotonic() - self._since < VIEWS_EVERY:
            return False
        paid = self.rt.views_made > self._made
        self._made = self._since = None  # taken: a payment that fails is not retried in a loop
        return not paid


def pay_views(rt: Runtime, results: list["IngestResult"], lock_timeout: float = 60.0) -> None:
    """Regenerate the root files a ViewDebt says are due, under the writer lock. A failure
    (a full disk) is a warning on the last result, not the end of the run: the views stay
    behind the index, which the next sync finds."""
    try:
        with rt.lock("ingest", timeout=lock_timeout):
            written = rt.regenerate_views()
    except (OSError, MemfsError) as err:
        if results:
            results[-1].warnings.append(f"root files not refreshed ({failure_reason(err)}); "
                                        "`memfs sync` brings them up to date")
        return
    if results:
        results[-1].root_files = sorted({*results[-1].root_files, *written})


def ingest_file(rt: Runtime, path: Path, lock_timeout: float = 60.0, allow_relearn: bool = False,
                max_batches: int | None = None, autocommit: bool | None = None,
                vectors_later: bool = False, defer_views: bool = False) -> "IngestResult":
    """See `memfs.api.Memory.ingest_file`; `autocommit` overrides `[git] autocommit`.
    `defer_views`: leave the root files owed (ViewDebt refreshes them for a run of inputs).

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
            memorizer.ctx.defer_views = defer_views
            try:
                result = memorizer.run(path, allow_relearn=allow_relearn, max_batches=max_batches)
            except Unsettled as err:  # still being written: left where it is, taken later
                return IngestResult(name=path.name, status="waiting", error=f"{err}; left it to settle")
            finally:
                memorizer.ctx.vectors_later = memorizer.ctx.defer_views = False
                rt.indexer.deferred.clear()  # what is left without a vector, fill_vectors finds
                if rt.llm_used is not None:
                    rt.llm_used.persist_usage()
        except (ReadError, OSError, UnicodeError, ValueError, RecursionError, MemfsError) as err:
            reason = failure_reason(err)
            result = IngestResult(name=path.name, status="failed", error=reason)
            if in_inbox and (path.exists() or path.is_symlink()):
                move_to_failed(rt.ws, path, reason)
            return result
        if result.status == "duplicate" and not defer_views and views_stale(rt.ws, rt.indexer.db):
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
           allow_relearn: bool = False, stop: Callable[[], bool] | None = None) -> list["IngestResult"]:
    """Each path in turn; `progress(done, total, items_added)` after each. The root files
    are refreshed after the last input, not after each (ViewDebt). `stop()` true before an
    input: end there (a daemon stopping); the results are those of the inputs taken."""
    results: list[IngestResult] = []
    added = 0
    debt = ViewDebt(rt)
    try:
        for n, path in enumerate(paths):
            if stop is not None and stop():
                break
            results.append(ingest_file(rt, Path(path), allow_relearn=allow_relearn,
                                       defer_views=debt.defer(n + 1 < len(paths))))
            if debt.due():
                pay_views(rt, results)
            added += len(results[-1].added)
            if progress:
                progress(n + 1, len(paths), added)
    except Exception:  # (a lock timeout): what was taken gets its views; KeyboardInterrupt leaves
        if debt.due(final=True):  # them owed, for views_stale
            pay_views(rt, results, lock_timeout=1.0)  # (not another full wait for the lock)
        raise
    if debt.due(final=True):
        pay_views(rt, results)
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
