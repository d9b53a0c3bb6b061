"""How long regenerating the entry files takes, against a same-run baseline.

Builds a synthetic workspace (bench/_synth.py, ~10 items per category file), indexes it
with the hashing embedder, then times `Memory.regenerate_views()` in a fresh process for
each source tree: the baseline (by default /work/main, the code before issue 12) and
this one. Each process regenerates three times: cold (its first call: the new code
fills its history cache and writes the person pages), warm (nothing changed), and after
one item was edited and re-indexed.

    PYTHONPATH=. python bench/entry.py --items 10000 [--baseline-src /work/main]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHILD = r"""
import json, sys, time
from pathlib import Path
from memfs.api import Memory
from memfs.config import load_config
sys.path.insert(0, sys.argv[2])
from _synth import edit_one_item
import random
root = Path(sys.argv[1])
mem = Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"}))
out = {}
for label in ("cold", "warm"):
    t = time.perf_counter(); mem.regenerate_views(); out[label] = time.perf_counter() - t
files = sorted((root / "memory").glob("*.md"))
edit_one_item(files[len(files) // 2], random.Random(7))
mem.indexer.sync()
t = time.perf_counter(); mem.regenerate_views(); out["after_edit"] = time.perf_counter() - t
mem.close()
print(json.dumps(out))
"""


def run_child(src: Path, root: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(src), "OPENBLAS_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-c", CHILD, str(root), str(HERE)], capture_output=True, text=True,
                          env=env, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=10000)
    ap.add_argument("--baseline-src", default="/work/main")
    ap.add_argument("--tmpdir")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    from _synth import Synth

    from memfs.api import Memory
    from memfs.config import load_config
    from memfs.workspace import init_workspace

    tmp = Path(tempfile.mkdtemp(prefix="memfs-entry-bench-", dir=args.tmpdir))
    try:
        root = init_workspace(tmp / "ws", git=False).root
        Synth(seed=1234).populate(root, max(1, args.items // 10))
        mem = Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"}))
        t = time.perf_counter()
        mem.indexer.sync()
        mem.close()
        print(f"workspace: {args.items} items, indexed in {time.perf_counter() - t:.1f} s", flush=True)
        random.seed(0)
        results = {}
        for label, src in (("baseline", Path(args.baseline_src)), ("this tree", HERE.parent)):
            shutil.rmtree(root / "people", ignore_errors=True)
            for name in ("index.md", "memory.md", "skill.md"):
                (root / name).unlink(missing_ok=True)
            results[label] = run_child(src, root)
            print(f"{label:10} " + "  ".join(f"{k} {v * 1000:.0f} ms" for k, v in results[label].items()), flush=True)
        pages = len(list((root / "people").glob("*.md")))
        print(f"person pages written: {pages}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
