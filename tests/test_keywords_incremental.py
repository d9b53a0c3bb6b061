"""index.md's per-file top words kept up to date (entry/keywords.Keywords) equal a
re-scoring of every file after any change of the files' word counts (issue #18 item 4:
a common word in a new input must not re-sort every file, and must not go stale)."""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memfs.entry.keywords import Keywords, grain

WORDS = [f"w{k}" for k in range(30)]


class _Pool:
    """The part of poolcache.Pool that Keywords.words reads: each file's word counts."""

    def __init__(self) -> None:
        self.files: dict[str, tuple[Counter[str], dict[str, Counter[str]]]] = {}

    def memo(self, path: str, key: tuple[Any, ...], compute: Any, delta: Any = None) -> Any:
        return self.files[path]


def _brute(files: dict[str, tuple[Counter[str], Any]], names: set[str], top: int = 5) -> dict[str, list[str]]:
    """Every file's top words scored from nothing: tf x log(1 + files / df), both at the idf's grain."""
    df: Counter[str] = Counter(w for c, _ in files.values() for w in c)
    n = grain(max(1, len(files)))
    return {p: sorted((w for w in c if w not in names),
                      key=lambda w: (-(c[w] * math.log(1 + n / grain(df[w]))), w))[:top]
            for p, (c, _) in files.items()}


def _counts(rng: random.Random) -> tuple[Counter[str], dict[str, Counter[str]]]:
    c = Counter({w: rng.randint(1, 4) for w in rng.sample(WORDS, rng.randint(0, 20))})
    return c, _forms(rng, c)


def _forms(rng: random.Random, c: Counter[str]) -> dict[str, Counter[str]]:
    """Each word's surface forms in one file: some written capitalised (index.md shows the
    form used most over all files, so another file's change can change a file's keywords)."""
    out = {}
    for w, k in c.items():
        up = rng.randint(0, k)
        out[w] = +Counter({w: k - up, w.capitalize(): up})
    return out


def _surface(files: dict[str, tuple[Counter[str], Any]], best: dict[str, list[str]]) -> dict[str, list[str]]:
    total: dict[str, Counter[str]] = {}
    for _, surf in files.values():
        for w, forms in surf.items():
            total.setdefault(w, Counter()).update(forms)
    return {p: [_most(total[w]) for w in words] for p, words in best.items()}


def _most(forms: Counter[str]) -> str:
    return sorted(forms.items(), key=lambda t: (-t[1], t[0]))[0][0]


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([5, 6, 8, 20]))
def test_top_words_equal_a_full_rescoring_after_any_changes(seed: int, kept: int) -> None:
    """`kept` small: a file's kept words run out past its bar, and it is re-sorted."""
    rng = random.Random(seed)
    pool, kw = _Pool(), Keywords(kept=kept)
    for k in range(rng.randint(1, 6)):
        pool.files[f"f{k}.md"] = _counts(rng)
    names = {"w0"} if rng.random() < 0.3 else set()
    for _ in range(8):
        got = kw.words(pool, sorted(pool.files), names, None, _most, None)  # type: ignore[arg-type]
        assert got == _surface(pool.files, _brute(pool.files, names))
        step = rng.random()
        if step < 0.6 and pool.files:  # one file's words change (a new input filed there)
            p = rng.choice(sorted(pool.files))
            c, surf = pool.files[p]
            c2 = Counter(c)
            for w in rng.sample(WORDS, rng.randint(1, 3)):
                c2[w] += 1
            for w in rng.sample(sorted(c2), min(len(c2), rng.randint(0, 2))):
                del c2[w]  # a word leaves the file: its df falls
            pool.files[p] = (c2, _forms(rng, c2))
        elif step < 0.8:
            pool.files[f"f{rng.randint(0, 9)}.md"] = _counts(rng)
        elif pool.files:
            del pool.files[rng.choice(sorted(pool.files))]


def test_a_common_new_word_does_not_resort_the_files_it_tops() -> None:
    """The 100k-item bench's case: a word entering a few files moves its df, and it is among
    the top words of most files. Their new top words come from the kept words, not a re-sort."""
    rng = random.Random(3)
    pool, kw = _Pool(), Keywords()
    vocab = [f"v{k}" for k in range(400)]
    for k in range(60):
        c = Counter({w: rng.randint(1, 3) for w in rng.sample(vocab, 80)})
        c["chat"] = 9  # everywhere, and the most frequent word of every file
        pool.files[f"f{k}.md"] = (c, {w: Counter({w: n}) for w, n in c.items()})
    for k in range(60, 120):  # files without it
        c = Counter({w: rng.randint(1, 3) for w in rng.sample(vocab, 80)})
        pool.files[f"f{k}.md"] = (c, {w: Counter({w: n}) for w, n in c.items()})
    kw.words(pool, sorted(pool.files), set(), None, lambda forms: max(forms), None)  # type: ignore[arg-type]
    sorts = 0
    full = kw._full

    def counting(*args: Any) -> Any:
        nonlocal sorts
        sorts += 1
        return full(*args)

    kw._full = counting  # type: ignore[method-assign]
    for k in range(60, 63):  # "chat" enters three more files
        c, surf = pool.files[f"f{k}.md"]
        c2 = Counter(c, chat=1)
        pool.files[f"f{k}.md"] = (c2, {w: Counter({w: n}) for w, n in c2.items()})
        got = kw.words(pool, sorted(pool.files), set(), None, lambda forms: max(forms), None)  # type: ignore[arg-type]
        assert got == _brute(pool.files, set())
    assert sorts == 3  # the changed file each time, none of the 60 that "chat" tops


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([5, 8, 20]))
def test_deferred_rescoring_stays_exact_over_long_runs(seed: int, kept: int) -> None:
    """flat5: a file none of whose top words rose in df is not re-scored, only told which of
    its kept words' scores went stale. Over long runs of rises (new inputs), with now and
    then a fall, a new file or a file's own change, the top words stay a full re-scoring's."""
    _long_run(seed, kept)


