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


def throughput(data: dict, turns: int, embedder: str, tmp: Path) -> dict:
    root = init_workspace(tmp / f"w-{embedder}-{time.monotonic_ns()}", git=False).root
    mem = Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": embedder}))
    mem.embedder.embed(["load the model before the clock starts"])
    src = root.parent / f"conv-{embedder}.json"
    src.write_text(json.dumps(data))
    t0 = time.perf_counter()
    result = mem.ingest_file(src)
    wall = time.perf_counter() - t0
    stages = dict(mem.memorizer.ctx.stage_seconds)
    texts = [r.text for r in mem.indexer.db.all_items()]
    mem.close()
    fresh = Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": embedder}))
    fresh.embedder.embed(["warm"])
    t1 = time.perf_counter()
    fresh.embedder.embed(texts)
    embed_alone = time.perf_counter() - t1
    fresh.close()
    return {"embedder": embedder, "turns": turns, "items": len(result.added), "seconds": round(wall, 3),
            "turns_per_s": round(turns / wall, 1), "stages_s": {k: round(v, 3) for k, v in stages.items()},
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


def latency(trials: int, tmp: Path, source: Path) -> dict:
    """Time from rename-into-inbox to the first item of that chat answering a recall."""
    from memfs.extract import extract_offline
    from memfs.readers import read_source

    chunks = chat_chunks(source)[:trials]
    probes = []
    for chunk in chunks:
        facts = extract_offline(read_source(json.dumps(chunk).encode(), "c.json"))
        probes.append(max(facts, key=lambda f: len(f.text)).text)  # a distinctive fact
    root = init_workspace(tmp / "w-daemon", git=False).root
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMFS_")}
    proc = subprocess.Popen([sys.executable, "-m", "memfs.cli", "daemon"], cwd=root, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
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
    return {"trials": len(samples), "median_s": round(statistics.median(samples), 3), "max_s": round(max(samples), 3),
            "samples_s": [round(s, 3) for s in samples]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=os.environ.get("MEMFS_BENCH_LOCOMO"), required="MEMFS_BENCH_LOCOMO" not in os.environ)
    ap.add_argument("--conversations", default="26", help="comma-separated file stems in --data")
    ap.add_argument("--latency-trials", type=int, default=10)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    out: dict = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "nproc": os.cpu_count(),
                 "load_avg_start": os.getloadavg()[0], "throughput": [], "latency": None}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for stem in args.conversations.split(","):
            data, turns = whole_conversation(args.data / f"{stem}.json")
            for emb in ("minilm", "hashing"):
                row = throughput(data, turns, emb, tmp)
                row["conversation"] = stem
                out["throughput"].append(row)
                print(f"{stem} {emb:8s} {turns} turns in {row['seconds']:.1f}s = {row['turns_per_s']} turns/s "
                      f"(embedding alone {row['embed_texts_per_s']} texts/s); stages {row['stages_s']}", flush=True)
        if args.latency_trials:
            out["latency"] = latency(args.latency_trials, tmp, args.data / "41.json")
            print(f"inbox -> recallable, 50-turn chat, daemon running: median {out['latency']['median_s']}s, "
                  f"max {out['latency']['max_s']}s over {args.latency_trials}", flush=True)
    out["load_avg_end"] = os.getloadavg()[0]
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
