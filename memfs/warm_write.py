"""The daemon's side of `memfs add` (and `memfs ingest`) over its socket: a hand-over to the daemon's loop.

The socket's handler threads must not use the daemon's Memory (the ingest loop does, and
it keeps the incremental entry files that make a write into a 50k-item file fast). So a
handler queues the request and the loop performs it between inputs, with `Memory.add` —
the same writer lock, read-verify-write, index delta and entry files as every write.
A request the loop has not started within PICKUP_SECONDS (a long batch), or that arrives
while the daemon stops, is withdrawn and answered "refused": nothing was done, and the
client adds in-process as it would without a daemon. Once started, it is answered.
A request whose config key is not the one this daemon started with (memfs.toml edited since,
another MEMFS_* environment) is refused too: the client's config decides its add.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import TYPE_CHECKING, Any

from memfs.addwire import INGEST_VERB, config_key, render_added
from memfs.errors import MemfsError

if TYPE_CHECKING:
    from memfs.api import Memory

#: How long a queued add may wait for the loop before it is handed back to the client.
PICKUP_SECONDS = 10.0
#: Test hook: `before` or `after` makes the daemon SIGKILL itself when it takes an add
#: (before performing it, or after the write and before answering).
CRASH_ENV = "MEMFS_TEST_ADD_CRASH"
REFUSED = {"status": "refused"}


class _Job:
    def __init__(self, req: dict) -> None:
        self.req = req
        self.started = False
        self.withdrawn = False
        self.reply: dict | None = None
        self.done = threading.Event()


class WriteQueue:
    """Adds handed from the socket's threads to the daemon's loop (`drain`)."""

    def __init__(self, stopping: threading.Event | None = None, root: str | None = None) -> None:
        self._stopping = stopping or threading.Event()
        #: The config this daemon adds with (taken when it starts, before its Memory loads the
        #: config); None accepts any request (a queue without a workspace, in tests).
        self.config = config_key(root) if root is not None else None
        self._lock = threading.Lock()
        self._jobs: list[_Job] = []
        self._closed = False
        self.wake = threading.Event()  # set when a job arrives: the loop's wait ends early
        self.active_at = 0.0  # monotonic time of the last request taken or done (memfs.services.autodaemon)
        #: Set when a request came with another config (memfs.toml edited, other MEMFS_*): a
        #: daemon `memfs ingest` started stops then, so the next ingest starts one with it.
        self.foreign = threading.Event()

    def submit(self, req: dict, pickup: float = PICKUP_SECONDS) -> dict:
        """The answer for one add request (called from a handler thread)."""
        job = _Job(req)
        if self.config is not None and req.get("config") != self.config:
            self.foreign.set()
            return REFUSED  # the client's config differs from the one this daemon loaded
        self.active_at = time.monotonic()
        with self._lock:
            if self._closed or self._stopping.is_set():
                return REFUSED
            self._jobs.append(job)
        self.wake.set()
        if not job.done.wait(pickup):
            with self._lock:
                if not job.started:  # withdrawn before the loop saw it: certainly not done
                    job.withdrawn = True
                    if job in self._jobs:  # close() may have emptied the queue meanwhile
                        self._jobs.remove(job)
                    return REFUSED
            job.done.wait()
        return job.reply or REFUSED

    def wait_and_drain(self, memory: "Memory", timeout: float) -> None:
        """The daemon loop's pause: up to `timeout`, cut short by an add, which is then done.
        Once the daemon stops, what is still queued is refused (it was not done)."""
        self.wake.wait(timeout)
        self.drain(memory)
        if self._stopping.is_set():
            self.close()

    def drain(self, memory: "Memory") -> None:
        """Perform every queued add, in order (called by the daemon's loop)."""
        self.wake.clear()
        while True:
            with self._lock:
                if not self._jobs:
                    return
                job = self._jobs.pop(0)
                job.started = True
            try:
                job.reply = perform(memory, job.req, self._stopping)
            finally:
                self.active_at = time.monotonic()
                job.done.set()

    def close(self) -> None:
        """Refuse what is queued and what comes (the daemon stops): nothing of it was done."""
        with self._lock:
            self._closed = True
            jobs, self._jobs = self._jobs, []
        for job in jobs:
            job.reply = REFUSED
            job.done.set()


def _crash(point: str) -> None:
    if os.environ.get(CRASH_ENV) == point:
        os.kill(os.getpid(), signal.SIGKILL)


def _error(err: Exception) -> dict:
    """The answer for a write that raised: the one line (and exit code) the CLI's main prints."""
    if isinstance(err, MemfsError):
        return {"status": "error", "stdout": "", "stderr": f"memfs: error: {err}\n", "exit": 1}
    return {"status": "error", "stdout": "", "stderr": f"memfs: internal error: {type(err).__name__}: {err} "
            "(MEMFS_DEBUG=1 shows the traceback)\n", "exit": 3}


def perform(memory: "Memory", req: dict, stopping: threading.Event | None = None) -> dict:
    """One add (or ingest), as `memfs add` does it in-process: its output, or its one-line error."""
    from memfs.core.model import parse_when

    if req.get("verb") == INGEST_VERB:
        return perform_ingest(memory, req, stopping or threading.Event())

    text, when = req.get("text"), req.get("when")
    if not isinstance(text, str) or not all(isinstance(req.get(k), (str, type(None)))
                                           for k in ("category", "type", "when")):
        return REFUSED
    if when is not None:
        try:
            parse_when(when)
        except ValueError:
            return REFUSED  # a usage error: the CLI prints typer's, as without a daemon
    _crash("before")
    try:
        item = memory.add(text, category=req.get("category"), type=req.get("type"), when=when)
        row = memory.items([item.id]).get(item.id)
    except Exception as err:  # noqa: BLE001 - one line, as the CLI's main prints it
        return _error(err)
    _crash("after")
    data: dict[str, Any] = {"id": item.id, "text": item.text, "type": item.type,
                            "path": row.path if row else "?", "seen": item.seen}
    return {"status": "done", "stdout": render_added(data, bool(req.get("json"))), "stderr": "", "exit": 0}


def perform_ingest(memory: "Memory", req: dict, stopping: threading.Event) -> dict:
    """`memfs ingest PATHS` as the CLI does it in-process: the same results, the same output
    (`lines`: (to stderr?, line) in order). A daemon told to stop ends after the input it is
    on and hands the inputs it did not start back (`rest`): the CLI ingests those itself."""
    from pathlib import Path

    from memfs.pipeline.summary import render_results

    paths, relearn = req.get("paths"), req.get("allow_relearn", False)
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) and os.path.isabs(p) for p in paths) \
            or not isinstance(relearn, bool):
        return REFUSED  # not a request this daemon understands: the CLI does it itself
    _crash("before")
    try:
        results = memory.ingest([Path(p) for p in paths], allow_relearn=relearn, stop=stopping.is_set)
    except Exception as err:  # noqa: BLE001 - one line, as the CLI's main prints it
        return _error(err)
    _crash("after")
    as_json = bool(req.get("json"))
    lines, code = render_results(results, False)
    # --json: the results themselves (the CLI prints them as one list with those it ingests), not their text too
    return {"status": "done", "lines": [] if as_json else lines, "rest": paths[len(results):], "exit": code,
            "results": [r.model_dump(mode="json") for r in results] if as_json else None}
