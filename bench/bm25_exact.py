#!/usr/bin/env python3
"""The postings sidecar's BM25 against FTS5's bm25() on a built workspace: how many of N
rankings differ (labels, doubles or order: the target is 0) and the time of each, per query.

    PYTHONPATH=. .venv/bin/python bench/bm25_exact.py WORKSPACE [--queries 2000] [--limit 100] [--words FILE]

Queries are bench/_synth.py's questions (distinct) plus, with `--words`, random 1-6-word
queries drawn from the index's own vocabulary (rare and common words alike). Both rankers
run in the same process, interleaved query by query, inside one read snapshot.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workspace", type=Path)
    ap.add_argument("--queries", type=int, default=2000)
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("--vocab-queries", type=int, default=1000, help="random queries from the index's own words")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    from _synth import queries as make_queries

    from memfs.index.bm25fast import FastBM25
    from memfs.index.db import IndexDB

    db = IndexDB(args.workspace / ".memfs" / "index.sqlite3", readonly=True)
    qs = list(dict.fromkeys(make_queries(args.queries * 3, seed=5)))[: args.queries]
    words = [r[0] for r in db.conn.execute("SELECT text FROM items ORDER BY random() LIMIT 3000")]
    rng = random.Random(11)
    vocab = sorted({w for t in words for w in t.split() if w.isalpha()})
    qs += [" ".join(rng.sample(vocab, rng.randint(1, 6))) for _ in range(args.vocab_queries)]
    fast = FastBM25(args.workspace / ".memfs")
    differ, fallback, t_fast, t_fts = 0, 0, [], []
    examples: list[str] = []
    with db.snapshot():
        version = ("bench", db.conn.total_changes)
        fast.ranked(db, "warm up", args.limit, version)
        for q in qs:
            t = time.perf_counter()
            got = fast.ranked(db, q, args.limit, version)
            t_fast.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            want = db.bm25(q, args.limit)
            t_fts.append((time.perf_counter() - t) * 1000)
            if got is None:
                fallback += 1
            elif got != want:
                differ += 1
                if len(examples) < 5:
                    examples.append(q)

    def pct(v: list[float], p: float) -> float:
        return round(sorted(v)[min(len(v) - 1, int(len(v) * p / 100))], 3)

    print(f"queries {len(qs)}; rankings that differ: {differ}; answered by FTS5 instead: {fallback}")
    for q in examples:
        print("  differs:", q)
    print(f"sidecar bm25 p50 {pct(t_fast, 50)} ms p99 {pct(t_fast, 99)} ms; "
          f"FTS5 bm25() p50 {pct(t_fts, 50)} ms p99 {pct(t_fts, 99)} ms; "
          f"ratio p50 {statistics.median(t_fast) / statistics.median(t_fts):.3f}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
