"""The SQLite half of `.memfs/`: files manifest, items, FTS5 (BM25), embedding cache.

WAL mode lets any number of readers work from a consistent snapshot while one writer
commits, so `memfs recall` never blocks on a sync and never sees half an update.
Everything here is derived from the Markdown and can be thrown away (invariant 1).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memfs.core.lazynp import lazy_numpy
from memfs.core.hashing import text_hash  # noqa: F401 - importable from here, as before
from memfs.index import layout, ptext, quant
from memfs.index.passages import PASSAGE_LABEL_BASE
from memfs.index.heal import IndexDamaged, file_id, heal_lock, is_damage, move_aside, notice, probe
from memfs.index.readonly import connect_readonly  # also imported from here by others

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_numpy(globals())  # imported on first use (core/lazynp.py)

#: 6: passage text compressed, passages_fts contentless and fed by the sync (memfs.index.ptext).
#: A new number, so an older memfs rebuilds such an index instead of writing its triggers into it.
#: 7: no items_recent index, items_seen on `seen` alone (memfs.index.seenindex).
SCHEMA_VERSION = "7"
_IN_PLACE = ("5", "6")  # layouts converted in place (memfs.index.layout: ptext, seenindex) rather than rebuilt
WAL_LIMIT = 8 << 20  # bytes of WAL kept after a checkpoint
#: 8 KiB pages hold 19 cached vectors (int8 + scale + key) where 4 KiB pages hold 9: 5 % of
#: the embedding cache and 2.7 % of the whole index at 10,000 notes (bench/README.md).
PAGE_SIZE = 8192
_FOREIGN = "it holds tables but no memfs metadata"
_OPEN_TRIES = 3  # opens of a file another process is healing meanwhile

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, hash TEXT NOT NULL,
    kind TEXT NOT NULL, title TEXT, description TEXT, summary TEXT, updated TEXT,
    items INTEGER NOT NULL DEFAULT 0, warnings TEXT NOT NULL DEFAULT '',
    passages INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS items (
    label INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE, path TEXT NOT NULL, category TEXT NOT NULL, kind TEXT NOT NULL,
    type TEXT NOT NULL, text TEXT NOT NULL, "when" TEXT, src TEXT, seen INTEGER NOT NULL,
    updated TEXT, line INTEGER, text_hash TEXT NOT NULL, context TEXT NOT NULL DEFAULT '',
    until TEXT, superseded_by TEXT
);
CREATE INDEX IF NOT EXISTS items_path ON items(path);
-- Exact-duplicate lookups (ingest's dedupe, `add`): one probe, not a scan of every item.
CREATE INDEX IF NOT EXISTS items_text_hash ON items(text_hash);
-- search's max(seen) per recall (memfs.index.seenindex: schema 7 dropped items_recent).
CREATE INDEX IF NOT EXISTS items_seen_max ON items(seen);
CREATE VIRTUAL TABLE IF NOT EXISTS items_fts USING fts5(
    text, category, context, content='items', content_rowid='label',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS items_ai AFTER INSERT ON items BEGIN
  INSERT INTO items_fts(rowid, text, category, context) VALUES (new.label, new.text, new.category, new.context);
END;
CREATE TRIGGER IF NOT EXISTS items_ad AFTER DELETE ON items BEGIN
  INSERT INTO items_fts(items_fts, rowid, text, category, context)
    VALUES ('delete', old.label, old.text, old.category, old.context);
END;
CREATE TRIGGER IF NOT EXISTS items_au AFTER UPDATE OF text, category, context ON items BEGIN
  INSERT INTO items_fts(items_fts, rowid, text, category, context)
    VALUES ('delete', old.label, old.text, old.category, old.context);
  INSERT INTO items_fts(rowid, text, category, context) VALUES (new.label, new.text, new.category, new.context);
END;
-- Keyed by text_hash alone, WITHOUT ROWID: no second b-tree for the key (memfs.index.quant).
CREATE TABLE IF NOT EXISTS embeddings (text_hash TEXT PRIMARY KEY, vec BLOB NOT NULL) WITHOUT ROWID;
-- Prose a person wrote (memfs.index.passages): paragraphs and sections, never rewritten.
-- Their vector labels are PASSAGE_LABEL_BASE + label, beside the items' in one space.
-- `text` is raw DEFLATE (memfs.index.ptext: pack/unpack), a str in rows not yet migrated.
CREATE TABLE IF NOT EXISTS passages (
    label INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE, path TEXT NOT NULL, category TEXT NOT NULL, kind TEXT NOT NULL,
    heading TEXT NOT NULL, text TEXT NOT NULL, line_start INTEGER NOT NULL, line_end INTEGER NOT NULL,
    text_hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS passages_path ON passages(path);
-- passages_fts (contentless, fed by memfs.index.ptext): appended below.
-- Items whose vector is new or changed since the hnsw sidecar was last saved: searched
-- exactly beside the sidecar, so a small change never rewrites a 100 MB file.
CREATE TABLE IF NOT EXISTS vec_pending (label INTEGER PRIMARY KEY);
-- Per-file parts of the entry files, by content hash (memfs.index.entryparts; no schema bump).
CREATE TABLE IF NOT EXISTS entry_parts (
    path TEXT NOT NULL, key TEXT NOT NULL, digest TEXT NOT NULL, count INTEGER NOT NULL, horizon TEXT NOT NULL,
    marks TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (path, key)
) WITHOUT ROWID;
-- Each fact's facet classification by a digest of its text (memfs.index.factclasses; no schema bump).
CREATE TABLE IF NOT EXISTS fact_classes (key BLOB PRIMARY KEY, code INTEGER NOT NULL) WITHOUT ROWID;
-- Copies of a stamped id that another file holds, not indexed: re-read when the indexed copy
-- goes (memfs.index.shadows; no schema bump).
CREATE TABLE IF NOT EXISTS shadows (id TEXT NOT NULL, path TEXT NOT NULL, PRIMARY KEY (id, path)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS shadows_path ON shadows(path);
-- Items whose words changed since the BM25 postings sidecar's snapshot (memfs.index.postings).
CREATE TABLE IF NOT EXISTS bm25_changed (seq INTEGER PRIMARY KEY AUTOINCREMENT, label INTEGER NOT NULL);
CREATE TRIGGER IF NOT EXISTS items_bm25_ai AFTER INSERT ON items BEGIN
  INSERT INTO bm25_changed(label) VALUES (new.label);
END;
CREATE TRIGGER IF NOT EXISTS items_bm25_ad AFTER DELETE ON items BEGIN
  INSERT INTO bm25_changed(label) VALUES (old.label);
END;
CREATE TRIGGER IF NOT EXISTS items_bm25_au AFTER UPDATE OF label, text, category, context ON items BEGIN
  INSERT INTO bm25_changed(label) VALUES (old.label);
  INSERT INTO bm25_changed(label) SELECT new.label WHERE new.label <> old.label;
END;
""" + ptext.FTS_SQL + ";\n"

