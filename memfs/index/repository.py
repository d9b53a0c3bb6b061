"""The index's queries that its users need beyond `IndexDB`'s own methods.

SQL lives in the index package only (`tests/test_architecture.py` checks): the writer
(`Memory`'s services), the views, the inbox journal and the pipeline ask here instead of
writing SQL against `db.conn`. The journal's two tables are owned here too: they live in
the index file, a rebuildable cache like everything else in it.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import NamedTuple

from memfs.errors import MemfsError
from memfs.index.db import SCHEMA_VERSION, IndexDB, connect_readonly
from memfs.index.heal import IndexDamaged

_JOURNAL = """
CREATE TABLE IF NOT EXISTS journal (
    digest TEXT PRIMARY KEY, name TEXT NOT NULL, resource TEXT NOT NULL, finished REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS progress (digest TEXT PRIMARY KEY, segments INTEGER NOT NULL);
"""


def index_ready(db_path: Path, for_recall: bool = False) -> bool:
    """True if `db_path` holds a synced index of the current layout (checked read-only,
    without DDL: works on a read-only `.memfs/`). `for_recall`: and no one-shot add left
    a vector owed (index/vecfill_store.py): a recall syncs first, which embeds it."""
    if not db_path.exists():
        return False
    try:
        conn = connect_readonly(db_path)
        try:
            rows = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('schema', 'embedder', "
                                     "'vectors_owed')").fetchall())
        finally:
            conn.close()
    except (sqlite3.Error, IndexDamaged):
        return False  # the writer's open heals it
    return rows.get("schema") == SCHEMA_VERSION and "embedder" in rows and not (
        for_recall and rows.get("vectors_owed") == "1")


# -- items ----------------------------------------------------------------------------
def has_item(db: IndexDB, item_id: str) -> bool:
    return db.conn.execute("SELECT 1 FROM items WHERE id=?", (item_id,)).fetchone() is not None


def id_and_path(db: IndexDB, text_hash: str) -> tuple[str, str] | None:
    """(id, path) of an item whose text has this hash (`db.text_hash`), if any."""
    row = db.conn.execute("SELECT id, path FROM items WHERE text_hash=? LIMIT 1", (text_hash,)).fetchone()
    return (row[0], row[1]) if row is not None else None


def id_and_src(db: IndexDB, text_hash: str) -> tuple[str, str | None] | None:
    """(id, src) of an item whose text has this hash, if any."""
    row = db.conn.execute("SELECT id, src FROM items WHERE text_hash=? LIMIT 1", (text_hash,)).fetchone()
    return (row[0], row[1]) if row is not None else None


def has_item_from(db: IndexDB, resource: str) -> bool:
    """True if any item cites `resource` (its `src` is `resource#...`)."""
    like = resource.replace("%", r"\%").replace("_", r"\_") + "#%"
    return db.conn.execute("SELECT 1 FROM items WHERE src LIKE ? ESCAPE '\\' LIMIT 1", (like,)).fetchone() is not None


#: When an item was last touched: `updated` (added by hand or reinforced), else the day its
#: input was processed (the journal), else the day in its resource's name, else its `when`.
_ACTIVITY = ("COALESCE(i.updated, date(j.finished, 'unixepoch', 'localtime'), "
             "CASE WHEN i.src GLOB 'resources/[0-9][0-9][0-9][0-9]/[0-9][0-9]/[0-9][0-9]-*' "
             "THEN substr(i.src, 11, 4) || '-' || substr(i.src, 16, 2) || '-' || substr(i.src, 19, 2) END, "
             "i.\"when\", '')")


class RecentRow(NamedTuple):
    id: str
    text: str
    when: str | None
    category: str
    path: str
    line: int | None
    src: str | None
    type: str
    seen: int
    updated: str  # the day it was last touched


def recent_items(db: IndexDB, cutoff: str, limit: int) -> list[RecentRow]:
    """Items last touched (see `_ACTIVITY`) on or after `cutoff`, newest first; each row's
    `updated` is that day. Needs the journal table (`ensure_journal`)."""
    with db.snapshot() as conn:
        rows = conn.execute(
            f"SELECT i.id, i.text, i.\"when\", i.category, i.path, i.line, i.src, i.type, i.seen, "
            f"{_ACTIVITY} AS at FROM items i LEFT JOIN journal j "
            "ON j.resource = substr(i.src, 1, instr(i.src, '#') - 1) "
            "WHERE at >= ? ORDER BY at DESC, i.id LIMIT ?", (cutoff, limit)).fetchall()
    return [RecentRow(*r) for r in rows]


def entry_rows(db: IndexDB) -> list[tuple[str, str, str, str | None, str | None, int, str | None, str, int]]:
    """(id, text, type, when, src, seen, updated, path, line) of every item, in (path, line) order."""
    return db.conn.execute('SELECT id, text, type, "when", src, seen, updated, path, COALESCE(line, 0) '
                           "FROM items ORDER BY path, line, id").fetchall()


def entry_rows_of(db: IndexDB, path: str) -> list[tuple[str, str, str, str | None, str | None, int, str | None, str, int]]:
    """`entry_rows` of one file, in (line, id) order."""
    return db.conn.execute('SELECT id, text, type, "when", src, seen, updated, path, COALESCE(line, 0) '
                           "FROM items WHERE path=? ORDER BY line, id", (path,)).fetchall()


def file_states(db: IndexDB) -> dict[str, tuple[str, int]]:
    """{path: (content hash, indexed items)} of every file holding items, in path order.
    The items are counted per path first, then joined with the files' hashes: joining each
    item row before grouping was a lookup per item (15 ms at 100,000 items, every
    regeneration; 5 ms this way, flat5)."""
    return {r[0]: (r[1] or "", int(r[2])) for r in db.conn.execute(
        "SELECT g.path, f.hash, g.n FROM (SELECT path, count(*) AS n FROM items GROUP BY path) g "
        "LEFT JOIN files f ON f.path = g.path ORDER BY g.path")}


def items_in_file(db: IndexDB, path: str) -> int:
    """How many items the index holds for one file (a range of the path index)."""
    return int(db.conn.execute("SELECT count(*) FROM items WHERE path=?", (path,)).fetchone()[0])


def current_matches(db: IndexDB, fts: str, limit: int) -> list[tuple[str, str, str | None, str]]:
    """(id, text, when, path) of current (not superseded) items matching the FTS query `fts`."""
    return db.conn.execute(
        'SELECT i.id, i.text, i."when", i.path FROM items_fts JOIN items i ON i.label = items_fts.rowid '
        "WHERE items_fts MATCH ? AND i.superseded_by IS NULL LIMIT ?", (fts, limit)).fetchall()


def current_opening_with(db: IndexDB, words: list[str], limit: int = 8) -> list[tuple[str, str | None, str]]:
    """(id, src, text) of current items whose text opens on these words, in this order (an
    FTS5 initial-token phrase: an index probe, not a scan); the caller checks the text."""
    if not words:
        return []
    phrase = '"' + " ".join(words).replace('"', '""') + '"'
    return db.conn.execute(
        "SELECT i.id, i.src, i.text FROM items_fts JOIN items i ON i.label = items_fts.rowid "
        "WHERE items_fts MATCH ? AND i.superseded_by IS NULL LIMIT ?", (f"text : ^ {phrase}", limit)).fetchall()


def drop_unused_embeddings(db: IndexDB, keep: frozenset[str] = frozenset()) -> int:
    """Delete cached vectors no item or passage uses and whose hash is not in `keep` (the
    category descriptions); the number deleted."""
    with db.transaction() as c:
        cur = c.execute("DELETE FROM embeddings WHERE text_hash NOT IN "
                        "(SELECT text_hash FROM items UNION SELECT text_hash FROM passages) "
                        "AND text_hash NOT IN (SELECT value FROM json_each(?))", (json.dumps(sorted(keep)),))
        return cur.rowcount or 0


def scrub_deleted(db: IndexDB) -> None:
    """Make deleted rows unrecoverable from the file: merge FTS segments, VACUUM with
    secure_delete, truncate the WAL (retried while a reader holds it)."""
    db.conn.execute("INSERT INTO items_fts(items_fts) VALUES('optimize')")
    db.conn.execute("PRAGMA secure_delete=ON")
    db.conn.execute("VACUUM")
    for _ in range(20):
        busy = db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        if not busy:
            break
        time.sleep(0.1)


# -- files ----------------------------------------------------------------------------
def file_rows(db: IndexDB) -> list[tuple[str, str, str, str, str, int]]:
    """(path, kind, title, description, summary, passages) of every indexed category file, by path."""
    return [tuple(r) for r in db.conn.execute(  # type: ignore[misc]
        "SELECT path, kind, title, description, summary, passages FROM files ORDER BY path")]


class CategoryFileRow(NamedTuple):
    """One indexed category file, as `memfs_categories` reports it."""

    path: str
    kind: str
    title: str | None
    description: str | None
    summary: str | None
    items: int


def category_files(db: IndexDB) -> dict[str, CategoryFileRow]:
    """Every indexed category file with its item count, by path (one snapshot)."""
    with db.snapshot() as conn:
        return {r[0]: CategoryFileRow(*r) for r in conn.execute(
            "SELECT path, kind, title, description, summary, items FROM files ORDER BY path")}


def file_hashes(db: IndexDB) -> dict[str, str]:
    """{path: content hash} of every indexed category file."""
    return dict(db.conn.execute("SELECT path, hash FROM files").fetchall())


def count_files(db: IndexDB) -> int:
    return int(db.conn.execute("SELECT count(*) FROM files").fetchone()[0])


def count_passages(db: IndexDB) -> int:
    return int(db.conn.execute("SELECT count(*) FROM passages").fetchone()[0])


def count_rows(db: IndexDB) -> int:
    """Items plus passages: the rows that use cached vectors."""
    return int(db.conn.execute("SELECT (SELECT count(*) FROM items) + (SELECT count(*) FROM passages)").fetchone()[0])


def file_warnings(db: IndexDB) -> list[str]:
    """The parse warnings the index recorded per category file, in path order."""
    out: list[str] = []
    for (w,) in db.conn.execute("SELECT warnings FROM files WHERE warnings != '' ORDER BY path"):
        out.extend(w.splitlines())
    return out


# -- meta -----------------------------------------------------------------------------
def meta_with_prefix(db: IndexDB, prefix: str) -> dict[str, str]:
    """Every meta value whose key starts with `prefix`, keyed by the rest of the key."""
    like = prefix.replace("%", r"\%").replace("_", r"\_") + "%"
    return {k[len(prefix):]: v for k, v in db.conn.execute(
        "SELECT key, value FROM meta WHERE key LIKE ? ESCAPE '\\'", (like,))}


def delete_meta(db: IndexDB, key: str) -> None:
    """Remove one meta key (call inside `db.transaction()`)."""
    db.conn.execute("DELETE FROM meta WHERE key=?", (key,))


# -- the inbox journal ----------------------------------------------------------------
def ensure_journal(db: IndexDB) -> None:
    """Create the journal tables if this index has none yet (a writer's handle only)."""
    db.conn.executescript(_JOURNAL)


def journal_rows(db: IndexDB) -> list[tuple[str, str, str]]:
    """(digest, name, resource) of every journaled input."""
    return [tuple(r) for r in db.conn.execute("SELECT digest, name, resource FROM journal")]  # type: ignore[misc]


def journal_forget(db: IndexDB, digests: list[str]) -> None:
    """Drop the journal entries of these inputs (matched on their first 16 hex digits)."""
    with db.transaction() as c:
        for d in digests:
            c.execute("DELETE FROM journal WHERE substr(digest, 1, 16) = ?", (d[:16],))


def journal_resource(db: IndexDB, digest: str) -> str | None:
    """The resource an input with this content digest was archived as; None if not journaled
    (an empty string if journaled without one)."""
    row = db.conn.execute("SELECT resource FROM journal WHERE digest=?", (digest,)).fetchone()
    return row[0] if row else None


def journal_progress(db: IndexDB, digest: str) -> int:
    row = db.conn.execute("SELECT segments FROM progress WHERE digest=?", (digest,)).fetchone()
    return int(row[0]) if row else 0


def set_journal_progress(db: IndexDB, digest: str, segments: int) -> None:
    with db.transaction() as c:
        c.execute("INSERT OR REPLACE INTO progress(digest, segments) VALUES(?, ?)", (digest, segments))


def journal_done(db: IndexDB, digest: str, name: str, resource: str) -> None:
    """Record an input as processed (and drop its checkpoint) in one transaction."""
    with db.transaction() as c:
        c.execute("INSERT OR REPLACE INTO journal(digest, name, resource, finished) VALUES(?,?,?,?)",
                  (digest, name, resource, time.time()))
        c.execute("DELETE FROM progress WHERE digest=?", (digest,))


# -- inspection (memfs doctor): the file as it is, read-only, without the healing open ----
class IndexUnreadable(MemfsError):
    """The index file cannot be read (damaged, not SQLite, locked); the message says why."""


class IndexFacts(NamedTuple):
    meta: dict[str, str]
    files: dict[str, tuple[int, int, str]]  # path -> (size, mtime_ns, hash) when indexed; mtime 0: hash it
    indexed: int  # item rows
    declared: int  # items the file rows say they hold


def inspect(db_path: Path) -> IndexFacts:
    """quick_check, then what `memfs doctor` compares with the Markdown."""
    try:
        conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10)
        try:
            verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
            if verdict != "ok":
                raise sqlite3.DatabaseError(str(verdict).splitlines()[0])
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            files = {p: (s, m, h) for p, s, m, h in conn.execute("SELECT path, size, mtime_ns, hash FROM files")}
            indexed = int(conn.execute("SELECT count(*) FROM items").fetchone()[0])
            declared = int(conn.execute("SELECT COALESCE(sum(items), 0) FROM files").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error as err:
        raise IndexUnreadable(str(err)) from None
    return IndexFacts(meta, files, indexed, declared)


def recorded_embedder(db_path: Path) -> str | None:
    """The embedder the index was built with; None if unknown or unreadable."""
    try:
        conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key='embedder'").fetchone()
            return row[0] if row else None
        finally:
            conn.close()
    except sqlite3.Error:
        return None

