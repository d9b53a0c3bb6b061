"""The index's side of vectors added after the write (memfs.pipeline.vecfill).

An ingest writes most new items before they have a vector: they are found by keyword
(FTS5) at once and by meaning once `vecfill` has embedded them. Two things are pending:

- an item (or passage) whose text has no row in `embeddings` (found by a join, so a
  crash between the item's write and its vector needs no bookkeeping: the next run sees
  the gap);
- an item whose near-duplicate check by vector is still to be made (`dedupe_marks`,
  marked before the item is written, dropped once checked). A lost `.memfs/` loses the
  marks only: such items stay as filed, with their vectors computed by the rebuild.

A one-shot `memfs add` into a named category leaves its item's vector for later too (no
mark: `memfs add` reinforces exact duplicates only). It sets `vectors_owed` in the meta
table, so the next sync or recall fills it (`owe_vectors`, `owes_vectors`, `settle_owed`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memfs.index import ptext
from memfs.index.db import IndexDB, ItemRow
from memfs.index.passages import PASSAGE_LABEL_BASE

if TYPE_CHECKING:
    import numpy as np

    from memfs.index.sync import Indexer

#: Meta key: "1" while a one-shot add's vector may still be missing (see the module's doc).
OWED_KEY = "vectors_owed"

#: A mark keeps the hash of the text as memfs wrote it and the file it went to: the check
#: after the write merges only a line that still says exactly that, where memfs put it (a
#: person's edit or move in between wins; issue #10). `merge_into` is the merge in progress:
#: "?<id>" before its target is reinforced, "<id>" once it is (only the removal is left),
#: so a merge resumed after a crash or a refused removal never reinforces twice.
_TABLE = ("CREATE TABLE IF NOT EXISTS dedupe_marks (id TEXT PRIMARY KEY, text_hash TEXT NOT NULL, "
          "path TEXT, merge_into TEXT)")
_COLUMNS = ("path", "merge_into")


def ensure(db: IndexDB) -> None:
    """Create the marks table, or add the columns a previous memfs's table lacks (a writer
    only; readers never change the schema)."""
    db.conn.execute(_TABLE)
    have = {r[1] for r in db.conn.execute("PRAGMA table_info(dedupe_marks)")}
    for col in _COLUMNS:
        if col not in have:
            db.conn.execute(f"ALTER TABLE dedupe_marks ADD COLUMN {col} TEXT")


def _exists(db: IndexDB) -> bool:
    return db.conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='dedupe_marks'").fetchone() is not None


def mark(db: IndexDB, marks: dict[str, str]) -> None:
    """Items about to be written (id -> hash of the text written) whose vector
    near-duplicate check comes after the write."""
    if not marks:
        return
    with db.transaction() as c:
        ensure(db)
        c.executemany("INSERT OR IGNORE INTO dedupe_marks(id, text_hash) VALUES(?, ?)", list(marks.items()))


def mark_paths(db: IndexDB, paths: dict[str, str]) -> None:
    """The file each marked item is about to be written to (id -> path): a line found
    elsewhere at its check was moved by a person, and stays."""
    if paths and _exists(db):
        with db.transaction() as c:
            ensure(db)
            c.executemany("UPDATE dedupe_marks SET path=? WHERE id=?", [(p, i) for i, p in paths.items()])


def set_into(db: IndexDB, item_id: str, into: str | None) -> None:
    """Record the merge in progress of a marked item (see `_TABLE`)."""
    with db.transaction() as c:
        ensure(db)
        c.execute("UPDATE dedupe_marks SET merge_into=? WHERE id=?", (into, item_id))


def mark_state(db: IndexDB, ids: list[str]) -> dict[str, tuple[str | None, str | None]]:
    """(path written to, merge in progress) of each of these marked ids."""
    if not ids or not _exists(db):
        return {}
    have = {r[1] for r in db.conn.execute("PRAGMA table_info(dedupe_marks)")}
    if not set(_COLUMNS) <= have:
        return {}
    marks = ",".join("?" * len(ids))
    return {r[0]: (r[1], r[2]) for r in db.conn.execute(
        f"SELECT id, path, merge_into FROM dedupe_marks WHERE id IN ({marks})", ids)}


def marked_ids(db: IndexDB, ids: list[str]) -> set[str]:
    """Which of these item ids are marked (their check still owed)."""
    if not ids or not _exists(db):
        return set()
    marks = ",".join("?" * len(ids))
    return {r[0] for r in db.conn.execute(f"SELECT id FROM dedupe_marks WHERE id IN ({marks})", ids)}


def unmark(db: IndexDB, ids: list[str]) -> None:
    if ids and _exists(db):
        db.conn.executemany("DELETE FROM dedupe_marks WHERE id=?", [(i,) for i in ids])


def marked(db: IndexDB, limit: int) -> tuple[list[ItemRow], list[str], dict[str, str]]:
    """(indexed rows of marked items, in the order they were marked; marks whose item is
    not indexed yet; the hash of each marked item's text as written).

    Mark order is the order the facts were deduplicated in (an input's facts in turn
    order, inputs in the order taken), i.e. the order an embed-first ingest decides them
    in; labels are not: an input's new items are numbered file by file, and a rebuild
    renumbers everything."""
    if not _exists(db):
        return [], [], {}
    written = dict(db.conn.execute("SELECT id, text_hash FROM dedupe_marks ORDER BY rowid LIMIT ?", (limit,)))
    rows = db.items_by_ids(list(written))
    return [rows[i] for i in written if i in rows], [i for i in written if i not in rows], written


def count_marked(db: IndexDB) -> int:
    if not _exists(db):
        return 0
    return int(db.conn.execute("SELECT count(*) FROM dedupe_marks").fetchone()[0])


def without_vectors(db: IndexDB, limit: int) -> tuple[dict[str, str], list[str], list[int]]:
    """Up to `limit` texts with no vector: (text by hash, item ids, passage vector labels)."""
    texts: dict[str, str] = {}
    ids: list[str] = []
    labels: list[int] = []
    for item_id, h, text in db.conn.execute(
            "SELECT items.id, items.text_hash, items.text FROM items LEFT JOIN embeddings "
            "ON embeddings.text_hash = items.text_hash WHERE embeddings.text_hash IS NULL "
            "ORDER BY items.label LIMIT ?", (limit,)):
        texts.setdefault(h, text)
        ids.append(item_id)
    room = limit - len(ids)
    if room > 0:
        for label, h, head, text in db.conn.execute(
                "SELECT passages.label, passages.text_hash, passages.heading, passages.text FROM passages "
                "LEFT JOIN embeddings ON embeddings.text_hash = passages.text_hash "
                "WHERE embeddings.text_hash IS NULL ORDER BY passages.label LIMIT ?", (room,)):
            body = ptext.unpack(text)  # what the hash names: the heading path and the text (Passage.search_text)
            texts.setdefault(h, f"{head}: {body}" if head else body)
            labels.append(int(label) + PASSAGE_LABEL_BASE)
    return texts, ids, labels


def count_without_vectors(db: IndexDB) -> int:
    """Items and passages whose text has no vector yet (what `status` could show)."""
    q = ("SELECT (SELECT count(*) FROM items LEFT JOIN embeddings ON embeddings.text_hash = items.text_hash "
         "WHERE embeddings.text_hash IS NULL) + (SELECT count(*) FROM passages LEFT JOIN embeddings "
         "ON embeddings.text_hash = passages.text_hash WHERE embeddings.text_hash IS NULL)")
    return int(db.conn.execute(q).fetchone()[0])


def marked_among(db: IndexDB, labels: list[int]) -> set[int]:
    """Which of these item labels are marked (their own check still to come): asked per
    candidate, so a check costs the same whatever the backlog."""
    if not labels or not _exists(db):
        return set()
    marks = ",".join("?" * len(labels))
    return {int(r[0]) for r in db.conn.execute(
        f"SELECT items.label FROM items JOIN dedupe_marks ON dedupe_marks.id = items.id "
        f"WHERE items.label IN ({marks})", [int(x) for x in labels])}


def store_filled(indexer: "Indexer", fresh: list[tuple[str, np.ndarray]], ids: list[str],
                 passage_labels: list[int]) -> None:
    """Store vectors computed after the write; the items and passages whose text they are
    join the hnsw sidecar's pending delta (or the exact matrix, which readers reload)."""
    from memfs.index.syncplan import _Plan

    db = indexer.db
    if fresh:
        with db.transaction():
            db.store_vectors(fresh)
    if ids or passage_labels:
        plan = _Plan(vector_labels=set(ids), passage_labels=list(passage_labels))
        indexer._update_sidecar(plan, dict(fresh), rebuild_all=False)


def has_marks(db: IndexDB) -> bool:
    """Any near-duplicate check left for after a write? (Cheap: a sync asks every time.)
    Marks go before the write and leave only after the item's vector is stored, so no
    mark means no item an ingest left without a vector."""
    return _exists(db) and db.conn.execute("SELECT 1 FROM dedupe_marks LIMIT 1").fetchone() is not None


def owe_vectors(db: IndexDB) -> None:
    """Record that an item was written without its vector: the next sync (or a recall,
    which syncs first) embeds what has none (memfs.services.reindex)."""
    with db.transaction():
        db.set_meta(OWED_KEY, "1")


def owes_vectors(db: IndexDB) -> bool:
    return db.get_meta(OWED_KEY) == "1"


def settle_owed(db: IndexDB) -> None:
    """Every item has its vector again (a fill ran to its end)."""
    if owes_vectors(db):
        with db.transaction():
            db.set_meta(OWED_KEY, "0")
