"""A one-shot `memfs ingest FILE` (a fresh process, no daemon) as the store grows (issue #18 item 4).

    python bench/oneshot_ingest.py --store-cache DIR --tree base=/path/to/old --tree this=. [--runs 5]

The README's own command: each run is a whole `memfs -C STORE ingest chat.json` process (the
installed script's entry, `memfs.console.entry`, run by this interpreter), timed from outside (interpreter start, imports, the pipeline, the entry files a
fresh process regenerates from nothing but what the index keeps). The stores are
bench/ingest_scale.py's (`--store-cache`, built there if missing: 1k/10k/100k items in
100-item files, hashing embedder). Each tree gets its own copy of each store (what one
tree's writes persist would otherwise be read by the other) and one untimed ingest first:
the first process after a store built by other code persists what later ones read, as
any earlier memfs process of that version would have. The trees then take turns, so the
load falls on both alike. A chat is bench/ingest_scale.py's: 10 new fact-like turns.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import ingest_scale  # noqa: E402


#: What the installed `memfs` script runs (pyproject's [project.scripts]).
ENTRY = "from memfs.console import entry; entry()"


def ingest_once(tree: Path, root: Path, chat: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree), MEMFS_EMBEDDER_PROVIDER="hashing")
    t = time.perf_counter()
    # cwd: `-m` puts the current folder first on sys.path, before PYTHONPATH's tree
    done = subprocess.run([sys.executable, "-c", ENTRY, "-C", str(root), "ingest", str(chat)], env=env,
                          capture_output=True, text=True, cwd=root.parent)
    took = time.perf_counter() - t
    if done.returncode != 0 or "+10 added" not in done.stdout:
        raise SystemExit(f"{tree}: ingest failed: {done.stdout}{done.stderr}")
    where = subprocess.run([sys.executable, "-c", "import memfs; print(memfs.__file__)"], env=env, cwd=root.parent,
                           capture_output=True, text=True).stdout.strip()
    if not where.startswith(str(tree)):
        raise SystemExit(f"the child imported memfs from {where}, not {tree}")
    return took


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--store-cache", type=Path, required=True)
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH of a code tree (repeat)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    trees = {name: Path(path).resolve() for name, path in (t.split("=", 1) for t in args.tree)}
    rng = random.Random(11)
    out: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for size in (int(s) for s in args.sizes.split(",")):
            cached = args.store_cache / f"w{size}-100"
            if not cached.is_dir():  # build (and cache) it the way ingest_scale does
                ingest_scale.run(size, 1, 100, tmp, args.store_cache)
            roots = {}
            n = 0
            for name in trees:
                roots[name] = tmp / f"{name}-{size}"
                shutil.copytree(cached, roots[name], symlinks=True)
            chats = []
            for _ in range(args.runs + 1):
                n += 1
                chats.append(tmp / f"chat-{size}-{n}.json")
                chats[-1].write_text(json.dumps(ingest_scale.chat(rng, 100 + n, 10)))
            first = {name: ingest_once(tree, roots[name], chats[0]) for name, tree in trees.items()}
            times: dict[str, list[float]] = {name: [] for name in trees}
            for chat in chats[1:]:
                for name, tree in trees.items():
                    times[name].append(ingest_once(tree, roots[name], chat))
            for name in trees:
                shutil.rmtree(roots[name], ignore_errors=True)
                out.setdefault(name, {})[str(size)] = times[name]
                print(f"{size:>7} items  {name}: median {statistics.median(times[name]):.2f} s "
                      f"{[round(t, 2) for t in times[name]]} (first, untimed: {first[name]:.2f} s)", flush=True)
    for name, by_size in out.items():
        sizes = sorted(by_size, key=int)
        lo, hi = statistics.median(by_size[sizes[0]]), statistics.median(by_size[sizes[-1]])
        print(f"{name}: {sizes[-1]} / {sizes[0]} items = {hi / lo:.1f}x")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
