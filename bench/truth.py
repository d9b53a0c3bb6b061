#!/usr/bin/env python3
"""Memory that stays true, on labelled dev sets written for memfs (bench/truth/*.jsonl).

    PYTHONPATH=. .venv/bin/python bench/truth.py [--only supersession,dates,filing] [--json OUT]
    PYTHONPATH=. .venv/bin/python bench/truth.py --dates-library dateparser   # the library, same set

Three sets, each run through memfs's public surface, so any version is measured the same
way (point PYTHONPATH at an older checkout for a baseline):

- supersession.jsonl — pairs of first-person chat messages by one speaker, the older
  said in March, the newer in October, labelled whether the newer replaces the older
  (changed home, job, role, partner, age, habit, diet, a moved plan, a new favourite) or
  not (likes jazz + likes blues, another subject, history, a plan not yet true, the same
  value said again). Each pair is ingested (`Memory.ingest_file`) into a fresh workspace;
  a pair counts as superseded when an item line from the older message carries
  `superseded_by=` an item from the newer one. Precision, recall, F1 over the pairs.
- dates.jsonl — a sentence, the day it was said, and the `when` a person means (forward
  for plans, backward for the past, a period's start). Scored on the extractor's facts
  (`extract_offline` on a one-message conversation): exact `when` accuracy.
- filing.jsonl — a message and the category file it belongs in. All are ingested into one
  workspace (one file each); accuracy of the file each one's first item lands in.

`*_heldout.jsonl` were written after the rules were tuned on the dev sets and never used
to change them: they are the honest figure.

The embedder is the hashing one by default (fast, deterministic); `--embedder minilm` runs
the default one (filing by meaning uses it).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from urllib.parse import unquote

HERE = Path(__file__).resolve().parent
DATA = HERE / "truth"
ITEM = re.compile(r"^\s{0,3}[-*+] (.*?)\s*<!--(.*?)-->\s*$")


def _load(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line.strip()]


def _items(root: Path) -> list[tuple[str, dict[str, str], str]]:
    """(text, metadata, file) of every item line under memory/, index/, skill/."""
    out = []
    for kind in ("memory", "index", "skill"):
        for path in sorted((root / kind).rglob("*.md")):
            for line in path.read_text(encoding="utf-8").splitlines():
                m = ITEM.match(line)
                if m:
                    meta = {k: unquote(v) for k, _, v in (p.partition("=") for p in m.group(2).split()) if v}
                    out.append((m.group(1), meta, str(path.relative_to(root))))
    return out


def _memory(root: Path, embedder: str):  # type: ignore[no-untyped-def]
    from memfs.api import Memory
    from memfs.config import load_config

    return Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": embedder}))


def _chat(path: Path, speaker: str, text: str, when: str) -> Path:
    path.write_text(json.dumps([{"role": "user", "name": speaker, "content": text, "timestamp": when}]))
    return path


def run_supersession(embedder: str, details: list[dict], name: str = "supersession.jsonl") -> dict:
    from memfs.workspace import init_workspace

    rows = _load(name)
    tp = fp = fn = tn = 0
    by_kind: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as td:
        for n, row in enumerate(rows):
            root = init_workspace(Path(td) / f"w{n}", git=False).root
            with _memory(root, embedder) as mem:
                mem.ingest_file(_chat(Path(td) / f"old{n}.json", row["speaker"], row["old"], "2026-03-02T10:00:00"))
                mem.ingest_file(_chat(Path(td) / f"new{n}.json", row["speaker"], row["new"], "2026-10-05T10:00:00"))
            items = _items(root)
            new_ids = {meta.get("id") for _, meta, _ in items if "/10/05-new" in meta.get("src", "")}
            got = any(meta.get("superseded_by") in new_ids for _, meta, _ in items
                      if "/03/02-old" in meta.get("src", ""))
            want = bool(row["supersedes"])
            tp += got and want
            fp += got and not want
            fn += want and not got
            tn += not want and not got
            if got != want:
                by_kind[("missed " if want else "wrong ") + row["kind"]] += 1
                details.append({"set": "supersession", **row, "got": got,
                                "items": [t for t, _, _ in items]})
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"pairs": len(rows), "positive": tp + fn, "negative": fp + tn, "tp": tp, "fp": fp, "fn": fn,
            "precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3),
            "errors": dict(by_kind)}


def _dates_memfs(text: str, said: datetime) -> str | None:
    from memfs.extract import extract_offline
    from memfs.readers import read_source

    raw = json.dumps([{"role": "user", "name": "Robin", "content": text, "timestamp": said.isoformat()}])
    facts = extract_offline(read_source(raw.encode(), "d.json"))
    return facts[0].when if facts else None


def _dates_dateparser(text: str, said: datetime) -> str | None:
    """dateparser's own reading of the same sentence (search_dates, future preferred for
    plans is not something it can know, so both settings are tried by tense cue)."""
    from dateparser.search import search_dates  # type: ignore[import-not-found]

    future = bool(re.search(r"\b(?:will|'ll|going|next|planning|due|starting|begins|is on|is in|ends|"
                            r"training|until)\b", text, re.I))
    found = search_dates(text, languages=["en"], settings={
        "RELATIVE_BASE": said, "PREFER_DATES_FROM": "future" if future else "past",
        "RETURN_AS_TIMEZONE_AWARE": False})
    if not found:
        return None
    phrase, dt = found[0]
    p = phrase.strip().lower()
    months = ("january february march april may june july august september october november december "
              "jan feb mar apr jun jul aug sep sept oct nov dec").split()
    words = re.findall(r"[a-z]+|\d+", p)
    if re.search(r"\byears?\b", p) or re.fullmatch(r"(?:in\s+)?(?:19|20)\d{2}", p):
        return str(dt.year)  # "three years ago", "next year", "in 2019"
    if re.search(r"\bmonths?\b", p) or (any(w in months for w in words)
                                       and not any(w.isdigit() and len(w) <= 2 for w in words)):
        return dt.strftime("%Y-%m")  # "last month", "in June", "May 2025"
    return dt.date().isoformat()


def run_dates(library: str, details: list[dict], name: str = "dates.jsonl") -> dict:
    rows = _load(name)
    fn = _dates_dateparser if library == "dateparser" else _dates_memfs
    right = 0
    for row in rows:
        said = datetime.fromisoformat(row["said"] + "T10:00:00")
        try:
            got = fn(row["text"], said)
        except Exception as err:  # a library failing on a sentence is a miss, not a crash
            got = f"error: {err}"
        ok = got == row["when"]
        right += ok
        if not ok:
            details.append({"set": "dates", "library": library, **row, "got": got})
    return {"sentences": len(rows), "library": library, "accuracy": round(right / len(rows), 3), "right": right}


def run_filing(embedder: str, details: list[dict], name: str = "filing.jsonl") -> dict:
    from memfs.workspace import init_workspace

    rows = _load(name)
    right = 0
    confusion: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as td:
        root = init_workspace(Path(td) / "w", git=False).root
        with _memory(root, embedder) as mem:
            for n, row in enumerate(rows):
                mem.ingest_file(_chat(Path(td) / f"filing-{n:02d}.json", row["speaker"], row["text"],
                                      "2026-10-05T10:00:00"))
        items = _items(root)
        for n, row in enumerate(rows):
            mine = [(t, f) for t, meta, f in items if f"-filing-{n:02d}-" in meta.get("src", "")]
            got = mine[0][1] if mine else None
            ok = got == row["file"]
            right += ok
            if not ok:
                confusion[f"{row['file']} -> {got}"] += 1
                details.append({"set": "filing", **row, "got": got, "items": [t for t, _ in mine]})
    return {"messages": len(rows), "accuracy": round(right / len(rows), 3), "right": right,
            "confusion": dict(confusion.most_common())}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="supersession,dates,filing")
    ap.add_argument("--embedder", default="hashing", choices=["hashing", "minilm"])
    ap.add_argument("--dates-library", default="memfs", choices=["memfs", "dateparser"])
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--details", help="write every miss here (JSON lines)")
    args = ap.parse_args()
    wanted = set(args.only.split(","))
    details: list[dict] = []
    res: dict = {}
    t0 = time.time()
    if "supersession" in wanted:
        res["supersession"] = run_supersession(args.embedder, details)
        res["supersession_heldout"] = run_supersession(args.embedder, details, "supersession_heldout.jsonl")
    if "dates" in wanted:
        res["dates"] = run_dates(args.dates_library, details)
        res["dates_heldout"] = run_dates(args.dates_library, details, "dates_heldout.jsonl")
    if "filing" in wanted:
        res["filing"] = run_filing(args.embedder, details)
        res["filing_heldout"] = run_filing(args.embedder, details, "filing_heldout.jsonl")
    res["seconds"] = round(time.time() - t0, 1)
    print(json.dumps(res, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    if args.details:
        Path(args.details).write_text("".join(json.dumps(d) + "\n" for d in details))
    return 0


if __name__ == "__main__":
    sys.exit(main())
