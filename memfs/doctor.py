"""`memfs doctor`: is this workspace healthy, and what would make it so.

Each check reads only (the index is opened read-only, the daemon is asked over its socket),
so doctor is safe beside a running daemon. `fix=True` repairs what can be repaired without
judgement: a damaged or stale index (it is a cache: moved aside and rebuilt from the
Markdown), temp files a killed writer left, a socket no daemon answers. Broken
front-matter and uncommitted edits are the person's to resolve; doctor only names them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from memfs.config import Config, load_config
from memfs.errors import MemfsError
from memfs.services.autodaemon import AUTO_PURPOSE, lock_holder
from memfs.workspace import Workspace

Level = Literal["ok", "warn", "fail"]
INDEX_NAME = "index.sqlite3"


class Check(BaseModel):
    """One line of the report. `fixable` says `doctor --fix` would repair it."""

    name: str
    level: Level
    detail: str
    fixable: bool = False
    fixed: str | None = None


class DoctorReport(BaseModel):
    root: str
    checks: list[Check]

    @property
    def healthy(self) -> bool:
        return all(c.level != "fail" for c in self.checks)


def run_doctor(ws: Workspace, fix: bool = False) -> DoctorReport:
    """Run every check; with `fix`, repair what is safe to repair, then check again (each
    repaired check carries a `fixed` note saying what was done)."""
    checks = _run_checks(ws)
    if fix and any(c.fixable and c.level != "ok" for c in checks):
        done = _fix(ws, checks)
        checks = _run_checks(ws)
        for c in checks:
            c.fixed = done.get(c.name)
    return DoctorReport(root=str(ws.root), checks=checks)


def _run_checks(ws: Workspace) -> list[Check]:
    checks: list[Check] = []
    config = _check(checks, "config", lambda: _config(ws))
    _check(checks, "category files", lambda: _category_files(ws))
    _check(checks, "index", lambda: _index(ws))
    if isinstance(config, Config):
        _check(checks, "embedder", lambda: _embedder(ws, config))
    _check(checks, "daemon", lambda: _daemon(ws))
    _check(checks, "inbox", lambda: _inbox(ws))
    _check(checks, "temp files", lambda: _temp_files(ws))
    _check(checks, "git", lambda: _git(ws))
    return checks


def _check(checks: list[Check], name: str, fn: Callable[[], "Check | tuple[Check, object]"]) -> object:
    """Run one check; a check that crashes is a failed check, never a crashed doctor."""
    try:
        out = fn()
    except MemfsError as err:
        checks.append(Check(name=name, level="fail", detail=str(err)))
        return None
    except Exception as err:  # noqa: BLE001 - doctor reports, it does not die
        checks.append(Check(name=name, level="fail", detail=f"check crashed: {type(err).__name__}: {err}"))
        return None
    if isinstance(out, tuple):
        checks.append(out[0])
        return out[1]
    checks.append(out)
    return None


# -- the checks -------------------------------------------------------------------
def _config(ws: Workspace) -> tuple[Check, Config]:
    config = load_config(ws.root)
    return Check(name="config", level="ok", detail=f"{ws.rel(ws.root / 'memfs.toml')} is valid"), config


def _category_files(ws: Workspace) -> Check:
    from memfs.index.sync import read_category

    rels = ws.category_rels()
    broken: list[str] = []
    for rel in rels:
        try:
            doc, _ = read_category(ws.root / rel, rel)
        except OSError as err:
            broken.append(f"{rel}: cannot read ({err.strerror})")
            continue
        if doc.front_error:
            broken.append(doc.front_error)
    if broken:
        more = f" (and {len(broken) - 1} more)" if len(broken) > 1 else ""
        return Check(name="category files", level="fail", detail=f"{broken[0]}{more}")
    return Check(name="category files", level="ok", detail=f"{len(rels)} files parse")


def _index(ws: Workspace) -> Check:
    from memfs.index import repository
    from memfs.index.db import _IN_PLACE as IN_PLACE
    from memfs.index.db import SCHEMA_VERSION

    path = ws.state / INDEX_NAME
    if not path.exists():
        return Check(name="index", level="warn", detail="no index yet; `memfs sync` builds it", fixable=True)
    try:
        meta, files, indexed, declared = repository.inspect(path)
    except repository.IndexUnreadable as err:
        return Check(name="index", level="fail", fixable=True,
                     detail=f"{ws.rel(path)} is damaged ({err}); it is a cache: `memfs doctor --fix` rebuilds it")
    if meta.get("schema") in IN_PLACE:  # converted in place by the next writer (memfs.index.layout)
        return Check(name="index", level="warn", fixable=True,
                     detail=f"{ws.rel(path)} has layout {meta.get('schema')!r}; the next `memfs sync` (or "
                     f"`doctor --fix`) converts it to {SCHEMA_VERSION!r} in place, vectors kept")
    if meta.get("schema") != SCHEMA_VERSION:
        return Check(name="index", level="fail", fixable=True,
                     detail=f"{ws.rel(path)} has layout {meta.get('schema')!r}, this memfs uses {SCHEMA_VERSION!r}")
    on_disk: dict[str, tuple[int, int]] = {}
    for rel in ws.category_rels():
        try:
            st = os.stat(ws.root / rel)
        except OSError:
            continue
        on_disk[rel] = (st.st_size, st.st_mtime_ns)
    missing = sorted(set(on_disk) - set(files))
    gone = sorted(set(files) - set(on_disk))
    stale = sorted(r for r in set(on_disk) & set(files) if _changed(ws.root / r, on_disk[r], files[r]))
    problems = [f"{len(missing)} not indexed ({_names(missing)})" if missing else "",
                f"{len(gone)} indexed but gone ({_names(gone)})" if gone else "",
                f"{len(stale)} changed since indexed ({_names(stale)})" if stale else "",
                f"{indexed} items indexed where the files declare {declared}" if indexed != declared else ""]
    problems = [p for p in problems if p]
    if problems:
        return Check(name="index", level="warn", fixable=True,
                     detail="; ".join(problems) + " — `memfs sync` (or `doctor --fix`) brings it in line")
    return Check(name="index", level="ok", detail=f"{indexed} items in {len(files)} files, in line with the Markdown")


def _changed(path: Path, stat: tuple[int, int], indexed: tuple[int, int, str]) -> bool:
    """Differs from what was indexed. A stat recorded within its mtime tick has mtime 0
    (index/statstamp.py): the bytes' hash decides."""
    if stat[0] != indexed[0]:
        return True
    if indexed[1] != 0:
        return stat[1] != indexed[1]
    from memfs.core.hashing import file_hash
    from memfs.fsutil import read_regular

    try:
        return file_hash(read_regular(path)) != indexed[2]
    except OSError:
        return True


