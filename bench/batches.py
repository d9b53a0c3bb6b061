"""How long SIGTERM and a small input wait behind a large input, batched vs not (same run).

    python bench/batches.py [--turns 3000] [--batch 200]

Starts real `memfs daemon`s (hashing embedder) on fresh workspaces, with
`ingest.batch_segments` = --batch and, as the baseline, larger than the input (the whole
input in one go, what memfs did before). Each drops the large chat and, 1 s later, either
a one-line note (small-input wait: dropped -> filed, from the daemon log) or SIGTERM
(SIGTERM latency: signal -> exit).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEMFS = [sys.executable, "-m", "memfs.cli"]


def _chat(n: int) -> dict:
    things = ["violin", "kayak", "telescope", "sourdough", "bonsai", "chess", "pottery", "archery"]
    places = ["Porto", "Oslo", "Lima", "Kyoto", "Accra", "Quito", "Hanoi", "Tunis", "Perth", "Riga"]
    return {"time": "2024-05-01T10:00:00", "messages": [
        {"role": "user", "name": "Ana", "content": f"I took up {things[k % 8]} in {places[(k // 8) % 10]} "
                                                   f"with my cousin Ben{k}."} for k in range(n)]}


def _wait(pred, timeout: float) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.02)
    raise SystemExit("timed out")


def one_run(base: Path, turns: int, batch: int, probe: str) -> float:
    """`probe` = "note": seconds from dropping a small note (1 s into the large input) to
    its being filed; "sigterm": seconds from SIGTERM (1 s into the large input) to exit."""
    env = {**os.environ, "MEMFS_EMBEDDER_PROVIDER": "hashing", "MEMFS_INGEST_BATCH_SEGMENTS": str(batch),
           "PYTHONPATH": str(ROOT)}
    ws = base / f"w{batch}-{probe}"
    subprocess.run(MEMFS + ["init", str(ws), "--no-git"], env=env, check=True, capture_output=True)
    log = base / f"d{batch}-{probe}.log"
    with open(log, "w") as fh:
        proc = subprocess.Popen(MEMFS + ["daemon"], cwd=ws, env=env, stderr=fh, stdout=subprocess.DEVNULL)
    text = lambda: log.read_text(errors="replace")  # noqa: E731
    _wait(lambda: "watching" in text(), 120)
    (ws / "inbox" / "big.json").write_text(json.dumps(_chat(turns)))
    time.sleep(1.0)  # settled and started
    t0 = time.monotonic()
    if probe == "note":
        (ws / "inbox" / "note.md").write_text("Olga's tortoise is called Pluto.\n")
        _wait(lambda: "note.md: +" in text(), 3600)
        took = time.monotonic() - t0
        proc.send_signal(signal.SIGTERM)
    else:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=3600)
        took = time.monotonic() - t0
    proc.wait(timeout=3600)
    return round(took, 2)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=200)
    args = ap.parse_args()
    out: dict[str, object] = {"turns": args.turns, "batch_segments": args.batch}
    with tempfile.TemporaryDirectory() as tmp:
        for label, batch in (("batched", args.batch), ("baseline_unbatched", args.turns * 10)):
            out[label] = {"small_input_wait_s": one_run(Path(tmp), args.turns, batch, "note"),
                          "sigterm_latency_s": one_run(Path(tmp), args.turns, batch, "sigterm")}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
