#!/usr/bin/env python3
"""Feeding a folder of notes through `memfs ingest` (issue #18 item 4): per-note time as
the store grows from nothing, in one `Memory.ingest` call (what `memfs ingest DIR/*.md` runs).

    PYTHONPATH=. python bench/ingest_notes.py --notes 1000 [--json OUT]

The notes are bench/notes.py's generated vault (seed 18: front-matter, headings, prose,
bullet lists), written flat into a scratch folder and ingested into a fresh workspace with
the hashing embedder. Printed: items at the end, total wall and CPU, and the median
seconds per note over each tenth of the run (the first tenth into a near-empty store, the
last into the full one). Run it against two code trees in the same session:

    PYTHONPATH=/path/to/old python bench/ingest_notes.py
    PYTHONPATH=.            python bench/ingest_notes.py
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import notes as vault  # noqa: E402

from memfs.api import Memory  # noqa: E402
from memfs.config import load_config  # noqa: E402
from memfs.workspace import init_workspace  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notes", type=int, default=1000)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "vault"
        vault.make_vault(src, args.notes, flat=True)
        paths = sorted(p for p in src.rglob("*.md"))
        root = Path(d) / "w"
        init_workspace(root, git=False)
        mem = Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"}))
        stamps: list[float] = []
        t0, c0 = time.perf_counter(), time.process_time()
        mem.ingest(paths, progress=lambda done, total, added: stamps.append(time.perf_counter()))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        items = mem.runtime.indexer.db.count_items()
        mem.close()
    per = [b - a for a, b in zip([t0, *stamps], stamps)]
    tenth = max(1, len(per) // 10)
    deciles = [round(statistics.median(per[i:i + tenth]), 4) for i in range(0, len(per), tenth)][:10]
    row = {"notes": len(paths), "items": items, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
           "per_note_median_by_tenth_s": deciles, "last_over_first_tenth": round(deciles[-1] / deciles[0], 2)}
    print(json.dumps(row))
    if args.json:
        args.json.write_text(json.dumps(row, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
