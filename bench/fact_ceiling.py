#!/usr/bin/env python3
"""How high an extractor can score against LoCoMo's gold observations at all (issue #19).

    python bench/fact_ceiling.py --data DATA [--json OUT]

Issue #19 scores stored facts by token F1 against LoCoMo's gold observations (short,
third-person facts written by people, each citing its turns): coverage@0.5 (share of gold
facts an item of the same turn matches with F1 >= 0.5) and mean best F1. An offline
extractor can only keep, cut and re-person the words a speaker said; the gold facts are
written afresh ("Caroline is inspired by freedom and being true to oneself"). This script
measures what the best possible choice of the speaker's own words would score, knowing
the gold fact, for ever finer cuts of each cited turn:

- whole turn: the turn stored as one fact (what a memory that does no extraction keeps);
- sentence / sentences: the one best sentence; the best run of consecutive sentences;
- clause / clauses: the same with sentences also cut at commas, semicolons, colons and
  dashes;
- word span: the best run of consecutive words, anywhere in the turn (no extractor that
  keeps the speaker's words in their order can beat it).

"I / me / my" become the speaker's name and "you / your" the listener's (as memfs writes
them), and each candidate is scored as it is and with the speaker's name in front (items
name their subject), the better of the two counting: generous, as the oracle may use the
names or not. Everything an extractor could not know is
given to it -- which gold fact it is matched against, and where to cut -- so each figure
is an upper bound for its kind of cut, not a target. F1 is bench/llm_local.py's (the
scorer's: stopwords dropped, crude suffix stemming).

Stdlib only, no memfs import; a few seconds on the five dev conversations.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from llm_local import f1, gold_observations, toks  # noqa: E402
from locomo_metric import load_file, turn_text  # noqa: E402

KINDS = ("whole turn", "sentence", "sentences", "clause", "clauses", "word span")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CLAUSE_END = re.compile(r"(?<=[.!?])\s+|\s[-\u2013\u2014]\s|[,;:]\s")
_FIRST = re.compile(r"\b(?:I|me|my|mine|myself)\b")
_SECOND = re.compile(r"\b(?:you|your|yours|yourself)\b", re.IGNORECASE)


def in_person(text: str, speaker: str, listener: str) -> str:
    """The turn with its pronouns as memfs writes them: "I" is the speaker, "you" the listener."""
    text = _FIRST.sub(speaker, text)
    return _SECOND.sub(listener, text) if listener else text


def runs(pieces: list[str]) -> Iterator[str]:
    for a in range(len(pieces)):
        for b in range(a + 1, len(pieces) + 1):
            yield " ".join(pieces[a:b])


def best_span(words: list[str], head: list[str], gold: list[str]) -> float:
    """The best F1 of ``head`` plus any run of consecutive ``words``, counted incrementally."""
    want = Counter(gold)
    best = f1(head, gold)
    for a in range(len(words)):
        have = Counter(head)
        common = sum((have & want).values())
        size = len(head)
        for w in words[a:]:
            have[w] += 1
            size += 1
            if have[w] <= want[w]:
                common += 1
            if common:
                p, r = common / size, common / len(gold)
                best = max(best, 2 * p * r / (p + r))
    return best


def candidates(kind: str, text: str) -> Iterator[str]:
    if kind == "whole turn":
        yield text
        return
    cut = _SENTENCE_END if kind.startswith("sentence") else _CLAUSE_END
    pieces = [p for p in cut.split(text) if p and p.strip()]
    yield from (pieces if kind in ("sentence", "clause") else runs(pieces))


def ceilings(data: Path) -> dict[str, dict[str, float]]:
    scores: dict[str, list[float]] = {kind: [] for kind in KINDS}
    for path in sorted(data.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        body = raw.get("conversation", raw) if isinstance(raw, dict) else raw
        for conv in load_file(path):
            turns: dict[str, tuple[str, str]] = {}
            for session in conv.sessions:
                for t in session.turns:
                    if "dia_id" in t:
                        speaker = str(t.get("speaker") or "")
                        listener = next((s for s in conv.speakers if s != speaker), "")
                        turns[str(t["dia_id"])] = (speaker, in_person(turn_text(t), speaker, listener))
            for fact, ids in gold_observations(body, {s.number for s in conv.sessions}):
                gold = toks(fact)
                cited = [turns[i] for i in ids if i in turns]
                for kind in KINDS:
                    best = 0.0
                    for speaker, text in cited:
                        for head in ([], toks(speaker)):
                            if kind == "word span":
                                best = max(best, best_span(toks(text), head, gold))
                            else:
                                best = max([best, *(f1(head + toks(c), gold) for c in candidates(kind, text))])
                    scores[kind].append(best)
            break  # one conversation a file
    return {kind: {"gold": len(v), "coverage@0.5": sum(s >= 0.5 for s in v) / len(v),
                   "coverage@0.3": sum(s >= 0.3 for s in v) / len(v), "mean_best_f1": sum(v) / len(v)}
            for kind, v in scores.items() if v}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True, help="a folder of LoCoMo conversation files")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    out = ceilings(args.data)
    if not out:
        raise SystemExit(f"no gold observations in {args.data}")
    print(f"{'best choice of the speaker’s words':<36} {'coverage@0.5':>12} {'coverage@0.3':>12} {'mean best F1':>12}")
    for kind, row in out.items():
        print(f"{kind:<36} {row['coverage@0.5']:>12.3f} {row['coverage@0.3']:>12.3f} {row['mean_best_f1']:>12.3f}")
    print(f"({next(iter(out.values()))['gold']:.0f} gold facts)")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
