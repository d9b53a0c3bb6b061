"""The BM25 postings sidecar (`.memfs/bm25.post`): FTS5's word index as numpy arrays.

`bm25()` over FTS5 was ~half of a recall at 10^5 items (12 ms p50): the median question's
words each match 2-5 % of the rows, so nothing can be pruned (memfs.index.bm25prune) and
FTS5 walks every matching row's position lists and calls its ranking function per row.
Here each term's rows (as indexes into a sorted label array) and its weighted frequency in
each (a code into a small float64 table) are laid out flat, with every row's size in
tokens, so memfs.index.bm25fast scores a query with a few vectorised numpy operations.

Everything is read from FTS5 itself, in one read snapshot: the instances through
`fts5vocab(..., 'instance')`, the row sizes from `items_fts_docsize`, the row/token totals
from the averages record, and the change log's position (`bm25_changed`, fed by triggers
on `items`), so rows written after the snapshot are exactly those logged after `seq`.

A cache (docs/reliability.md): a crc32 of the whole payload, a format number, and the
generation recorded in the index's meta in the same transaction that trims the log. A file
that fails any check is not used (search falls back to FTS5) and the next sync rewrites it.
"""

from __future__ import annotations

import json
import mmap
import os
import sqlite3
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memfs.core.lazynp import lazy_numpy
from memfs.errors import MemfsError
from memfs.index.ftstok import COLUMNS, tokenizer_matches, totals, varints, weighted_freq

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_numpy(globals())  # imported on first use (core/lazynp.py)

FILE_NAME = "bm25.post"
MAGIC = b"MEMFSBM25\x00\x01\x00"
FORMAT = 2
#: items_fts' bm25() column weights (memfs.index.db.CONTEXT_WEIGHT for the context): a
#: copy, so this module needs nothing of db.py; tests/test_bm25_postings.py ties the two.
WEIGHTS = (1.0, 0.3, 0.4)
_ARRAYS = ("labels", "dlen", "term_off", "exc_off", "post_gap", "gap_exc", "post_code", "ftab", "terms")
#: A gap byte of this value: the gap is the term's next entry in `gap_exc`.
ESCAPE = 255


class PostingsError(MemfsError):
    """A postings file that cannot be used (damaged, another format, another index): control
    flow, never reported (search asks FTS5 instead)."""


@dataclass
class Postings:
    """One snapshot of items_fts as arrays (read-only views of the mapped file)."""

    generation: int
    seq: int  # the last bm25_changed seq this snapshot includes
    nrow: int
    ntok: int
    labels: np.ndarray  # ascending: row i of every per-row array
    dlen: np.ndarray  # tokens per row, all columns
    term_off: np.ndarray  # [terms + 1]: term t's postings are [off[t], off[t+1])
    exc_off: np.ndarray  # [terms + 1]: term t's escaped gaps are gap_exc[exc_off[t]:exc_off[t+1]]
    post_gap: np.ndarray  # uint8 per posting: rows skipped since the term's previous row (ESCAPE: see gap_exc)
    gap_exc: np.ndarray  # int32 gaps of ESCAPE or more
    post_code: np.ndarray  # uint8/uint16 index into ftab
    ftab: np.ndarray  # float64 weighted frequencies
    term_index: dict[str, int]

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        """(row indexes, ascending; weighted frequencies) of the rows holding `term`."""
        t = self.term_index.get(term)
        if t is None:
            return None
        a, b = int(self.term_off[t]), int(self.term_off[t + 1])
        packed = self.post_gap[a:b]
        gaps = packed.astype(np.int64)
        esc = np.flatnonzero(packed == ESCAPE)
        if len(esc):
            gaps[esc] = self.gap_exc[int(self.exc_off[t]):int(self.exc_off[t + 1])]
        return np.cumsum(gaps + 1) - 1, self.ftab[self.post_code[a:b]]


