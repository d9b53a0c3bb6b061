#!/usr/bin/env python3
"""Recall at scale: p50/p99 of `Memory.search` (query embedding included) at 100k and 1M
items, with build time, peak RSS and disk size, and a same-run baseline checkout.

    PYTHONPATH=. .venv/bin/python bench/scale.py [--items 100000,1000000] [--baseline DIR] [--json OUT]

Embedding 1M texts with MiniLM takes ~1 h of both cores here, so the items' vectors are
synthetic, in MiniLM's space: `--pool` real synthetic facts (bench/_synth.py) are embedded
with MiniLM once, and each item gets the vector of a pool fact chosen by its text hash plus
seeded Gaussian noise, renormalised (clusters like real facts have; the index's embedder
name is MiniLM's, so no re-embedding happens). Everything else is memfs' own code: the
Markdown is written with `render_item_line`, the index by `Memory.sync()` (SQLite, FTS5,
the hnsw sidecar), and recall runs the real MiniLM query embedding, in a fresh process per
code version. Queries are distinct questions from the same vocabulary, so the query-vector
cache never hits (its effect is timed separately: the same queries asked again).

`--baseline DIR` times the same index with an older memfs checkout (PYTHONPATH=DIR) in the
same run: the before/after pair. `--keep DIR` builds each workspace in DIR (as DIR/w<N>)
and reuses one already built there with its recorded build figures, so the recall side can
be iterated on without rebuilding (a 100k build is ~6 min on 2 busy cores).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MINILM = "minilm-l6-v2-int8"


class TemplateEmbedder:
    """MiniLM-space vectors without running MiniLM per text (see the module docstring)."""

    name = MINILM
    dim = 384

    def __init__(self, pool: Any, noise: float = 0.5) -> None:
        import numpy as np

        self.np = np
        self.pool = pool
        self.noise = noise

    def embed(self, texts: list[str]) -> Any:
        np = self.np
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "little")
            rng = np.random.default_rng(seed)
            out[i] = self.pool[seed % len(self.pool)] + rng.standard_normal(self.dim).astype(np.float32) * (
                self.noise / self.dim ** 0.5)
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        return out


def _child_build(root: Path, items: int, per_file: int, pool_size: int, ef_construction: int = 0,
                 index_only: bool = False) -> dict[str, Any]:
    """Markdown written directly (Synth), then one sync. `index_only` runs the index sync
    alone (SQLite, FTS5, vectors, the hnsw sidecar), not the root files (index.md,
    memory.md, skill.md), which recall never reads; `ef_construction` > 0 builds the
    sidecar with that instead of [recall]'s (a cheaper, coarser graph: say so)."""
    sys.path.insert(0, str(HERE))
    from _synth import Synth, fact, CATEGORIES
    import random

    from memfs.api import Memory
    from memfs.config import load_config
    from memfs.providers.minilm import MiniLMEmbedder
    from memfs.workspace import init_workspace

    init_workspace(root, git=False)
    t = time.perf_counter()
    Synth(seed=11).populate(root, items // per_file, per_file)
    write_s = time.perf_counter() - t
    rng = random.Random(5)
    pool_texts = [fact(rng, rng.choice(CATEGORIES)[1])[0] for _ in range(pool_size)]
    t = time.perf_counter()
    pool = MiniLMEmbedder().embed(pool_texts)
    pool_s = time.perf_counter() - t
    t = time.perf_counter()
    config = load_config(root)
    if ef_construction:
        config.recall.hnsw_ef_construction = ef_construction
    mem = Memory(root, config=config, embedder=TemplateEmbedder(pool))
    cpu0 = time.process_time()
    if index_only:
        rt = mem.runtime
        with rt.lock("sync"):
            rep = rt.indexer.sync()
    else:
        rep = mem.sync()
    mem.close()
    sync_s = time.perf_counter() - t
    disk = {p.name: p.stat().st_size for p in (root / ".memfs").iterdir() if p.is_file()}
    markdown = sum(p.stat().st_size for p in root.rglob("*.md") if ".memfs" not in p.parts)
    return {"items": rep.items_added, "files": rep.files_parsed, "markdown_write_s": round(write_s, 1),
            "pool_embed_s": round(pool_s, 1), "sync_s": round(sync_s, 1),
            "sync_cpu_s": round(time.process_time() - cpu0, 1), "index_only": index_only,
            "hnsw_ef_construction": config.recall.hnsw_ef_construction,
            "maxrss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            "markdown_mb": round(markdown / 2**20, 1), "memfs_dir_mb": round(sum(disk.values()) / 2**20, 1),
            "disk_mb": {k: round(v / 2**20, 1) for k, v in disk.items() if v > 2**20}}


def _pct(v: list[float], p: float) -> float:
    s = sorted(v)
    return round(s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))], 2)


def _child_recall(root: Path, queries: list[str]) -> dict[str, Any]:
    import psutil

    from memfs.api import Memory

    t = time.perf_counter()
    mem = Memory(root)
    res = mem.search("warm up: what does Ana like")
    first = (time.perf_counter() - t) * 1000
    emb = mem.embedder
    embed_alone = []
    for q in queries[:60]:
        t = time.perf_counter()
        emb.embed([q + " (alone)"])
        embed_alone.append((time.perf_counter() - t) * 1000)
    walls: list[float] = []
    cpus: list[float] = []  # the process's CPU per query (all threads): less load-bound than wall
    stages: dict[str, list[float]] = {}
    for q in queries:
        t, c = time.perf_counter(), time.process_time()
        res = mem.search(q)
        walls.append((time.perf_counter() - t) * 1000)
        cpus.append((time.process_time() - c) * 1000)
        for k, v in res.timings_ms.items():
            stages.setdefault(k, []).append(v)
    again = []
    for q in queries[:60]:  # the same questions again: what the query-vector cache saves
        t = time.perf_counter()
        mem.search(q)
        again.append((time.perf_counter() - t) * 1000)
    mem.close()
    return {"first_query_ms": round(first, 1), "mode": res.mode, "p50_ms": _pct(walls, 50), "p99_ms": _pct(walls, 99),
            "cpu_p50_ms": _pct(cpus, 50), "repeat_p50_ms": _pct(again, 50), "embed_alone_p50_ms": _pct(embed_alone, 50),
            "stages_p50_ms": {k: _pct(v, 50) for k, v in stages.items()},
            "stages_p99_ms": {k: _pct(v, 99) for k, v in stages.items()},
            "rss_mb": round(psutil.Process().memory_info().rss / 2**20), "queries": len(queries)}


