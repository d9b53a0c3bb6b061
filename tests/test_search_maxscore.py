"""BM25 that skips the rows only common words match (memfs.index.bm25prune) returns what
the full query returns: the same rows, the same scores (to float rounding), in the same
order wherever scores differ."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memfs.index.bm25prune as bm25prune
from memfs.index.bm25prune import TermStats, bm25_items, split
from memfs.index.db import IndexDB, fts_query, text_hash
from memfs.index.itemrows import write_item_rows

@pytest.fixture(autouse=True)
def _small_corpora_split_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """These corpora are small (fast); the size below which no split is tried is not the point."""
    monkeypatch.setattr(bm25prune, "MIN_ROWS", 0)


RARE = ["kestrel", "osprey", "marten", "heron", "puffin", "wren", "ibis", "vole", "lynx", "otter"]
_ids = itertools.count()


def _db(path: Path, texts: list[tuple[str, str]]) -> IndexDB:
    """An index of these (text, context) rows, written as a sync writes them."""
    db = IndexDB(path)
    rows = []
    for text, context in texts:
        n = next(_ids)
        rows.append((f"i{n:06d}", "memory/a.md", "memory", "memory", "fact", text, None, None, 1, None, n + 1,
                     text_hash(text), None, None, context))
    with db.transaction() as c:
        write_item_rows(c, [], rows)
    return db


def _same(old: list[tuple[int, float]], new: list[tuple[int, float]]) -> None:
    assert len(new) == len(old)
    for (_, a), (_, b) in zip(old, new):
        assert abs(a - b) <= 1e-9 * max(1.0, abs(a))
    # Rows of one score may come in either order; the last score's rows may be cut anywhere.
    def groups(hits: list[tuple[int, float]]) -> dict[float, set[int]]:
        out: dict[float, set[int]] = {}
        for label, s in hits:
            out.setdefault(round(s, 9), set()).add(label)
        return out
    g_old, g_new = groups(old), groups(new)
    last = round(old[-1][1], 9) if old else None
    assert {k: v for k, v in g_old.items() if k != last} == {k: v for k, v in g_new.items() if k != last}


def _corpus(rng: random.Random, n: int) -> list[tuple[str, str]]:
    """Every row mentions Ines in its context (a chat about her); "went" is in most texts;
    a few rare words are spread thinly; texts vary in length (BM25's length term)."""
    out = []
    for i in range(n):
        words = ["went"] if rng.random() < 0.7 else ["stayed"]
        words += rng.sample(RARE, rng.choice([0, 1, 1, 2]))
        words += ["home"] * rng.randint(0, 3) + ["day"] * rng.randint(0, 6)
        rng.shuffle(words)
        out.append((" ".join(words) + f" note{i}", "Ines: said so" + (" and went" if rng.random() < 0.3 else "")))
    return out


def test_a_query_with_a_word_in_every_row_scores_only_the_rare_words_rows(tmp_path: Path) -> None:
    db = _db(tmp_path / "i.sqlite3", _corpus(random.Random(3), 1500))
    stats = TermStats().at(1)
    query = "Where did Ines go with the osprey, and went home?"
    parts = split(db, fts_query(query).split(" OR "), stats)  # type: ignore[union-attr]
    assert parts is not None and set(parts[1]) == {'"ines"', '"went"'} and parts[0] == ['"go"', '"osprey"', '"home"']
    old = db.bm25(query, 20)
    calls: list[str] = []
    db.bm25 = lambda q, k: calls.append(q) or []  # type: ignore[method-assign]  # the full query must not run
    new = bm25_items(db, query, 20, stats)
    assert calls == []
    _same(old, new)
    assert [lab for lab, _ in new] == [lab for lab, _ in old] or len({round(s, 9) for _, s in old}) < len(old)


def test_too_few_rare_rows_fall_back_to_the_full_query(tmp_path: Path) -> None:
    rows = _corpus(random.Random(4), 400)
    db = _db(tmp_path / "i.sqlite3", rows)
    stats = TermStats().at(1)
    query = "Ines went with the kestrel"
    old = db.bm25(query, 300)  # more places than kestrel's rows fill: rows with only "ines"/"went" too
    assert len(old) == 300
    _same(old, bm25_items(db, query, 300, stats))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), n=st.integers(30, 400), limit=st.integers(1, 60),
       words=st.lists(st.sampled_from(RARE + ["went", "ines", "home", "day", "stayed", "said", "zebra"]),
                      min_size=1, max_size=5, unique=True))