def _names(rels: list[str], limit: int = 3) -> str:
    return ", ".join(rels[:limit]) + (", …" if len(rels) > limit else "")


def _embedder(ws: Workspace, config: Config) -> Check:
    from memfs.index import repository
    from memfs.providers.embedding import make_embedder

    embedder = make_embedder(config.embedder)
    vec = embedder.embed(["memfs doctor"])
    recorded = None
    path = ws.state / INDEX_NAME
    if path.exists():
        recorded = repository.recorded_embedder(path)  # None if damaged: the index check reports it
    detail = f"{embedder.name} loads ({vec.shape[1]}-d)"
    if recorded and recorded != embedder.name:
        return Check(name="embedder", level="warn", fixable=True,
                     detail=f"{detail}, but the index was built with {recorded}; the next sync re-embeds everything")
    return Check(name="embedder", level="ok", detail=detail + (", matches the index" if recorded else ""))


def daemon_pid(ws: Workspace) -> int | None:
    """The pid of the daemon holding this workspace's daemon lock, or None if none runs."""
    holder = lock_holder(ws.state)
    return holder[0] if holder is not None else None


def _daemon(ws: Workspace) -> Check:
    from memfs.warm import ping, socket_path

    holder = lock_holder(ws.state)
    sock = socket_path(ws.state)
    if holder is None:
        if sock.exists():
            return Check(name="daemon", level="warn", fixable=True,
                         detail=f"not running, but {ws.rel(sock)} is left behind")
        return Check(name="daemon", level="ok", detail="not running (start it with `memfs daemon`)")
    pid, purpose = holder
    who = f"pid {pid}" if pid > 0 else "pid unknown"
    if purpose == AUTO_PURPOSE:
        who += ", started by `memfs ingest`; it stops when idle"
    if not sock.exists():
        return Check(name="daemon", level="ok", detail=f"running ({who}); no warm recall socket (recall works cold)")
    ms = ping(ws.state)
    if ms is None:
        return Check(name="daemon", level="warn", detail=f"running ({who}), but its socket does not answer")
    return Check(name="daemon", level="ok", detail=f"running ({who}); socket answers in {ms:.0f} ms")


