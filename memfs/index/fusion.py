"""How BM25's and the dense ranker's candidates become one fused score per label.

Reciprocal-rank fusion alone sees only ranks: a row both rankers find at rank 5 (2/65)
beats the row BM25 ranks first by a wide margin (1/61) when the dense ranker misses it.
That is right for a paraphrase and wrong for a query that names one note by its own words
("merlin-472 socket timeout retries" among thousands of notes saying the same in other
words). The lexical lead term below adds what ranks throw away: how far ahead of the
other lexical matches a BM25 hit scores. It is a function of the candidates' scores
alone (never of the row), so `Searcher._rank`'s ceiling (fused score times the largest
salience factor) stays exact.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memfs.config import RecallConfig

Ranked = list[tuple[int, float]]
#: A hit's lead (its BM25 score above the top-10 median, as a share of the top score) below
#: LEAD_FROM is noise between near-equal matches: no bonus, the fusion is RRF's. From
#: LEAD_FULL on (half the top score is words the pack lacks) the bonus is whole.
LEAD_FROM, LEAD_FULL = 0.1, 0.5


def rrf(rankings: list[tuple[list[int], float]], k: float) -> dict[int, float]:
    """Reciprocal rank fusion: sum over rankers of weight / (k + rank), rank from 1."""
    scores: dict[int, float] = {}
    for labels, weight in rankings:
        for rank, label in enumerate(labels, start=1):
            scores[label] = scores.get(label, 0.0) + weight / (k + rank)
    return scores


def lexical_lead(bm: Ranked, k: float, weight: float, window: int = 10) -> dict[int, float]:
    """A bonus for BM25 hits that score clearly above the typical lexical match.

    The reference is the median BM25 score of the top `window` hits: a hit scoring little
    above it gets nothing; the top hit of a query whose rare words (an identifier, a name)
    only one note contains scores far above it and gets up to `weight` / (k + 1), as much
    as a second ranker's first place. A flat BM25 list (a paraphrase matching common
    words everywhere) gives no bonus, so semantic recall is left to RRF."""
    if weight <= 0 or not bm:
        return {}
    # Fewer than `window` matches: the missing ones score 0 (a word only two notes contain
    # is as specific as it gets).
    top = [s for _, s in bm[:window]] + [0.0] * max(0, window - len(bm))
    ref = sorted(top)[window // 2]
    best = top[0]
    if best <= 0 or best <= ref:
        return {}
    out: dict[int, float] = {}
    for label, s in bm[:window]:
        lead = (s - ref) / best  # in [0, 1): how much of the top score is above the pack
        if lead > LEAD_FROM:
            out[label] = weight * min(1.0, (lead - LEAD_FROM) / (LEAD_FULL - LEAD_FROM)) / (k + 1)
    return out


def fuse(bm: Ranked, dense: Ranked, cfg: RecallConfig) -> dict[int, float]:
    """The fused score of every candidate: weighted RRF plus BM25's lexical lead."""
    fused = rrf([([lab for lab, _ in bm], cfg.bm25_weight), ([lab for lab, _ in dense], cfg.vector_weight)],
                cfg.rrf_k)
    for label, bonus in lexical_lead(bm, cfg.rrf_k, cfg.lexical_weight).items():
        fused[label] = fused.get(label, 0.0) + bonus
    return fused