def test_the_pruned_ranking_is_the_full_ranking(tmp_path_factory: pytest.TempPathFactory, seed: int, n: int,
                                                  limit: int, words: list[str]) -> None:
    db = _db(tmp_path_factory.mktemp("ms") / "i.sqlite3", _corpus(random.Random(seed), n))
    try:
        query = " ".join(words)
        stats = TermStats().at(1)
        old = db.bm25(query, limit)
        for _ in range(bm25prune.EXACT_AFTER):  # analytic bounds first, exact ones once the words recur
            _same(old, bm25_items(db, query, limit, stats))
    finally:
        db.close()


def test_the_split_path_runs_and_agrees_across_corpora_and_limits(tmp_path: Path) -> None:
    pruned = 0
    for seed in range(6):
        db = _db(tmp_path / f"i{seed}.sqlite3", _corpus(random.Random(seed), 600))
        full = db.bm25
        stats = TermStats().at(1)  # kept across queries: exact bounds once a word recurs
        for query in ("Ines went home", "the kestrel Ines saw", "osprey and heron went home with Ines", "day home"):
            for limit in (1, 5, 40):
                calls: list[str] = []
                db.bm25 = lambda q, k: calls.append(q) or full(q, k)  # type: ignore[method-assign]
                new = bm25_items(db, query, limit, stats)
                pruned += not calls
                _same(full(query, limit), new)
        db.close()
    assert pruned >= 12  # most of these queries take the split path
    assert stats._ub  # noqa: SLF001 - and exact bounds were used


def test_words_the_index_lacks_change_nothing(tmp_path: Path) -> None:
    db = _db(tmp_path / "i.sqlite3", _corpus(random.Random(6), 300))
    stats = TermStats().at(1)
    for query in ("zebra quokka", "zebra kestrel", "zebra Ines went", "Ines went"):
        for _ in range(2):
            _same(db.bm25(query, 10), bm25_items(db, query, 10, stats))


def test_a_small_index_runs_the_full_query_without_counting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bm25prune, "MIN_ROWS", 1000)
    db = _db(tmp_path / "i.sqlite3", _corpus(random.Random(7), 300))
    stats = TermStats().at(1)
    assert bm25_items(db, "Ines went home", 5, stats) == db.bm25("Ines went home", 5)
    assert stats._df == {}  # noqa: SLF001


def test_counts_and_bounds_are_kept_per_data_version(tmp_path: Path) -> None:
    db = _db(tmp_path / "i.sqlite3", _corpus(random.Random(5), 200))
    stats = TermStats().at(1)
    before = stats.df(db, '"kestrel"'), stats.bound(db, '"kestrel"'), stats.rows(db)
    with db.transaction() as c:
        write_item_rows(c, [], [("new1", "memory/a.md", "memory", "memory", "fact", "kestrel kestrel", None, None, 1,
                                 None, 1, text_hash("kestrel kestrel"), None, None, "")])
    assert (stats.df(db, '"kestrel"'), stats.bound(db, '"kestrel"'), stats.rows(db)) == before  # same version: kept
    stats.at(2)
    after = stats.df(db, '"kestrel"'), stats.bound(db, '"kestrel"'), stats.rows(db)
    assert after[0] == before[0] + 1 and after[2] == before[2] + 1 and after[1] > before[1]