def _inbox(ws: Workspace) -> Check:
    from memfs.inbox import failures, pending

    waiting = len(pending(ws)) if ws.inbox.is_dir() else 0
    failed = failures(ws)
    detail = f"{waiting} pending, {len(failed)} failed"
    if failed:
        name, reason = failed[0]
        return Check(name="inbox", level="warn",
                     detail=f"{detail} (first: {name}: {reason}); `memfs retry` re-queues them")
    return Check(name="inbox", level="ok", detail=detail)


def _temp_files(ws: Workspace) -> Check:
    left = _stale_temps(ws)
    if left:
        return Check(name="temp files", level="warn", fixable=True,
                     detail=f"{len(left)} left by an interrupted write ({_names([ws.rel(p) for p in left])})")
    return Check(name="temp files", level="ok", detail="none left behind")


def _stale_temps(ws: Workspace, older_than: float = 60.0) -> list[Path]:
    """Temp files of atomic writes (`.<name>.<random>.tmp`) old enough that no writer owns them."""
    now = time.time()
    out: list[Path] = []
    for folder in ("memory", "index", "skill", "resources", ".memfs", "."):
        base = ws.root / folder
        if not base.is_dir():
            continue
        found = base.glob(".*.tmp") if folder == "." else base.rglob(".*.tmp")
        for p in found:
            try:
                if p.is_file() and now - p.stat().st_mtime > older_than:
                    out.append(p)
            except OSError:
                continue
    return sorted(set(out))


def _git(ws: Workspace) -> Check:
    if not (ws.root / ".git").exists():
        return Check(name="git", level="ok", detail="not a git repository (memfs works without one)")
    if not shutil.which("git"):
        return Check(name="git", level="warn", detail="a repository, but git is not installed")
    paths = [p for p in ("memory", "index", "skill", "resources", "index.md", "memory.md", "skill.md", "memfs.toml")
             if (ws.root / p).exists()]
    out = subprocess.run(["git", "-C", str(ws.root), "status", "--porcelain", "--", *paths],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return Check(name="git", level="warn", detail=f"`git status` failed: {out.stderr.strip()[:200]}")
    changed = [line[3:] for line in out.stdout.splitlines() if line.strip()]
    if changed:
        return Check(name="git", level="warn",
                     detail=f"{len(changed)} uncommitted change(s) in memory ({_names(changed)})")
    return Check(name="git", level="ok", detail="memory is committed")


# -- repairs ----------------------------------------------------------------------
def _fix(ws: Workspace, checks: list[Check]) -> dict[str, str]:
    """Repair what is safe to repair, under the writer lock; returns what was done, by check."""
    from memfs.api import Memory
    from memfs.fsutil import WriterLock

    todo = {c.name: c for c in checks if c.fixable and c.level != "ok"}
    done: dict[str, str] = {}
    damaged = "index" in todo and todo["index"].level == "fail"
    with WriterLock(ws.state / "write.lock", timeout=30, purpose="repair"):
        if damaged:
            done["index"] = f"moved the damaged index aside ({_move_aside(ws)}) and rebuilt it from the Markdown"
        if "temp files" in todo:
            left = _stale_temps(ws)
            for p in left:
                p.unlink(missing_ok=True)
            done["temp files"] = f"removed {len(left)} stale temp file(s)"
        if "daemon" in todo and daemon_pid(ws) is None:
            from memfs.warm import socket_path

            socket_path(ws.state).unlink(missing_ok=True)
            done["daemon"] = "removed the stale socket"
    if "index" in todo or "embedder" in todo:
        with Memory(ws.root) as mem:
            report = mem.sync(rebuild=damaged)
        note = (f"synced: {report.files_parsed} files read, +{report.items_added} ~{report.items_updated} "
                f"-{report.items_removed} items")
        for name in ("index", "embedder"):
            if name in todo:
                done.setdefault(name, note)
    return done


def _move_aside(ws: Workspace) -> str:
    """Rename the index and its WAL files to `*.damaged-<time>`; it is a cache, never deleted blind."""
    from memfs.index.heal import heal_lock

    stamp = time.strftime("%Y%m%d-%H%M%S")
    first = ""
    with heal_lock(ws.state, exclusive=True):  # no other process is opening it meanwhile
        for suffix in ("", "-wal", "-shm"):
            src = ws.state / f"{INDEX_NAME}{suffix}"
            if src.exists():
                dest = ws.state / f"{INDEX_NAME}{suffix}.damaged-{stamp}"
                os.replace(src, dest)
                first = first or ws.rel(dest)
    return first
