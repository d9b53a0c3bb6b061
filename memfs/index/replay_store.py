"""The replay ledger's two tables: which message fingerprints each archived conversation holds.

The ledger's logic (fingerprints, reconciling with ``resources/``) is in
``memfs/pipeline/replay.py``; its SQL lives here because SQL lives in the index package
only (``tests/test_architecture.py`` checks). The tables sit in the index file, a
rebuildable cache: losing them only means reading the archived conversations again.
"""

from __future__ import annotations

from collections.abc import Iterable

from memfs.index.db import IndexDB

_SCHEMA = """
CREATE TABLE IF NOT EXISTS replay_messages (fp TEXT NOT NULL, resource TEXT NOT NULL, PRIMARY KEY (fp, resource));
CREATE TABLE IF NOT EXISTS replay_resources (resource TEXT PRIMARY KEY);
"""
#: SQLite's default limit on bound parameters is 999; stay well under it.
_CHUNK = 500


def ensure_tables(db: IndexDB) -> None:
    """Create the ledger's tables if missing (idempotent)."""
    db.conn.executescript(_SCHEMA)


def known_resources(db: IndexDB) -> set[str]:
    """Resources whose fingerprints are already recorded."""
    return {row[0] for row in db.conn.execute("SELECT resource FROM replay_resources")}


def reconcile(db: IndexDB, gone: Iterable[str], rows: list[tuple[str, str]], new: Iterable[str]) -> None:
    """In one transaction: forget the resources ``gone``, record the (fingerprint, resource)
    ``rows`` and mark the resources ``new`` as read."""
    with db.transaction() as c:
        for rel in gone:
            c.execute("DELETE FROM replay_messages WHERE resource=?", (rel,))
            c.execute("DELETE FROM replay_resources WHERE resource=?", (rel,))
        c.executemany("INSERT OR IGNORE INTO replay_messages(fp, resource) VALUES(?,?)", rows)
        c.executemany("INSERT OR IGNORE INTO replay_resources(resource) VALUES(?)", [(r,) for r in new])


def known_elsewhere(db: IndexDB, fps: list[str], resource: str) -> set[str]:
    """The fingerprints among ``fps`` recorded for a resource other than ``resource``."""
    known: set[str] = set()
    unique = list(dict.fromkeys(fps))
    for start in range(0, len(unique), _CHUNK):
        chunk = unique[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        known.update(row[0] for row in db.conn.execute(
            f"SELECT fp FROM replay_messages WHERE fp IN ({marks}) AND resource != ?", (*chunk, resource)))
    return known


def record(db: IndexDB, resource: str, fps: list[str]) -> None:
    """Record ``resource``'s fingerprints and mark it as read."""
    with db.transaction() as c:
        c.executemany("INSERT OR IGNORE INTO replay_messages(fp, resource) VALUES(?,?)",
                      [(fp, resource) for fp in dict.fromkeys(fps)])
        c.execute("INSERT OR IGNORE INTO replay_resources(resource) VALUES(?)", (resource,))
