"""`memfs daemon` as a subprocess, and polling for what it does."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from tests.support.cli import MEMFS


def wait(pred: Callable[[], object], timeout: float = 30.0, what: str = "condition") -> None:
    """Poll `pred` every 50 ms until it is true; fail the test after `timeout` seconds."""
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


def serving(ws: Path, log: Path, e: dict[str, str]) -> Daemon:
    """A daemon that has caught up and listens on its socket (`memfs add`/`ingest` go to it)."""
    d = Daemon(ws, e, log)
    d.wait_ready()
    wait(lambda: (ws / ".memfs" / "daemon.sock").exists(), 30, "daemon socket")
    return d


def cli_traced(ws: Path, args: list[str], e: dict[str, str], timeout: float = 180
               ) -> tuple[subprocess.CompletedProcess[str], bool]:
    """`memfs ARGS` through the full CLI, and whether this process loaded memfs.api (a write
    handed to a daemon never does: False means the daemon did it)."""
    import sys

    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "memfs.cli", *args], cwd=ws, env=e,
                         capture_output=True, text=True, timeout=timeout)
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    stderr = "".join(line + "\n" for line in out.stderr.splitlines() if not line.startswith("import time:"))
    return subprocess.CompletedProcess(out.args, out.returncode, out.stdout, stderr), "memfs.api" in imported
