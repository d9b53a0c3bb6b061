"""The table of per-file entry parts (memfs.entry.partstore): SQL only, no meaning.

One row per (file, part name): the latest value memfs computed for that file, with what
it was computed from (the file's content hash and indexed item count, the store's horizon
where the part depends on it, a digest of the file's supersession marks). The reader
decides whether a row still applies; a row for another hash is only ever a starting
point for a delta, never served as the value.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import sqlite3
from pathlib import Path
from typing import NamedTuple

from memfs.core.bodyscan import LAZY_ITEM
from memfs.index.db import IndexDB, connect_readonly
from memfs.index.heal import IndexDamaged

#: The table, as it stands in index/db.py's schema (created in place by every writer's open).
TABLE = "entry_parts"


class PartRow(NamedTuple):
    key: str
    digest: str
    count: int
    horizon: str
    marks: str
    value: str


def parts_of(db: IndexDB, path: str) -> dict[str, PartRow]:
    """{part key: row} of one file (empty when the table is missing: an index opened by an
    older memfs' writer has it, a read-only open of a very old one may not)."""
    try:
        rows = db.conn.execute("SELECT key, digest, count, horizon, marks, value FROM entry_parts "
                               "WHERE path=? AND key != ?", (path, LINE_IDS)).fetchall()  # (not a part; big)
    except sqlite3.OperationalError as err:
        if "no such table" in str(err):
            return {}
        raise
    out: dict[str, PartRow] = {}
    for r in rows:
        try:
            count = int(r[2])
        except (TypeError, ValueError):
            continue  # a damaged row (its count is not a number): a miss, rewritten when offered
        out[r[0]] = PartRow(r[0], r[1], count, r[3], r[4], r[5])
    return out


def save_parts(db: IndexDB, rows: list[tuple[str, PartRow]]) -> None:
    """Replace the (path, key) rows given, in one transaction (call under the writer lock)."""
    if not rows:
        return
    with db.transaction() as c:
        c.executemany("INSERT INTO entry_parts(path, key, digest, count, horizon, marks, value) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(path, key) DO UPDATE SET digest=excluded.digest, "
                      "count=excluded.count, horizon=excluded.horizon, marks=excluded.marks, value=excluded.value",
                      [(path, *row) for path, row in rows])


def drop_parts(db: IndexDB, paths: list[str]) -> None:
    """Forget the parts of files that left the index."""
    if paths:
        with db.transaction() as c:
            c.executemany("DELETE FROM entry_parts WHERE path=?", [(p,) for p in paths])


def part_paths(db: IndexDB) -> set[str]:
    try:
        return {r[0] for r in db.conn.execute("SELECT DISTINCT path FROM entry_parts")}
    except sqlite3.OperationalError as err:
        if "no such table" in str(err):
            return set()
        raise


def entry_row_of(db: IndexDB, path: str, item_id: str) -> tuple | None:  # type: ignore[type-arg]
    """One row of `repository.entry_rows_of(db, path)`, by id (None if that file has no such item)."""
    return db.conn.execute('SELECT id, text, type, "when", src, seen, updated, path, COALESCE(line, 0) '
                           "FROM items WHERE id=? AND path=?", (item_id, path)).fetchone()


#: The row key of a file's summary head (core/summarytop.Ranked as ids), written with the
#: index delta of each spliced write and read by the store's next fresh parse of that content.
SUMMARY_HEAD = '["summary-head"]'


#: The row key of the stat memfs saw right after its own write of a file (device, inode,
#: size, mtime): a fresh process trusts a file still at exactly that stat as memfs left it,
#: as the writing process itself does (fsutil.read_settled), instead of waiting for it to settle.
WRITTEN_STAMP = '["written-stamp"]'


#: The row key of a file's body line-id table (core/lineids.py, marshalled), written with the
#: index delta of each spliced write: the next fresh parse of that content matches no line.
LINE_IDS = '["line-ids"]'
#: The line reader a table is made by: a memfs with another LAZY_ITEM ignores the table.
TABLE_READER = hashlib.sha1(LAZY_ITEM.__self__.pattern.encode()).hexdigest()[:12]


def kept_rows(db_path: Path, path: str) -> dict[str, tuple[str, ...]]:
    """{key: (digest, value)} of the file's summary head, written stamp and line-id table,
    read without opening the index for writing; {} if there are none (or no index, or it
    cannot be read)."""
    if not db_path.exists():
        return {}
    try:
        conn = connect_readonly(db_path)
        try:
            rows = conn.execute("SELECT key, digest, value, marks FROM entry_parts WHERE path=? AND key IN (?, ?, ?)",
                                (path, SUMMARY_HEAD, WRITTEN_STAMP, LINE_IDS)).fetchall()
        finally:
            conn.close()
    except (sqlite3.Error, IndexDamaged):
        return {}
    return {key: (digest, value, marks) for key, digest, value, marks in rows}


def _table_mark(blob: bytes) -> str:
    """What a line-id row's `marks` holds: the reader it was made by (a table made under
    another LAZY_ITEM means nothing) and its own checksum (a damaged blob is never used)."""
    return f"{TABLE_READER}:{hashlib.sha1(blob).hexdigest()}"


def line_ids(rows: dict[str, tuple[str, ...]], digest: str) -> list[str | None] | None:
    """The line-id table `kept_rows` holds for exactly the content with this SHA-1; None if
    there is none for it, it was made by another reader, or it is damaged."""
    got = rows.get(LINE_IDS)
    if got is None or got[0] != digest or not isinstance(got[1], bytes) or got[2] != _table_mark(got[1]):
        return None
    try:
        ids = marshal.loads(got[1])
    except (ValueError, EOFError, TypeError):
        return None
    return ids if isinstance(ids, list) else None  # (its items: the checksum proves them memfs's own)


def line_ids_row(path: str, digest: str, count: int, ids: list[str | None]) -> tuple[str, PartRow]:
    blob = marshal.dumps(ids)
    return path, PartRow(LINE_IDS, digest, count, "", _table_mark(blob), blob)  # type: ignore[arg-type]


def written_stamp(rows: dict[str, tuple[str, ...]]) -> tuple[int, int, int, int] | None:
    """The (device, inode, size, mtime_ns) of `kept_rows`' stamp; None if none or damaged."""
    got = rows.get(WRITTEN_STAMP)
    return parse_stamp(got[1]) if got else None


def parse_stamp(raw: str | None) -> tuple[int, int, int, int] | None:
    """A kept (device, inode, size, mtime_ns) from its JSON; None if absent or damaged."""
    try:
        stamp = json.loads(raw) if raw else None
    except (ValueError, TypeError):
        return None
    if not isinstance(stamp, list) or len(stamp) != 4 or set(map(type, stamp)) != {int}:
        return None
    return tuple(stamp)  # type: ignore[return-value]


def summary_head(db_path: Path, path: str, digest: str, rows: dict[str, tuple[str, ...]] | None = None,
                 ) -> tuple[list[str], bool, str | None] | None:
    """(head ids in ranking order, complete, newest stamp) persisted for this content of the
    file, read without opening the index for writing (or from `kept_rows` already read);
    None if there is none (or no index)."""
    got = (kept_rows(db_path, path) if rows is None else rows).get(SUMMARY_HEAD)
    if got is None or got[0] != digest:
        return None
    try:
        ids, complete, newest = json.loads(got[1])
    except (ValueError, TypeError):
        return None
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids) or not isinstance(complete, bool) \
            or not (newest is None or isinstance(newest, str)):
        return None
    return ids, complete, newest


def written_stamp_row(path: str, digest: str, count: int, stamp: tuple[int, int, int, int]) -> tuple[str, PartRow]:
    return path, PartRow(WRITTEN_STAMP, digest, count, "", "", json.dumps(list(stamp)))


def summary_head_row(path: str, digest: str, count: int, head: tuple[list[str], bool, str | None]
                     ) -> tuple[str, PartRow]:
    return path, PartRow(SUMMARY_HEAD, digest, count, "", "", json.dumps(list(head), separators=(",", ":")))


def save_head(conn: sqlite3.Connection, path: str, row: PartRow) -> None:
    """Write one summary-head row inside the caller's transaction (the index delta's)."""
    conn.execute("INSERT INTO entry_parts(path, key, digest, count, horizon, marks, value) VALUES (?, ?, ?, ?, ?, ?, ?) "
                 "ON CONFLICT(path, key) DO UPDATE SET digest=excluded.digest, count=excluded.count, "
                 "horizon=excluded.horizon, marks=excluded.marks, value=excluded.value", (path, *row))
