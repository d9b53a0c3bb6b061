"""The SQLite half of `.memfs/` (memfs/index/db.py) on real files: schema and meta, the FTS5
mirror kept by triggers, chunked lookups, the embedding cache, transactions, a read-only
reader that runs no DDL, and the healing of foreign or older files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from memfs.index.db import SCHEMA_VERSION, IndexDB, fts_query, text_hash


def _insert(db: IndexDB, item_id: str, text: str, path: str = "memory/profile.md", context: str = "") -> int:
    cur = db.conn.execute(
        'INSERT INTO items(id, path, category, kind, type, text, "when", src, seen, updated, line, text_hash, '
        "context) VALUES (?, ?, 'profile', 'memory', 'profile', ?, NULL, NULL, 1, NULL, 1, ?, ?)",
        (item_id, path, text, text_hash(text), context))
    return int(cur.lastrowid)


@pytest.fixture
def db(tmp_path: Path) -> IndexDB:
    d = IndexDB(tmp_path / ".memfs" / "index.sqlite3")
    yield d
    d.close()


def test_a_new_index_has_the_schema_and_wal(db: IndexDB) -> None:
    assert db.get_meta("schema") == SCHEMA_VERSION
    assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with db.transaction():
        db.set_meta("k", "1")
        db.set_meta("k", "2")  # upsert, not a second row
    assert db.get_meta("k") == "2" and db.get_meta("missing") is None


def test_fts_follows_inserts_updates_and_deletes(db: IndexDB) -> None:
    with db.transaction():
        tea = _insert(db, "a1", "Alice prefers green tea in the morning.")
        _insert(db, "b2", "Bob repaired the garden fence.", context="10 July 2022")
    assert [label for label, _ in db.bm25("green tea", 5)] == [tea]
    assert db.bm25("July", 5) and db.bm25("?!", 5) == []  # the context column is searched; no words: no query
    with db.transaction():
        db.conn.execute("UPDATE items SET text=? WHERE id='a1'", ("Alice prefers black coffee.",))
    assert db.bm25("green tea", 5) == [] and [lb for lb, _ in db.bm25("coffee", 5)] == [tea]
    with db.transaction():
        db.conn.execute("DELETE FROM items WHERE id='a1'")
    assert db.bm25("coffee", 5) == [] and db.count_items() == 1


def test_fts_query_is_safe_and_drops_noise() -> None:
    assert fts_query('the "quoted" AND NEAR(x) tea') == '"quoted" OR "near" OR "tea"'
    assert fts_query("a I s") == '"a" OR "i" OR "s"'  # only short words: kept rather than nothing
    assert fts_query("Ines's dog") == '"ines" OR "dog"'
    assert fts_query("!!! ...") is None


def test_lookups_past_sqlites_variable_limit(db: IndexDB) -> None:
    with db.transaction():
        labels = [_insert(db, f"id{n}", f"fact number {n}") for n in range(1200)]
    by_id = db.items_by_ids([f"id{n}" for n in range(1200)] + ["nope"])
    assert len(by_id) == 1200 and by_id["id7"].text == "fact number 7"
    by_label = db.items_by_labels(labels[::2])
    assert len(by_label) == 600 and by_label[labels[2]].id == "id2"
    assert [r.id for r in db.all_items()][:2] == ["id0", "id1"]


def test_embedding_cache_and_labeled_vectors(db: IndexDB) -> None:
    v = np.arange(4, dtype=np.float32) / 10
    with db.transaction():
        label = _insert(db, "a1", "Alice drinks tea.")
        _insert(db, "b2", "Bob has no vector yet.")
        db.store_vectors([(text_hash("Alice drinks tea."), v)])
    cached = db.cached_vectors([text_hash("Alice drinks tea."), "unknown"])
    assert list(cached) == [text_hash("Alice drinks tea.")] and np.allclose(cached[text_hash("Alice drinks tea.")], v, atol=0.3 / 254 + 1e-6)
    labels, mat = db.labeled_vectors()
    assert labels.tolist() == [label] and mat.shape == (1, 4) and np.allclose(mat[0], v, atol=0.3 / 254 + 1e-6)  # stored as int8 (memfs.index.quant)
    assert db.labeled_vectors(pending_only=True)[0].tolist() == []
    with db.transaction():
        db.conn.execute("INSERT INTO vec_pending(label) VALUES (?)", (label,))
    assert db.labeled_vectors(pending_only=True)[0].tolist() == [label]


def test_a_failed_transaction_leaves_nothing(db: IndexDB) -> None:
    with pytest.raises(RuntimeError):
        with db.transaction():
            _insert(db, "a1", "half a change")
            raise RuntimeError("crash")
    assert db.count_items() == 0 and db.bm25("change", 5) == []


def test_a_reader_runs_no_ddl_and_cannot_write(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    writer = IndexDB(path)
    with writer.transaction():
        _insert(writer, "a1", "Alice drinks tea.")
    writer.close()
    schema = sqlite3.connect(path).execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall()
    reader = IndexDB(path, readonly=True)
    try:
        assert reader.count_items() == 1 and reader.bm25("tea", 3)
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            reader.conn.execute("INSERT INTO meta(key, value) VALUES ('x', 'y')")
    finally:
        reader.close()
    assert sqlite3.connect(path).execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall() == schema
    with pytest.raises(sqlite3.OperationalError):
        IndexDB(tmp_path / "missing.sqlite3", readonly=True)  # a reader creates no file
    assert not (tmp_path / "missing.sqlite3").exists()


def test_a_foreign_database_is_moved_aside_not_used(tmp_path: Path) -> None:
    path = tmp_path / ".memfs" / "index.sqlite3"
    path.parent.mkdir()
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE accounts (owner TEXT)")
    other.execute("INSERT INTO accounts VALUES ('someone else')")
    other.commit()
    other.close()
    db = IndexDB(path)
    try:
        assert db.get_meta("schema") == SCHEMA_VERSION and db.count_items() == 0
    finally:
        db.close()
    moved = list((tmp_path / ".memfs" / "damaged").rglob("index.sqlite3"))
    assert len(moved) == 1
    assert sqlite3.connect(moved[0]).execute("SELECT owner FROM accounts").fetchall() == [("someone else",)]


def test_an_older_schema_is_rebuilt_but_keeps_the_embedding_cache(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    db = IndexDB(path)
    with db.transaction():
        _insert(db, "a1", "Alice drinks tea.")
        db.store_vectors([("h1", np.ones(3, dtype=np.float32))])
        db.set_meta("embedder", "hashing:256")
        db.set_meta("schema", "0")  # as an older memfs left it
        db.set_meta("index_version", "7")
    db.close()
    db = IndexDB(path)
    try:
        assert db.get_meta("schema") == SCHEMA_VERSION and db.count_items() == 0  # items: rebuilt from Markdown
        assert db.get_meta("index_version") is None and db.get_meta("embedder") == "hashing:256"
        assert list(db.cached_vectors(["h1"])) == ["h1"]  # re-embedding is the costly part: kept
    finally:
        db.close()
