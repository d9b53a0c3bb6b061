"""Keep the BM25 postings sidecar in step with the index, from the end of each sync.

Rows written since the sidecar's snapshot are scored exactly from the change log
(memfs.index.bm25fast), so most syncs touch nothing here. The file is rebuilt when that
delta outgrows REBUILD_MIN rows or REBUILD_FRACTION of the index (scoring a delta costs a
tokenization of its rows per data version), and dropped below MIN_ROWS items, where FTS5's
own bm25() costs about a millisecond.

The build reads FTS5 in a read snapshot of its own connection (no write lock held for its
~2 s at 10^5 items); the new file is renamed into place first and its generation and
`seq` committed after, together with trimming the log up to `seq`: a reader whose snapshot
predates that commit finds a file of another generation and uses FTS5 for that query.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from memfs.index.db import IndexDB
from memfs.index.ftstok import totals
from memfs.index.postings import FILE_NAME, PostingsError, build_arrays, header_generation, remove, stamp, write
from memfs.index.readonly import connect_readonly

MIN_ROWS = 20_000
REBUILD_MIN = 2_000
REBUILD_FRACTION = 0.02


def generation(db: IndexDB) -> int:
    return int(db.get_meta("bm25_generation") or 0)


def pending(db: IndexDB) -> int:
    """Log rows after the sidecar's snapshot."""
    seq = int(db.get_meta("bm25_seq") or 0)
    return int(db.conn.execute("SELECT count(*) FROM bm25_changed WHERE seq > ?", (seq,)).fetchone()[0])


def maintain(db: IndexDB, state: Path, force: bool = False) -> bool:
    """Rebuild, keep or drop the sidecar (module docstring). True if it was rebuilt. A file
    whose header, length or stat differs from what was written is rebuilt too."""
    gen = generation(db)
    tot = totals(db.conn)  # FTS5's row count, one record: count(*) walks the b-tree (~ms at 10^5)
    rows = tot[0] if tot is not None else 0
    if rows < MIN_ROWS and not force:
        if gen or (state / FILE_NAME).exists():
            with db.transaction():
                db.set_meta("bm25_generation", "0")
            remove(state)
        if db.conn.execute("SELECT 1 FROM bm25_changed LIMIT 1").fetchone():
            with db.transaction() as c:
                c.execute("DELETE FROM bm25_changed")
        return False
    sound = gen > 0 and header_generation(state) == gen and db.get_meta("bm25_stamp") == stamp(state)
    if sound and not force and pending(db) <= max(REBUILD_MIN, int(rows * REBUILD_FRACTION)):
        return False
    conn = connect_readonly(db.path)
    try:
        conn.execute("BEGIN")
        try:
            arrays = build_arrays(conn)
        finally:
            conn.execute("COMMIT")
    except (PostingsError, sqlite3.Error):
        conn.close()
        return False  # search keeps using FTS5; the next sync tries again
    conn.close()
    # A random generation, not gen + 1: a file left from another index (rebuilt, restored)
    # can never carry the number this index's meta holds.
    new_gen = int.from_bytes(os.urandom(6), "little") + 1
    write(state, arrays, new_gen)
    with db.transaction() as c:
        db.set_meta("bm25_generation", str(new_gen))
        db.set_meta("bm25_seq", str(arrays["seq"]))
        db.set_meta("bm25_stamp", stamp(state))
        c.execute("DELETE FROM bm25_changed WHERE seq <= ?", (arrays["seq"],))
    return True


def scrub(db: IndexDB, state: Path) -> None:
    """After a purge: the file holds the forgotten rows' words, so it goes, and is rebuilt
    (if the index is big enough) from the scrubbed FTS5."""
    if generation(db) or (state / FILE_NAME).exists():
        with db.transaction():
            db.set_meta("bm25_generation", "0")
        remove(state)
    maintain(db, state)
