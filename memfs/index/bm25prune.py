"""BM25's top hits without scoring the rows that only common words match (MaxScore).

`db.bm25` asks FTS5 for an OR of the query's words and `bm25()` scores every matching
row: ~10^4 rows at 10^5 items (8-10 ms, most of a query), and all 61,135 rows "ines"
matches for "Who is Ines's roommate?". Most of those rows match only the query's common
words, and a common word can add little: FTS5 scores a phrase `idf * f (k1+1) / (f + k1
(1 - b + b D/avgdl))`, below `idf * (k1 + 1)` whatever its frequency f, with idf =
`log((N - n + 0.5) / (n + 0.5))` (1e-6 when that is not positive: a word in half the rows).

So the words are split: the common ones (most rows, least weight), whose bounds add up
to `ceiling`, and the rest. A word's bound is its own best score (`bm25()` of the word
alone, best row: the same idf, row length and column weights as inside the full query,
so exact and ~2x below idf * (k1 + 1)), or that analytic bound when it is small enough.
A row matching only common words scores below `ceiling`. One query scores the rows the
rest match (with the rest's phrases; the common ones would add 0 to a row without them);
if the `limit`-th of them already scores above `ceiling`, no row outside them can be
among the top `limit`, and a second query (`rest AND common`) scores the rows that have
both with every phrase. Those rows' scores are the full query's, summed in another order
(so equal within ~1e-15, which can only swap rows whose scores are equal to that
precision); otherwise the full query runs as before.

Document counts come from the index (a count per word and data version, cached in the
caller's `TermStats`), so N and n are FTS5's own.
"""

from __future__ import annotations

import math

from memfs.index.db import CONTEXT_WEIGHT, IndexDB, fts_query

#: FTS5's bm25 constants (fts5_aux.c): a phrase adds less than idf * (K1 + 1).
K1 = 1.2
#: A split is tried only when the common words match this many times the rows the
#: rest match (below that, scoring the rest's rows twice costs what it saves).
SAVING = 2.0
#: Below this many items BM25 costs about a millisecond and the counts would be most of
#: it: the full query runs (bench/README.md, notes.py at 4.5k items).
MIN_ROWS = 20_000
#: A word's exact bound is computed from its this-many-th query in a data version on
#: (before, its analytic bound only): 60 distinct questions at 10^6 items paid a pass
#: over each common word's rows and BM25's p50 went 86 -> 165 ms (bench/README.md).
EXACT_AFTER = 3
#: Words whose counts one TermStats keeps (per data version).
MAX_TERMS = 4096
_SCORE = f"bm25(items_fts, 1.0, 0.3, {CONTEXT_WEIGHT})"


class TermStats:
    """Rows and per-word row counts of one data version of the index."""

    def __init__(self) -> None:
        self.version: object = None
        self._rows: int | None = None
        self._df: dict[str, int] = {}
        self._ub: dict[str, float] = {}
        #: How often each word was split-checked in this version: its exact bound (a pass
        #: over its rows) is paid only for a word that keeps coming back (EXACT_AFTER).
        self.asked: dict[str, int] = {}

    def at(self, version: object) -> "TermStats":
        if version != self.version:
            self.version, self._df, self._ub, self._rows, self.asked = version, {}, {}, None, {}
        return self

    def rows(self, db: IndexDB) -> int:
        """N: `count(*)` walks the items b-tree (~1.5 ms at 10^5), so once per version."""
        if self._rows is None:
            self._rows = db.count_items()
        return self._rows

    def df(self, db: IndexDB, phrase: str) -> int:
        """Rows matching one quoted FTS5 phrase (fts_query's form): iterating its doclist
        costs a small share of scoring those rows."""
        n = self._df.get(phrase)
        if n is None:
            n = int(db.conn.execute("SELECT count(*) FROM items_fts WHERE items_fts MATCH ?", (phrase,)).fetchone()[0])
            self._keep(self._df, phrase, n)
        return n

    def bound(self, db: IndexDB, phrase: str) -> float:
        """The most `phrase` adds to any row's score: its best score as a query of its own
        (bm25 sums one term per phrase, each of the phrase's own idf, the row's length and
        the column weights), so exact, and far below idf * (k1 + 1) in practice. One pass
        over its rows, once per data version."""
        b = self._ub.get(phrase)
        if b is None:
            row = db.conn.execute(f"SELECT {_SCORE} AS r FROM items_fts WHERE items_fts MATCH ? ORDER BY r LIMIT 1",
                                  (phrase,)).fetchone()
            b = -float(row[0]) if row is not None else 0.0
            self._keep(self._ub, phrase, b)
        return b

    @staticmethod
    def _keep(cache: dict, key: str, value: object) -> None:  # type: ignore[type-arg]
        if len(cache) >= MAX_TERMS:
            cache.clear()
        cache[key] = value


