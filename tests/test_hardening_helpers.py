"""Shared helpers for the hardening suite (tests/test_hardening_*.py, tests/test_chaos.py).

No tests live here. The helpers run the real CLI as subprocesses with a clean environment
(the fast `hashing` embedder, no inherited MEMFS_* or API keys), watch a daemon's log, and
describe a workspace's state so runs can be compared.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

MEMFS = [sys.executable, "-m", "memfs.cli"]
ROOT = Path(__file__).resolve().parents[1]

#: Figures the tests measured, printed with `pytest -s` (docs/reliability.md quotes them).
FIGURES: dict[str, object] = {}


def figure(name: str, value: object) -> None:
    FIGURES[name] = value
    print(f"\n[hardening-figure] {name} = {value}", flush=True)


def env(**extra: str) -> dict[str, str]:
    """The parent environment minus memfs/OpenAI settings, plus the fast embedder."""
    out = {k: v for k, v in os.environ.items()
           if not k.startswith("MEMFS_") and k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    out["MEMFS_EMBEDDER_PROVIDER"] = "hashing"
    out["PYTHONPATH"] = str(ROOT) + os.pathsep + out.get("PYTHONPATH", "")
    out.update(extra)
    return out


def run(args: list[str], cwd: Path, e: dict[str, str], timeout: float = 120, check: bool = True
        ) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(MEMFS + args, cwd=cwd, env=e, capture_output=True, text=True, timeout=timeout)
    if check and out.returncode != 0:
        raise AssertionError(f"memfs {' '.join(args)} exited {out.returncode}: {out.stderr.strip()}")
    return out


def init(path: Path, e: dict[str, str], git: bool = False) -> Path:
    run(["init", str(path)] + ([] if git else ["--no-git"]), cwd=path.parent, e=e)
    return path


def status(ws: Path, e: dict[str, str]) -> dict:
    return json.loads(run(["status", "--json"], ws, e).stdout)


def recall(ws: Path, e: dict[str, str], query: str) -> list[dict]:
    return json.loads(run(["recall", query, "--json", "--k", "50"], ws, e).stdout)


def wait(pred, timeout: float = 30.0, what: str = "condition") -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.05)
    raise AssertionError(f"{what} not met within {timeout}s")


class Daemon:
    """`memfs daemon` as a subprocess, its stderr in a file we can poll."""

    def __init__(self, ws: Path, e: dict[str, str], log: Path, args: tuple[str, ...] = (),
                 cmd: list[str] | None = None) -> None:
        self.ws = ws
        self.log_path = log
        self._fh: IO[str] = open(log, "a", encoding="utf-8")
        self._start_offset = self._fh.tell()
        self.proc = subprocess.Popen(cmd or MEMFS + ["daemon", *args], cwd=ws, env=e, stdout=subprocess.DEVNULL,
                                     stderr=self._fh, text=True)

    def log(self) -> str:
        with open(self.log_path, encoding="utf-8", errors="replace") as fh:
            fh.seek(self._start_offset)
            return fh.read()

    def wait_ready(self, timeout: float = 30.0) -> None:
        wait(lambda: "memfs daemon: watching" in self.log() or self.proc.poll() is not None, timeout, "daemon start")
        assert self.proc.poll() is None, f"daemon exited early: {self.log()}"

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)
        self._fh.close()

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=60)
        finally:
            self._fh.close()
        return code

    def __enter__(self) -> "Daemon":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        if not self._fh.closed:
            self._fh.close()


def waiting(ws: Path) -> list[Path]:
    """Inputs still in inbox/ (not failed/, not hidden)."""
    return [p for p in (ws / "inbox").iterdir() if p.is_file() and not p.name.startswith(".")]


def item_set(ws: Path) -> set[tuple[str, str, int, str]]:
    """(id, text, seen, file) of every item in every category file."""
    from memfs.core.categoryfile import parse_category

    out = set()
    for kind in ("memory", "index", "skill"):
        for path in sorted((ws / kind).glob("*.md")):
            rel = f"{kind}/{path.name}"
            for item in parse_category(path.read_text(encoding="utf-8"), rel).items:
                out.add((item.id, item.text, item.seen, rel))
    return out


def indexed_files(ws: Path) -> list[str]:
    """The `files` table of .memfs/index.sqlite3 (what the index thinks the store is)."""
    import sqlite3

    conn = sqlite3.connect(f"file:{ws / '.memfs' / 'index.sqlite3'}?mode=ro", uri=True)
    try:
        return sorted(r[0] for r in conn.execute("SELECT path FROM files"))
    finally:
        conn.close()


def indexed_items(ws: Path) -> list[tuple[str, str, str]]:
    """(id, path, text) of every row in the items table."""
    import sqlite3

    conn = sqlite3.connect(f"file:{ws / '.memfs' / 'index.sqlite3'}?mode=ro", uri=True)
    try:
        return sorted(conn.execute("SELECT id, path, text FROM items"))
    finally:
        conn.close()


def conversation(n: int, turns: int = 5) -> dict:
    """A small memfs.conversation/1 input whose facts are unique to n (plus one shared fact)."""
    people = ["Ana", "Ben", "Chloe", "Dev", "Emma", "Farid", "Gita", "Hugo", "Ines", "Jon", "Kai", "Lena"]
    p = people[n % len(people)]
    lines = [
        f"I adopted a dog named Rex{n} from the shelter last week.",
        "That's wonderful news!",
        f"I work as a nurse at the hospital in town number {n}.",
        f"My favourite book is Dune, I reread it every {n + 2} years.",
        "I usually go swimming on Saturday mornings.",
        f"My sister Mia{n} lives in Porto and teaches chemistry.",
        f"I am allergic to peanuts since I was {n % 30 + 3}.",
        f"I bought a red bicycle called Zoom{n} in March.",
    ]
    speakers = [p, "Sam", p, p, p, p, p, p]
    return {"format": "memfs.conversation/1", "participants": [p, "Sam"], "sessions": [{
        "id": "S1", "time": f"2024-0{1 + n % 9}-1{n % 10}T10:00:00", "turns": [
            {"id": f"D1:{i + 1}", "speaker": speakers[i], "text": lines[i]} for i in range(min(turns, len(lines)))
        ]}]}


def files_outside(base: Path, allowed: list[Path], before: set[Path]) -> list[Path]:
    """Paths under `base` that are new since `before` and not inside one of `allowed`."""
    out = []
    for path in base.rglob("*"):
        if path in before:
            continue
        if any(path == a or a in path.parents for a in allowed):
            continue
        out.append(path)
    return out
