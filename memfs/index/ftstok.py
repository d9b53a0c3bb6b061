"""FTS5's own view of text, read without FTS5's ranking: its tokens, its row sizes, its totals.

memfs.index.postings scores BM25 itself and must agree with `bm25(items_fts, ...)` to the
last bit, so nothing here re-implements FTS5: words are tokenized by an in-memory FTS5
table with the items table's tokenizer (read back through `fts5vocab`), and row sizes and
the row/token totals are decoded from the FTS5 shadow tables (`%_docsize`, the averages
record of `%_data`), the very numbers `bm25()` reads.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable

#: The items_fts tokenizer (memfs.index.db's schema); checked against the live table's SQL.
ITEMS_TOKENIZE = "porter unicode61 remove_diacritics 2"
#: items_fts' columns in order, and the weights search passes to bm25() for them.
COLUMNS = ("text", "category", "context")
#: Rowid of FTS5's averages record in %_data (FTS5_AVERAGES_ROWID).
AVERAGES_ROWID = 1
#: Words whose tokens one Tokenizer remembers.
MAX_WORDS = 65_536


def varints(blob: bytes) -> list[int]:
    """SQLite's varints (FTS5 stores sizes and totals with sqlite3Fts5PutVarint): big-endian
    7-bit groups, high bit = more, the 9th byte whole."""
    out: list[int] = []
    i, n = 0, len(blob)
    while i < n:
        value = 0
        for k in range(9):
            byte = blob[i]
            i += 1
            if k == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
            if i >= n:
                raise ValueError("truncated varint")
        out.append(value)
    return out


def totals(conn: sqlite3.Connection) -> tuple[int, int] | None:
    """(rows, tokens of all columns) as FTS5's xRowCount / xColumnTotalSize(-1) see them."""
    row = conn.execute("SELECT block FROM items_fts_data WHERE id=?", (AVERAGES_ROWID,)).fetchone()
    if row is None or row[0] is None:
        return None
    values = varints(bytes(row[0]))
    if not values:
        return None
    return values[0], sum(values[1:1 + len(COLUMNS)])


def doc_sizes(conn: sqlite3.Connection, labels: Iterable[int]) -> dict[int, int]:
    """Rows' sizes in tokens over all columns (xColumnSize(-1)), by label."""
    keys = [int(x) for x in labels]
    out: dict[int, int] = {}
    for start in range(0, len(keys), 500):
        chunk = keys[start:start + 500]
        for label, sz in conn.execute(
                f"SELECT id, sz FROM items_fts_docsize WHERE id IN ({','.join('?' * len(chunk))})", chunk):
            out[int(label)] = sum(varints(bytes(sz)))
    return out


def tokenizer_matches(conn: sqlite3.Connection) -> bool:
    """Whether the index's items_fts uses the tokenizer and columns this module assumes."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE name='items_fts'").fetchone()
    if row is None:
        return False
    sql = " ".join(str(row[0]).split())
    return f"tokenize='{ITEMS_TOKENIZE}'" in sql and sql.replace(" ", "").find("fts5(text,category,context,") > 0


class Tokenizer:
    """FTS5's tokens of words and rows, from a private in-memory FTS5 table (thread-safe)."""

    def __init__(self) -> None:
        self._conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._conn.execute(f"CREATE VIRTUAL TABLE t USING fts5({', '.join(COLUMNS)}, tokenize='{ITEMS_TOKENIZE}')")
        self._conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        self._lock = threading.Lock()
        self._words: dict[str, tuple[str, ...]] = {}

    def tokens(self, word: str) -> tuple[str, ...]:
        """The terms an FTS5 query phrase `"word"` is made of, in order."""
        found = self._words.get(word)
        if found is None:
            with self._lock:
                self._conn.execute("INSERT INTO t(rowid, text) VALUES (1, ?)", (word,))
                found = tuple(r[0] for r in self._conn.execute("SELECT term FROM v ORDER BY doc, col, offset"))
                self._conn.execute("DELETE FROM t")
            if len(self._words) >= MAX_WORDS:
                self._words.clear()
            self._words[word] = found
        return found

    def counts(self, rows: list[tuple[int, str, str, str]]) -> dict[int, dict[str, tuple[int, int, int]]]:
        """Per row (label, text, category, context): term -> its count in each column."""
        out: dict[int, dict[str, list[int]]] = {}
        if not rows:
            return {}
        index = {name: i for i, name in enumerate(COLUMNS)}
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                self._conn.executemany(f"INSERT INTO t(rowid, {', '.join(COLUMNS)}) VALUES (?, ?, ?, ?)", rows)
                for term, doc, col, n in self._conn.execute(
                        "SELECT term, doc, col, count(*) FROM v GROUP BY term, doc, col"):
                    out.setdefault(int(doc), {}).setdefault(term, [0, 0, 0])[index[col]] = int(n)
            finally:
                self._conn.execute("ROLLBACK")
        return {doc: {t: (c[0], c[1], c[2]) for t, c in terms.items()} for doc, terms in out.items()}


def weighted_freq(counts: tuple[int, int, int], weights: tuple[float, ...]) -> float:
    """A phrase's frequency in a row as fts5Bm25Function sums it: one weight per instance,
    in instance order (column, then offset), so the float sum is bit-identical."""
    f = 0.0
    for n, w in zip(counts, weights):
        for _ in range(n):
            f += w
    return f
