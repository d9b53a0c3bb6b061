"""The hnsw sidecar: a graph over each *distinct* vector once, labels grouped per vector.

A person's notes repeat lines ("- Owner: platform team." in thousands of notes): at 10,000
notes 74,767 labels had 48,106 distinct vectors. hnswlib over every label put thousands of
identical points in the graph, which its neighbour selection cannot link usefully: on
that vault, with MiniLM question vectors, hnsw found about half of the exact top 10
(bench/README.md). So the graph's elements are *slots*, one per distinct vector (equal
int8 codes, memfs.index.quant), and each slot lists the labels that share it; a search
expands slots into their labels in rank order, as exact search ranks ties.

The file (memfs.index.hnswfile) keeps the graph, the labels on each slot and a 64-bit
fingerprint of each slot's vector (of its int8 codes); the vectors are SQLite's, found on
load by that fingerprint among the cache's rows. A label whose text changed since the save
is pending (`vec_pending`) and searched exactly beside the sidecar, whose hits for it are
dropped, as before; a slot whose vector is no longer cached is marked deleted.
"""

from __future__ import annotations

import bisect
import json
import os
import pickle
import sqlite3
import zipfile
from collections.abc import KeysView
from pathlib import Path
from typing import TYPE_CHECKING

from memfs.core.lazynp import lazy_numpy
from memfs.errors import MemfsError
from memfs.fsutil import atomic_write
from memfs.index.graphpack import Widened, narrow
from memfs.index.hnswfile import (FORMAT, HNSW_FILE, HNSW_GEN, HNSW_META, LEGACY_FORMAT, NARROWED, READ_FORMATS,
                                  VectorSource, fingerprints, freeze, thaw)
from memfs.index.quant import quantize
from memfs.index.sidecar_source import CachedCodes

if TYPE_CHECKING:
    import numpy as np

    from memfs.index.db import IndexDB
else:
    np = lazy_numpy(globals())  # imported on first use (core/lazynp.py)

_DAMAGE = (RuntimeError, OSError, ValueError, KeyError, TypeError, EOFError, pickle.UnpicklingError,
           zipfile.BadZipFile, sqlite3.Error, MemfsError)


