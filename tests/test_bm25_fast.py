"""BM25 from the postings sidecar (memfs.index.bm25fast) is FTS5's bm25(): the same rows,
the same doubles, the same order (ties by label), before and after rows change since the
sidecar's snapshot; a damaged, foreign or stale sidecar is never served."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfs.index import postings, postings_sync
from memfs.index.bm25fast import FastBM25
from memfs.index.db import CONTEXT_WEIGHT, IndexDB
from memfs.index.itemrows import write_item_rows
from memfs.core.hashing import text_hash

_ids = itertools.count()
WORDS = ["went", "home", "day", "kestrel", "osprey", "running", "runs", "ran", "Café", "cafe", "naïve",
         "Ines", "Ines's", "über", "x", "priya", "tea", "coffee", "drinks", "drank", "12", "2026-01-03"]


def _rows(texts: list[tuple[str, str, str]]) -> list[tuple]:  # type: ignore[type-arg]
    out = []
    for text, category, context in texts:
        n = next(_ids)
        out.append((f"i{n:07d}", f"{category}/a.md", category, "memory", "fact", text, None, None, 1, None, n + 1,
                    text_hash(text), None, None, context))
    return out


def _db(tmp: Path, texts: list[tuple[str, str, str]]) -> IndexDB:
    db = IndexDB(tmp / "index.sqlite3")
    with db.transaction() as c:
        write_item_rows(c, [], _rows(texts))
    return db


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _corpus(rng: random.Random, n: int) -> list[tuple[str, str, str]]:
    cats = ["memory", "people", "kestrel", "home"]
    return [(_text(rng, rng.randint(1, 12)), rng.choice(cats), _text(rng, rng.randint(0, 8))) for _ in range(n)]


def _built(tmp: Path, db: IndexDB) -> FastBM25:
    assert postings_sync.maintain(db, tmp, force=True)
    return FastBM25(tmp)


def _version(db: IndexDB) -> object:
    c = db.conn
    return (c.execute("PRAGMA data_version").fetchone()[0], c.total_changes)


def _check(db: IndexDB, fast: FastBM25, query: str, limit: int) -> None:
    with db.snapshot():
        got = fast.ranked(db, query, limit, _version(db))
        want = db.bm25(query, limit)
    assert got is not None
    assert got == want  # exact: same labels, same doubles, same order


def test_weights_are_the_ones_search_uses() -> None:
    assert postings.WEIGHTS == (1.0, 0.3, CONTEXT_WEIGHT)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), n=st.integers(1, 120), limit=st.integers(1, 60),
       qwords=st.lists(st.sampled_from(WORDS + ["nothing", "Who", "the"]), min_size=1, max_size=6))
def test_same_ranking_as_fts5_on_random_corpora(tmp_path_factory: pytest.TempPathFactory, seed: int, n: int,
                                                limit: int, qwords: list[str]) -> None:
    tmp = tmp_path_factory.mktemp("c")
    rng = random.Random(seed)
    db = _db(tmp, _corpus(rng, n))
    fast = _built(tmp, db)
    _check(db, fast, " ".join(qwords) + "?", limit)
    db.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), ops=st.lists(st.sampled_from(["add", "delete", "update"]), min_size=1,
                                                 max_size=12))
def test_rows_changed_since_the_snapshot_are_scored_exactly(tmp_path_factory: pytest.TempPathFactory, seed: int,
                                                            ops: list[str]) -> None:
    tmp = tmp_path_factory.mktemp("d")
    rng = random.Random(seed)
    db = _db(tmp, _corpus(rng, 60))
    fast = _built(tmp, db)
    queries = [_text(rng, rng.randint(1, 4)) for _ in range(4)]
    for op in ops:
        labels = [r[0] for r in db.conn.execute("SELECT label FROM items")]
        with db.transaction() as c:
            if op == "add" or not labels:
                write_item_rows(c, [], _rows(_corpus(rng, rng.randint(1, 5))))
            elif op == "delete":
                c.execute("DELETE FROM items WHERE label=?", (rng.choice(labels),))
            else:
                c.execute("UPDATE items SET text=?, context=? WHERE label=?",
                          (_text(rng, rng.randint(1, 9)), _text(rng, 3), rng.choice(labels)))
        for q in queries:
            _check(db, fast, q, 25)
    db.close()


def test_ties_go_to_the_lower_label_as_in_fts5(tmp_path: Path) -> None:
    db = _db(tmp_path, [("kestrel seen", "memory", "")] * 30 + [("kestrel kestrel", "memory", "")] * 5)
    fast = _built(tmp_path, db)
    for limit in (1, 3, 7, 12, 40):
        _check(db, fast, "kestrel", limit)


def test_a_damaged_sidecar_is_not_served_and_the_next_sync_rebuilds_it(tmp_path: Path) -> None:
    db = _db(tmp_path, _corpus(random.Random(1), 50))
    assert postings_sync.maintain(db, tmp_path, force=True)
    path = tmp_path / postings.FILE_NAME
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF
    path.write_bytes(bytes(data))
    fast = FastBM25(tmp_path)
    with db.snapshot():
        assert fast.ranked(db, "kestrel home", 10, _version(db)) is None  # FTS5 answers instead
    with pytest.raises(postings.PostingsError):
        postings.load(tmp_path)


def test_a_sidecar_of_another_generation_is_not_served(tmp_path: Path) -> None:
    db = _db(tmp_path, _corpus(random.Random(2), 50))
    assert postings_sync.maintain(db, tmp_path, force=True)
    with db.transaction():
        db.set_meta("bm25_generation", "7")
    with db.snapshot():
        assert FastBM25(tmp_path).ranked(db, "kestrel home", 10, _version(db)) is None


def test_a_log_that_disagrees_with_fts5_is_not_served(tmp_path: Path) -> None:
    db = _db(tmp_path, _corpus(random.Random(3), 50))
    fast = _built(tmp_path, db)
    with db.transaction() as c:
        write_item_rows(c, [], _rows([("kestrel osprey", "memory", "")]))
        c.execute("DELETE FROM bm25_changed")  # a change the log lost
    with db.snapshot():
        assert fast.ranked(db, "kestrel", 10, _version(db)) is None


def test_a_phrase_of_several_tokens_goes_to_fts5(tmp_path: Path) -> None:
    db = _db(tmp_path, [("snake_case words", "memory", "")] * 3)
    fast = _built(tmp_path, db)
    with db.snapshot():
        assert fast.ranked(db, "snake_case", 10, _version(db)) is None


def test_an_empty_index_builds_or_declines_without_error(tmp_path: Path) -> None:
    db = _db(tmp_path, [])
    postings_sync.maintain(db, tmp_path, force=True)  # no averages record yet: declines
    with db.transaction() as c:
        write_item_rows(c, [], _rows([("kestrel", "memory", "")]))
        c.execute("DELETE FROM items")
    assert postings_sync.maintain(db, tmp_path, force=True)  # zero rows, an averages record
    with db.snapshot():
        assert FastBM25(tmp_path).ranked(db, "kestrel", 10, _version(db)) in (None, [])


def test_gaps_past_one_byte_decode(tmp_path: Path) -> None:
    rows = [("kestrel" if i % 700 == 0 else "osprey", "memory", "") for i in range(3000)]
    db = _db(tmp_path, rows)
    fast = _built(tmp_path, db)
    assert postings.load(tmp_path).gap_exc.size > 0  # kestrel's rows are 700 apart
    for limit in (3, 100):
        _check(db, fast, "kestrel osprey", limit)
