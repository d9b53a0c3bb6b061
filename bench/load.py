#!/usr/bin/env python3
"""Recall under load: N concurrent recall loops through the daemon's socket, idle and
while the daemon ingests a batch of inbox files.

    .venv/bin/python bench/load.py [--clients 8] [--ingest 200] [--files 200] [--idle-seconds 10] [--json OUT]

Builds a workspace of `--files` synthetic category files (10 items each, bench/_synth.py)
with the default embedder in a temp dir, starts `memfs daemon`, then runs two phases, each
with `--clients` loop processes that send `memfs recall Q --json` requests exactly as the
console script does (memfs.console.ask; every query distinct, so the daemon's query-vector
cache never helps):
  * idle (the same-run baseline): the loops alone for `--idle-seconds`;
  * ingest: `--ingest` chat files (10 turns each) are renamed into inbox/ at once and the
    loops run until the daemon has taken every one of them.
Reports recall p50/p99/max and errors per phase (an error is a request the daemon did not
answer: the real client would then fall back to a cold recall), requests/s, the time the
daemon took to ingest the batch, and the machine's load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

PY = sys.executable


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("MEMFS_")}


def child_loop(sock: str, queries_file: str, out_file: str, stop_file: str) -> None:
    """One client: ask, time, repeat until the stop file appears (runs in its own process)."""
    from memfs import console

    if hasattr(console, "ask"):
        def recall(q: str) -> object:
            return console.ask(sock, console.request_line(q, None, True), timeout=30.0)
    else:  # an older memfs (a baseline checkout): the JSON verb the full CLI uses
        from memfs.warm import try_warm_recall

        def recall(q: str) -> object:
            return try_warm_recall(Path(sock).parent, q, None, None, None, timeout=30.0)
    queries = json.loads(Path(queries_file).read_text())
    samples: list[tuple[float, float, bool]] = []
    i = 0
    while not os.path.exists(stop_file) and i < len(queries):
        t0 = time.perf_counter()
        out = recall(queries[i])
        samples.append((time.time(), (time.perf_counter() - t0) * 1000, out is not None))
        i += 1
    Path(out_file).write_text(json.dumps(samples))


def _pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else float("nan")


def _build(root_parent: Path, files: int) -> Path:
    from _synth import Synth

    subprocess.run([PY, "-m", "memfs.cli", "init", "mem", "--no-git"], cwd=root_parent, env=_env(), check=True,
                   capture_output=True)
    root = root_parent / "mem"
    Synth(seed=7).populate(root, files)
    subprocess.run([PY, "-m", "memfs.cli", "sync"], cwd=root, env=_env(), check=True, capture_output=True)
    return root


def _chats(n: int, turns: int = 10) -> list[str]:
    from _synth import CATEGORIES, fact

    rng = random.Random(42)
    out = []
    for _ in range(n):
        msgs = []
        for t in range(turns):
            text, _ = fact(rng, rng.choice(CATEGORIES)[1])
            msgs.append({"role": "user" if t % 2 == 0 else "assistant", "content": text})
        out.append(json.dumps(msgs))
    return out


def _queries(clients: int, per_client: int) -> list[list[str]]:
    from _synth import queries

    pool = list(dict.fromkeys(queries(clients * per_client * 3, seed=5)))
    while len(pool) < clients * per_client:  # the vocabulary ran out: number the rest apart
        pool.append(f"{pool[len(pool) % 1000]} ({len(pool)})")
    random.Random(3).shuffle(pool)
    return [pool[c::clients][:per_client] for c in range(clients)]


def _phase(tmp: Path, sock: str, name: str, qsets: list[list[str]], until) -> dict:  # type: ignore[no-untyped-def]
    stop = tmp / f"stop-{name}"
    procs, outs = [], []
    for c, qs in enumerate(qsets):
        qf, of = tmp / f"q-{name}-{c}.json", tmp / f"out-{name}-{c}.json"
        qf.write_text(json.dumps(qs))
        outs.append(of)
        procs.append(subprocess.Popen([PY, __file__, "--child-loop", sock, str(qf), str(of), str(stop)], env=_env()))
    t0 = time.time()
    extra = until()
    stop.write_text("")
    for p in procs:
        p.wait(timeout=120)
    wall = time.time() - t0
    samples = [s for of in outs for s in json.loads(of.read_text())]
    ok = [ms for _, ms, good in samples if good]
    res = {"phase": name, "clients": len(qsets), "seconds": round(wall, 2), "requests": len(samples),
           "errors": len(samples) - len(ok), "req_per_s": round(len(samples) / wall, 1),
           "p50_ms": round(statistics.median(ok), 2) if ok else None, "p99_ms": round(_pct(ok, 99), 2),
           "max_ms": round(max(ok), 2) if ok else None, "load_avg": round(os.getloadavg()[0], 2)}
    res.update(extra or {})
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--ingest", type=int, default=200, help="chat files dropped into inbox/ at once")
    ap.add_argument("--files", type=int, default=200, help="category files (10 items each) before the run")
    ap.add_argument("--idle-seconds", type=float, default=10.0)
    ap.add_argument("--json", dest="json_out")
    ap.add_argument("--child-loop", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child_loop:
        child_loop(*args.child_loop)
        return 0
    results: list[dict] = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        root = _build(tmp, args.files)
        daemon = subprocess.Popen([PY, "-m", "memfs.cli", "daemon"], cwd=root, env=_env(), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        sock = str(root / ".memfs" / "daemon.sock")
        try:
            from memfs.warm import ping

            deadline = time.time() + 120
            while ping(root / ".memfs") is None:
                if time.time() > deadline or daemon.poll() is not None:
                    raise SystemExit("daemon did not start")
                time.sleep(0.2)
            qsets = _queries(args.clients, 20000)
            idle = [q[:10000] for q in qsets]
            busy = [q[10000:] for q in qsets]
            results.append(_phase(tmp, sock, "idle", idle, lambda: time.sleep(args.idle_seconds)))
            print(json.dumps(results[-1]), flush=True)
            chats = _chats(args.ingest)

            def ingest() -> dict:
                inbox = root / "inbox"
                for n, text in enumerate(chats):
                    (inbox / f".chat{n:04d}.tmp").write_text(text)
                t0 = time.time()
                for n in range(len(chats)):
                    os.rename(inbox / f".chat{n:04d}.tmp", inbox / f"chat{n:04d}.json")
                while any(p.name.startswith("chat") for p in inbox.iterdir()):
                    if time.time() - t0 > 1800:
                        raise SystemExit("the daemon did not take the inbox in 30 minutes")
                    time.sleep(0.1)
                took = time.time() - t0
                failed = len(list((inbox / "failed").glob("*"))) if (inbox / "failed").is_dir() else 0
                return {"ingested_files": len(chats), "ingest_s": round(took, 2), "failed_files": failed}

            results.append(_phase(tmp, sock, "ingest", busy, ingest))
            print(json.dumps(results[-1]), flush=True)
        finally:
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(timeout=120)
    print(f"\n{args.clients} recall loops over the daemon socket, {args.files * 10} items; load avg now "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'phase':<8} {'requests':>8} {'errors':>6} {'req/s':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for r in results:
        print(f"{r['phase']:<8} {r['requests']:>8} {r['errors']:>6} {r['req_per_s']:>7} {r['p50_ms']:>8} "
              f"{r['p99_ms']:>8} {r['max_ms']:>8}")
    if len(results) == 2:
        print(f"ingest of {results[1]['ingested_files']} files took {results[1]['ingest_s']} s "
              f"({results[1]['failed_files']} failed)")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
