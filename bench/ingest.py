"""Ingestion benchmark: offline turns/s end to end, and inbox-to-recallable latency.

    .venv/bin/python bench/ingest.py [--data DIR] [--conversations 26,41] [--latency-trials 10] [--json OUT]

1. Throughput: each LoCoMo conversation in DIR (default $MEMFS_BENCH_LOCOMO) as ONE
   multi-session memfs.conversation/1 file ("a long multi-session chat"), ingested through
   the real pipeline (read, extract, embed, write, index, root files) with the default
   MiniLM embedder and, in the same run, the hashing embedder (the baseline). Reports
   turns/s and the time split between pipeline stages (from the pipeline's hooks), plus
   the embedder alone on the same texts, which bounds the whole.
2. Latency: a running `memfs daemon` (subprocess, default embedder); a 50-turn slice of a
   real conversation (LoCoMo 41) is written to inbox/ under a temporary name and renamed
   in; the clock stops when a recall over the daemon's warm socket returns an item whose
   provenance is that chat. Median and max of N slices.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from locomo_metric import load_file, session_to_memfs  # noqa: E402

from memfs.api import Memory  # noqa: E402
from memfs.config import load_config  # noqa: E402
from memfs.warm import try_warm_recall  # noqa: E402
from memfs.workspace import init_workspace  # noqa: E402


def whole_conversation(path: Path) -> tuple[dict, int]:
    conv = load_file(path)[0]
    sessions = []
    for s in conv.sessions:
        sessions += session_to_memfs(conv, s)["sessions"]
    data = {**session_to_memfs(conv, conv.sessions[0]), "sessions": sessions}
    return data, sum(len(s["turns"]) for s in sessions)


def throughput(data: dict, turns: int, embedder: str, tmp: Path, later: bool = False) -> dict:
    """`later`: vectors after the write (what the daemon does): the clock stops once the
    items are written and keyword-recallable; `all_vectors_s` adds the fill after it."""
    root = init_workspace(tmp / f"w-{embedder}-{time.monotonic_ns()}", git=False).root
    mem = Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": embedder}))
    mem.embedder.embed(["load the model before the clock starts"])
    src = root.parent / f"conv-{embedder}.json"
    src.write_text(json.dumps(data))
    t0 = time.perf_counter()
    result = mem.ingest_file(src, vectors_later=True) if later else mem.ingest_file(src)
    wall = time.perf_counter() - t0
    stages = dict(mem.memorizer.ctx.stage_seconds)
    merged = 0
    if later:
        t1 = time.perf_counter()
        while True:
            fill = mem.fill_vectors()
            merged += len(fill.merged)
            if not fill.more:
                break
        stages["fill (after)"] = time.perf_counter() - t1
    all_vectors = time.perf_counter() - t0
    rows = mem.indexer.db.all_items()
    texts = [r.text for r in rows]
    mem.close()
    fresh = Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": embedder}))
    fresh.embedder.embed(["warm"])
    t1 = time.perf_counter()
    fresh.embedder.embed(texts)
    embed_alone = time.perf_counter() - t1
    fresh.close()
    return {"embedder": embedder, "mode": "vectors later" if later else "vectors first", "turns": turns,
            "items": len(rows), "seen": sum(r.seen for r in rows), "merged_after": merged,
            "reinforced": len(result.reinforced), "seconds": round(wall, 3),
            "turns_per_s": round(turns / wall, 1), "all_vectors_s": round(all_vectors, 3),
            "turns_per_s_all_vectors": round(turns / all_vectors, 1),
            "stages_s": {k: round(v, 3) for k, v in stages.items()},
            "embed_alone_s": round(embed_alone, 3), "embed_texts_per_s": round(len(texts) / embed_alone, 1)}


def chat_chunks(path: Path, size: int = 50) -> list[dict]:
    """Consecutive 50-turn slices of a real LoCoMo conversation, one chat file each."""
    data, _ = whole_conversation(path)
    turns = [dict(t, time=s["time"]) for s in data["sessions"] for t in s["turns"]]
    chunks = []
    for start in range(0, len(turns) - size + 1, size):
        part = turns[start : start + size]
        chunks.append({"format": "memfs.conversation/1", "participants": data.get("participants", []),
                       "sessions": [{"id": "S1", "time": part[0]["time"], "turns": part}]})
    return chunks


def latency(trials: int, tmp: Path, source: Path, later: bool | None = None) -> dict:
    """Time from rename-into-inbox to the first item of that chat answering a recall.
    `later`: the daemon's `[ingest] vectors_after_write` (None: its default)."""
    from memfs.extract import extract_offline
    from memfs.readers import read_source

    chunks = chat_chunks(source)[:trials]
    probes = []
    for chunk in chunks:
        facts = extract_offline(read_source(json.dumps(chunk).encode(), "c.json"))
        probes.append(max(facts, key=lambda f: len(f.text)).text)  # a distinctive fact
    root = init_workspace(tmp / f"w-daemon-{time.monotonic_ns()}", git=False).root
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMFS_")}
    if later is not None:
        env["MEMFS_INGEST_VECTORS_AFTER_WRITE"] = "true" if later else "false"
    log = open(tmp / "daemon.log", "w+", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "memfs.cli", "daemon"], cwd=root, env=env,
                            stdout=subprocess.DEVNULL, stderr=log, text=True)
    try:
        deadline = time.time() + 60
        while not (root / ".memfs" / "daemon.sock").exists() and time.time() < deadline:
            time.sleep(0.05)
        samples = []
        for n, chunk in enumerate(chunks):
            tmpfile = root / "inbox" / f".chat{n}.json.tmp"
            tmpfile.write_text(json.dumps(chunk))
            t0 = time.perf_counter()
            os.rename(tmpfile, root / "inbox" / f"chat{n}.json")
            while True:
                hits = try_warm_recall(root / ".memfs", probes[n], 10, None, None) or []
                if any(f"-chat{n}-" in (h["source"] or "") for h in hits):
                    break
                if time.perf_counter() - t0 > 60:
                    raise RuntimeError("item never became recallable")
                time.sleep(0.05)  # each probe is a recall in the daemon: do not starve the ingest
            samples.append(time.perf_counter() - t0)
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
        log.seek(0)
        lines = log.read().splitlines()
        log.close()
    # The daemon's own time per input (its log line "chatN.json: ... (S.SSs)"): the rest of a
    # sample is waiting (the poll, the previous input's root files and vectors) and the recall.
    own = [float(m.group(1)) for line in lines if (m := re.search(r"chat\d+\.json: .*\((\d+\.\d+)s\)$", line))]
    return {"mode": {None: "default", True: "vectors later", False: "vectors first"}[later],
            "trials": len(samples), "median_s": round(statistics.median(samples), 3), "max_s": round(max(samples), 3),
            "samples_s": [round(s, 3) for s in samples],
            "daemon_ingest_s": [round(x, 3) for x in own],
            "daemon_ingest_median_s": round(statistics.median(own), 3) if own else None,
            "merged": sum(1 for line in lines if "merged into" in line)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=os.environ.get("MEMFS_BENCH_LOCOMO"), required="MEMFS_BENCH_LOCOMO" not in os.environ)
    ap.add_argument("--conversations", default="26", help="comma-separated file stems in --data ('': latency only)")
    ap.add_argument("--latency-trials", type=int, default=10)
    ap.add_argument("--modes", default="first,later",
                    help="first: every fact embedded before the write (the CLI); later: vectors after it (the daemon)")
    ap.add_argument("--latency-modes", default="",
                    help="e.g. first,later: a daemon per mode, alternated --latency-rounds times (default: "
                         "one daemon, its default setting)")
    ap.add_argument("--latency-rounds", type=int, default=1)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    out: dict = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "nproc": os.cpu_count(),
                 "load_avg_start": os.getloadavg()[0], "throughput": [], "latency": None}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for stem in (args.conversations.split(",") if args.conversations else []):
            data, turns = whole_conversation(args.data / f"{stem}.json")
            for emb in ("minilm", "hashing"):
                for mode in args.modes.split(","):
                    row = throughput(data, turns, emb, tmp, later=mode == "later")
                    row["conversation"] = stem
                    out["throughput"].append(row)
                    print(f"{stem} {emb:8s} {row['mode']}: {turns} turns written in {row['seconds']:.1f}s = "
                          f"{row['turns_per_s']} turns/s; all vectors in {row['all_vectors_s']:.1f}s = "
                          f"{row['turns_per_s_all_vectors']} turns/s; {row['items']} items, seen {row['seen']} "
                          f"(merged after {row['merged_after']}); embedding alone {row['embed_texts_per_s']} texts/s; "
                          f"stages {row['stages_s']}", flush=True)
        modes = [m == "later" for m in args.latency_modes.split(",")] if args.latency_modes else [None]
        runs = []
        for _ in range(args.latency_rounds if args.latency_trials else 0):
            for later in modes:  # alternated, so the modes share the machine's load
                lat = latency(args.latency_trials, tmp, args.data / "41.json", later)
                runs.append(lat)
                print(f"inbox -> recallable, 50-turn chat, daemon running ({lat['mode']}): median "
                      f"{lat['median_s']}s, max {lat['max_s']}s over {args.latency_trials}; the daemon's own "
                      f"ingest time median {lat['daemon_ingest_median_s']}s; samples {lat['samples_s']}; "
                      f"load {os.getloadavg()[0]:.1f}", flush=True)
        if runs:
            out["latency"] = runs[0] if len(runs) == 1 else runs
            for mode in dict.fromkeys(r["mode"] for r in runs):
                pooled = [x for r in runs if r["mode"] == mode for x in r["samples_s"]]
                print(f"  {mode}: median {statistics.median(pooled):.3f}s, max {max(pooled):.3f}s over "
                      f"{len(pooled)} samples", flush=True)
    out["load_avg_end"] = os.getloadavg()[0]
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
