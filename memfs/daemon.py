"""`memfs daemon`: process the inbox, then watch it and the store.

- A new inbox file is taken once it is complete: renamed in (an atomic hand-over), or
  its size and mtime unchanged for `ingest.settle_seconds`.
- Edits under memory/, index/, skill/ trigger a debounced `sync` (memfs' own writes too).
- One daemon per workspace (`.memfs/daemon.lock`, checked every loop: a deleted `.memfs/`
  is taken again, or the daemon stops if another got there first); writes take the writer lock.
- An input's items are keyword-recallable before they have a vector; between inputs the
  loop embeds them and makes their near-duplicate checks (pipeline/vecfill.py).
- SIGINT/SIGTERM: finish the current file (or batch of a large one), its vectors and
  checks, exit 0. One bad file never stops the loop; a moved workspace stops it.
"""

from __future__ import annotations

import signal
import stat
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from memfs.addwire import config_key
from memfs.daemon_watch import on_event, start_observer
from memfs.services.autodaemon import AUTO_PURPOSE, STOPPED_LINE, give_way, idle_seconds
from memfs.errors import LockedError
from memfs.fsutil import WriterLock, has_writer
from memfs.inbox import pending
from memfs.workspace import folder_id, folder_is
from memfs.warm_write import WriteQueue

if TYPE_CHECKING:
    from memfs.api import Memory

STORE_DEBOUNCE = 0.5
RESCAN_SECONDS = 2.0
#: How long a clean stop fills vectors owed before it leaves the rest (still marked) to the next
#: start: a stop stays prompt under any backlog (service managers kill after ~90 s); nothing is lost.
FINISH_SECONDS = 15.0


