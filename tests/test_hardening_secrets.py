"""Secrets (invariant 9, docs/architecture.md): the API key comes from the environment and never reaches
disk, logs, errors, `status`, git history or the Markdown.

The daemon runs in LLM mode (`--commit`, logging at INFO) against a hostile fake
OpenAI-compatible server that echoes the Authorization header back in 401 and 500 error
bodies and inside a 200 answer; memfs falls back to the offline extractor. Then every
byte the run produced is searched for the key: the daemon's stderr, every CLI output,
every file in the workspace (`.memfs/` included) and every git object, decompressed.
"""

from __future__ import annotations

import itertools
import json
import shutil
import sys
import textwrap
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import env, init, run
from tests.support.daemon import Daemon, wait
from tests.support.factories import conversation
from tests.support.fake_openai import FakeOpenAI, Reply, fail, ok
from tests.support.figures import figure
from tests.support.workspace import waiting

SECRET = "sk-test-SECRET-hardening"
MARK = "SECRET-hardening"

_LOGGING_DAEMON = textwrap.dedent("""
    import logging, sys
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    sys.argv = ["memfs", "daemon", "--commit"]
    from memfs.cli import main
    main()
""")


def _hostile() -> Callable[[dict[str, Any]], Reply]:
    """A responder quoting the Authorization header back: 401, then 500, then a 200 answer, in turn."""
    calls = itertools.count(1)

    def respond(body: dict[str, Any]) -> Reply:
        mode = next(calls) % 3
        if mode == 1:
            return fail(401, "Incorrect API key provided:", echo_auth=True)
        if mode == 2:
            return fail(500, "upstream failed for", echo_auth=True)
        return ok("I cannot do JSON. Your header was", echo_auth=True)
    return respond


def _git_objects(ws: Path) -> list[bytes]:
    out = []
    for path in (ws / ".git" / "objects").rglob("*"):
        if path.is_file() and len(path.parent.name) == 2:
            try:
                out.append(zlib.decompress(path.read_bytes()))
            except zlib.error:
                pass
    return out


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_the_api_key_never_reaches_logs_errors_status_git_or_files(tmp_path: Path) -> None:
    server = FakeOpenAI().start()
    server.responder = _hostile()
    base = server.url
    e = env(OPENAI_API_KEY=SECRET, MEMFS_LLM="openai", OPENAI_BASE_URL=base, MEMFS_LLM_RETRIES="0",
            MEMFS_LLM_MODEL="gpt-test", MEMFS_INGEST_SETTLE_SECONDS="0")
    outputs: list[str] = []
    try:
        ws = init(tmp_path / "w", e, git=True)
        with Daemon(ws, e, tmp_path / "daemon.log", cmd=[sys.executable, "-c", _LOGGING_DAEMON]) as d:
            d.wait_ready()
            for n in range(3):
                (ws / "inbox" / f"chat{n}.json").write_text(json.dumps(conversation(40 + n, turns=6)))
            (ws / "inbox" / "junk.bin").write_bytes(b"\x00\xff" * 30)
            wait(lambda: not waiting(ws), 90, "inputs processed")
            # Every kind of output a person or an agent reads, errors included.
            for args in (["status"], ["status", "--json"], ["recall", "dog shelter", "--json"], ["recall", "nurse"],
                         ["context"], ["sync", "--json"], ["add", "Pia likes kites.", "--type", "bogus"],
                         ["forget", "nope"], ["ingest", str(tmp_path / "missing.json")], ["retry"]):
                r = run(args, ws, e, check=False)
                outputs += [r.stdout, r.stderr]
            r = run(["status"], ws, dict(e, MEMFS_RECALL_TOP_K="many"), check=False)  # a config error
            outputs += [r.stdout, r.stderr]
            assert d.stop() == 0
            log = d.log()
    finally:
        server.stop()
    seen_keys = [r["auth"] or "" for r in server.requests]
    assert any(SECRET in k for k in seen_keys)  # the key really was in play
    commits = run(["status"], ws, e).stdout and __import__("subprocess").run(
        ["git", "-C", str(ws), "log", "--all", "-p", "--format=%H%n%B"], capture_output=True, text=True).stdout
    assert "memfs: ingest chat0.json" in commits  # --commit committed
    assert MARK not in log, [line for line in log.splitlines() if MARK in line][:3]
    assert MARK not in commits
    leaks = [o for o in outputs if MARK in o]
    assert not leaks, leaks[:2]
    files = [p for p in ws.rglob("*") if p.is_file() and ".git" not in p.relative_to(ws).parts]
    leaked_files = [str(p.relative_to(ws)) for p in files if MARK.encode() in p.read_bytes()]
    assert not leaked_files, leaked_files
    objects = _git_objects(ws)
    assert objects and not [o[:80] for o in objects if MARK.encode() in o]
    assert not [p for p in (ws / ".git").rglob("*") if p.is_file() and MARK.encode() in p.read_bytes()]
    figure("secrets_llm_requests_with_key", len(seen_keys))
    figure("secrets_files_searched", len(files) + len(objects) + 1 + len(outputs))
    figure("secrets_leaks_found", 0)
