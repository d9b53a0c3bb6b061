"""The cost of the checks after the write as the backlog grows (issue #17 item 2, part B).

    .venv/bin/python bench/vecfill_backlog.py [--data DIR] [--conversations 26,30,41,42,43] [--json OUT]

Whole LoCoMo conversations (default $MEMFS_BENCH_LOCOMO), one input each, are ingested
with vectors after the write and no fill in between (a daemon that took a burst of
inputs), with the hashing embedder so that embedding does not hide the check. Then the
backlog is filled chunk by chunk as the daemon does; reported: the marked backlog, the
fill's seconds, the neighbours asked per check (sum and max) and the merges. Run it once
against each checkout (PYTHONPATH) in the same session, alternating, and compare.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from ingest import whole_conversation  # noqa: E402

from memfs.api import Memory  # noqa: E402
from memfs.config import load_config  # noqa: E402
from memfs.index.search import Searcher  # noqa: E402
from memfs.index.vecfill_store import count_marked  # noqa: E402
from memfs.workspace import init_workspace  # noqa: E402


def run(data_dir: Path, stems: list[str], tmp: Path) -> dict:
    root = init_workspace(tmp / "w", git=False).root
    mem = Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"}))
    for stem in stems:
        data, _ = whole_conversation(data_dir / f"{stem}.json")
        src = tmp / f"{stem}.json"
        src.write_text(json.dumps(data))
        mem.ingest_file(src, vectors_later=True)
    backlog = count_marked(mem.indexer.db)
    asked: list[int] = []
    real = Searcher.nearest

    def nearest(self, vectors, k):  # type: ignore[no-untyped-def]
        asked.extend([k] * len(vectors))
        return real(self, vectors, k)

    Searcher.nearest = nearest  # type: ignore[method-assign]
    merged = chunks = 0
    t0 = time.perf_counter()
    while True:
        report = mem.fill_vectors()
        merged += len(report.merged)
        chunks += 1
        if not report.more:
            break
    seconds = time.perf_counter() - t0
    Searcher.nearest = real  # type: ignore[method-assign]
    items = mem.indexer.db.count_items()
    mem.close()
    return {"backlog": backlog, "fill_s": round(seconds, 3), "chunks": chunks, "merged": merged,
            "items_after": items, "neighbours_asked": sum(asked), "max_k": max(asked, default=0),
            "load": round(os.getloadavg()[0], 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=os.environ.get("MEMFS_BENCH_LOCOMO"),
                    required="MEMFS_BENCH_LOCOMO" not in os.environ)
    ap.add_argument("--conversations", default="26,30,41,42,43")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        out = run(args.data, args.conversations.split(","), Path(d))
    print(json.dumps(out), flush=True)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