def build_arrays(conn: sqlite3.Connection) -> dict[str, object]:
    """The arrays and header of the current items_fts (call inside one read transaction)."""
    if not tokenizer_matches(conn):
        raise PostingsError("items_fts is not the layout this memfs scores")
    tot = totals(conn)
    if tot is None:
        raise PostingsError("items_fts has no averages record")
    seq_row = conn.execute("SELECT coalesce(max(seq), 0) FROM bm25_changed").fetchone()
    sizes = conn.execute("SELECT id, sz FROM items_fts_docsize ORDER BY id").fetchall()
    labels = np.fromiter((int(r[0]) for r in sizes), dtype=np.int64, count=len(sizes))
    dlen = _row_sizes([bytes(r[1]) for r in sizes])
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.memfs_vocab USING fts5vocab(main, items_fts, 'instance')")
    try:
        terms = conn.execute("SELECT term, count(*) FROM temp.memfs_vocab GROUP BY term ORDER BY term").fetchall()
        case = " ".join(f"WHEN '{name}' THEN {i}" for i, name in enumerate(COLUMNS))
        # fts5vocab's own order (term, doc, col, offset), checked below: an ORDER BY would sort.
        flat = conn.execute(f"SELECT group_concat(doc * 4 + CASE col {case} END, ',') "
                            "FROM temp.memfs_vocab").fetchone()[0]
    finally:
        conn.execute("DROP TABLE IF EXISTS temp.memfs_vocab")
    # Parsed in C (6x a split into Python strings, and no 10^7 str objects at 10^6 items);
    # a short parse is caught by the count check below.
    inst = np.fromstring(flat, dtype=np.int64, sep=",") if flat else np.zeros(0, dtype=np.int64)
    counts = np.array([int(r[1]) for r in terms], dtype=np.int64)
    if int(counts.sum()) != len(inst):
        raise PostingsError("fts5vocab changed while it was read")
    term_of = np.repeat(np.arange(len(terms), dtype=np.int64), counts)
    doc, col = inst >> 2, inst & 3
    # One posting per (term, row): its instances are adjacent (ordered by term, doc).
    key = term_of * (int(labels[-1]) + 1 if len(labels) else 1) + doc
    if len(key) and bool(np.any(key[1:] < key[:-1])):
        raise PostingsError("fts5vocab did not list instances by term and row")
    start = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, dtype=np.int64)
    per_col = np.zeros((len(start), len(COLUMNS)), dtype=np.int64)
    group = np.cumsum(np.r_[False, key[1:] != key[:-1]]) if len(key) else np.zeros(0, dtype=np.int64)
    np.add.at(per_col, (group, col), 1)
    post_term, post_label = term_of[start], doc[start]
    post_doc = np.searchsorted(labels, post_label)
    if len(post_doc) and (post_doc.max() >= len(labels) or np.any(labels[post_doc] != post_label)):
        raise PostingsError("a row in the word index has no size record")
    if len(per_col) and int(per_col.max()) >= 1 << 20:
        raise PostingsError("a word occurs 2^20 times in one row")
    packed, code = np.unique((per_col[:, 0] << 40) | (per_col[:, 1] << 20) | per_col[:, 2], return_inverse=True)
    triples = [(int(k) >> 40, (int(k) >> 20) & 0xFFFFF, int(k) & 0xFFFFF) for k in packed]
    ftab = np.array([weighted_freq(t, WEIGHTS) for t in triples], dtype=np.float64)
    term_off = np.zeros(len(terms) + 1, dtype=np.int64)
    np.add.at(term_off, post_term + 1, 1)
    term_off = np.cumsum(term_off)
    # Gaps: a term's first row is its gap from -1, each next one from the row before.
    first = np.zeros(len(post_doc), dtype=bool)
    first[term_off[:-1][term_off[:-1] < len(post_doc)]] = True
    prev = np.r_[-1, post_doc[:-1]] if len(post_doc) else np.zeros(0, dtype=np.int64)
    gaps = post_doc - np.where(first, -1, prev) - 1
    escaped = gaps >= ESCAPE
    exc_off = np.zeros(len(terms) + 1, dtype=np.int64)
    np.add.at(exc_off, post_term[escaped] + 1, 1)
    names = [str(r[0]) for r in terms]
    if any("\n" in t for t in names):
        raise PostingsError("a term holds a newline")
    return {
        "seq": int(seq_row[0]), "nrow": tot[0], "ntok": tot[1],
        "labels": _narrow(labels), "dlen": _narrow(dlen), "term_off": _narrow(term_off),
        "exc_off": _narrow(np.cumsum(exc_off)), "post_gap": np.where(escaped, ESCAPE, gaps).astype(np.uint8),
        "gap_exc": gaps[escaped].astype(np.int32), "post_code": _narrow(np.asarray(code).reshape(-1)),
        "ftab": ftab, "terms": np.frombuffer("\n".join(names).encode("utf-8"), dtype=np.uint8),
    }


def _narrow(arr: np.ndarray) -> np.ndarray:
    """The smallest unsigned type holding every value (all are >= 0): 1-8 bytes each."""
    top = int(arr.max()) if arr.size else 0
    for dt in (np.uint8, np.uint16, np.uint32):
        if top <= np.iinfo(dt).max:
            return arr.astype(dt)
    return arr.astype(np.int64)


def _row_sizes(blobs: list[bytes]) -> np.ndarray:
    """Each row's tokens over all columns from its %_docsize varints; vectorised when every
    column's size fits one byte (below 128 tokens: nearly every item)."""
    ncol = len(COLUMNS)
    joined = b"".join(blobs)
    if len(joined) == ncol * len(blobs) and all(len(b) == ncol for b in blobs):
        arr = np.frombuffer(joined, dtype=np.uint8).reshape(len(blobs), ncol)
        if not bool(np.any(arr & 0x80)):
            return arr.astype(np.int64).sum(axis=1)
    return np.fromiter((sum(varints(b)) for b in blobs), dtype=np.int64, count=len(blobs))


