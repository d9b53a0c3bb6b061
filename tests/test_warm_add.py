"""`memfs add` with a daemon running: the daemon does the write, once; without one (or a
stale socket, an older daemon) the CLI does it; an add whose answer never came is an
unknown outcome, never retried locally. Real daemon, real CLI."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from pathlib import Path

from memfs.addwire import try_daemon_add, workspace_root
from memfs.workspace import find_workspace
from tests.support.cli import env, init, run
from tests.support.daemon import Daemon, cli_traced, serving, wait
from tests.support.workspace import recall

FACT = "Ola keeps her bicycle in the blue shed behind the bakery"


def _ws(tmp_path: Path) -> Path:
    return init(tmp_path / "w")


def _daemon(ws: Path, tmp_path: Path, **extra: str) -> Daemon:
    return serving(ws, tmp_path / "daemon.log", env(**extra))


def _add_traced(ws: Path, args: list[str], e: dict[str, str] | None = None
                ) -> tuple[subprocess.CompletedProcess[str], bool]:
    """`memfs add ARGS` through the full CLI, and whether this process loaded memfs.api."""
    return cli_traced(ws, ["add", *args], env() if e is None else e, 120)


def _lines_with(ws: Path, text: str) -> int:
    return sum(p.read_text(encoding="utf-8").count(text) for kind in ("memory", "index", "skill")
               for p in (ws / kind).rglob("*.md"))


def test_add_through_daemon_lands_once_and_is_recallable(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    d = _daemon(ws, tmp_path)
    try:
        # This process never loads the API: only the daemon can have done the add.
        out, local = _add_traced(ws, [FACT, "-c", "memory/places"])
        assert not local and out.returncode == 0, out.stderr
        assert out.stdout.startswith("added ") and out.stdout.endswith(" → memory/places.md\n"), out.stdout
        item_id = out.stdout.split()[1]
        assert _lines_with(ws, FACT) == 1
        assert item_id in {h["id"] for h in recall(ws, env(), "bicycle blue shed")}
        again, local = _add_traced(ws, [FACT, "--json"])
        assert not local
        data = json.loads(again.stdout)
        assert data["id"] == item_id and data["seen"] == 2 and data["path"] == "memory/places.md"
        assert _lines_with(ws, FACT) == 1
        # The `memfs` console script's thin path: typer, pydantic, numpy never imported.
        thin = subprocess.run([sys.executable, "-X", "importtime", "-m", "memfs.console", "add",
                               "Ola rides to the market on Saturdays", "-c", "memory/places"], cwd=ws, env=env(),
                              capture_output=True, text=True, timeout=60)
        assert thin.returncode == 0 and thin.stdout.startswith("added "), thin.stderr[-500:]
        imported = {line.rsplit("|", 1)[-1].strip() for line in thin.stderr.splitlines() if "|" in line}
        assert "socket" in imported and not imported & {"typer", "pydantic", "numpy", "memfs.api"}
        assert _lines_with(ws, "Ola rides to the market on Saturdays") == 1
    finally:
        assert d.stop() == 0


def test_bad_input_through_daemon_is_the_same_one_line_error(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    cold = {arg: run(["add", *arg.split("|")], cwd=ws, check=False) for arg in ("   ", "x|--type|bogus")}
    d = _daemon(ws, tmp_path)
    try:
        for arg, before in cold.items():
            warm, local = _add_traced(ws, arg.split("|"))
            assert not local  # the daemon answered with the error
            assert (warm.returncode, warm.stdout, warm.stderr) == (before.returncode, before.stdout, before.stderr)
            assert warm.returncode == 1 and warm.stderr.startswith("memfs: error: ") and warm.stderr.count("\n") == 1
        bad_when = run(["add", "x", "--when", "someday"], cwd=ws, check=False)
        assert bad_when.returncode == 2  # typer's usage error, before any socket
    finally:
        assert d.stop() == 0


def test_without_daemon_or_with_a_stale_socket_the_cli_adds_itself(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    out = run(["add", FACT, "-c", "places"], cwd=ws)
    assert out.stdout.startswith("added ") and _lines_with(ws, FACT) == 1
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(ws / ".memfs" / "daemon.sock"))  # bound, nobody listening: connect is refused
    try:
        other = run(["add", "Ola's shed is painted blue every spring", "-c", "places"], cwd=ws)
        assert other.stdout.startswith("added ") and _lines_with(ws, "painted blue every spring") == 1
    finally:
        stale.close()


def test_an_older_daemon_that_refuses_the_verb_means_do_it_locally(tmp_path: Path) -> None:
    path = tmp_path / "daemon.sock"
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(path))
    srv.listen(1)

    def serve() -> None:  # what a daemon before this change answers to any other verb
        conn, _ = srv.accept()
        with conn:
            conn.makefile("rb").readline()
            conn.sendall(b'{"ok": false, "error": "ValueError: only recall and ping are served"}\n')

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        assert try_daemon_add(tmp_path, FACT) is None
    finally:
        t.join(5)
        srv.close()


def test_daemon_killed_mid_add_is_an_unknown_outcome_and_no_local_write(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    d = _daemon(ws, tmp_path, MEMFS_TEST_ADD_CRASH="before")
    try:
        out = run(["add", FACT], cwd=ws, check=False)
        assert out.returncode == 1 and out.stdout == ""
        assert "may or may not have been written" in out.stderr and out.stderr.count("\n") == 1
        wait(lambda: d.proc.poll() is not None, 30, "daemon killed itself")
        assert _lines_with(ws, FACT) == 0  # the CLI did not add it itself
    finally:
        d.kill()


def test_daemon_killed_after_the_write_leaves_it_written_once(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    d = _daemon(ws, tmp_path, MEMFS_TEST_ADD_CRASH="after")
    try:
        out = run(["add", FACT], cwd=ws, check=False)
        assert out.returncode == 1 and "may or may not have been written" in out.stderr
        wait(lambda: d.proc.poll() is not None, 30, "daemon killed itself")
        assert _lines_with(ws, FACT) == 1
    finally:
        d.kill()


def test_workspace_root_is_find_workspaces(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    ws = _ws(tmp_path)
    (ws / "memory" / "deep").mkdir(exist_ok=True)
    monkeypatch.chdir(ws / "memory" / "deep")
    monkeypatch.delenv("MEMFS_DIR", raising=False)
    assert workspace_root(None) == str(find_workspace().root)
    assert workspace_root(str(ws)) == str(find_workspace(explicit=str(ws)).root)
    assert workspace_root(str(tmp_path)) is None


def test_the_thin_parser_takes_only_the_plain_form() -> None:
    from memfs.addwire import parse_plain

    assert parse_plain(["add", "a fact", "-c", "memory/x", "--type", "event", "--json"]) == (
        None, "a fact", "memory/x", "event", True)
    assert parse_plain(["--dir", "/w", "add", "a fact"]) == ("/w", "a fact", None, None, False)
    for other in (["add", "a", "--when", "2024"], ["add", "--help"], ["add", "a", "b"], ["add", "a", "--category=x"],
                  ["add"], ["recall", "a"], ["add", "a", "-c"]):
        assert parse_plain(other) is None, other


def test_an_add_the_loop_did_not_start_in_time_is_withdrawn_not_done() -> None:
    from memfs.warm_write import REFUSED, WriteQueue

    class NoMemory:  # the loop's Memory: any use of it would be a write
        def add(self, *a: object, **k: object) -> None:
            raise AssertionError("a withdrawn add was performed")

    q = WriteQueue()
    assert q.submit({"verb": "add", "text": FACT}, pickup=0.05) == REFUSED  # nobody drained: withdrawn
    q.drain(NoMemory())  # type: ignore[arg-type]  # nothing left to do
    stopping = threading.Event()
    q2 = WriteQueue(stopping)
    stopping.set()
    assert q2.submit({"verb": "add", "text": FACT}, pickup=5) == REFUSED  # a stopping daemon takes none


def test_a_daemon_started_with_another_config_leaves_the_add_to_the_cli(tmp_path: Path) -> None:
    """memfs.toml edited after the daemon started, or another MEMFS_* environment: the daemon
    refuses (its config is the one it loaded), the CLI adds with its own config, once."""
    ws = _ws(tmp_path)
    d = _daemon(ws, tmp_path)
    try:
        with (ws / "memfs.toml").open("a", encoding="utf-8") as f:
            f.write('\n[categories.runbooks]\nkind = "index"\ndescription = "Operational runbooks."\n')
        out, local = _add_traced(ws, ["restart the merlin socket with systemctl", "-c", "runbooks"])
        assert local and out.returncode == 0 and out.stdout.endswith(" → index/runbooks.md\n"), out
        assert _lines_with(ws, "restart the merlin socket with systemctl") == 1
        other, local = _add_traced(ws, ["Ola waters the plants on Fridays"], env(MEMFS_RECALL_TOP_K="3"))
        assert local and other.returncode == 0, other.stderr
        assert _lines_with(ws, "Ola waters the plants on Fridays") == 1
    finally:
        assert d.stop() == 0
