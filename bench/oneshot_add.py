"""Where a one-shot `memfs add` (a fresh process, no daemon) spends its time, per code tree.

    python bench/oneshot_add.py STORE --tree base=/path/to/old --tree this=. [--runs 5]

STORE is a synced workspace (e.g. bench/store_large.py's kept `big-50000`); it is copied
once per tree (a tree's writes would otherwise leave the other's persisted entry parts
stale: entry/partstore.py), each copy takes one untimed add first (the first write after
a copy made by older code computes and persists the parts; its time is printed apart), and
every run adds one fact to `index/big.md` of the tree's copy. Each run is a fresh
interpreter with that tree on PYTHONPATH; the trees take turns (interleaved, so the load
falls on both alike). Each run times the stages with wall clocks (no profiler): imports,
the store's edit (of which the settled read and parse), the index sync, split planning
and the root files; and apart, the whole `python -m memfs.cli add` of each tree, and the
same add through the installed script's entry, `python -m memfs.console add`.

`--bytecode`: the children may write and read compiled modules, in a cache of the run's
own per tree (PYTHONPYCACHEPREFIX, filled by the untimed first add), as an installed
memfs does; by default they inherit the environment (with PYTHONDONTWRITEBYTECODE=1 a
tree without __pycache__ compiles every module it imports in every process).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = r"""
import json, sys, time
T0 = time.perf_counter()
import memfs.cli  # noqa: F401  (what the CLI imports before it runs a command)
from pathlib import Path
from memfs.api import Memory
from memfs.config import load_config
import memfs.store as store, memfs.services.runtime as runtime
from memfs.index.sync import Indexer
T1 = time.perf_counter()
took = {}
def wrap(owner, name, label):
    f = getattr(owner, name)
    def timed(*a, **k):
        t = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            took[label] = took.get(label, 0.0) + time.perf_counter() - t
    setattr(owner, name, timed)
wrap(store.CategoryStore, "edit", "store edit")
wrap(store.CategoryStore, "_load", "of which read + parse")
wrap(Indexer, "sync", "index sync")
wrap(runtime, "split_oversized", "split planning")
wrap(runtime, "regenerate_root_files", "root files")
root = Path(sys.argv[1])
mem = Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"}))
mem.runtime.vectors_later = True  # as the one-shot CLI add sets it (an attribute older trees ignore)
t = time.perf_counter()
mem.add(sys.argv[2], category="index/big")
took["add"] = time.perf_counter() - t
mem.close()
took["imports"] = T1 - T0
took["total"] = time.perf_counter() - T0
print(json.dumps(took))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store", type=Path)
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH (PYTHONPATH of a code tree)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bytecode", action="store_true", help="let the children cache compiled modules "
                    "(a per-tree PYTHONPYCACHEPREFIX in the run's temp folder)")
    ap.add_argument("--small", type=Path, help="a small synced store (e.g. store_large.py's big-10): the same "
                    "CLI add into it, interleaved, gives the marginal cost of the big file")
    args = ap.parse_args()
    trees = dict(t.split("=", 1) for t in args.tree)
    tmp = Path(tempfile.mkdtemp(prefix="memfs-bench-oneshot-"))
    try:
        roots = {name: tmp / f"w-{k}" for k, name in enumerate(trees)}

        def tree_env(name: str) -> dict[str, str]:
            env = {**os.environ, "PYTHONPATH": str(Path(trees[name]).resolve()), "MEMFS_EMBEDDER_PROVIDER": "hashing"}
            if args.bytecode:
                env.pop("PYTHONDONTWRITEBYTECODE", None)
                env["PYTHONPYCACHEPREFIX"] = str(tmp / f"pyc-{name}")
            return env

        smalls = {name: tmp / f"s-{k}" for k, name in enumerate(trees)} if args.small else {}
        small: dict[str, list[float]] = {name: [] for name in smalls}
        first: dict[str, float] = {}
        for name, root in smalls.items():
            shutil.copytree(args.small, root, symlinks=True)
        for name, root in roots.items():
            shutil.copytree(args.store, root, symlinks=True)
            env = tree_env(name)
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "memfs.cli", "add", f"First fact of {name}.", "--category",
                            "index/big"], cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)
            first[name] = time.perf_counter() - t0
            if args.bytecode:  # what the timed child imports beyond the CLI, compiled untimed
                subprocess.run([sys.executable, "-c", CHILD, str(root), f"Warm fact of {name}."], env=env, check=True,
                               capture_output=True)
        stages: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
        cli: dict[str, list[float]] = {name: [] for name in trees}
        console: dict[str, list[float]] = {name: [] for name in trees}
        base: list[float] = []
        for k in range(args.runs):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            base.append(time.perf_counter() - t0)
            for name, path in trees.items():
                root = roots[name]
                env = tree_env(name)
                out = subprocess.run([sys.executable, "-c", CHILD, str(root), f"Split fact {k} of {name}."],
                                     env=env, check=True, capture_output=True, text=True)
                stages[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-m", "memfs.cli", "add", f"CLI fact {k} of {name}.", "--category",
                                "index/big"], cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)
                cli[name].append(time.perf_counter() - t0)
                # The installed `memfs` script's entry (memfs.console), no daemon: its plain add.
                t0 = time.perf_counter()
                # (Its text does not name the tree: 20 items sharing a rare word split the file.)
                subprocess.run([sys.executable, "-m", "memfs.console", "add", f"Console fact {k}.",
                                "--category", "index/big"], cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)
                console[name].append(time.perf_counter() - t0)
                if name in smalls:
                    t0 = time.perf_counter()
                    subprocess.run([sys.executable, "-m", "memfs.cli", "add", f"Small fact {k} of {name}.",
                                    "--category", "index/big"], cwd=smalls[name], env=env, check=True,
                                   stdout=subprocess.DEVNULL)
                    small[name].append(time.perf_counter() - t0)
        print(f"load average at the end: {os.getloadavg()[0]:.1f}; python -c pass median "
              f"{statistics.median(base):.3f}s")
        for name in trees:
            print(f"[{name}] one-shot `python -m memfs.cli add`: " + " ".join(f"{t:.2f}" for t in cli[name])
                  + f"  median={statistics.median(cli[name]):.2f}s (untimed first add of the copy: {first[name]:.2f}s)")
            print(f"[{name}] one-shot `python -m memfs.console add` (the `memfs` script): "
                  + " ".join(f"{t:.2f}" for t in console[name]) + f"  median={statistics.median(console[name]):.2f}s")
            if name in small:
                print(f"[{name}] the same add into the small store: " + " ".join(f"{t:.2f}" for t in small[name])
                      + f"  median={statistics.median(small[name]):.2f}s; marginal cost of the big file "
                      f"{statistics.median(cli[name]) - statistics.median(small[name]):.2f}s")
            keys = list(stages[name][0])
            print(f"[{name}] stages, median of {args.runs}: " + ", ".join(
                f"{key} {statistics.median(r.get(key, 0.0) for r in stages[name]):.2f}s" for key in keys))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
