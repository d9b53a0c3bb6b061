"""Per-file entry parts persisted in the index, so a fresh process need not recompute them.

A process that keeps its pool (the daemon) derives each file's parts (name counts, words,
counts, dates, topic sizes: `FileView.memo`) from the previous ones plus the items a write
changed. A fresh process (a one-shot `memfs add`, `memfs sync`) had nothing to derive from
and paid a pass over every item of every big file: ~1.6 s of a one-shot add into a
50,000-item file. The parts that are plain values (no `EntryItem` in them) are now kept in
the index's `entry_parts` table, one row per file and part, and a fresh process

- serves a part as is when the row names the file's current content: its hash and indexed
  item count, the store's horizon (for the parts that read learned dates) and a digest of
  the file's supersession marks; a person's edit changes the hash, so a stale row is
  never served;
- derives the part of the file it just wrote from the row of the hash the store read
  (`FileDelta.before_digest`) plus the write's removed and added items (the rows the
  index held before the write, `FileDelta.before_rows`, and the rows it wrote), with the
  same delta function a long-lived process uses; anything else is computed afresh.

Only files of `MIN_ITEMS` items or more are kept: a small file's parts cost less to compute
than to read. The cache is the index's, so a rebuilt index starts without it.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from datetime import date
from typing import Any

from memfs.entry.rankparts import decode_members, encode_members
from memfs.index.db import IndexDB
from memfs.index.entryparts import PartRow, drop_parts, part_paths, parts_of, save_parts

#: Files with fewer items compute their parts (a few ms) rather than persist them.
MIN_ITEMS = 1000
#: Part name -> whether it reads the items' learned dates (then the row names the horizon).
PERSISTED: dict[str, bool] = {"lead": False, "words": False, "counts": False, "stats-parts": True,
                              "split-sizes": True, "rank-members": True, "rank-cost-counts": False, "base-days": False}
#: What `lookup` returns when no row applies.
MISS = object()


def _counter(raw: Any) -> Counter[Any]:
    if not isinstance(raw, dict) or not all(isinstance(v, int) for v in raw.values()):
        raise ValueError("not a count map")
    return Counter(raw)


def _ints(raw: Any) -> dict[str, int]:
    return dict(_counter(raw))


def _int(raw: Any) -> int:
    if not isinstance(raw, int) or isinstance(raw, bool):
        raise ValueError("not an int")
    return raw


#: name -> (encode to JSON-able, decode from it); decode raises ValueError on a wrong shape.
_CODECS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "lead": (lambda v: [v[0], v[1]], lambda r: (_ints(r[0]), _ints(r[1]))),
    "words": (lambda v: [v[0], v[1]], lambda r: (_counter(r[0]), {w: _counter(f) for w, f in r[1].items()})),
    "counts": (lambda v: list(v), lambda r: (_int(r[0]), _int(r[1]), _int(r[2]))),
    "stats-parts": (lambda v: list(v), lambda r: (_int(r[0]), _int(r[1]), _counter(r[2]), _counter(r[3]))),
    "split-sizes": (lambda v: list(v), lambda r: (_counter(r[0]), _counter(r[1]), _int(r[2]))),
    "rank-members": (encode_members, decode_members),
    "base-days": (lambda v: v, _ints),
    "rank-cost-counts": (lambda v: [[k, n] for k, n in v.items()],
                         lambda r: Counter({_int(k): _int(n) for k, n in r})),
}


def key_text(key: tuple[Any, ...]) -> str | None:
    """The row key of a memo key, or None if that memo is not persisted (its value holds
    items, or its key names something other than strings and numbers)."""
    if not key or key[0] not in PERSISTED or not all(x is None or isinstance(x, (str, int)) for x in key):
        return None
    return json.dumps(list(key), separators=(",", ":"))


#: The modules whose code computes the persisted parts (with every module of the packages).
_CODE_PACKAGES = ("memfs.entry", "memfs.core")
_CODE_MODULES = ("memfs.extract.lexicon", "memfs.workspace", "memfs.index.delta")


def _code_of_modules() -> str:
    """A digest of the code of `_CODE_PACKAGES` and `_CODE_MODULES` as their loaders give it:
    the source where there is one, else the compiled code (a zipapp, a sourceless install),
    so two versions never share a digest however memfs is installed."""
    import importlib.util
    import marshal
    import pkgutil

    names = list(_CODE_MODULES)
    for package in _CODE_PACKAGES:
        spec = importlib.util.find_spec(package)
        names += [f"{package}.{m.name}" for m in pkgutil.iter_modules(spec.submodule_search_locations or [])]
    h = hashlib.sha1()
    for name in sorted(set(names)):
        h.update(f"{name}\0".encode())
        try:
            spec = importlib.util.find_spec(name)
            loader = spec.loader if spec is not None else None
            source = loader.get_source(name) if loader is not None and hasattr(loader, "get_source") else None
            if source is not None:
                h.update(source.encode("utf-8", "surrogatepass"))
            elif loader is not None and hasattr(loader, "get_code"):
                h.update(marshal.dumps(loader.get_code(name)))
        except (ImportError, OSError, ValueError):  # unreadable: named, so the digest still differs
            h.update(b"\0unreadable")
    return h.hexdigest()[:16]


#: Computed when this module is imported, i.e. from the code the process runs: a daemon
#: whose files an upgrade replaced does not label its rows with the new code's digest.
_CODE_DIGEST = _code_of_modules()


def code_digest() -> str:
    """What computes the persisted parts (`_code_of_modules`, read once a process at import,
    ~3 ms). A row made by other code (memfs upgraded, a word list changed) is never served
    nor derived from: its part is computed afresh and written over it."""
    return _CODE_DIGEST


def horizon_text(key: tuple[Any, ...], horizon: date) -> str:
    """The row's `horizon` field: the code that made it, and the store's horizon for the
    parts that read learned dates."""
    return f"{code_digest()}|{horizon.isoformat() if PERSISTED[key[0]] else ''}"


def marks_digest(marks: dict[str, list[str]]) -> str:
    """A file's supersession marks as one digest (they decide which items are current)."""
    return hashlib.sha1(json.dumps(marks, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class PartStore:
    """The rows read for the files a fresh process has no previous view of, and the values
    computed since, to write back at the end of a regeneration."""

    def __init__(self) -> None:
        self.loaded: dict[str, dict[str, PartRow]] = {}
        #: (path, key) -> (row without its value, the value) of what this process wrote last:
        #: a long-lived process derives its next parts from them without decoding the rows.
        self._kept: dict[tuple[str, str], tuple[PartRow, Any]] = {}
        self._pending: dict[tuple[str, str], tuple[str, PartRow, Any]] = {}
        self.served = 0  # rows served or derived (tests check a fresh process used them)
        self.derived = 0

    def load(self, db: IndexDB, path: str) -> None:
        self.loaded[path] = parts_of(db, path)

    def lookup(self, path: str, key: tuple[Any, ...], digest: str, count: int, horizon: date, marks: str) -> Any:
        """The persisted value of `key` for exactly this content of the file, else MISS."""
        kt = key_text(key)
        kept = self._kept.get((path, kt)) if kt else None
        if kept is not None and (kept[0].digest, kept[0].count, kept[0].horizon, kept[0].marks) == (
                digest, count, horizon_text(key, horizon), marks):
            self.served += 1
            return kept[1]
        row = self.loaded.get(path, {}).get(kt) if kt else None
        if row is None or (row.digest, row.count, row.horizon, row.marks) != (
                digest, count, horizon_text(key, horizon), marks):
            return MISS
        value = self._decode(key[0], row.value)
        if value is MISS:  # damaged: forgotten, so the value computed now is written over it (`offer`)
            del self.loaded[path][kt]  # type: ignore[index]
        else:
            self.served += 1
        return value

    def base(self, path: str, key: tuple[Any, ...], before_digest: str, horizon: date, marks: str
             ) -> tuple[int, Any] | None:
        """(item count, value) of the row for the content a write started from, else None."""
        kt = key_text(key)
        kept = self._kept.get((path, kt)) if kt else None
        if kept is not None and (kept[0].digest, kept[0].horizon, kept[0].marks) == (
                before_digest, horizon_text(key, horizon), marks):
            return kept[0].count, kept[1]
        row = self.loaded.get(path, {}).get(kt) if kt else None
        if row is None or (row.digest, row.horizon, row.marks) != (before_digest, horizon_text(key, horizon), marks):
            return None
        value = self._decode(key[0], row.value)
        return None if value is MISS else (row.count, value)

    def offer(self, path: str, key: tuple[Any, ...], digest: str, count: int, horizon: date, marks: str,
              value: Any) -> None:
        """Remember a value computed for this content, to persist at `flush`."""
        kt = key_text(key)
        if kt is None or count < MIN_ITEMS:
            return
        row = PartRow(kt, digest, count, horizon_text(key, horizon), marks, "")
        old = self.loaded.get(path, {}).get(kt)
        if old is not None and old._replace(value="") == row:
            return  # the row already says this
        self._pending[(path, kt)] = (key[0], row, value)

    def flush(self, db: IndexDB, live: set[str]) -> None:
        """Write the values offered since the last flush; drop the rows of files gone from
        the index. Call under the writer lock."""
        todo = [(path, name, row, value) for (path, _), (name, row, value) in sorted(self._pending.items(),
                                                                                    key=lambda kv: kv[0])
                if path in live]
        save_parts(db, [(path, row._replace(value=json.dumps(_CODECS[name][0](value), separators=(",", ":"))))
                        for path, name, row, value in todo])
        for path, _, row, value in todo:  # the value is kept decoded, not as the row's text
            self.loaded.setdefault(path, {})[row.key] = row
            self._kept[(path, row.key)] = (row, value)
        self._pending.clear()
        for key in [k for k in self._kept if k[0] not in live]:
            del self._kept[key]
        drop_parts(db, sorted(part_paths(db) - live))

    @staticmethod
    def _decode(name: str, text: str) -> Any:
        try:
            return _CODECS[name][1](json.loads(text))
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            return MISS  # a damaged row is a miss: the part is computed afresh