def test_the_deferral_is_exercised() -> None:
    assert sum(_long_run(seed, kept) for seed in range(10) for kept in (5, 20)) > 10


def _long_run(seed: int, kept: int) -> int:
    """Checks every step against a full re-scoring; returns how often a file was deferred."""
    rng = random.Random(seed)
    pool, kw = _Pool(), Keywords(kept=kept)
    for k in range(rng.randint(3, 8)):
        pool.files[f"f{k}.md"] = _counts(rng)
    deferred = 0
    for _ in range(40):
        got = kw.words(pool, sorted(pool.files), set(), None, _most, None)  # type: ignore[arg-type]
        assert got == _surface(pool.files, _brute(pool.files, set()))
        deferred += sum(len(v) for v in kw._pending.values())
        step = rng.random()
        p = rng.choice(sorted(pool.files))
        c, _ = pool.files[p]
        c2 = Counter(c)
        if step < 0.8:  # words enter one file: their df rises
            for w in rng.sample(WORDS, rng.randint(1, 2)):
                c2[w] += rng.randint(1, 3)
        elif step < 0.9 and c2:  # a word leaves a file: its df falls
            del c2[rng.choice(sorted(c2))]
        else:
            pool.files[f"f{rng.randint(0, 12)}.md"] = _counts(rng)
            continue
        pool.files[p] = (c2, _forms(rng, c2))
    return deferred


@given(st.integers(0, 10**9))
def test_the_idf_grain_is_exact_below_sixteen_and_within_an_eighth_above(k: int) -> None:
    g = grain(k)
    assert g == k if k < 16 else (g <= k < g + g / 8 + 1)
    assert grain(g) == g and grain(k + 1) >= g  # a step's floor, and never backwards


def test_a_common_word_entering_one_more_file_rescores_no_other_file_until_it_crosses_a_step() -> None:
    """At 100,000 items an input moved the df of the words every chat shares, and each move
    re-scored the hundreds of files that keep them; at the idf's grain only a step moves it."""
    rng = random.Random(5)
    pool, kw = _Pool(), Keywords()
    vocab = [f"v{k}" for k in range(300)]
    for k in range(300):
        c = Counter({w: rng.randint(1, 3) for w in rng.sample(vocab, 30)})
        if k < 200:
            c["turn"] = 9  # among the top words of 200 files: grain 192, the next step at 208
        pool.files[f"f{k}.md"] = (c, {w: Counter({w: n}) for w, n in c.items()})
    kw.words(pool, sorted(pool.files), set(), None, lambda forms: max(forms), None)  # type: ignore[arg-type]
    rescored: list[int] = []
    moved = kw._moved

    def counting(*args: Any) -> Any:
        rescored.append(1)
        return moved(*args)

    kw._moved = counting  # type: ignore[method-assign]
    for k in range(200, 212):  # "turn" enters files 200..211: df 201..212, crossing 208 once
        c, _ = pool.files[f"f{k}.md"]
        c2 = Counter(c, turn=1)
        pool.files[f"f{k}.md"] = (c2, {w: Counter({w: n}) for w, n in c2.items()})
        before = len(rescored)
        got = kw.words(pool, sorted(pool.files), set(), None, lambda forms: max(forms), None)  # type: ignore[arg-type]
        assert got == _brute(pool.files, set())
        if k + 1 != 208:  # df k + 1 crosses no step (192 up to 207, then 208): nothing re-scored
            assert len(rescored) == before, k + 1
    assert rescored  # the step at 208 did re-score the files whose top words it moved


# --- a whole file counted at once (indexfile._count_file) ---------------------------------

_TOKENS = st.sampled_from(["Leeds", "leeds", "LEEDS", "the", "and", "Postgres", "postgres", "k8s", "C++", "c#",
                           "2026", "a", "is", "go", "went", "billing", "Billing", "node.js", "e-mail", "x"])


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(st.lists(_TOKENS, max_size=12).map(" ".join), max_size=15))
def test_a_whole_file_counted_at_once_equals_counting_item_by_item(texts: list[str]) -> None:
    """The fast path of a fresh count gives the item-by-item loop's counts, keys in the same order."""
    from memfs.entry.indexfile import count_words
    from memfs.entry.pool import EntryItem

    items = [EntryItem(id=f"i{k}", text=t, type="knowledge", when=None, src=None, seen=1, updated=None,
                       path="index/x.md", line=k + 1) for k, t in enumerate(texts)]
    fast = count_words(items)
    slow = count_words(items, 1, (Counter(), {}, set()))  # the loop (`into` given, empty)
    assert fast == slow
    assert list(fast[0]) == list(slow[0]) and list(fast[1]) == list(slow[1])
    assert all(list(fast[1][w]) == list(slow[1][w]) for w in fast[1])
