"""Per-input ingest time as the store grows (issue #18, item 4): 1k, 10k, 100k items.

    PYTHONPATH=. python bench/ingest_scale.py [--sizes 1000,10000,100000] [--inputs 5] [--json OUT]

For each size N a store is built the fast way (bench/_synth.py writes N items into category
files of `--per-file` items, then one `memfs sync`), then `--inputs` small chats of 10 new
turns each are ingested one by one through the real pipeline (`Memory.ingest_file`). It
prints the median seconds per input, the median after the process's first input (which
regenerates the entry files from nothing) and, of it, the `summarize` stage (root files and
person pages), the stage split (the pipeline's own timing hooks, summed over the inputs),
plus the largest category file's line count afterwards. The
hashing embedder is used throughout: embedding 100k items with MiniLM on 2 busy cores
would take most of an hour, and the store-size effect is what is measured here.

Run it against two code trees in the same session for a same-run baseline:

    PYTHONPATH=/path/to/old python bench/ingest_scale.py
    PYTHONPATH=.            python bench/ingest_scale.py
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _synth  # noqa: E402

from memfs.api import Memory  # noqa: E402
from memfs.config import load_config  # noqa: E402
from memfs.workspace import init_workspace  # noqa: E402

SPEAKERS = ("Caroline", "Melanie")


def chat(rng: random.Random, n: int, turns: int, same_day: bool = False) -> dict:
    """A small chat whose turns are new fact-like sentences (never in the store)."""
    cats = [c[1] for c in _synth.CATEGORIES]
    out = []
    for t in range(turns):
        text, _ = _synth.fact(rng, rng.choice(cats))
        out.append({"id": f"S1:{t + 1}", "speaker": SPEAKERS[t % 2], "text": f"{text} That was chat {n}, turn {t}."})
    return {"format": "memfs.conversation/1", "participants": list(SPEAKERS),
            "sessions": [{"id": "S1", "time": "2024-05-0%d 10:00" % (1 if same_day else 1 + n % 9), "turns": out}]}


def run(size: int, inputs: int, per_file: int, tmp: Path, cache: Path | None = None, same_day: bool = False,
        bulk: int = 0) -> dict:
    root = tmp / f"w{size}"
    built = cache / f"w{size}-{per_file}" if cache else None
    t0 = time.perf_counter()
    if built is not None and built.is_dir():  # the same synced store for both code trees
        shutil.copytree(built, root, symlinks=True)
        mem = Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"}))
    else:
        init_workspace(root, git=False)
        synth = _synth.Synth(seed=4242)
        synth.populate(root, files=max(1, size // per_file), items_per_file=min(per_file, size))
        mem = Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"}))
        mem.sync()
        if built is not None:
            shutil.copytree(root, built, symlinks=True)
    build = time.perf_counter() - t0
    items = mem.indexer.db.count_items()
    rng = random.Random(7)
    times: list[float] = []
    before = dict(mem.memorizer.ctx.stage_seconds)
    cpu: list[float] = []
    summarize: list[float] = []  # per input: the root files and pages (the stage that grew with the store)
    for n in range(inputs):
        src = tmp / f"chat-{size}-{n}.json"
        src.write_text(json.dumps(chat(rng, n, 10, same_day)))
        was = mem.memorizer.ctx.stage_seconds.get("summarize", 0.0)
        t1, c1 = time.perf_counter(), time.process_time()
        result = mem.ingest_file(src)
        times.append(time.perf_counter() - t1)
        cpu.append(time.process_time() - c1)  # less swayed by a busy machine than the wall clock
        summarize.append(mem.memorizer.ctx.stage_seconds.get("summarize", 0.0) - was)
        assert result.status == "processed", result
    stages = {k: round(v - before.get(k, 0.0), 3) for k, v in mem.memorizer.ctx.stage_seconds.items()}
    bulk_row = {}
    if bulk:  # a run of inputs in one call (`memfs ingest a b c ...`): the root files once, at the end
        paths = []
        for n in range(inputs, inputs + bulk):
            paths.append(tmp / f"chat-{size}-{n}.json")
            paths[-1].write_text(json.dumps(chat(rng, n, 10, same_day)))
        t1, c1 = time.perf_counter(), time.process_time()
        results = mem.ingest(paths)
        bulk_row = {"bulk_inputs": bulk, "bulk_per_input_s": round((time.perf_counter() - t1) / bulk, 4),
                    "bulk_cpu_per_input_s": round((time.process_time() - c1) / bulk, 4)}
        assert all(r.status == "processed" for r in results), results
    biggest = max((p for kind in ("memory", "index", "skill") for p in (root / kind).rglob("*.md")),
                  key=lambda p: p.stat().st_size)
    lines = biggest.read_text().count("\n")
    mem.close()
    shutil.rmtree(root, ignore_errors=True)
    later = times[1:] or times  # after the process's first input (a full regeneration)
    return {"items": items, "build_s": round(build, 1), "per_input_median_s": round(statistics.median(times), 3),
            "after_first_median_s": round(statistics.median(later), 3),
            "summarize_after_first_median_s": round(statistics.median(summarize[1:] or summarize), 3),
            "cpu_after_first_median_s": round(statistics.median(cpu[1:] or cpu), 3), "cpu_s": [round(t, 3) for t in cpu],
            "per_input_s": [round(t, 3) for t in times], "summarize_s": [round(t, 3) for t in summarize],
            "stages_s": stages, "largest_file_lines": lines, **bulk_row}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--inputs", type=int, default=5)
    ap.add_argument("--per-file", type=int, default=100, help="items per synthetic category file")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--same-day", action="store_true", help="date every chat the same day (by default each is a "
                    "day newer than the last, so each moves the reference day memory.md ranks by)")
    ap.add_argument("--store-cache", type=Path, help="keep each built (synced) store here and reuse it, so two "
                    "code trees are measured on the same store without building it twice")
    ap.add_argument("--bulk", type=int, default=0, help="then ingest this many more chats in one `Memory.ingest` "
                    "call (as `memfs ingest a b c ...` does) and report wall and CPU per input")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for size in (int(s) for s in args.sizes.split(",")):
            row = run(size, args.inputs, args.per_file, Path(d), args.store_cache, args.same_day, args.bulk)
            rows.append(row)
            print(f"{row['items']:>7} items: build {row['build_s']}s, per input median {row['per_input_median_s']}s "
                  f"{row['per_input_s']}; after the first: {row['after_first_median_s']}s, of it summarize "
                  f"{row['summarize_after_first_median_s']}s {row['summarize_s']}; CPU after the first "
                  f"{row['cpu_after_first_median_s']}s {row['cpu_s']}; stages {row['stages_s']}; "
                  f"largest file {row['largest_file_lines']} lines"
                  + (f"; bulk of {args.bulk}: {row['bulk_per_input_s']}s per input, CPU {row['bulk_cpu_per_input_s']}s"
                     if args.bulk else ""), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
