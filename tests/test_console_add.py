"""The `memfs` console script's own `add` without a daemon (addwire.add_here): the plain form
is done in-process without loading the full CLI (typer), with the full CLI's output, exit
codes and one-line errors; anything else still goes to the full CLI. Real processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.cli import env, init, run

FACT = "Ola keeps her bicycle in the blue shed behind the bakery"


def _console(ws: Path, args: list[str], **extra: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """`memfs ARGS` through the console script's entry (memfs.console), and the modules it imported."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "memfs.console", *args], cwd=ws,
                         env=env(**extra), capture_output=True, text=True, timeout=120)
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    stderr = "".join(line + "\n" for line in out.stderr.splitlines() if not line.startswith("import time:"))
    return subprocess.CompletedProcess(out.args, out.returncode, out.stdout, stderr), imported


def _lines_with(ws: Path, text: str) -> int:
    return sum(p.read_text(encoding="utf-8").count(text) for kind in ("memory", "index", "skill")
               for p in (ws / kind).rglob("*.md"))


def test_the_console_adds_without_typer_as_the_full_cli_does(tmp_path: Path) -> None:
    thin_ws, full_ws = init(tmp_path / "a"), init(tmp_path / "b")
    for args in ([FACT, "-c", "places"], [FACT, "--json", "-c", "places"], ["Tea is a drink.", "-t", "knowledge"],
                 ["  ", "-c", "places"], ["x", "--type", "bogus"]):
        thin, imported = _console(thin_ws, ["add", *args])
        full = run(["add", *args], cwd=full_ws, check=False)
        assert "typer" not in imported and "memfs.cli" not in imported, args
        assert (thin.returncode, thin.stdout, thin.stderr) == (full.returncode, full.stdout, full.stderr), args
    assert _lines_with(thin_ws, FACT) == _lines_with(full_ws, FACT) == 1
    again = json.loads(_console(thin_ws, ["add", FACT, "--json", "-c", "places"])[0].stdout)
    assert again["seen"] == 3 and again["path"].endswith("/places.md")  # reinforced, once per add
    assert (thin_ws / again["path"]).read_bytes().replace(b"seen=3", b"seen=2") == (full_ws / again["path"]).read_bytes()


def test_a_workspace_error_is_the_full_clis_one_line(tmp_path: Path) -> None:
    thin_ws, full_ws = init(tmp_path / "a"), init(tmp_path / "b")
    for ws in (thin_ws, full_ws):
        (ws / "memfs.toml").write_text("[recall]\nk = 'many'\n")
    thin, imported = _console(thin_ws, ["add", FACT])
    full = run(["add", FACT], cwd=full_ws, check=False)
    assert thin.returncode == full.returncode == 1 and "typer" not in imported
    assert thin.stderr.replace(str(thin_ws), "W") == full.stderr.replace(str(full_ws), "W")
    assert thin.stderr.startswith("memfs: error: ") and thin.stderr.count("\n") == 1


def test_other_forms_and_debug_go_to_the_full_cli(tmp_path: Path) -> None:
    ws = init(tmp_path / "w")
    dated, imported = _console(ws, ["add", FACT, "--when", "2024-05"])
    assert dated.returncode == 0 and "typer" in imported  # --when: the full CLI parses it
    bad, imported = _console(ws, ["add", "x", "--when", "someday"])
    assert bad.returncode == 2 and "typer" in imported  # typer's usage error
    debug, imported = _console(ws, ["add", "Tea is a drink.", "-c", "places"], MEMFS_DEBUG="1")
    assert debug.returncode == 0 and "typer" in imported
    assert _lines_with(ws, FACT) == 1 and _lines_with(ws, "Tea is a drink.") == 1


def test_an_unexpected_error_opening_the_memory_is_one_line_exit_3(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The parameter `type` hid the builtin, so the handler's `type(err)` raised TypeError with
    a traceback instead of the CLI's one line (found by review)."""
    import memfs.api
    from memfs.console import add_here

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(memfs.api, "Memory", broken)
    reply = add_here(str(tmp_path), "Milk is a drink", None, None, False)
    assert reply is not None and reply["exit"] == 3
    assert reply["stderr"] == ("memfs: internal error: RuntimeError: disk on fire "
                               "(MEMFS_DEBUG=1 shows the traceback)\n")


def test_output_that_cannot_be_written_is_the_full_clis_exit_not_a_traceback(tmp_path: Path) -> None:
    """The add is done either way; a closed stdout prints nothing (exit 0), a full disk is one
    line and exit 3, as memfs.cli.main gives them (found by review: tracebacks, exit 1)."""
    ws = init(tmp_path / "w")
    closed = subprocess.run([sys.executable, "-m", "memfs.console", "add", FACT, "-c", "places"], cwd=ws, env=env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=120,
                            preexec_fn=lambda: __import__("os").close(1))
    assert (closed.returncode, closed.stderr) == (0, "")
    with open("/dev/full", "w") as full:
        nospace = subprocess.run([sys.executable, "-m", "memfs.console", "add", "Tea is a drink.", "-c", "places"],
                                 cwd=ws, env=env(), stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert nospace.returncode == 3 and nospace.stderr.startswith("memfs: internal error: OSError")
    assert nospace.stderr.count("\n") == 1 and "Traceback" not in nospace.stderr
    assert _lines_with(ws, FACT) == 1 and _lines_with(ws, "Tea is a drink.") == 1


def test_main_called_in_process_ends_with_systemexit_and_the_host_finishes(tmp_path: Path) -> None:
    """Only the installed script (`entry`) skips the teardown; a program calling `main` gets
    SystemExit, and its own cleanup runs (found by review: os._exit ended the host)."""
    ws = init(tmp_path / "w")
    log = tmp_path / "host.log"
    host = ("import atexit, sys\n"
            f"log = open({str(log)!r}, 'w')\n"
            "atexit.register(lambda: open(log.name, 'a').write('atexit\\n'))\n"
            "from memfs.console import main\n"
            f"sys.argv = ['memfs', 'add', {FACT!r}, '-c', 'places']\n"
            "try:\n    main()\nexcept SystemExit as end:\n    log.write(f'exit {end.code}\\n')\n"
            "log.write('host goes on\\n')\nlog.close()\n")
    out = subprocess.run([sys.executable, "-c", host], cwd=ws, env=env(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert log.read_text() == "exit 0\nhost goes on\natexit\n"
    assert _lines_with(ws, FACT) == 1
