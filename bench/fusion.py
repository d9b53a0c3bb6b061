#!/usr/bin/env python3
"""Fusion candidates side by side on one kept vault, in one process (same index, same run).

    python bench/notes.py --notes 1000 --embedder hashing --workdir /tmp/n1k --only search
    MEMFS_EMBEDDER_PROVIDER=hashing MEMFS_EMBEDDER_DIM=384 \\
        python bench/fusion.py /tmp/n1k/memfs/vault

Each candidate replaces `memfs.index.search.fuse` and answers bench/notes.py's questions
(`questions.json` in the vault: keyword and paraphrased); hit@5 by note path, as notes.py
counts it. `rrf` is the old fusion; `lead w` is RRF plus the lexical lead at weight w
(memfs.index.fusion, `[recall] lexical_weight`); `relative a` is score fusion (BM25 / its
top + min-max cosine, convex with BM25 share a), the other family the issue names.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import memfs.index.search as search_mod
from memfs.api import Memory
from memfs.index.fusion import Ranked, fuse

Fuser = Callable[[Ranked, Ranked, object], dict[int, float]]


def relative(share: float) -> Fuser:
    def fused(bm: Ranked, dense: Ranked, cfg: object) -> dict[int, float]:
        out: dict[int, float] = {}
        if bm and bm[0][1] > 0:
            for lab, s in bm:
                out[lab] = share * s / bm[0][1]
        if dense:
            hi, lo = dense[0][1], dense[-1][1]
            for lab, s in dense:
                out[lab] = out.get(lab, 0.0) + (1 - share) * ((s - lo) / (hi - lo) if hi > lo else 1.0)
        return out
    return fused


def lead(weight: float) -> Fuser:
    def fused(bm: Ranked, dense: Ranked, cfg: object) -> dict[int, float]:
        c = SimpleNamespace(**{**vars(cfg), "lexical_weight": weight}) if isinstance(cfg, SimpleNamespace) \
            else cfg.model_copy(update={"lexical_weight": weight})  # type: ignore[attr-defined]
        return fuse(bm, dense, c)
    return fused


def main() -> int:
    vault = Path(sys.argv[1])
    qs = json.loads((vault / "questions.json").read_text())
    cands: dict[str, Fuser] = {"rrf": lead(0.0)}
    for w in (1.0, 2.0, 3.0, 4.0):
        cands[f"lead {w}"] = lead(w)
    for a in (0.3, 0.5, 0.7):
        cands[f"relative {a}"] = relative(a)
    m = Memory(str(vault))
    m.recall("warm up", k=1)
    searcher = m.runtime.searcher
    for name, fn in cands.items():
        search_mod.fuse = fn  # type: ignore[assignment]
        if searcher is not None:
            searcher._bm_cache.clear()
        row = {}
        for kind in ("keyword", "paraphrase"):
            row[kind] = sum(q["path"] in [h.path for h in m.recall(q[kind], k=5)] for q in qs) / len(qs)
        print(f"{name:14s} keyword {row['keyword']:.3f}  paraphrase {row['paraphrase']:.3f}", flush=True)
    m.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
