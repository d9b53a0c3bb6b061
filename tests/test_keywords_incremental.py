"""index.md's per-file top words kept up to date (entry/incremental.Keywords) equal a
re-scoring of every file after any change of the files' word counts (issue #18 item 4:
a common word in a new input must not re-sort every file, and must not go stale)."""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memfs.entry.incremental import Keywords

WORDS = [f"w{k}" for k in range(14)]


class _Pool:
    """The part of poolcache.Pool that Keywords.words reads: each file's word counts."""

    def __init__(self) -> None:
        self.files: dict[str, tuple[Counter[str], dict[str, Counter[str]]]] = {}

    def memo(self, path: str, key: tuple[Any, ...], compute: Any, delta: Any = None) -> Any:
        return self.files[path]


def _brute(files: dict[str, tuple[Counter[str], Any]], names: set[str], top: int = 5) -> dict[str, list[str]]:
    df: Counter[str] = Counter(w for c, _ in files.values() for w in c)
    n = max(1, len(files))
    return {p: sorted((w for w in c if w not in names), key=lambda w: (-(c[w] * math.log(1 + n / df[w])), w))[:top]
            for p, (c, _) in files.items()}


def _counts(rng: random.Random) -> tuple[Counter[str], dict[str, Counter[str]]]:
    c = Counter({w: rng.randint(1, 4) for w in rng.sample(WORDS, rng.randint(0, 9))})
    return c, {w: Counter({w: k}) for w, k in c.items()}


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 10**6))
def test_top_words_equal_a_full_rescoring_after_any_changes(seed: int) -> None:
    rng = random.Random(seed)
    pool, kw = _Pool(), Keywords()
    for k in range(rng.randint(1, 6)):
        pool.files[f"f{k}.md"] = _counts(rng)
    names = {"w0"} if rng.random() < 0.3 else set()
    for _ in range(8):
        got = kw.words(pool, sorted(pool.files), names, None, lambda forms: max(forms), None)  # type: ignore[arg-type]
        assert got == _brute(pool.files, names)
        step = rng.random()
        if step < 0.6 and pool.files:  # one file's words change (a new input filed there)
            p = rng.choice(sorted(pool.files))
            c, surf = pool.files[p]
            c2 = Counter(c)
            for w in rng.sample(WORDS, rng.randint(1, 3)):
                c2[w] += 1
            pool.files[p] = (c2, {w: Counter({w: k}) for w, k in c2.items()})
        elif step < 0.8:
            pool.files[f"f{rng.randint(0, 9)}.md"] = _counts(rng)
        elif pool.files:
            del pool.files[rng.choice(sorted(pool.files))]
