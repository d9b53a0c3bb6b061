"""`memfs ingest` with a daemon running: the daemon does it (its entry files are warm), with
the output, exit code and files a CLI without a daemon gives; a daemon that dies on it is
an unknown outcome, never done again locally; a daemon with another config leaves it to
the CLI. Real daemon, real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.cli import env, init, run
from tests.support.daemon import Daemon, cli_traced, serving, wait
from tests.support.workspace import recall

CHAT = {"format": "memfs.conversation/1", "participants": ["Ola", "Tess"],
        "sessions": [{"id": "S1", "time": "2026-03-04 10:00", "turns": [
            {"id": "S1:1", "speaker": "Ola", "text": "I keep my bicycle in the blue shed behind the bakery."},
            {"id": "S1:2", "speaker": "Tess", "text": "I started a pottery class at the community centre."},
            {"id": "S1:3", "speaker": "Ola", "text": "My sister Mira moved to Porto for a design job."}]}]}


def _daemon(ws: Path, tmp_path: Path, **extra: str) -> Daemon:
    return serving(ws, tmp_path / "daemon.log", env(**extra))


def _ingest_traced(ws: Path, args: list[str], e: dict[str, str] | None = None
                   ) -> tuple[subprocess.CompletedProcess[str], bool]:
    """`memfs ingest ARGS` through the full CLI, and whether this process loaded memfs.api."""
    return cli_traced(ws, ["ingest", *args], env() if e is None else e, 180)


def _markdown(ws: Path) -> dict[str, str]:
    return {str(p.relative_to(ws)): p.read_text(encoding="utf-8") for kind in ("memory", "index", "skill")
            for p in sorted((ws / kind).rglob("*.md"))}


def test_an_ingest_through_the_daemon_is_what_the_cli_does_alone(tmp_path: Path) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(CHAT), encoding="utf-8")
    alone = init(tmp_path / "alone")
    ws = init(tmp_path / "w")
    cold = [run(["ingest", *args], alone, check=False) for args in (
        [str(chat)], [str(chat)], ["--json", str(tmp_path / "missing.json")])]
    d = _daemon(ws, tmp_path)
    try:
        warm = []
        for args in ([str(chat)], [str(chat)], ["--json", str(tmp_path / "missing.json")]):
            out, local = _ingest_traced(ws, args)
            assert not local, out.stderr  # this process never loaded the API: the daemon did it
            warm.append(out)
        for c, w in zip(cold, warm):
            assert (w.returncode, w.stdout, w.stderr) == (c.returncode, c.stdout, c.stderr)
        assert warm[0].stdout.startswith("chat.json: +") and "already memorized" in warm[1].stdout
        assert warm[2].returncode == 1 and json.loads(warm[2].stdout)[0]["status"] == "failed"
        assert _markdown(ws) == _markdown(alone)
        assert any("bicycle" in h["text"] for h in recall(ws, env(), "where is the bicycle kept"))
    finally:
        assert d.stop() == 0


def test_a_daemon_killed_mid_ingest_is_an_unknown_outcome_and_no_local_ingest(tmp_path: Path) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(CHAT), encoding="utf-8")
    ws = init(tmp_path / "w")
    before = _markdown(ws)
    d = _daemon(ws, tmp_path, MEMFS_TEST_ADD_CRASH="before")
    try:
        out = run(["ingest", str(chat)], cwd=ws, check=False)
        assert out.returncode == 1 and out.stdout == ""
        assert "may or may not have been memorized" in out.stderr and out.stderr.count("\n") == 1
        wait(lambda: d.proc.poll() is not None, 30, "daemon killed itself")
        assert _markdown(ws) == before  # the CLI did not ingest it itself
    finally:
        d.kill()


def test_a_daemon_started_with_another_config_leaves_the_ingest_to_the_cli(tmp_path: Path) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(CHAT), encoding="utf-8")
    ws = init(tmp_path / "w")
    d = _daemon(ws, tmp_path)
    try:
        out, local = _ingest_traced(ws, [str(chat)], env(MEMFS_RECALL_TOP_K="3"))
        assert local and out.returncode == 0 and out.stdout.startswith("chat.json: +"), out.stderr
    finally:
        assert d.stop() == 0


def test_a_file_name_that_is_not_utf8_is_ingested_once_through_the_daemon(tmp_path: Path) -> None:
    """The answer of a done write must not fail on a lone surrogate: the client would take
    it as not done and ingest the file again."""
    name = os.fsdecode(b"caf\xe9.md")
    src = tmp_path / name
    src.write_text("# Caf\n\nOla opened a small cafe by the harbour in March.\n", encoding="utf-8")
    def ingest(ws: Path) -> tuple[int, bytes, bytes, bool]:  # (bytes: the name is printed as it is)
        out = subprocess.run([sys.executable, "-X", "importtime", "-m", "memfs.cli", "ingest", str(src)], cwd=ws,
                             env=env(), capture_output=True, timeout=180)
        err = [line for line in out.stderr.splitlines(keepends=True) if not line.startswith(b"import time:")]
        return out.returncode, out.stdout, b"".join(err), b"| memfs.api\n" in out.stderr

    cold = ingest(init(tmp_path / "alone"))
    ws = init(tmp_path / "w")
    d = _daemon(ws, tmp_path)
    try:
        warm = ingest(ws)
        assert cold[3] and not warm[3]  # the daemon did it (this process never loaded the API)
        assert warm[:3] == cold[:3] and b"+1 added" in warm[1]  # once: not "already memorized"
    finally:
        assert d.stop() == 0


def test_a_request_the_daemon_would_cut_short_is_done_here(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """More paths than the daemon reads in one request line: the CLI ingests them itself
    (sent, the line would be cut and the answer lost: an unknown outcome for nothing)."""
    from memfs import addwire

    state = tmp_path / ".memfs"
    state.mkdir()
    (state / addwire.SOCKET_NAME).write_text("")  # "a daemon's socket is there"
    asked: list[bytes] = []
    monkeypatch.setattr(addwire, "_ask", lambda state_dir, payload, *a, **k: asked.append(payload))
    many = [f"/data/chats/{k:06d}-a-long-enough-file-name.json" for k in range(30000)]
    assert addwire.try_daemon_ingest(state, many, False, False) is None and asked == []
    addwire.try_daemon_ingest(state, many[:10], False, False)
    assert len(asked) == 1
    from memfs.warm_client import MAX_REQUEST

    assert addwire.MAX_REQUEST == MAX_REQUEST


def test_what_a_stopping_daemon_did_not_take_is_ingested_here_in_order(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The daemon answers with the inputs it did and hands back the rest; the CLI prints its
    lines, in order, then ingests the rest itself."""
    from typer.testing import CliRunner

    from memfs import addwire
    from memfs.cli import app

    ws = init(tmp_path / "w")
    second = tmp_path / "second.md"
    second.write_text("# Notes\n\nTess repairs old radios in her garage on Sundays.\n", encoding="utf-8")
    reply = {"status": "done", "exit": 1, "rest": [str(second)], "results": None, "stdout": "", "stderr": "",
             "lines": [[True, "failed first.json: not a regular file"], [True, "warning: from the daemon"]]}
    monkeypatch.setattr(addwire, "try_daemon_ingest", lambda *a, **k: reply)
    monkeypatch.setenv("MEMFS_EMBEDDER_PROVIDER", "hashing")
    got = CliRunner().invoke(app, ["--dir", str(ws), "ingest", str(tmp_path / "first.json"),
                                                  str(second)])
    lines = got.output.splitlines()
    assert got.exit_code == 1, got.output
    assert lines[:2] == ["failed first.json: not a regular file", "warning: from the daemon"]
    assert lines[2].startswith("second.md: +1 added"), lines