def idf(rows: int, n: int) -> float:
    """FTS5's idf of a phrase in n of `rows` rows."""
    value = math.log((rows - n + 0.5) / (n + 0.5)) if rows else 0.0
    return value if value > 0.0 else 1e-6


def split(db: IndexDB, phrases: list[str], stats: TermStats) -> tuple[list[str], list[str], float] | None:
    """(rest, common, ceiling): the fewest most frequent words that match SAVING times the
    rows the rest match, if their bounds add up to less than the rarest word's best score
    (about what the `limit`-th row of the rest scores; the real threshold is checked
    after); None when no split is worth trying. Only word counts are read unless a split
    may pay; a word's analytic bound idf * (k1 + 1) is used when small enough (a word in
    half the rows: 2.2e-6), its exact one (a pass over its rows) otherwise."""
    if len(phrases) < 2:
        return None  # one word: nothing to split, nothing to count
    rows = stats.rows(db)
    if rows < MIN_ROWS:
        return None
    dfs = {p: stats.df(db, p) for p in phrases}
    present = sorted((p for p in phrases if dfs[p]), key=lambda p: -dfs[p])
    if len(present) < 2:
        return None  # at most one word in the index: the full query is that word's
    total = sum(dfs[p] for p in present)
    taken_rows, j = 0, 0
    while j < len(present) - 1 and taken_rows < SAVING * (total - taken_rows):
        taken_rows += dfs[present[j]]
        j += 1
    if taken_rows < SAVING * (total - taken_rows):
        return None  # the rest would match most rows anyway: no saving worth a second query
    # A word's exact bound is a pass over its rows: paid only for words that keep coming
    # back in this version (a one-shot `memfs recall` never pays it); until then the
    # analytic bounds alone prune the words in half the rows or more.
    for p in present:
        stats.asked[p] = stats.asked.get(p, 0) + 1
    if len(stats.asked) >= MAX_TERMS:
        stats.asked.clear()

    def exact(p: str) -> bool:
        return p in stats._ub or stats.asked.get(p, 0) >= EXACT_AFTER  # noqa: SLF001

    rarest = present[-1]
    target = stats.bound(db, rarest) if exact(rarest) else idf(rows, dfs[rarest])
    common, ceiling = present[:j], 0.0
    for p in common:
        analytic = idf(rows, dfs[p]) * (K1 + 1.0)
        if ceiling + analytic < target:
            ceiling += analytic
        elif exact(p):
            ceiling += stats.bound(db, p)
        else:
            return None
        if ceiling >= target:
            return None
    taken = set(common)
    # A hair above the sum, so float rounding of the bounds' sum never makes it an underestimate.
    return [p for p in phrases if p not in taken], [p for p in phrases if p in taken], ceiling * (1 + 1e-9) + 1e-12


def bm25_items(db: IndexDB, query: str, limit: int, stats: TermStats) -> list[tuple[int, float]]:
    """`db.bm25(query, limit)`: the same rows by the same scores (module docstring)."""
    q = fts_query(query)
    parts = split(db, q.split(" OR "), stats) if q is not None and limit > 0 else None
    if parts is None:
        return db.bm25(query, limit)
    rest, common, ceiling = parts
    cur = db.conn.execute(f"SELECT rowid, {_SCORE} AS r FROM items_fts WHERE items_fts MATCH ? ORDER BY r",
                          (" OR ".join(rest),))
    partial = cur.fetchmany(limit)
    # bm25() is negative (lower ranks first): a row only common words match scores > -ceiling.
    if len(partial) < limit or partial[-1][1] >= -ceiling:
        cur.close()
        return db.bm25(query, limit)
    # Rows whose partial score cannot reach the limit-th even with every common word: out
    # (read in order, so the cursor stops at the first of them).
    cut = partial[-1][1] + ceiling
    scores = {int(r[0]): float(r[1]) for r in partial}
    for rowid, r in cur:
        if r >= cut:
            break
        scores[int(rowid)] = float(r)
    cur.close()
    both = f"({' OR '.join(rest)}) AND ({' OR '.join(common)})"
    for rowid, r in db.conn.execute(f"SELECT rowid, {_SCORE} FROM items_fts WHERE items_fts MATCH ?", (both,)):
        if int(rowid) in scores:
            scores[int(rowid)] = float(r)
    top = sorted(scores.items(), key=lambda kv: (kv[1], kv[0]))[:limit]
    return [(rowid, -r) for rowid, r in top]
