"""The daemon's file watcher: watchdog over inbox/ (flat) and the store's kind folders (any
depth), every event handed to `Daemon._on_event` (split out of memfs/daemon.py)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memfs.core.model import KINDS
from memfs.inbox import is_candidate
from memfs.walk import is_note_rel

if TYPE_CHECKING:
    from memfs.daemon import Daemon


def start_observer(daemon: "Daemon") -> Any:
    """A started watchdog observer (a daemon thread) feeding `daemon._on_event`."""
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event) -> None:  # type: ignore[no-untyped-def]
            if event.event_type in ("created", "modified", "moved", "deleted", "closed"):
                daemon._on_event(event)

    observer = Observer()
    handler = Handler()
    daemon.ws.inbox.mkdir(exist_ok=True)
    observer.schedule(handler, str(daemon.ws.inbox), recursive=False)
    for kind in KINDS:
        folder = daemon.ws.root / kind
        folder.mkdir(exist_ok=True)
        observer.schedule(handler, str(folder), recursive=True)
    observer.daemon = True
    observer.start()
    return observer


def on_event(daemon: "Daemon", event: Any) -> None:
    """An inbox file to take, or the store dirty (an edit to sync): what one event says."""
    src = Path(event.src_path if isinstance(event.src_path, str) else event.src_path.decode())
    dest = getattr(event, "dest_path", "") or ""
    dest_path = Path(dest if isinstance(dest, str) else dest.decode()) if dest else None
    for path, renamed in ((src, False), (dest_path, True)):
        if path is None:
            continue
        try:
            rel = path.relative_to(daemon.ws.root)
        except ValueError:
            continue
        parts = rel.parts
        if not parts:
            continue
        if parts[0] == "inbox" and len(parts) == 2 and parts[1] != "failed" and is_candidate(parts[1]) \
                and not daemon.auto_started:  # (one `memfs ingest` started leaves inbox/ to the CLI)
            with daemon._lock:
                if renamed and event.event_type == "moved":
                    daemon._ready.add(parts[1])
                daemon._seen.setdefault(parts[1], (-1, -1.0, 0.0))
        elif parts[0] in KINDS and (
                (is_candidate(path.name) and is_note_rel(daemon.ws.root, rel.as_posix()))
                or (getattr(event, "is_directory", False) and event.event_type in ("moved", "deleted")
                    and not path.name.startswith("."))):
            # The walk's rule (memfs.walk), any depth; a folder moved or deleted changes all in it.
            with daemon._lock:
                daemon._store_dirty_at = time.monotonic()
