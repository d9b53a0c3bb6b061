#!/usr/bin/env python3
"""Recall beside a busy Python thread: the GIL switch interval's effect, isolated.

    PYTHONPATH=. .venv/bin/python bench/recall_gil.py [--items 300] [--rounds 10]

The daemon answers recall on threads while its ingest thread runs Python. A recall hands
the GIL back and forth at each SQLite call, and takes it back only when the busy thread is
asked to drop it: every `sys.getswitchinterval()` (5 ms by default). This times
`Memory.search` (hashing embedder, an in-process workspace in a temp dir) while a thread
spins in pure Python, at 5 ms and at the daemon's 0.5 ms (memfs.warm.SWITCH_INTERVAL),
interleaved round by round, and without the busy thread as the baseline.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memfs.warm import SWITCH_INTERVAL  # noqa: E402
from memfs.workspace import init_workspace  # noqa: E402
from tests.support.workspace import hashing_memory  # noqa: E402

PEOPLE = ["Ana", "Ben", "Chloe", "Dev", "Emma", "Farid"]
THINGS = ["green tea", "espresso", "jazz", "hiking", "chess"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        mem = hashing_memory(init_workspace(Path(tmp) / "mem", git=False).root)
        for i in range(args.items):
            mem.add(f"{PEOPLE[i % 6]} mentioned {THINGS[i % 5]} on occasion {i}.")
        times: dict[str, list[float]] = {"no busy thread": [], "busy, switch 5 ms": [],
                                         f"busy, switch {SWITCH_INTERVAL * 1000:g} ms": []}
        busy = threading.Event()
        stop = threading.Event()

        def spin() -> None:
            x = 0
            while not stop.is_set():
                if not busy.is_set():
                    time.sleep(0.01)
                    continue
                for i in range(100_000):  # pure Python: the GIL changes hands only when asked
                    x += i * i

        threading.Thread(target=spin, daemon=True).start()
        for rnd in range(args.rounds):
            names = list(times) if rnd % 2 == 0 else list(reversed(times))
            for name in names:
                (busy.clear if name.startswith("no") else busy.set)()
                sys.setswitchinterval(0.005 if "5 ms" in name else SWITCH_INTERVAL)
                for j in range(20):
                    t = time.perf_counter()
                    mem.search(f"what does {PEOPLE[j % 6]} like {rnd} {j} {name}", k=10)
                    times[name].append((time.perf_counter() - t) * 1000)
        stop.set()
        busy.set()
        mem.close()
    print(f"{args.items} items, {args.rounds} rounds of 20 queries per variant, load {os.getloadavg()[0]:.1f}")
    for name, ts in times.items():
        ts.sort()
        print(f"{name:<22} p50 {statistics.median(ts):7.1f} ms  p90 {ts[int(0.9 * (len(ts) - 1))]:7.1f} ms  "
              f"p99 {ts[int(0.99 * (len(ts) - 1))]:7.1f} ms")


if __name__ == "__main__":
    main()
