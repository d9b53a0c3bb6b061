#!/usr/bin/env python3
"""Why gold facts are missed: extraction-only fact quality, per conversation and per cause.

    PYTHONPATH=. .venv/bin/python bench/truth_misses.py --scorer PATH/TO/factq.py --data LOCOMO_DIR [--dump OUT.jsonl]

Uses the fact-quality scorer's own tokenizer, F1 and LoCoMo reading (loaded from
--scorer, so both always agree), but runs only `extract_offline` on each session: seconds
instead of minutes, and 1-2 % more lines than the pipeline keeps after dedupe. Each gold
fact not matched at F1 >= 0.5 gets one cause:

- turn_lacks_words: even the whole cited turn could not reach 0.5 with perfect precision
  (the fact abstracts: "Maria values positivity");
- no_line: no line cites the turn (thanks, encouragement, questions);
- line_recall_low: the best line lacks words that the turn has (another clause holds them);
- line_precision_low: the best line has the words, and too many others beside them.

--dump writes one JSON line per gold fact (text, turns, best F1, the lines citing its turns
with their F1) for reading misses.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
from collections import Counter
from pathlib import Path
from typing import Any


def _scorer(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location("factq", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load the scorer {path}")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _recall(item: list[str], gold: list[str]) -> float:
    common = sum((Counter(item) & Counter(gold)).values())
    return common / max(len(gold), 1)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scorer", required=True, type=Path, help="the fact-quality scorer (factq.py)")
    ap.add_argument("--data", required=True, type=Path, help="folder of LoCoMo conversation JSON files")
    ap.add_argument("--dump", type=Path)
    args = ap.parse_args()
    fq = _scorer(args.scorer)
    from memfs.extract.offline import extract_offline
    from memfs.readers import read_source

    causes: Counter[str] = Counter()
    rows: list[dict[str, Any]] = []
    total_gold = total_items = total_hit = 0
    for path in sorted(args.data.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        conv = raw.get("conversation", raw)
        by_turn: dict[str, list[str]] = {}
        for doc in fq.sessions_of(conv):
            for fact in extract_offline(read_source(json.dumps(doc).encode(), "session.json")):
                by_turn.setdefault(fact.anchor, []).append(fact.text)
        turns = {str(t["dia_id"]): fq.photo_text(t) for k, v in conv.items()
                 if fq.SESSION_KEY.fullmatch(k) and isinstance(v, list) for t in v if isinstance(t, dict) and "dia_id" in t}
        gold = fq.gold(raw)
        hit = 0
        for text, ids in gold:
            g = fq.toks(text)
            scored = sorted(((fq.f1(g, fq.toks(it)), it) for i in ids for it in by_turn.get(i, [])), reverse=True)
            best = scored[0][0] if scored else 0.0
            if best >= 0.5:
                hit += 1
            else:
                r_turn = _recall(fq.toks(" ".join(turns.get(i, "") for i in ids)), g)
                r_line = _recall(fq.toks(scored[0][1]), g) if scored else 0.0
                causes["turn_lacks_words" if 2 * r_turn / (1 + r_turn) < 0.5 else "no_line" if not scored
                       else "line_recall_low" if 2 * r_line / (1 + r_line) < 0.5 else "line_precision_low"] += 1
            rows.append({"conversation": path.stem, "gold": text, "turns": ids, "best": round(best, 3),
                         "lines": [[round(s, 3), it] for s, it in scored]})
        items = sum(len(v) for v in by_turn.values())
        print(f"{path.stem}: coverage@0.5 {hit / len(gold):.3f}, lines {items} ({items / len(gold):.2f}x gold)")
        total_gold, total_items, total_hit = total_gold + len(gold), total_items + items, total_hit + hit
    print(f"all: coverage@0.5 {total_hit / total_gold:.3f}, lines {total_items} ({total_items / total_gold:.2f}x gold)")
    print("misses by cause (share of all gold facts): "
          + ", ".join(f"{k} {v / total_gold:.3f}" for k, v in causes.most_common()))
    if args.dump:
        args.dump.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