class Daemon:
    def __init__(self, memory: "Memory", log: Callable[[str], None] | None = None, poll: float = 0.05,
                 commit: bool | None = None, auto_started: bool = False) -> None:
        self.memory = memory
        #: Started by `memfs ingest` (memfs.services.autodaemon): stops when idle, gives way to a person's daemon.
        self.auto_started = auto_started
        self._active_at = time.monotonic()  # the last input or synced edit (idle: memfs.services.autodaemon)
        self.commit = commit  # git commit each processed input (None: as `[git] autocommit` says)
        self.ws = memory.ws
        self.poll = poll
        self.log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._seen: dict[str, tuple[int, float, float]] = {}  # name -> (size, mtime, first-stable-at)
        self._ready: set[str] = set()  # renamed in: complete already
        self._store_dirty_at: float | None = None
        self._partial: set[str] = set()  # large inputs with batches left
        self._deferred_at: float | None = None  # when a batch first waited for inputs about to ripen
        self._vectors_due, self._vectors_after = True, 0.0  # vectors owed (a crash's too); no retry before
        self._inputs_waiting = False  # a ripe input other than a large one's next batch
        self._lost = False  # another daemon took the workspace over (after `.memfs/` was deleted)
        self._root_id = folder_id(self.ws.root)  # a moved workspace is told from a deleted `.memfs/`
        self.writes = WriteQueue(self.stopping, str(self.ws.root))  # `memfs add` over the socket
        self._views = memory.view_debt(commit)  # several ripe inputs: the root files once

    # -- events (watchdog thread) -----------------------------------------------------
    def _on_event(self, event) -> None:  # type: ignore[no-untyped-def]
        on_event(self, event)

    def _start_observer(self):  # type: ignore[no-untyped-def]
        return start_observer(self)

    # -- the loop -----------------------------------------------------------------------
    def _ripe(self, now: float) -> list[Path]:
        """Inbox files that are complete: renamed in, or unchanged for settle_seconds."""
        settle = self.memory.config.ingest.settle_seconds
        out = []
        with self._lock:
            names = list(self._seen)
        for name in names:
            path = self.ws.inbox / name
            try:
                st = path.lstat()
                if stat.S_ISDIR(st.st_mode):
                    raise FileNotFoundError
            except FileNotFoundError:
                with self._lock:
                    self._seen.pop(name, None)
                    self._ready.discard(name)
                continue
            with self._lock:
                size, mtime, since = self._seen.get(name, (-1, -1.0, 0.0))
                if name in self._ready:
                    out.append(path)
                    continue
                if (st.st_size, st.st_mtime) != (size, mtime):
                    self._seen[name] = (st.st_size, st.st_mtime, now)
                    continue
            if now - since >= settle:
                if has_writer(path):  # open for writing (a logger): not complete, however still
                    with self._lock:
                        self._seen[name] = (st.st_size, st.st_mtime, now)
                    continue
                out.append(path)
        return out

    def _take_ripe(self, now: float) -> None:
        """Process the ripe inputs; a large input in progress gets one batch per turn, after
        the others, and waits (up to a settle window) for inputs that are about to ripen:
        so an input dropped during a batch waits for that batch only."""
        ripe = self._ripe(now)
        large = [p for p in ripe if p.name in self._partial]
        self._inputs_waiting = len(large) < len(ripe)
        small = [p for p in ripe if p.name not in self._partial]
        for k, path in enumerate(small):  # the root files once for the lot (services.ingest.ViewDebt)
            if self.stopping.is_set():
                break
            self._process(path, defer_views=self._views.defer(k + 1 < len(small)))
            if self._views.due():
                self._refresh_root_files()
        if self._views.due(final=True):
            self._refresh_root_files()
        if not large or self.stopping.is_set():
            return
        ripe_names = {p.name for p in ripe}
        with self._lock:
            settling = any(n not in ripe_names and n not in self._partial for n in self._seen)
        patience = self.memory.config.ingest.settle_seconds + 0.5
        if settling and (self._deferred_at is None or now - self._deferred_at < patience):
            self._deferred_at = self._deferred_at if self._deferred_at is not None else now
            return
        self._deferred_at = None
        self._process(large[0])

    def _process(self, path: Path, defer_views: bool = False) -> None:
        name = path.name
        self._active_at = time.monotonic()
        try:
            # One batch of a large input per turn: SIGTERM and the inputs behind it wait at
            # most one batch (ingest.batch_segments), never the whole input.
            # Vectors after the write: keyword-recallable at once, embedded between inputs.
            # Not when each input is committed: a later merge would be left uncommitted.
            commits = self.memory.config.git.autocommit if self.commit is None else self.commit
            later = self.memory.config.ingest.vectors_after_write and not commits
            result = self.memory.ingest_file(path, max_batches=1, autocommit=self.commit, vectors_later=later,
                                             defer_views=defer_views)
            self._vectors_due = True
        except LockedError as err:  # a long CLI write: keep the file, try next round
            self.log(f"memfs daemon: {name}: {err}")
            return
        except Exception as err:  # noqa: BLE001 - the daemon must outlive any one input
            reason, filed = self.memory.file_failure(path, err)
            self.log(f"memfs daemon: failed {name}: {reason}")
            if not filed and (path.exists() or path.is_symlink()):
                # Not even the reason could be written (disk still full): the input stays in
                # inbox/ and the periodic rescan tries it again (hardening fix: say so).
                self.log(f"memfs daemon: {name} left in inbox/; will retry")
        else:
            if result.status == "failed":
                self.log(f"memfs daemon: failed {name}: {result.error} (moved to inbox/failed/)")
            elif result.status == "partial":
                self.log(f"memfs daemon: {name}: batch done, {result.batch} segments "
                         f"(+{len(result.added)} added, {len(result.reinforced)} reinforced; checkpointed)")
                with self._lock:
                    self._ready.add(name)  # the next batch on the next turn, after the others
                    self._partial.add(name)
                return
            elif result.status == "waiting":
                self.log(f"memfs daemon: {name}: {result.error}")
                with self._lock:
                    self._seen[name] = (-1, -1.0, 0.0)
                    self._ready.discard(name)
                return
            elif result.status == "duplicate":
                self.log(f"memfs daemon: {name}: already processed ({result.resource})")
                self._refresh_root_files()  # its first run may have died before the views
            else:
                from memfs.pipeline.summary import counts, llm_line

                self.log(f"memfs daemon: {name}: {counts(result)} → {', '.join(result.files) or 'no items'} "
                         f"({result.seconds:.2f}s)")
                if llm_line(result):
                    self.log(f"memfs daemon: {name}: {llm_line(result)}")
            for warning in result.warnings:
                self.log(f"memfs daemon: {name}: warning: {warning}")
        with self._lock:
            self._seen.pop(name, None)
            self._ready.discard(name)
            self._partial.discard(name)

    def _input_ready(self) -> bool:  # renamed in (complete), not a large one's next batch
        with self._lock:
            return bool(self._ready - self._partial)

    def _fill_vectors(self) -> None:
        """One chunk of the vectors and checks owed after writes; only when no input is ripe."""
        try:
            report = self.memory.fill_vectors(stop=self._input_ready, lock_timeout=1.0)
        except LockedError:
            return  # a CLI writer holds the lock: next round
        except Exception as err:  # noqa: BLE001 - vectors are a cache; tried again after a pause
            self.log(f"memfs daemon: adding vectors failed: {type(err).__name__}: {err}")
            self._vectors_after = time.monotonic() + RESCAN_SECONDS  # (say, a full disk: no hot loop)
            return
        for removed, kept in report.merged:
            self.log(f"memfs daemon: near-duplicate {removed} merged into {kept}")
        self._vectors_due = report.more

    def _finish_vectors(self) -> None:
        """On a clean stop, the vectors and near-duplicate checks of the inputs taken so far,
        so a stopped daemon leaves what embedding first would have (no twin lines waiting
        for the next start). A SIGKILL leaves them to the next run, which finds them."""
        deadline = time.monotonic() + FINISH_SECONDS

        def late() -> bool:
            return time.monotonic() > deadline

        while self._vectors_due and not self._lost:
            if late():  # a stop stays prompt: the marks stay, the next start or sync fills them
                self.log("memfs daemon: vectors and near-duplicate checks left for the next start")
                return self._refresh_root_files()  # lines merged so far are in the views
            self._vectors_due = False
            try:
                self._vectors_due = self.memory.fill_vectors(lock_timeout=5.0, stop=late).more
            except Exception as err:  # noqa: BLE001 - the next start fills them
                self.log(f"memfs daemon: vectors left for the next start ({type(err).__name__}: {err})")
                return self._refresh_root_files()

    def _state_lost(self, lock: WriterLock, warm):  # type: ignore[no-untyped-def]
        """`.memfs/` went away with our lock file: take the lock again (or stop: another daemon has
        it, or the folder moved) and rebuild the index; the writer lock is anchored on the folder."""
        if self._gone():
            return warm
        lock.release()
        try:
            lock.acquire()
        except LockedError:
            self.log("memfs daemon: .memfs/ was deleted and another memfs daemon now runs here; stopping")
            self._lost = True  # its index is the other daemon's now: leave it alone
            self.stopping.set()
            return warm
        self.log("memfs daemon: .memfs/ was deleted or replaced; rebuilding the index from the Markdown")
        warm.stop() if warm is not None else None
        try:
            with self.memory.lock("sync"):
                self.memory.reset_index()
            self.memory.sync(vectors=False)  # the loop fills pending vectors, in chunks
            self._refresh_root_files()
        except Exception as err:  # noqa: BLE001 - the next loop (or input) tries again
            if self._gone():  # `rm -rf` of the workspace takes `.memfs/` first, then the rest
                return None
            self.log(f"memfs daemon: rebuild after .memfs/ was deleted failed: {type(err).__name__}: {err}")
        return self._start_warm()

    def _gone(self) -> bool:
        """The workspace folder was moved or deleted, `.memfs/` with it: stop, writing nothing."""
        if folder_is(self.ws.root, self._root_id) and (self.ws.root / "memfs.toml").is_file():
            return False
        self.log(f"memfs daemon: {self.ws.root} was moved or deleted; stopping (nothing written there)")
        self._lost = True  # its old path is not ours to recreate
        self.stopping.set()
        return True

    def _start_warm(self):  # type: ignore[no-untyped-def]
        from memfs.warm import start_warm

        return start_warm(self.memory, self.writes, self.log)

    def _refresh_root_files(self) -> None:
        """Bring the root files in line with the index: after the start-up sync and a duplicate
        input (hardening fix: their write failed or the process died after the archive, and
        nothing else would regenerate them), and once for several inputs in a row. Only files
        whose bytes change are written."""
        try:
            with self.memory.lock("sync"):
                self.memory.regenerate_views()
        except Exception as err:  # noqa: BLE001 - a view refresh must never stop the daemon
            self.log(f"memfs daemon: could not refresh root files: {type(err).__name__}: {err}")

    def _warm_up(self) -> None:
        try:  # the embedder and category vectors now: the first input is as quick as the rest
            self.memory.warm_up()
        except Exception as err:  # noqa: BLE001 - warming up is an optimisation only
            self.log(f"memfs daemon: warm-up skipped ({type(err).__name__}: {err})")

    def _idle_out(self, now: float, warm) -> bool:  # type: ignore[no-untyped-def]
        """Started by `memfs ingest`: stop when idle for `[daemon] idle_exit_seconds` (no input
        waiting, no edit to sync), or once a CLI with another config asked (the next
        in-process ingest then starts a daemon with that config)."""
        if self.writes.foreign.is_set():  # a CLI with another config asked: memfs.toml edited?
            self.writes.foreign.clear()
            if config_key(self.ws.root) != self.writes.config:
                self.log("memfs daemon: memfs.toml changed since this daemon started; stopping")
                self.stopping.set()
                return True
        limit = self.memory.config.daemon.idle_exit_seconds
        with self._lock:
            waiting = bool(self._seen or self._partial) or self._store_dirty_at is not None
        if waiting or idle_seconds(now, self._active_at, self.writes.active_at,
                                   getattr(getattr(warm, "server", None), "active_at", 0.0)) < limit:
            return False
        self.log(f"memfs daemon: nothing to do for {limit:g}s (started by memfs ingest); stopping")
        self.stopping.set()
        return True

    def _rescan(self) -> None:
        if self.auto_started:  # it serves the CLI; what lands in inbox/ waits for `memfs ingest`
            return
        for path in pending(self.ws):
            with self._lock:
                self._seen.setdefault(path.name, (-1, -1.0, 0.0))

    def run(self) -> int:
        lock = WriterLock(self.ws.state / "daemon.lock", timeout=0, purpose=AUTO_PURPOSE if self.auto_started
                          else "daemon")
        try:
            try:
                lock.acquire()
            except LockedError:  # a person's daemon takes over from one `memfs ingest` started
                if self.auto_started or not give_way(self.ws.state, self.log):
                    raise
                lock.acquire()
        except LockedError:
            self.log(f"memfs daemon: another memfs daemon is already running on {self.ws.root}")
            return 1
        previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
        for sig in previous:
            signal.signal(sig, lambda *_: self.stopping.set())
        observer = None
        warm = None
        try:
            # Watch first, then catch up (issue #18): an edit or input saved while the
            # start-up sync runs is an event, not lost; that sync is incremental (stat, then hash).
            # The views and the model come after "watching": neither is needed to take an event.
            observer = self._start_observer()
            started = time.monotonic()
            self.memory.sync(vectors=False)  # the loop fills pending vectors, in chunks
            warm = self._start_warm()
            if warm is None and self.auto_started:  # nothing can be handed to it: of no use
                self.stopping.set()
            self._rescan()
            self.log(f"memfs daemon: watching {self.ws.root} (pid {__import__('os').getpid()})")
            self._refresh_root_files()  # a previous run may have died between archive and views
            self._warm_up()
            self.log(f"memfs daemon: caught up in {time.monotonic() - started:.1f}s (views refreshed, model loaded)")
            last_scan = time.monotonic()
            while not self.stopping.is_set():
                if not lock.still_held():  # `.memfs/` was deleted (or replaced) under us
                    warm = self._state_lost(lock, warm)
                    if self.stopping.is_set():
                        break
                now = time.monotonic()
                self._take_ripe(now)
                if self._vectors_due and now >= self._vectors_after and not self._inputs_waiting \
                        and not self.stopping.is_set():
                    self._fill_vectors()
                with self._lock:
                    dirty = self._store_dirty_at
                if dirty is not None and now - dirty >= STORE_DEBOUNCE:
                    with self._lock:
                        self._store_dirty_at = None
                    try:
                        report = self.memory.sync(vectors=False)  # the loop fills them, in chunks
                        self._vectors_due = True  # an edit may free a check left to retry
                        self._active_at = time.monotonic()
                        if report.changed:
                            self.log(f"memfs daemon: synced edits: +{report.items_added} ~{report.items_updated} "
                                     f"-{report.items_removed}")
                        for w in report.warnings:
                            self.log(f"memfs daemon: warning: {w}")
                    except Exception as err:  # noqa: BLE001
                        self.log(f"memfs daemon: sync failed: {type(err).__name__}: {err}")
                if now - last_scan >= RESCAN_SECONDS:
                    self._rescan()
                    last_scan = now
                    if self.auto_started and self._idle_out(now, warm):
                        break
                self.writes.wait_and_drain(self.memory, self.poll)
            self._finish_vectors()
        finally:
            self.writes.close()  # an add still queued was not done: refused, the client adds it
            if warm is not None:
                warm.stop()
            if observer is not None:
                observer.stop()
                observer.join(timeout=5)
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            lock.release()
        self.log(STOPPED_LINE)
        return 0