#: BM25 weight of the context column (source turn + the one before, dates as words)
#: relative to the item's own text (1.0).
CONTEXT_WEIGHT = 0.4

_STOP = frozenset(
    "a an and are as at be but by did do does for from had has have he her his how i if in into is it its "
    "me my of on or our she so that the their them then there they this to was we were what when where "
    "which who whom why will with you your".split()
)
_TOKEN = re.compile(r"\w+", re.UNICODE)


def fts_query(text: str) -> str | None:
    """A safe FTS5 query: each content word quoted, OR-ed (BM25 ranks by how many match)."""
    words = [w.lower() for w in _TOKEN.findall(text)]
    # One-letter tokens ("Ines's" → "ines", "s") match a third of any collection and add
    # nothing to the ranking, only time.
    keep = [w for w in words if w not in _STOP and len(w) > 1] or [w for w in words if len(w) > 1] or words
    uniq = list(dict.fromkeys(keep))[:32]
    if not uniq:
        return None
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in uniq)


@dataclass(frozen=True)
class ItemRow:
    label: int
    id: str
    path: str
    category: str
    kind: str
    type: str
    text: str
    when: str | None
    src: str | None
    seen: int
    updated: str | None
    line: int | None
    #: Supersession (the item line's `until=` and `superseded_by=`): history, not current.
    until: str | None = None
    superseded_by: str | None = None


@dataclass(frozen=True)
class PassageRow(ItemRow):
    """A passage in the shape search ranks (undated, seen once), with its heading path and
    last line for the anchor `path#L<line>-<line_end>`."""

    heading: str = ""
    line_end: int | None = None

    @property
    def anchor(self) -> str:
        end = f"-{self.line_end}" if self.line_end and self.line_end != self.line else ""
        return f"{self.path}#L{self.line}{end}"


ITEM_COLUMNS = 'label, id, path, category, kind, type, text, "when", src, seen, updated, line, until, superseded_by'


