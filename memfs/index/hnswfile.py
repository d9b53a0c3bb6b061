"""The hnsw sidecar's file layout: hnswlib's graph as plain arrays, without the vectors.

The vectors the graph indexes are already in SQLite's embedding cache (int8 + scale,
memfs.index.quant); a second copy in the sidecar was a third of `.memfs/` at 10,000 notes
(bench/README.md, "Size of .memfs/"). So the file keeps only the graph (level-0 links and
each element's id, the upper levels, the id lookup) and, on load, the level-0 records
are refilled by a `fill` callback from the vectors of the index the sidecar belongs to
(memfs.index.sidecar maps elements to labels). Only elements SQLite cannot give back —
deleted ones, still graph nodes that searches walk through — keep int8 vectors here.

`graph+int8/2` (the previous layout: one element per label, every distinct vector in the
file) is still read, so an existing workspace searches as before until its next sync
rebuilds the graph (from the cached vectors: nothing is embedded again).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from memfs.core.lazynp import lazy_numpy
from memfs.index import graphpack
from memfs.index.quant import dequantize, quantize

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_numpy(globals())  # imported on first use (core/lazynp.py)

HNSW_FILE = "vectors.hnsw"
HNSW_META = "vectors.json"
HNSW_GEN = "vectors.gen"  # the generation alone: read on every sync, so kept tiny
#: graph/4: graph/3's arrays narrowed (memfs.index.graphpack); graph/3 is still read, and
#: an older memfs does not load a graph/4 file (its sync rebuilds the graph it knows).
FORMAT = "graph/4"
READ_FORMATS = (FORMAT, "graph/3")
LEGACY_FORMAT = "graph+int8/2"
#: (labels, float32 matrix) of every vector the sidecar may index: IndexDB.labeled_vectors.
VectorSource = Callable[[], "tuple[np.ndarray, np.ndarray]"]
#: (element ids, their float32 rows to write, a strided view into hnswlib's records) ->
#: which of them were found
Fill = Callable[["np.ndarray", "np.ndarray"], "np.ndarray"]
_OWN = ("params", "graph0", "live", "orphan_at", "orphan_codes", "orphan_scales", "levels_n",
        "slot_ids", "slot_prints", "member_labels", "member_at", "next_slot",
        graphpack.HEAD, graphpack.LINKS, graphpack.LABEL)
#: int64 arrays saved narrowed (graphpack.narrow) and read back as int64 (graphpack.Widened).
NARROWED = ("live", "orphan_at", "slot_ids", "member_labels", "member_at")
_LEGACY_OWN = ("params", "graph0", "vectors", "which", "live")
_WEIGHTS: dict[int, np.ndarray] = {}


def fingerprints(codes: np.ndarray) -> np.ndarray:
    """A 64-bit fingerprint of each int8 row: equal codes, equal prints (two different rows
    collide with odds ~n²/2⁶⁴, 10⁻¹⁰ at 10⁵ distinct vectors). The scale is left out: rows
    with equal codes point the same way, and a scale read back may differ in its last bit.
    Read as 64-bit words in place (no widening copy): a cold load prints every cached row."""
    packed = np.ascontiguousarray(codes).view(np.uint8).reshape(len(codes), -1)
    if packed.shape[1] % 8:
        packed = np.pad(packed, ((0, 0), (0, 8 - packed.shape[1] % 8)))
    words = packed.view(np.uint64)
    w = _WEIGHTS.get(words.shape[1])
    if w is None:
        w = _WEIGHTS[words.shape[1]] = np.random.default_rng(18).integers(
            1, 2**63, size=words.shape[1], dtype=np.uint64) | np.uint64(1)
    with np.errstate(over="ignore"):
        mixed = words * w
        mixed ^= mixed >> np.uint64(31)
        mixed *= np.uint64(0x9E3779B97F4A7C15)
        return mixed.sum(axis=1, dtype=np.uint64)


def _layout(params: dict) -> tuple[int, int, int, int]:
    n, size = int(params["cur_element_count"]), int(params["size_data_per_element"])
    return n, size, int(params["offset_data"]), int(params["label_offset"])


def freeze(index: object, dim: int, labels: set[int]) -> dict[str, np.ndarray]:
    """hnswlib's state (its pickle form) as arrays, the level-0 vectors cut out; those of
    elements not in `labels` (deleted: SQLite may no longer hold them) kept as int8."""
    params = dict(index.__getstate__()[0])  # type: ignore[attr-defined]
    level0 = params.pop("data_level0")
    n, size, off, label_off = _layout(params)
    rows = level0[: n * size].view(np.uint8).reshape(n, size)
    elem_labels = _labels_of(rows, label_off)
    live = np.fromiter(sorted(labels), dtype=np.int64, count=len(labels))
    orphan_at = np.flatnonzero(~np.isin(elem_labels, live)).astype(np.int64)
    orphans = np.ascontiguousarray(rows[orphan_at, off : off + 4 * dim]).view(np.float32).reshape(-1, dim)
    codes, scales = quantize(orphans) if len(orphan_at) else (np.zeros((0, dim), np.int8), np.zeros(0, np.float32))
    arrays = {k: params.pop(k) for k in [k for k, v in params.items() if isinstance(v, np.ndarray)]}
    for key in ("label_lookup_external", "label_lookup_internal"):  # each record's id says it: rebuilt on load
        arrays.pop(key, None)
    levels = arrays.get("element_levels")
    if levels is not None:  # sized to the capacity; only the first n are used
        arrays["element_levels"] = levels[:n]
    return {**arrays, "params": np.array(json.dumps(params)), "levels_n": np.array(len(levels) if levels is not None else 0),
            **graphpack.pack_level0(np.delete(rows, np.s_[off : off + 4 * dim], 1), off), "live": live,
            "orphan_at": orphan_at, "orphan_codes": codes, "orphan_scales": scales}


def _labels_of(rows: np.ndarray, label_off: int) -> np.ndarray:
    """Each level-0 record's external label (hnswlib's size_t)."""
    return np.ascontiguousarray(rows[:, label_off : label_off + 8]).view(np.uint64).reshape(-1).astype(np.int64)


def thaw(saved: "np.lib.npyio.NpzFile", dim: int, fill: Fill | None) -> tuple[object, np.ndarray]:
    """The index `freeze` saved, its vectors from `fill`, and its live element ids. Live
    elements `fill` has no vector for are marked deleted in this copy (and not returned)."""
    params = json.loads(str(saved["params"]))
    if "orphan_at" not in saved.files:
        return _thaw_legacy(saved, params, dim)
    if fill is None:
        raise ValueError("this sidecar needs the index's vectors")
    n, size, off, label_off = _layout(params)
    graph0 = saved["graph0"] if "graph0" in saved.files else graphpack.unpack_level0(saved, n, off)
    if graph0.shape != (n, size - 4 * dim) or label_off != off + 4 * dim:
        raise ValueError("sidecar arrays do not match its parameters")
    rows = _rows(graph0, n, size, off, dim)
    elem = _labels_of(rows, label_off)
    live = saved["live"]
    vecs = rows[:, off : off + 4 * dim].view(np.float32)  # written in place: no 10^5 x dim temporary
    vecs[:] = 0.0
    ok = fill(elem, vecs)
    at = saved["orphan_at"]
    if len(at):
        vecs[at] = dequantize(saved["orphan_codes"], saved["orphan_scales"])
    index = _restore(params, rows, saved, _OWN, lookup=(elem.astype(np.uint64), np.arange(n, dtype=np.uint32)))
    missing = np.intersect1d(live, elem[~ok])
    for lab in missing.tolist():
        index.mark_deleted(int(lab))  # type: ignore[attr-defined]
    return index, np.setdiff1d(live, missing) if len(missing) else live


def _rows(graph0: np.ndarray, n: int, size: int, off: int, dim: int) -> np.ndarray:
    rows = np.empty((n, size), dtype=np.uint8)
    rows[:, :off] = graph0[:, :off]
    rows[:, off + 4 * dim :] = graph0[:, off:]
    return rows


def _restore(params: dict, rows: np.ndarray, saved: "np.lib.npyio.NpzFile", own: tuple[str, ...],
             lookup: tuple[np.ndarray, np.ndarray] | None = None) -> object:
    import copyreg

    import hnswlib

    state = {**params, "data_level0": rows.reshape(-1).view(np.int8)}
    if lookup is not None:
        state["label_lookup_external"], state["label_lookup_internal"] = lookup
    for key in saved.files:
        if key not in own:
            state[key] = saved[key]
    levels_n = int(saved["levels_n"]) if "levels_n" in saved.files else 0
    if levels_n and len(state["element_levels"]) < levels_n:
        state["element_levels"] = np.concatenate(
            [state["element_levels"], np.zeros(levels_n - len(state["element_levels"]), state["element_levels"].dtype)])
    index = copyreg.__newobj__(hnswlib.Index)  # type: ignore[attr-defined]
    index.__setstate__((state,))
    return index


def _thaw_legacy(saved: "np.lib.npyio.NpzFile", params: dict, dim: int) -> tuple[object, np.ndarray]:
    """`graph+int8/2`: each distinct vector in the file, `which` says whose."""
    n, size, off, _ = _layout(params)
    graph0, distinct, which = saved["graph0"], saved["vectors"], saved["which"]
    if graph0.shape != (n, size - 4 * dim) or distinct.shape[1:] != (dim + 4,) or which.shape != (n,):
        raise ValueError("sidecar arrays do not match its parameters")
    packed = distinct[which]
    codes, scales = packed[:, :dim].view(np.int8), np.ascontiguousarray(packed[:, dim:]).view(np.float32)[:, 0]
    rows = _rows(graph0, n, size, off, dim)
    rows[:, off : off + 4 * dim] = dequantize(codes, scales).view(np.uint8)
    return _restore(params, rows, saved, _LEGACY_OWN), saved["live"]