def _run_child(args: list[str], code: Path) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMFS_")}
    env["PYTHONPATH"] = str(code)
    t = time.perf_counter()
    out = subprocess.run([sys.executable, __file__, "--child", *args], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"child {args[0]} failed:\n{out.stderr[-3000:]}")
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["process_s"] = round(time.perf_counter() - t, 1)
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", default="100000")
    ap.add_argument("--per-file", type=int, default=100, help="items per category file")
    ap.add_argument("--pool", type=int, default=2000, help="real MiniLM vectors the synthetic ones are drawn around")
    ap.add_argument("--queries", type=int, default=240)
    ap.add_argument("--baseline", type=Path, help="an older memfs checkout to time on the same index")
    ap.add_argument("--ef-construction", type=int, default=0,
                    help="build the hnsw sidecar with this ef_construction (default: [recall]'s, 200)")
    ap.add_argument("--index-only", action="store_true",
                    help="sync the index only, not the root files (recall never reads them)")
    ap.add_argument("--rounds", type=int, default=2, help="recall runs per variant (alternating)")
    ap.add_argument("--tmpdir")
    ap.add_argument("--keep", type=Path, help="build in (and reuse from) this folder instead of a temp dir")
    ap.add_argument("--json", dest="json_out")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind, root = args.child[0], Path(args.child[1])
        if kind == "build":
            res = _child_build(root, int(args.child[2]), int(args.child[3]), int(args.child[4]),
                               int(args.child[5]), args.child[6] == "1")
        else:
            res = _child_recall(root, json.loads(Path(args.child[2]).read_text()))
        print(json.dumps(res))
        return 0
    sys.path.insert(0, str(HERE))
    from _synth import queries as make_queries

    qs = list(dict.fromkeys(make_queries(args.queries * 4, seed=77)))[: args.queries]
    results = []
    with tempfile.TemporaryDirectory(dir=args.tmpdir) as tmp:
        d = str(args.keep) if args.keep else tmp
        Path(d).mkdir(parents=True, exist_ok=True)
        qfile = Path(tmp) / "queries.json"
        qfile.write_text(json.dumps(qs))
        for n in [int(x) for x in args.items.split(",")]:
            root = Path(d) / f"w{n}"
            row: dict[str, Any] = {"items": n, "load_avg_start": round(os.getloadavg()[0], 1)}
            record = Path(d) / f"w{n}.build.json"
            if args.keep and record.is_file() and (root / ".memfs" / "index.sqlite3").is_file():
                row["build"] = {**json.loads(record.read_text()), "reused": True}
            else:
                row["build"] = _run_child(["build", str(root), str(n), str(args.per_file), str(args.pool),
                                           str(args.ef_construction), "1" if args.index_only else "0"], REPO)
                if args.keep:
                    record.write_text(json.dumps(row["build"]))
            print(json.dumps(row["build"]), flush=True)
            variants = [("this checkout", REPO)] + ([("baseline", args.baseline)] if args.baseline else [])
            for rnd in range(args.rounds):  # alternate, so load drifts hit both alike
                for name, code in (variants if rnd == 0 else list(reversed(variants))):
                    res = _run_child(["recall", str(root), str(qfile)], code)
                    row.setdefault("recall", {}).setdefault(name, []).append(res)
                    print(n, name, json.dumps(res), flush=True)
            row["load_avg_end"] = round(os.getloadavg()[0], 1)
            results.append(row)
    print(f"\n{'items':>9} {'variant':<14} {'p50 ms':>7} {'p99 ms':>7} {'cpu p50':>7} {'repeat p50':>10} "
          f"{'embed p50':>9} {'first ms':>8} {'RSS MB':>6}")
    for row in results:
        for name, runs in row["recall"].items():
            p50, p99, cpu, rep, emb = (round(statistics.median(r.get(key, 0.0) for r in runs), 2)
                                       for key in ("p50_ms", "p99_ms", "cpu_p50_ms", "repeat_p50_ms",
                                                   "embed_alone_p50_ms"))
            print(f"{row['items']:>9,} {name:<14} {p50:>7} {p99:>7} {cpu:>7} {rep:>10} {emb:>9} "
                  f"{runs[0]['first_query_ms']:>8} {runs[0]['rss_mb']:>6}")
            stages = {k: round(statistics.median(r["stages_p50_ms"].get(k, 0.0) for r in runs), 2)
                      for k in runs[0]["stages_p50_ms"]}
            print(f"{'':>9} {'':<14} stages p50 ms: {stages}")
        b = row["build"]
        print(f"{'':>9} build: sync {b['sync_s']} s (+ Markdown {b['markdown_write_s']} s, pool {b['pool_embed_s']} s), "
              f"peak RSS {b['maxrss_mb']} MB, disk {b['disk_mb']}; load {row['load_avg_start']} -> {row['load_avg_end']}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