class IndexDB:
    """One connection. Writers wrap changes in `transaction()`; readers in `snapshot()`."""

    def __init__(self, path: Path, readonly: bool = False) -> None:
        """A writer creates, migrates and heals the file; a reader (`readonly`) opens it
        with `mode=ro` and never runs DDL, so recall works on a read-only `.memfs/`.

        A damaged file raises IndexDamaged for a reader; a writer moves it aside and starts
        a fresh one (memfs.index.heal), once however many processes open it together."""
        self.path = path
        self.readonly = readonly
        if readonly:
            self._open_reader()
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(_OPEN_TRIES):
            seen = file_id(path)
            try:
                with heal_lock(path.parent):  # no heal renames the files while we open them
                    self._open_writer()
                return
            except IndexDamaged as err:
                self._close_failed()
                what = "is not an index of this memfs" if err.reason == _FOREIGN else "was damaged"
                with heal_lock(path.parent, exclusive=True):
                    if move_aside(path, err.reason, what, seen=seen) is not None:
                        self._open_writer()  # the fresh file, before anyone else opens it
                        return
                # another process healed it since we looked: open that one
            except sqlite3.DatabaseError:
                self._close_failed()
                if file_id(path) == seen:
                    raise
                # replaced under us (another process healed it): open the new one
        with heal_lock(path.parent):
            self._open_writer()

    def _close_failed(self) -> None:
        if getattr(self, "conn", None) is not None:
            self.conn.close()

    def _open_reader(self) -> None:
        """`mode=ro`, under the shared heal lock; a file replaced while we opened it
        (another process healed it) is opened again."""
        for attempt in range(_OPEN_TRIES):
            seen = file_id(self.path)
            try:
                with heal_lock(self.path.parent):
                    self.conn = connect_readonly(self.path)
                    try:
                        probe(self.conn)
                    except BaseException:
                        self.conn.close()
                        raise
                return
            except (sqlite3.DatabaseError, IndexDamaged):
                if attempt == _OPEN_TRIES - 1 or file_id(self.path) == seen:
                    raise

    def _open_writer(self) -> None:
        self.conn = sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None, check_same_thread=False)
        try:
            self.conn.execute("PRAGMA busy_timeout=30000")
            probe(self.conn)
            # A new file only (WAL keeps an existing file's; memfs.index.compact changes it).
            self.conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            # A cold build's WAL reaches the size of the index (69 MB at 10,000 notes); without
            # a limit a long-lived writer (the daemon) keeps the file that big after checkpoints.
            self.conn.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")
            tables = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if tables and "meta" not in tables:
                raise IndexDamaged(_FOREIGN)
            layout.bring_up_to_date(self.conn, _SCHEMA, SCHEMA_VERSION, _IN_PLACE, self._note_rebuild)
        except sqlite3.DatabaseError as err:
            if is_damage(err):
                raise IndexDamaged(str(err)) from None
            raise

    def _note_rebuild(self, old: str) -> None:
        notice(f"memfs: note: {self.path.parent.name}/{self.path.name} was built by another memfs version "
               f"(index schema {old!r}, this one uses {SCHEMA_VERSION!r}); rebuilding it from the Markdown")

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: every query inside sees the same committed state."""
        self.conn.execute("BEGIN")
        try:
            yield self.conn
        finally:
            self.conn.execute("COMMIT")

    # -- meta -------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                          (key, value))

    # -- files ------------------------------------------------------------
    def file_stats(self) -> dict[str, tuple[int, int, str]]:
        return {p: (s, m, h) for p, s, m, h in self.conn.execute("SELECT path, size, mtime_ns, hash FROM files")}

    # -- items ------------------------------------------------------------
    def _items_where(self, column: str, keys: list) -> list[ItemRow]:  # type: ignore[type-arg]
        """Rows whose `column` is in `keys`, in chunks that stay under SQLite's variable limit."""
        out: list[ItemRow] = []
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            q = f"SELECT {ITEM_COLUMNS} FROM items WHERE {column} IN ({','.join('?' * len(chunk))})"
            out.extend(ItemRow(*row) for row in self.conn.execute(q, chunk))
        return out

    def items_by_ids(self, ids: Iterable[str]) -> dict[str, ItemRow]:
        return {r.id: r for r in self._items_where("id", list(ids))}

    def items_by_labels(self, labels: Iterable[int]) -> dict[int, ItemRow]:
        return {r.label: r for r in self._items_where("label", [int(x) for x in labels])}

    def all_items(self) -> list[ItemRow]:
        return [ItemRow(*r) for r in self.conn.execute(f"SELECT {ITEM_COLUMNS} FROM items ORDER BY path, line")]

    def count_items(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM items").fetchone()[0])

    def count_vectors(self) -> int:
        """Items plus passages: the size of the vector space (exact search or hnsw)."""
        return self.count_items() + int(self.conn.execute("SELECT count(*) FROM passages").fetchone()[0])

    def bm25_passages(self, query: str, limit: int) -> list[tuple[int, float]]:
        """Like bm25, over passages (heading path weighted below the text); labels offset."""
        q = fts_query(query)
        if q is None:
            return []
        rows = self.conn.execute(
            "SELECT rowid, bm25(passages_fts, 1.0, 0.5) AS r FROM passages_fts "
            "WHERE passages_fts MATCH ? ORDER BY r LIMIT ?", (q, limit)).fetchall()
        return [(int(r[0]) + PASSAGE_LABEL_BASE, -float(r[1])) for r in rows]

    def passages_by_labels(self, labels: Iterable[int]) -> dict[int, ItemRow]:
        """Passages as ItemRow-shaped rows (type 'passage', line = first line), by offset label."""
        keys = [int(x) - PASSAGE_LABEL_BASE for x in labels if int(x) >= PASSAGE_LABEL_BASE]
        out: dict[int, ItemRow] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            for r in self.conn.execute(
                    "SELECT label, id, path, category, kind, heading, text, line_start, line_end FROM passages "
                    f"WHERE label IN ({','.join('?' * len(chunk))})", chunk):
                label = int(r[0]) + PASSAGE_LABEL_BASE
                out[label] = PassageRow(label, r[1], r[2], r[3], r[4], "passage", ptext.unpack(r[6]), None, None,
                                        1, None, int(r[7]), heading=r[5], line_end=int(r[8]))
        return out

    def bm25(self, query: str, limit: int) -> list[tuple[int, float]]:
        q = fts_query(query)
        if q is None:
            return []
        rows = self.conn.execute(
            f"SELECT rowid, bm25(items_fts, 1.0, 0.3, {CONTEXT_WEIGHT}) AS r FROM items_fts "
            "WHERE items_fts MATCH ? ORDER BY r LIMIT ?",
            (q, limit),
        ).fetchall()
        return [(int(r[0]), -float(r[1])) for r in rows]

    # -- embeddings cache ---------------------------------------------------
    def _dim(self) -> int:
        return int(self.get_meta("embedder_dim") or 0)

    def cached_vectors(self, hashes: list[str]) -> dict[str, np.ndarray]:
        """Stored as int8 + a scale (memfs.index.quant); older float16/float32 rows still read."""
        out: dict[str, np.ndarray] = {}
        dim = self._dim()
        for start in range(0, len(hashes), 500):
            chunk = hashes[start : start + 500]
            q = f"SELECT text_hash, vec FROM embeddings WHERE text_hash IN ({','.join('?' * len(chunk))})"
            rows = self.conn.execute(q, chunk).fetchall()
            if rows:
                out.update(zip((r[0] for r in rows), quant.from_blobs([r[1] for r in rows], dim)))
        return out

    def store_vectors(self, pairs: Iterable[tuple[str, np.ndarray]]) -> None:
        self.conn.executemany(
            "INSERT OR REPLACE INTO embeddings(text_hash, vec) VALUES(?, ?)",
            ((h, quant.to_blob(v)) for h, v in pairs),
        )

    def labeled_vectors(self, pending_only: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(labels, matrix) of every item and passage that has a vector (or only the pending
        ones); a passage's label is PASSAGE_LABEL_BASE + its row label."""
        join = "JOIN vec_pending ON vec_pending.label = items.label " if pending_only else ""
        pjoin = f"JOIN vec_pending ON vec_pending.label = passages.label + {PASSAGE_LABEL_BASE} " \
            if pending_only else ""
        rows = self.conn.execute(
            f"SELECT items.label, embeddings.vec FROM items {join}"
            "JOIN embeddings ON embeddings.text_hash = items.text_hash "
            f"UNION ALL SELECT passages.label + {PASSAGE_LABEL_BASE}, embeddings.vec FROM passages {pjoin}"
            "JOIN embeddings ON embeddings.text_hash = passages.text_hash"
        ).fetchall()
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        labels = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        return labels, quant.from_blobs([r[1] for r in rows], self._dim())
