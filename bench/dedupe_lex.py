"""Could a lexical screen decide near-duplicates without vectors? (issue #17 item 2)

    .venv/bin/python bench/dedupe_lex.py [--data DIR] [--conversations 26,41,30]

Extracts the offline facts of LoCoMo conversations, embeds them with the default MiniLM
embedder, and takes every pair of facts at cosine >= ingest.dedupe_threshold (what the
vector dedupe merges). A lexical screen may call a fact "new" without a vector only if
its word overlap with every other fact is below the lowest overlap such a pair has; this
prints that floor for three overlap measures (content words, stopwords dropped) and how
many facts would still have a candidate above it (those would need a vector anyway).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from ingest import whole_conversation  # noqa: E402

from memfs.config import Config  # noqa: E402
from memfs.core.model import normalize_text  # noqa: E402
from memfs.extract import extract_offline  # noqa: E402
from memfs.index.db import _STOP  # noqa: E402
from memfs.providers.embedding import make_embedder  # noqa: E402
from memfs.readers import read_source  # noqa: E402

_TOKEN = re.compile(r"\w+")


def words(text: str) -> frozenset[str]:
    return frozenset(w for w in (t.lower() for t in _TOKEN.findall(text)) if len(w) > 1 and w not in _STOP)


MEASURES = {
    "containment": lambda a, b: len(a & b) / max(1, min(len(a), len(b))),
    "jaccard": lambda a, b: len(a & b) / max(1, len(a | b)),
    "dice": lambda a, b: 2 * len(a & b) / max(1, len(a) + len(b)),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=os.environ.get("MEMFS_BENCH_LOCOMO"))
    ap.add_argument("--conversations", default="26,41,30")
    args = ap.parse_args()
    cfg = Config()
    texts: list[str] = []
    for stem in args.conversations.split(","):
        data, _ = whole_conversation(args.data / f"{stem}.json")
        facts = extract_offline(read_source(json.dumps(data).encode(), f"{stem}.json"))
        texts += [normalize_text(f.text) for f in facts]
    texts = list(dict.fromkeys(texts))
    vecs = np.asarray(make_embedder(cfg.embedder).embed(texts), dtype=np.float32)
    sims = np.triu(vecs @ vecs.T, 1)
    pairs = list(zip(*np.where(sims >= cfg.ingest.dedupe_threshold)))
    ws = [words(t) for t in texts]
    print(f"{len(texts)} distinct facts; {len(pairs)} pairs at cosine >= {cfg.ingest.dedupe_threshold}")
    for name, f in MEASURES.items():
        floor = min(f(ws[i], ws[j]) for i, j in pairs)
        close = sum(1 for a in range(len(ws)) if any(f(ws[a], ws[b]) >= floor for b in range(len(ws)) if b != a))
        print(f"{name:12s} lowest overlap of a merged pair {floor:.2f}; facts with another fact at or above it: "
              f"{close} of {len(texts)} ({100 * close / len(texts):.0f}%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
