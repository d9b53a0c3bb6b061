"""The item and file rows a sync writes, in one place for both ways of syncing.

A full sync of a file (index/sync.py) and a spliced write's delta (index/delta.py) must
leave the same rows behind; writing them through the same statements keeps the two from
drifting apart when a column is added.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

#: (path, category, kind, type, text, when, src, seen, updated, line, text_hash, until,
#: superseded_by, context-or-None, id): context None keeps the row's context.
_UPDATE = ('UPDATE items SET path=?, category=?, kind=?, type=?, text=?, "when"=?, src=?, seen=?, updated=?, '
           "line=?, text_hash=?, until=?, superseded_by=?, context=COALESCE(?, context) WHERE id=?")
#: (id, path, category, kind, type, text, when, src, seen, updated, line, text_hash, until,
#: superseded_by, context).
_INSERT = ('INSERT INTO items(id, path, category, kind, type, text, "when", src, seen, updated, line, text_hash, '
           "until, superseded_by, context) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
_FILE = ("INSERT OR REPLACE INTO files(path, size, mtime_ns, hash, kind, title, description, summary, "
         "updated, items, warnings, passages) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)")


def write_item_rows(c: sqlite3.Connection, updates: Sequence[tuple], inserts: Sequence[tuple]) -> None:  # type: ignore[type-arg]
    """Apply a sync plan's item updates, then its inserts (inside the caller's transaction)."""
    c.executemany(_UPDATE, updates)
    c.executemany(_INSERT, inserts)


def write_file_row(c: sqlite3.Connection, row: tuple) -> None:  # type: ignore[type-arg]
    """(path, size, mtime_ns, hash, kind, title, description, summary, updated, items,
    warnings, passages) of one category file."""
    c.execute(_FILE, row)


def opt_str(value: object) -> str | None:
    """A front-matter value as the files table keeps it (None stays None)."""
    return None if value is None else str(value)


def clear_all(c: sqlite3.Connection) -> None:
    """Empty what a rebuild writes anew (inside its transaction: readers see old or new)."""
    for table in ("items", "files", "vec_pending", "shadows", "passages"):
        c.execute(f"DELETE FROM {table}")
    c.execute("INSERT INTO items_fts(items_fts) VALUES('delete-all')")
    c.execute("INSERT INTO passages_fts(passages_fts) VALUES('delete-all')")