def test_a_warning_on_any_result_is_printed() -> None:
    """The root files' warning rides on the last result, whatever its status."""
    from memfs.pipeline.memorize import IngestResult
    from memfs.pipeline.summary import render_results

    results = [IngestResult(name="a.json", status="failed", error="not a regular file"),
               IngestResult(name="b.json", status="duplicate", resource="resources/b.json",
                            warnings=["root files not refreshed"])]
    lines, code = render_results(results, False)
    assert lines == [(True, "failed a.json: not a regular file"), (False, "b.json: already memorized "
                     "(resources/b.json)"), (True, "warning: root files not refreshed")] and code == 1


def test_a_stopping_daemon_ends_after_the_input_it_is_on_and_hands_back_the_rest(tmp_path: Path) -> None:
    import threading

    from memfs.warm_write import INGEST_VERB, perform
    from tests.support.workspace import hashing_memory

    ws = init(tmp_path / "w")
    paths = []
    for k, who in enumerate(("Tess", "Ola", "Mira")):
        paths.append(tmp_path / f"n{k}.md")
        paths[-1].write_text(f"# Notes\n\n{who} repairs old radios in the garage on Sundays.\n", encoding="utf-8")
    stopping = threading.Event()
    with hashing_memory(ws) as mem:
        real = mem.ingest

        def ingest(batch, **kw):  # type: ignore[no-untyped-def]
            stop = kw["stop"]
            kw["stop"] = lambda: stop() or (stopping.set() or False)  # told to stop while on the first
            return real(batch, **kw)

        mem.ingest = ingest  # type: ignore[method-assign]
        reply = perform(mem, {"verb": INGEST_VERB, "paths": [str(p) for p in paths], "json": True}, stopping)
    assert reply["status"] == "done" and reply["rest"] == [str(p) for p in paths[1:]]
    assert [r["name"] for r in reply["results"]] == ["n0.md"] and reply["results"][0]["status"] == "processed"
