#!/usr/bin/env python3
"""Warm CLI recall: `memfs recall` end to end while a daemon runs, against `python -c pass`.

    .venv/bin/python bench/warm_cli.py [--runs 30] [--items 2000] [--memfs [LABEL=]PATH/bin/memfs ...]

Builds a workspace (default MiniLM embedder) in a temp dir, starts `memfs daemon`, then
times whole processes, interleaved round-robin so load on a shared machine hits every
variant alike:
  * baseline: `python -c pass` (the interpreter's own start);
  * thin:     `python -m memfs.console recall Q` (what the `memfs` console script runs: the
              thin client answers over the socket without importing the full CLI);
  * full:     `python -m memfs.cli recall Q` (imports typer/pydantic/the API first, then asks
              the same socket: the path before the thin client);
  * cold:     the same with MEMFS_NO_WARM=1 (no daemon help: model and index load).
With `--memfs` (an installed console script, e.g. from a wheel in a fresh venv — what users
run; repeat it to compare an old wheel with a new one on the same daemon), it also times
that script warm and cold, and its own interpreter's `python -c pass`. Every run asks a new
question (the same list for all variants), and the order of the variants alternates.
Prints p50/p90 per variant and the ratio to the baseline.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PY = sys.executable


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMFS_")}
    env.update(extra)
    return env


def _build(ws_parent: Path, items: int) -> Path:
    subprocess.run([PY, "-m", "memfs.cli", "init", "mem", "--no-git"], cwd=ws_parent, env=_env(), check=True,
                   capture_output=True)
    ws = ws_parent / "mem"
    people = ["Ana", "Ben", "Chloe", "Dev", "Emma", "Farid"]
    things = ["green tea", "espresso", "jazz", "hiking", "chess", "sourdough", "cycling", "sushi"]
    lines = [f"- {people[i % 6]} mentioned {things[i % 8]} on occasion {i}.\n" for i in range(items)]
    (ws / "memory" / "hobbies.md").write_text((ws / "memory" / "hobbies.md").read_text() + "".join(lines))
    subprocess.run([PY, "-m", "memfs.cli", "sync"], cwd=ws, env=_env(), check=True, capture_output=True)
    return ws


def _time(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"{cmd} failed: {out.stderr}")
    return dt * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--items", type=int, default=2000)
    ap.add_argument("--memfs", action="append", metavar="[LABEL=]PATH",
                    help="an installed `memfs` console script to time as well (repeatable: old and new wheels)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ws = _build(Path(tmp), args.items)
        daemon = subprocess.Popen([PY, "-m", "memfs.cli", "daemon"], cwd=ws, env=_env(), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            deadline = time.time() + 120
            while not (ws / ".memfs" / "daemon.sock").exists():
                if time.time() > deadline:
                    raise SystemExit("daemon did not start")
                time.sleep(0.1)
            time.sleep(1.0)
            people = ["Ana", "Ben", "Chloe", "Dev", "Emma", "Farid"]
            # A new question each run (the same list for every variant): the daemon's
            # query-vector cache must not make one variant look faster than another.
            queries = [f"what does {people[i % 6]} drink on occasion {i}" for i in range(args.runs)]
            variants = {
                "baseline: python -c pass": (lambda q: [PY, "-c", "pass"], _env()),
                "thin client (python -m memfs.console)": (lambda q: [PY, "-m", "memfs.console", "recall", q], _env()),
                "full CLI, warm socket": (lambda q: [PY, "-m", "memfs.cli", "recall", q], _env()),
                "cold (no daemon help), full CLI": (lambda q: [PY, "-m", "memfs.cli", "recall", q],
                                                    _env(MEMFS_NO_WARM="1")),
            }
            for spec in args.memfs or []:
                label, _, path = spec.rpartition("=")
                label = label or "installed"
                script = str(Path(path).resolve())
                shebang = Path(script).read_text().splitlines()[0][2:].strip()
                variants[f"{label}: its python -c pass"] = (lambda q, py=shebang: [py, "-c", "pass"], _env())
                variants[f"{label}: memfs recall, warm"] = (lambda q, s=script: [s, "recall", q], _env())
                variants[f"{label}: memfs recall --json, warm"] = (lambda q, s=script: [s, "recall", q, "--json"],
                                                                    _env())
                variants[f"{label}: memfs recall, cold"] = (lambda q, s=script: [s, "recall", q],
                                                            _env(MEMFS_NO_WARM="1"))
            times: dict[str, list[float]] = {name: [] for name in variants}
            for i in range(args.runs):
                names = list(variants) if i % 2 == 0 else list(reversed(variants))
                for name in names:
                    cmd, env = variants[name]
                    times[name].append(_time(cmd(queries[i]), ws, env))
        finally:
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(timeout=60)
    base = statistics.median(times["baseline: python -c pass"])
    print(f"{args.items} items, {args.runs} runs each, interleaved; default embedder")
    print(f"{'variant':<44} {'p50 ms':>8} {'p90 ms':>8} {'p50 / baseline':>15}")
    for name, ts in times.items():
        ts.sort()
        p50, p90 = statistics.median(ts), ts[int(0.9 * (len(ts) - 1))]
        print(f"{name:<44} {p50:8.1f} {p90:8.1f} {p50 / base:14.2f}x")


if __name__ == "__main__":
    main()
