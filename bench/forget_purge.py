"""What `forget --source X --purge-history` costs on a workspace with a long history.

    python bench/forget_purge.py [--inputs 200] [--turns 20]

Builds a git workspace (hashing embedder, one autocommit per input, the first input the
one to forget so that every later commit carries it), copies it, then times on the two
copies: the plain forget (the same-run baseline: one commit, no rewrite) and the forget
with --purge-history. Also reports `git gc` alone on a third copy, the part of the purge
that is git's own.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from memfs.api import Memory  # noqa: E402
from memfs.config import load_config  # noqa: E402
from memfs.workspace import init_workspace  # noqa: E402


def _memory(root: Path) -> Memory:
    return Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"}))


def _chat(n: int, turns: int) -> dict:
    people = ["Ana", "Ben", "Chloe", "Dev", "Emma", "Farid"]
    p = people[n % len(people)]
    lines = [f"I adopted a dog named Rex{n} from the shelter.", f"I work at the bakery on street {n}.",
             f"My sister Mia{n} lives in Porto.", f"I bought a red bicycle called Zoom{n}.",
             f"I usually swim {n % 7 + 1} times a week."]
    msgs = [{"role": "user", "name": p, "content": lines[i % len(lines)] + f" (note {n}-{i})"} for i in range(turns)]
    return {"messages": msgs, "time": f"2025-{n % 12 + 1:02d}-{n % 27 + 1:02d}T09:00:00"}


def build(root: Path, inputs: int, turns: int) -> None:
    init_workspace(root, git=True)
    src = root.parent / "inputs"
    src.mkdir(exist_ok=True)
    with _memory(root) as mem:
        mem.config.git.autocommit = True
        mem.sync()
        for n in range(inputs):
            path = src / f"chat-{n:04d}.json"
            path.write_text(json.dumps(_chat(n, turns)))
            mem.ingest_file(path)


def timed_forget(root: Path, purge: bool) -> tuple[float, dict]:
    with _memory(root) as mem:
        t0 = time.perf_counter()
        plan = mem.plan_forget(source="chat-0000.json")
        report = mem.apply_forget(plan, purge_history=purge)
        return time.perf_counter() - t0, report.model_dump()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--inputs", type=int, default=200)
    ap.add_argument("--turns", type=int, default=20)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "w"
        t0 = time.perf_counter()
        build(base, args.inputs, args.turns)
        print(f"built {args.inputs} inputs x {args.turns} turns, {args.inputs} commits in {time.perf_counter() - t0:.1f} s")
        plain, gc_only, purged = (Path(tmp) / n for n in ("plain", "gc", "purged"))
        for copy in (plain, gc_only, purged):
            shutil.copytree(base, copy, symlinks=True)
        seconds, _ = timed_forget(plain, purge=False)
        print(f"forget --source (baseline, one commit):   {seconds:.2f} s")
        t0 = time.perf_counter()
        subprocess.run(["git", "-C", str(gc_only), "gc", "--prune=now", "--quiet"], check=True)
        print(f"git gc --prune=now alone:                 {time.perf_counter() - t0:.2f} s")
        seconds, report = timed_forget(purged, purge=True)
        h = report["history"]
        print(f"forget --source --purge-history:          {seconds:.2f} s "
              f"({h['commits_rewritten']}/{h['commits']} commits, {h['blobs_rewritten']} blobs rewritten, "
              f"{h['words']} words)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
