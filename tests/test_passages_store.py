"""Passage text at rest (memfs.index.ptext): compressed rows, a contentless FTS5 kept in
step by the sync, and the in-place migration of an index built with plain text."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

from memfs.index.db import SCHEMA_VERSION, IndexDB
from memfs.index.ptext import pack, unpack
from tests.conftest import hashing_memory
from tests.support.cli import MEMFS
from tests.support.cli import env as support_env
from tests.support.oldlayout import to_schema5

NOTE = """# Harbour

The harbour crane was serviced by the zanzibar crew in the spring, after the storm.
Its hydraulic pump had leaked for weeks and the crew replaced every seal.

## Tides

Spring tides reach four metres at the north quay; small boats wait for the ebb.
"""


def _write(ws: Path, text: str) -> Path:
    path = ws / "index" / "ports" / "harbour.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _recall(ws: Path, query: str) -> list[dict]:
    out = subprocess.run(MEMFS + ["recall", query, "--json"], cwd=ws, env=support_env(), capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_pack_round_trips_and_old_plain_rows_read_as_they_are() -> None:
    text = "Überall — the crane's pump, 5 seals. " * 20
    assert unpack(pack(text)) == text and len(pack(text)) < len(text.encode()) // 3
    assert unpack("a row written before compression") == "a row written before compression"


def test_passage_text_is_stored_compressed_and_recalled_plain(ws_path: Path) -> None:
    _write(ws_path, NOTE)
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        rows = mem.indexer.db.conn.execute("SELECT typeof(text), text FROM passages").fetchall()
        assert len(rows) == 2 and {t for t, _ in rows} == {"blob"}
        assert any("zanzibar crew" in unpack(v) for _, v in rows)
        fts = mem.indexer.db.conn.execute("SELECT sql FROM sqlite_master WHERE name='passages_fts'").fetchone()[0]
        assert "content=''" in fts
    finally:
        mem.close()
    hit = next(h for h in _recall(ws_path, "zanzibar crew hydraulic pump") if h["hit"] == "passage")
    assert hit["text"].startswith("The harbour crane was serviced by the zanzibar crew")


def test_an_edited_or_removed_paragraph_leaves_the_keyword_index(ws_path: Path) -> None:
    path = _write(ws_path, NOTE)
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        db = mem.indexer.db
        assert db.bm25_passages("zanzibar", 10)
        path.write_text(NOTE.replace("the zanzibar crew", "the night crew"), encoding="utf-8")
        mem.sync()
        assert db.bm25_passages("zanzibar", 10) == [] and db.bm25_passages("night", 10)
        path.write_text("# Harbour\n", encoding="utf-8")
        mem.sync()
        assert db.bm25_passages("night", 10) == [] and db.bm25_passages("tides quay", 10) == []
        assert db.conn.execute("SELECT count(*) FROM passages").fetchone()[0] == 0
        db.conn.execute("INSERT INTO passages_fts(passages_fts) VALUES('integrity-check')")
    finally:
        mem.close()


def test_an_index_with_plain_passage_text_migrates_in_place(ws_path: Path) -> None:
    _write(ws_path, NOTE)
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        before = mem.indexer.db.conn.execute("SELECT label, id, text_hash FROM passages ORDER BY label").fetchall()
        vectors = mem.indexer.db.conn.execute("SELECT count(*) FROM embeddings").fetchone()[0]
    finally:
        mem.close()
    db_path = ws_path / ".memfs" / "index.sqlite3"
    to_schema5(db_path, compacted=True)
    old = sqlite3.connect(db_path)
    assert {r[0] for r in old.execute("SELECT typeof(text) FROM passages")} == {"text"}
    old.close()
    # A reader of the old layout (no migration: it runs no DDL) still finds and shows passages.
    reader = IndexDB(db_path, readonly=True)
    try:
        labels = [label for label, _ in reader.bm25_passages("zanzibar", 10)]
        assert labels and "zanzibar crew" in reader.passages_by_labels(labels)[labels[0]].text
    finally:
        reader.close()
    db = IndexDB(db_path)
    try:
        c = db.conn
        assert c.execute("SELECT label, id, text_hash FROM passages ORDER BY label").fetchall() == before
        assert {r[0] for r in c.execute("SELECT typeof(text) FROM passages")} == {"blob"}
        assert not c.execute("SELECT name FROM sqlite_master WHERE name IN ('passages_ai', 'passages_ad')").fetchall()
        assert c.execute("SELECT count(*) FROM embeddings").fetchone()[0] == vectors  # nothing to re-embed
        assert db.get_meta("compacted") is None  # the next sync repacks the file once
        # A number of its own, so an older memfs rebuilds this layout rather than writing
        # its triggers (and plain text) into a contentless table.
        assert db.get_meta("schema") == SCHEMA_VERSION == "7"  # 6 was this layout; 7 (memfs.index.seenindex) converts it too
        assert db.bm25_passages("zanzibar", 10)
    finally:
        db.close()
    mem = hashing_memory(ws_path)
    try:
        report = mem.sync()
        assert report.embedded == 0
    finally:
        mem.close()
    assert any(h["hit"] == "passage" and "zanzibar" in h["text"] for h in _recall(ws_path, "zanzibar crew"))


def test_a_passage_filled_after_the_write_gets_the_vector_of_its_heading_and_text(ws_path: Path) -> None:
    """The vector backfill (vectors after the write) embeds what the sync embeds and the key
    names: "heading: text" — not the bare paragraph under another text's key."""
    from memfs.core.hashing import text_hash
    from memfs.index.vecfill_store import without_vectors

    _write(ws_path, NOTE)
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        db = mem.indexer.db  # as a write whose vectors come after leaves them
        db.conn.execute("DELETE FROM embeddings WHERE text_hash IN (SELECT text_hash FROM passages)")
        texts, _, labels = without_vectors(db, 100)
        assert labels and texts
        assert all(text_hash(text) == h for h, text in texts.items())
        assert any(text.startswith("Harbour > Tides: Spring tides") or text.startswith("Tides: Spring tides")
                   for text in texts.values()), list(texts.values())
    finally:
        mem.close()
