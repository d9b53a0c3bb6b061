"""The pending vectors' query (`index.vcache._PENDING`, read by every input's dedupe) is
driven from vec_pending since branch flat6, not a scan of items and passages: checked
against the former query on random tables (items, passages, pending labels of both,
hashes with and without a vector)."""

from __future__ import annotations

import sqlite3

from hypothesis import given, settings, strategies as st

from memfs.index.passages import PASSAGE_LABEL_BASE as BASE
from memfs.index.vcache import _PENDING

_FORMER = ("SELECT items.label, items.text_hash FROM items JOIN vec_pending ON vec_pending.label = items.label "
           "JOIN embeddings ON embeddings.text_hash = items.text_hash "
           f"UNION ALL SELECT passages.label + {BASE}, passages.text_hash FROM passages "
           f"JOIN vec_pending ON vec_pending.label = passages.label + {BASE} "
           "JOIN embeddings ON embeddings.text_hash = passages.text_hash ORDER BY 1")


@settings(max_examples=80, deadline=None)
@given(st.sets(st.integers(1, 40)), st.sets(st.integers(1, 40)), st.sets(st.integers(1, 40)),
       st.sets(st.integers(1, 40)), st.sets(st.integers(0, 12)))
def test_pending_rows_equal_the_former_query(items: set[int], passages: set[int], pend_items: set[int],
                                              pend_passages: set[int], vectors: set[int]) -> None:
    conn = sqlite3.connect(":memory:")
    conn.executescript("CREATE TABLE items (label INTEGER PRIMARY KEY AUTOINCREMENT, text_hash TEXT NOT NULL);"
                       "CREATE TABLE passages (label INTEGER PRIMARY KEY AUTOINCREMENT, text_hash TEXT NOT NULL);"
                       "CREATE TABLE vec_pending (label INTEGER PRIMARY KEY);"
                       "CREATE TABLE embeddings (text_hash TEXT PRIMARY KEY, vec BLOB NOT NULL) WITHOUT ROWID;")
    conn.executemany("INSERT INTO items VALUES (?, ?)", [(i, f"h{i % 13}") for i in items])
    conn.executemany("INSERT INTO passages VALUES (?, ?)", [(i, f"h{(i * 7) % 13}") for i in passages])
    conn.executemany("INSERT INTO vec_pending VALUES (?)", [(i,) for i in pend_items]
                     + [(i + BASE,) for i in pend_passages])
    conn.executemany("INSERT INTO embeddings VALUES (?, x'00')", [(f"h{v}",) for v in vectors])
    assert conn.execute(_PENDING).fetchall() == conn.execute(_FORMER).fetchall()