class HnswSidecar:
    """An hnswlib index over distinct vectors, labels grouped per vector, atomic save/load."""

    def __init__(self, folder: Path, dim: int, space_name: str, m: int = 16, ef_construction: int = 200) -> None:
        self.folder = folder
        self.dim = dim
        self.space_name = space_name
        self.m = m
        self.ef_construction = ef_construction
        self.index = None
        self._slot_of: dict[int, int] = {}  # label -> slot
        self._members: dict[int, list[int]] = {}  # live slot -> its labels, sorted
        self._print_of: dict[int, int] = {}  # live slot -> fingerprint of its vector
        self._slot_by_print: dict[int, int] | None = None  # built when an upsert needs it
        self._next_slot = 0
        #: After a load: (slots, offsets, their labels, each label's slot), sorted; see _mutable.
        self._csr: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        self._saved_prints = (np.zeros(0, np.int64), np.zeros(0, np.uint64))
        #: True after `load` read a file of the previous layout (a sync rebuilds it).
        self.legacy = False

    @property
    def labels(self) -> KeysView[int]:
        """The labels in the sidecar (a live view: `in`, `len`, set operations)."""
        self._mutable()
        return self._slot_of.keys()

    def _new(self, capacity: int) -> None:
        import hnswlib

        self.index = hnswlib.Index(space="ip", dim=self.dim)
        self.index.init_index(max_elements=max(capacity, 1024), M=self.m, ef_construction=self.ef_construction,
                              allow_replace_deleted=True)
        self._slot_of, self._members, self._print_of, self._slot_by_print = {}, {}, {}, {}
        self._next_slot = 0
        self._csr = None

    # -- loading ------------------------------------------------------------------
    def load(self, vectors: "IndexDB | VectorSource | None" = None) -> bool:
        """Load the saved sidecar if it matches this embedder; False if absent or stale.

        `vectors` is where the graph's vectors come from: the index (an IndexDB, read in the
        caller's snapshot), a callable giving `(labels, float32 matrix)`, or None for the
        `index.sqlite3` beside the sidecar."""
        try:
            meta = json.loads((self.folder / HNSW_META).read_text())
        except (OSError, ValueError):
            return False
        data_path = self.folder / HNSW_FILE
        if (meta.get("space") != self.space_name or meta.get("dim") != self.dim
                or meta.get("format") not in (*READ_FORMATS, LEGACY_FORMAT) or not data_path.exists()):
            return False
        try:
            with np.load(data_path, allow_pickle=False) as saved:
                if meta.get("format") == LEGACY_FORMAT:
                    self._load_legacy(saved)
                else:
                    self._load_slots(Widened(saved, NARROWED), self._codes(vectors))  # type: ignore[arg-type]
        except _DAMAGE:  # absent, damaged or foreign: rebuilt by the next sync
            self.index = None
            return False
        return True

    def _codes(self, vectors: "IndexDB | VectorSource | None") -> CachedCodes:
        from memfs.index.db import IndexDB
        from memfs.index.sidecar_source import cached_codes, from_matrix

        if isinstance(vectors, IndexDB):
            return cached_codes(vectors)
        if vectors is not None:
            return from_matrix(vectors()[1])
        db = IndexDB(self.folder / "index.sqlite3", readonly=True)
        try:
            with db.snapshot():
                return cached_codes(db)
        finally:
            db.close()

    def _load_legacy(self, saved: "np.lib.npyio.NpzFile") -> None:
        """`graph+int8/2`: one element per label, the element's label its own slot."""
        index, live = thaw(saved, self.dim, None)
        self.index = index
        self._slot_of = {int(x): int(x) for x in live}
        self._members = {int(x): [int(x)] for x in live}
        self._print_of = {}
        self._slot_by_print = None
        self._next_slot = (max(self._slot_of) + 1) if self._slot_of else 0
        self._csr = None
        self.legacy = True

    def _load_slots(self, saved: "np.lib.npyio.NpzFile", cache: CachedCodes) -> None:
        """Each slot's vector is the cache row with the slot's fingerprint; a slot whose
        vector is no longer cached (no text has it any more) is marked deleted, with its
        labels. The labels stay sorted arrays until something changes the sidecar: a
        reader builds no dict of 10^5 labels."""
        slots, prints = saved["slot_ids"], saved["slot_prints"]
        member_labels, offsets = saved["member_labels"], saved["member_at"]
        if len(offsets) != len(slots) + 1 or int(offsets[-1]) != len(member_labels):
            raise ValueError("sidecar members do not match its slots")
        if cache.codes.shape[0] and cache.codes.shape[1] != self.dim:
            raise ValueError("the index's vectors are of another dimension")
        row_prints = fingerprints(cache.codes) if len(cache.codes) else np.zeros(0, np.uint64)
        slot_rows = np.full(len(slots), -1, dtype=np.int64)
        if len(slots) and len(row_prints):
            by_print = np.argsort(row_prints, kind="stable")
            at = np.searchsorted(row_prints[by_print], prints).clip(0, len(row_prints) - 1)
            hit = row_prints[by_print[at]] == prints
            slot_rows[hit] = by_print[at[hit]]

        def fill(elem_slots: np.ndarray, out: np.ndarray) -> np.ndarray:
            pos = np.searchsorted(slots, elem_slots).clip(0, max(len(slots) - 1, 0))
            ok = (slots[pos] == elem_slots) & (slot_rows[pos] >= 0) if len(slots) else np.zeros(len(elem_slots), bool)
            cache.write_vectors(slot_rows[pos], ok, out)
            return ok

        index, live_slots = thaw(saved, self.dim, fill)
        keep = np.isin(slots, live_slots) & (slot_rows >= 0)
        counts = np.diff(offsets)
        labels = member_labels[np.repeat(keep, counts)]
        kept = slots[keep]
        self.index = index
        self._csr = (kept, np.concatenate([[0], np.cumsum(counts[keep])]).astype(np.int64), labels,
                     np.repeat(kept, counts[keep]))
        self._saved_prints = (slots, prints)
        self._slot_of, self._members, self._print_of, self._slot_by_print = {}, {}, {}, None
        self._next_slot = int(saved["next_slot"])
        self.legacy = False

    def _mutable(self) -> None:
        """The sorted arrays a load left, as the dicts changes work on."""
        if self._csr is None:
            return
        csr_slots, offsets, labels, owner = self._csr
        self._slot_of = dict(zip(labels.tolist(), owner.tolist()))
        flat = labels.tolist()
        bounds = offsets.tolist()
        self._members = {s: flat[bounds[i]:bounds[i + 1]] for i, s in enumerate(csr_slots.tolist())}
        slots, prints = self._saved_prints
        self._print_of = {s: p for s, p in zip(slots.tolist(), prints.tolist()) if s in self._members}
        self._slot_by_print = None
        self._csr = None

    # -- changes ------------------------------------------------------------------
    def rebuild(self, labels: np.ndarray, matrix: np.ndarray, capacity: int | None = None) -> None:
        """A new graph of these labels; `capacity` sizes it for more added after (a streamed build)."""
        self._new(int(max(len(labels), capacity or 0) * 1.3) + 1024)
        if len(labels):
            self.upsert([int(x) for x in labels], matrix)

    def _by_print(self) -> dict[int, int]:
        """fingerprint -> live slot; for a loaded sidecar, from the prints saved with it."""
        if self._slot_by_print is None:
            self._slot_by_print = {p: s for s, p in self._print_of.items()}
        return self._slot_by_print

    def upsert(self, labels: list[int], matrix: np.ndarray) -> None:
        """Add or move labels to the slot of their vector (a new slot for a vector not yet in)."""
        if self.index is None:
            self._new(len(labels) + 1024)
        self._mutable()
        if not labels:
            return
        prints = fingerprints(quantize(matrix)[0]).tolist()
        by_print = self._by_print()
        new_slots: list[int] = []
        new_rows: list[int] = []
        for i, (lab, pr) in enumerate(zip(labels, prints)):
            old = self._slot_of.get(lab)
            if old is not None:
                if self._print_of.get(old) == pr:
                    continue
                self._detach(lab, old)
            slot = by_print.get(pr)
            if slot is None:
                slot = self._next_slot
                self._next_slot += 1
                by_print[pr] = slot
                self._print_of[slot] = pr
                self._members[slot] = []
                new_slots.append(slot)
                new_rows.append(i)
            self._slot_of[lab] = slot
            bisect.insort(self._members[slot], lab)
        if new_slots:
            idx = self.index
            need = idx.get_current_count() + len(new_slots)  # type: ignore[union-attr]
            if need > idx.get_max_elements():  # type: ignore[union-attr]
                idx.resize_index(max(need, int(idx.get_max_elements() * 1.5)))  # type: ignore[union-attr]
            idx.add_items(np.asarray(matrix, dtype=np.float32)[new_rows], np.asarray(new_slots, dtype=np.int64),  # type: ignore[union-attr]
                          replace_deleted=True)

    def _detach(self, label: int, slot: int) -> None:
        members = self._members.get(slot)
        del self._slot_of[label]
        if members is None:
            return
        i = bisect.bisect_left(members, label)
        if i < len(members) and members[i] == label:
            members.pop(i)
        if not members:  # no label left on this vector: out of the graph
            del self._members[slot]
            pr = self._print_of.pop(slot, None)
            if self._slot_by_print is not None and pr is not None and self._slot_by_print.get(pr) == slot:
                del self._slot_by_print[pr]
            self.index.mark_deleted(slot)  # type: ignore[union-attr]

    def delete(self, labels: list[int]) -> None:
        if self.index is None:
            return
        self._mutable()
        for lab in labels:
            slot = self._slot_of.get(lab)
            if slot is not None:
                self._detach(lab, slot)

    # -- queries ------------------------------------------------------------------
    def search(self, query: np.ndarray, k: int, ef: int) -> list[tuple[int, float]]:
        """Top-k labels: the nearest slots, each expanded into its labels (ties, as exact search ranks them)."""
        live = len(self._csr[0]) if self._csr is not None else len(self._members)
        if self.index is None or not live or k <= 0:
            return []
        ks = min(k, live)
        self.index.set_ef(max(ef, ks))
        q = query.reshape(1, -1).astype(np.float32)
        while True:
            try:
                slots, dists = self.index.knn_query(q, k=ks)
                break
            except RuntimeError:  # fewer than ks reachable (many deleted nodes): ask for fewer
                if ks <= 1:
                    return []
                ks = max(1, ks // 2)
        if self._csr is not None:
            return self._expand(slots[0], dists[0], k)
        out: list[tuple[int, float]] = []
        for slot, d in zip(slots[0].tolist(), dists[0].tolist()):
            for lab in self._labels_of(slot, k - len(out)):
                out.append((lab, 1.0 - d))
            if len(out) >= k:
                break
        return out

    def _expand(self, slots: np.ndarray, dists: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The loop above over the frozen slot arrays in a few numpy operations (a
        searchsorted call per hit was ~0.5 ms of a 10^5-item query): each slot's labels in
        order, scored 1 - d in float64 as the loop does, cut at k."""
        csr_slots, offsets, labels, _ = self._csr  # type: ignore[misc]
        sl = slots.astype(np.int64)
        at = np.searchsorted(csr_slots, sl)
        ok = at < len(csr_slots)
        ok[ok] = csr_slots[at[ok]] == sl[ok]
        at = at[ok]
        starts = offsets[at].astype(np.int64)
        lens = offsets[at + 1].astype(np.int64) - starts
        scores = 1.0 - dists[ok].astype(np.float64)
        within = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
        labs = labels[np.repeat(starts, lens) + within][:k]
        return list(zip(labs.tolist(), np.repeat(scores, lens)[:k].tolist()))

    def _labels_of(self, slot: int, most: int) -> list[int]:
        if self._csr is None:
            return self._members.get(slot, [])[:most]
        csr_slots, offsets, labels, _ = self._csr
        i = int(np.searchsorted(csr_slots, slot))
        if i >= len(csr_slots) or csr_slots[i] != slot:
            return []
        start = int(offsets[i])
        return labels[start:min(int(offsets[i + 1]), start + most)].tolist()

    # -- files --------------------------------------------------------------------
    def save(self, generation: int) -> None:
        if self.index is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        self._mutable()
        if self.legacy or len(self._print_of) < len(self._members):
            self._refresh_prints()
        slots = np.fromiter(sorted(self._members), dtype=np.int64, count=len(self._members))
        groups = [self._members[int(s)] for s in slots]
        arrays = {**freeze(self.index, self.dim, set(self._members)), "slot_ids": slots,
                  "slot_prints": np.asarray([self._print_of[int(s)] for s in slots], dtype=np.uint64),
                  "member_labels": np.fromiter((lab for g in groups for lab in g), dtype=np.int64,
                                               count=sum(len(g) for g in groups)),
                  "member_at": np.concatenate([[0], np.cumsum([len(g) for g in groups], dtype=np.int64)]),
                  "next_slot": np.array(self._next_slot, dtype=np.int64)}
        arrays = narrow(arrays, NARROWED)
        tmp = self.folder / f".{HNSW_FILE}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            np.savez(fh, **arrays)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.folder / HNSW_FILE)
        atomic_write(self.folder / HNSW_META, json.dumps(
            {"space": self.space_name, "dim": self.dim, "generation": generation, "format": FORMAT}))
        atomic_write(self.folder / HNSW_GEN, str(generation))
        self.legacy = False

    def _refresh_prints(self) -> None:
        """Fingerprints of slots loaded without them (a legacy file): from the graph's vectors."""
        missing = [s for s in self._members if s not in self._print_of]
        for start in range(0, len(missing), 4096):
            chunk = missing[start:start + 4096]
            vecs = np.asarray(self.index.get_items(chunk), dtype=np.float32)  # type: ignore[union-attr]
            self._print_of.update(zip(chunk, fingerprints(quantize(vecs)[0]).tolist()))
        self._slot_by_print = None

    def remove_files(self) -> None:
        for name in (HNSW_FILE, HNSW_META, HNSW_GEN):
            try:
                (self.folder / name).unlink()
            except FileNotFoundError:
                pass