def write(state: Path, arrays: dict[str, object], generation: int) -> Path:
    """Write the file atomically (temp file, fsync, rename)."""
    blobs: list[bytes] = []
    layout: dict[str, list] = {}  # type: ignore[type-arg]
    offset = 0
    for name in _ARRAYS:
        arr = np.ascontiguousarray(arrays[name])
        data = arr.tobytes()
        layout[name] = [offset, arr.dtype.str, int(arr.size)]
        pad = (-len(data)) % 8
        blobs.append(data + b"\0" * pad)
        offset += len(data) + pad
    payload = b"".join(blobs)
    header = json.dumps({"format": FORMAT, "generation": generation, "seq": arrays["seq"], "nrow": arrays["nrow"],
                         "ntok": arrays["ntok"], "arrays": layout, "crc": zlib.crc32(payload),
                         "size": len(payload)}).encode()
    head = MAGIC + struct.pack("<I", len(header)) + header
    head += b"\0" * ((-len(head)) % 8)
    path = state / FILE_NAME
    tmp = state / f".{FILE_NAME}.{os.getpid()}.tmp"
    with open(tmp, "wb") as fh:
        fh.write(head)
        fh.write(payload)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return path


def load(state: Path) -> Postings:
    """Map and verify the file; PostingsError if it is not exactly what `write` wrote."""
    path = state / FILE_NAME
    try:
        with open(path, "rb") as fh:
            mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError) as err:
        raise PostingsError(f"{path.name}: cannot be read ({err})") from None
    try:
        if mm[:len(MAGIC)] != MAGIC:
            raise PostingsError(f"{path.name}: not a memfs postings file")
        (hlen,) = struct.unpack("<I", mm[len(MAGIC):len(MAGIC) + 4])
        head = json.loads(bytes(mm[len(MAGIC) + 4:len(MAGIC) + 4 + hlen]))
        base = len(MAGIC) + 4 + hlen
        base += (-base) % 8
        if head.get("format") != FORMAT or base + int(head["size"]) != len(mm):
            raise PostingsError(f"{path.name}: another format or a truncated file")
        buf = memoryview(mm)[base:]
        if zlib.crc32(buf) != int(head["crc"]):
            raise PostingsError(f"{path.name}: checksum mismatch")
        arr = {name: np.frombuffer(buf, dtype=np.dtype(dt), count=n, offset=off)
               for name, (off, dt, n) in head["arrays"].items()}
    except (KeyError, TypeError, ValueError, struct.error) as err:
        if isinstance(err, PostingsError):
            raise
        raise PostingsError(f"{path.name}: damaged header ({err})") from None
    names = bytes(arr["terms"]).decode("utf-8").split("\n") if arr["terms"].size else []
    if (len(names) + 1 != arr["term_off"].size or int(arr["term_off"][-1]) != arr["post_gap"].size
            or arr["exc_off"].size != arr["term_off"].size or int(arr["exc_off"][-1]) != arr["gap_exc"].size):
        raise PostingsError(f"{path.name}: inconsistent term table")
    return Postings(int(head["generation"]), int(head["seq"]), int(head["nrow"]), int(head["ntok"]),
                    arr["labels"].astype(np.int64), arr["dlen"].astype(np.float64), arr["term_off"], arr["exc_off"],
                    arr["post_gap"], arr["gap_exc"], arr["post_code"], arr["ftab"],
                    {t: i for i, t in enumerate(names)})


def header_generation(state: Path) -> int | None:
    """The file's generation if its header is sound and its length the one it declares (no
    checksum: cheap enough for every sync; readers check the checksum when they map it)."""
    path = state / FILE_NAME
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(MAGIC) + 4)
            if head[:len(MAGIC)] != MAGIC or len(head) < len(MAGIC) + 4:
                return None
            (hlen,) = struct.unpack("<I", head[len(MAGIC):])
            meta = json.loads(fh.read(hlen))
        base = len(MAGIC) + 4 + hlen
        base += (-base) % 8
        if meta.get("format") != FORMAT or base + int(meta["size"]) != path.stat().st_size:
            return None
        return int(meta["generation"])
    except (OSError, ValueError, KeyError, TypeError, struct.error):
        return None


def stamp(state: Path) -> str:
    """size:mtime_ns of the file, recorded when written: a file changed since is rebuilt."""
    try:
        st = (state / FILE_NAME).stat()
    except OSError:
        return ""
    return f"{st.st_size}:{st.st_mtime_ns}"


def remove(state: Path) -> None:
    try:
        (state / FILE_NAME).unlink()
    except FileNotFoundError:
        pass
