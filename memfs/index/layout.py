"""Bring an index file to this memfs's layout, once, however many processes open it at once.

The check ("which layout is this?") and the change are made in one write transaction,
the check again inside it: a second process that opened the same older file meanwhile
finds the work done and changes nothing (before, each process that had looked first
dropped and rebuilt the layout again, or converted it again: tests/test_db_open_race.py).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from memfs.index import ptext, quant, seenindex


def statements(script: str) -> list[str]:
    """The statements of an SQL script (triggers hold `;` inside), to run inside a transaction
    (`executescript` commits first)."""
    out: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip() and not all(ln.strip().startswith("--") or not ln.strip() for ln in buf.splitlines()):
        out.append(buf.strip())
    return out


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return row[0] if row else None


def _has_meta(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone() is not None


def _older(conn: sqlite3.Connection, keep: tuple[str, ...]) -> bool:
    """A layout to drop and rebuild (not this one, not one converted in place)."""
    return _has_meta(conn) and _meta(conn, "schema") not in keep


def bring_up_to_date(conn: sqlite3.Connection, schema_sql: str, version: str, in_place: tuple[str, ...],
                     note: Callable[[str], None]) -> None:
    """Create, convert (in place) or rebuild the layout so the file is at `version`.

    `note` is told, once, when an older layout is dropped (called with the old number)."""
    if _has_meta(conn) and _meta(conn, "schema") == version:
        conn.executescript(schema_sql)  # the common case: a no-op that takes no write lock
        return
    keep = (version, *in_place)
    if _older(conn, keep):  # its own transaction, and a no-op once done
        quant.migrate_cache(conn, int(_meta(conn, "embedder_dim") or 0))
    seenindex.migrate(conn)  # schema 5/6 -> 7: indexes dropped; its own transaction, a no-op once done
    conn.execute("BEGIN IMMEDIATE")
    try:
        rebuilt = _older(conn, keep)  # again, under the write lock: another process may have done it
        if rebuilt:
            note(str(_meta(conn, "schema")))
            _drop_all(conn)
        for statement in statements(schema_sql):
            conn.execute(statement)
        ptext.convert(conn)  # plain passage text + external-content FTS -> this layout (schema 5)
        if _meta(conn, "schema") != version:
            conn.execute("INSERT INTO meta(key, value) VALUES('schema', ?) "
                         "ON CONFLICT(key) DO UPDATE SET value=excluded.value", (version,))
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    if rebuilt:
        conn.execute("VACUUM")  # give back the dropped tables' pages


def _drop_all(conn: sqlite3.Connection) -> None:
    """Drop an older layout, but keep the embedding cache (and which embedder made it):
    re-embedding 10^5 items costs minutes, re-parsing the Markdown seconds."""
    conn.execute("DELETE FROM meta WHERE key NOT IN ('embedder', 'embedder_dim')")
    names = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger') AND name NOT LIKE 'sqlite_%' "
        "AND name NOT LIKE 'items_fts_%' AND name NOT LIKE 'passages_fts_%' "
        "AND name NOT IN ('meta', 'embeddings')")]
    fts = [n for n in ("items_fts", "passages_fts") if n in names]
    for name in (*fts, *[n for n in names if n not in fts]):
        kind = conn.execute("SELECT type FROM sqlite_master WHERE name=?", (name,)).fetchone()
        if kind:
            conn.execute(f'DROP {kind[0].upper()} IF EXISTS "{name}"')
