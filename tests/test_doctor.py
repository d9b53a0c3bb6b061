"""`memfs doctor` as a subprocess: healthy exits 0; a broken file and a damaged index are
named and exit 1; `--fix` rebuilds the index and recall works again; a running daemon and
its socket are seen."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from memfs.workspace import init_workspace
from tests.support.cli import MEMFS, env, run
from tests.support.workspace import hashing_memory


def _env() -> dict[str, str]:
    return env()


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return run(args, cwd, _env(), check=False)


def _checks(ws: Path, *extra: str) -> tuple[int, dict[str, dict]]:
    proc = _run(["doctor", "--json", *extra], ws)
    data = json.loads(proc.stdout)
    return proc.returncode, {c["name"]: c for c in data["checks"]}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace with one item, made in-process (the CLI is what the tests run, not this)."""
    root = init_workspace(tmp_path / "mem", git=False).root
    with hashing_memory(root) as mem:
        mem.add("Alice prefers green tea over coffee in the morning.")
    return root


def test_a_healthy_workspace_exits_0_with_one_line_per_check(ws: Path) -> None:
    proc = _run(["doctor"], ws)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.strip().splitlines()
    names = ["config", "category files", "index", "embedder", "daemon", "inbox", "temp files", "git"]
    assert len(lines) == len(names)
    for line, name in zip(lines, names):
        assert line.startswith("ok") and name in line


def test_broken_front_matter_is_named_by_file_and_line(ws: Path) -> None:
    (ws / "memory" / "broken.md").write_text("---\ntitle: Broken\nsummary: [unclosed\n---\n# Broken\n\n- a line\n")
    code, checks = _checks(ws)
    assert code == 1
    assert checks["category files"]["level"] == "fail"
    assert "memory/broken.md:" in checks["category files"]["detail"]


def test_a_damaged_index_is_named_and_fix_rebuilds_it(ws: Path) -> None:
    db = ws / ".memfs" / "index.sqlite3"
    _run(["sync"], ws)
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    for side in ("-wal", "-shm"):
        (ws / ".memfs" / f"index.sqlite3{side}").unlink(missing_ok=True)
    code, checks = _checks(ws)
    assert code == 1 and checks["index"]["level"] == "fail"
    assert ".memfs/index.sqlite3" in checks["index"]["detail"] and checks["index"]["fixable"]

    code, checks = _checks(ws, "--fix")
    assert code == 0, checks
    assert "rebuilt" in checks["index"]["fixed"] and checks["index"]["level"] == "ok"
    assert list((ws / ".memfs").glob("index.sqlite3.damaged-*"))  # moved aside, not deleted
    hits = json.loads(_run(["recall", "green tea", "--json"], ws).stdout)
    assert hits and "green tea" in hits[0]["text"]


def test_an_edit_not_yet_synced_is_reported_and_fixed(ws: Path) -> None:
    path = ws / "memory" / "preferences.md"
    time.sleep(0.01)
    path.write_text(path.read_text() + "- Bob dislikes loud music.\n")
    code, checks = _checks(ws)
    assert code == 0 and checks["index"]["level"] == "warn"
    assert "memory/preferences.md" in checks["index"]["detail"]
    code, checks = _checks(ws, "--fix")
    assert checks["index"]["level"] == "ok" and checks["index"]["fixed"]


def test_a_running_daemon_and_its_socket_are_seen(ws: Path) -> None:
    proc = subprocess.Popen(MEMFS + ["daemon"], cwd=ws, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while not (ws / ".memfs" / "daemon.sock").exists() and time.time() < deadline:
            time.sleep(0.1)
        code, checks = _checks(ws)
        assert checks["daemon"]["level"] == "ok", checks["daemon"]
        assert f"pid {proc.pid}" in checks["daemon"]["detail"] and "socket answers" in checks["daemon"]["detail"]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    code, checks = _checks(ws)
    assert "not running" in checks["daemon"]["detail"]


def test_a_stale_temp_file_is_removed_by_fix(ws: Path) -> None:
    tmp = ws / "memory" / ".preferences.md.abc123.tmp"
    tmp.write_text("half a file")
    old = time.time() - 3600
    os.utime(tmp, (old, old))
    code, checks = _checks(ws)
    assert checks["temp files"]["level"] == "warn" and checks["temp files"]["fixable"]
    code, checks = _checks(ws, "--fix")
    assert not tmp.exists() and checks["temp files"]["fixed"]


def test_invalid_config_is_a_failed_check_not_a_crash(ws: Path) -> None:
    (ws / "memfs.toml").write_text("[recall]\ntop_kk = 3\n")
    proc = _run(["doctor"], ws)
    assert proc.returncode == 1
    assert "recall.top_kk: unknown key" in proc.stdout and "Traceback" not in proc.stderr


def test_fix_converts_an_older_index_in_place_and_keeps_its_vectors(ws: Path) -> None:
    """Schema 5 is converted by the next writer, not a damaged file: `doctor` warns, `--fix`
    syncs (before: reported as a failure and moved aside, every vector embedded again)."""
    import sqlite3

    from memfs.index.db import SCHEMA_VERSION
    from tests.support.oldlayout import to_schema5

    db = ws / ".memfs" / "index.sqlite3"
    (ws / "memory" / "notes.md").write_text("# Notes\n\nThe zanzibar crew paints the lighthouse.\n", encoding="utf-8")
    _run(["sync"], ws)
    vectors = sqlite3.connect(db).execute("SELECT count(*) FROM embeddings").fetchone()[0]
    to_schema5(db)
    code, checks = _checks(ws)
    assert code == 0 and checks["index"]["level"] == "warn" and "'5'" in checks["index"]["detail"]
    code, checks = _checks(ws, "--fix")
    assert code == 0 and checks["index"]["level"] == "ok", checks
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("SELECT count(*) FROM embeddings").fetchone()[0] == vectors
    conn.close()
    assert not list((ws / ".memfs").glob("index.sqlite3.damaged-*"))
    hits = json.loads(_run(["recall", "zanzibar lighthouse", "--json"], ws).stdout)
    assert hits and "zanzibar" in hits[0]["text"]
