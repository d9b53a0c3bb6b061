"""The console script's thin client: with a daemon running, `memfs recall` is answered
over the socket without importing the full CLI, and prints what the full CLI prints."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memfs.console import _parse
from tests.support.cli import MEMFS, env


@pytest.mark.parametrize("argv, parsed", [
    (["recall", "tea"], (None, "tea", None, False)),
    (["--dir", "/w", "recall", "tea", "-k", "3", "--json"], ("/w", "tea", 3, True)),
    (["recall", "--json", "tea"], (None, "tea", None, True)),
    (["recall", "tea", "-k", "0"], None),          # the full CLI's usage error
    (["recall", "tea", "--sources"], None),        # not served warm
    (["recall", "tea", "extra"], None),
    (["recall"], None),
    (["add", "tea"], None),
])
def test_only_the_plain_recall_form_is_taken(argv: list[str], parsed: object) -> None:
    assert _parse(argv) == parsed


def _env(**extra: str) -> dict[str, str]:
    return env(**extra)


PROBE = ("import sys; from memfs.console import main; sys.argv = ['memfs'] + sys.argv[1:]\n"
         "try:\n    main()\n"
         "finally:\n    sys.stderr.write('typer-loaded' if 'typer' in sys.modules else 'thin')")


def test_warm_answer_is_the_full_clis_answer_without_loading_it(tmp_path: Path) -> None:
    subprocess.run(MEMFS + ["init", "mem", "--no-git"], cwd=tmp_path, env=_env(), check=True, capture_output=True)
    ws = tmp_path / "mem"
    for text in ("Alice prefers green tea over coffee in the morning.", "Bob drinks espresso after lunch."):
        subprocess.run(MEMFS + ["add", text], cwd=ws, env=_env(), check=True, capture_output=True)
    daemon = subprocess.Popen(MEMFS + ["daemon"], cwd=ws, env=_env(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while not (ws / ".memfs" / "daemon.sock").exists() and time.time() < deadline:
            time.sleep(0.1)
        for args in (["recall", "green tea"], ["recall", "espresso", "-k", "1", "--json"],
                     ["recall", 'Zoë\'s "green" tea \\ back\tslash', "--json"]):
            warm = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=ws, env=_env(), capture_output=True,
                                  text=True, timeout=60)
            cold = subprocess.run(MEMFS + args, cwd=ws, env=_env(MEMFS_NO_WARM="1"), capture_output=True,
                                  text=True, timeout=60)
            assert warm.returncode == 0 and warm.stderr == "thin", warm.stderr
            assert warm.stdout == cold.stdout
        # Not the plain form: the full CLI runs (and still answers).
        other = subprocess.run([sys.executable, "-c", PROBE, "recall", "tea", "--sources"], cwd=ws, env=_env(),
                               capture_output=True, text=True, timeout=60)
        assert other.returncode == 0 and other.stderr.endswith("typer-loaded")
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=60)
    # No daemon: the lean cold path (memfs.coldrecall) answers, still without the full CLI,
    # and prints what the full CLI prints.
    for args in (["recall", "green tea"], ["recall", "espresso", "-k", "1", "--json"]):
        gone = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=ws, env=_env(), capture_output=True,
                              text=True, timeout=60)
        full = subprocess.run(MEMFS + args, cwd=ws, env=_env(), capture_output=True, text=True, timeout=60)
        assert gone.returncode == 0 and gone.stderr == "thin", gone.stderr
        assert gone.stdout == full.stdout and ("green tea" in full.stdout or "espresso" in full.stdout)
    # An index that needs a sync (here: an older layout): the full CLI does it, then answers.
    import sqlite3

    conn = sqlite3.connect(ws / ".memfs" / "index.sqlite3")
    conn.execute("UPDATE meta SET value='0' WHERE key='schema'")
    conn.commit()
    conn.close()
    stale = subprocess.run([sys.executable, "-c", PROBE, "recall", "green tea"], cwd=ws, env=_env(),
                           capture_output=True, text=True, timeout=60)
    assert stale.returncode == 0 and "green tea" in stale.stdout and stale.stderr.endswith("typer-loaded")
