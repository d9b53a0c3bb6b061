"""The hnsw graph's arrays at rest: narrow integers instead of hnswlib's fixed widths.

hnswlib's level-0 record (less the vector, which the cache holds) is a 4-byte link
header, `2·M` 4-byte neighbour ids and an 8-byte label: 140 bytes a node at M=16, most of
them zero bytes (a neighbour id below 65,536 needs two). At 10,000 notes (48,106 nodes)
that was 6.7 of the sidecar's 9.3 MB. Stored here as three arrays, each in the narrowest
unsigned type that holds its largest value, with the link slots past a node's count
zeroed (hnswlib never reads them; they may hold stale ids); the slot and offset arrays
the sidecar keeps beside them (int64 in memory) are narrowed the same way. Loading widens
everything back to the exact bytes and dtypes hnswlib and `memfs.index.sidecar` use, so
nothing else changes. Past 65,535 nodes the ids take four bytes again: this saves most
below that size and little above it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from memfs.core.lazynp import lazy_numpy

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_numpy(globals())  # imported on first use (core/lazynp.py)

#: Keys of the narrowed level-0 record parts (`graph/4`); `graph/3` saved `graph0` whole.
HEAD, LINKS, LABEL = "graph0_head", "graph0_links", "graph0_label"
_COUNT_MASK = 0xFFFF  # hnswlib: the link count is the header's low 16 bits (byte 2: deleted mark)


def narrowest(values: np.ndarray) -> np.ndarray:
    """`values` (non-negative integers) in the smallest unsigned dtype holding them all;
    unchanged if any is negative or the array is not integer."""
    arr = np.asarray(values)
    if arr.dtype.kind not in "iu" or (arr.size and int(arr.min()) < 0):
        return arr
    top = int(arr.max()) if arr.size else 0
    for dtype in (np.uint8, np.uint16, np.uint32, np.uint64):
        if top <= np.iinfo(dtype).max:
            return arr.astype(dtype)
    return arr  # pragma: no cover - uint64 holds every non-negative int64


def narrow(arrays: dict[str, np.ndarray], keys: Iterable[str]) -> dict[str, np.ndarray]:
    """`arrays` with each of `keys` (that is present) narrowed."""
    out = dict(arrays)
    for key in keys:
        if key in out:
            out[key] = narrowest(out[key])
    return out


def pack_level0(graph0: np.ndarray, off: int) -> dict[str, np.ndarray]:
    """hnswlib's level-0 records without their vectors, `(n, off + 8)` bytes (links then the
    label), as the three narrowed arrays."""
    n = len(graph0)
    words = np.ascontiguousarray(graph0[:, :off]).view(np.uint32).reshape(n, off // 4)
    head, links = words[:, 0].copy(), words[:, 1:].copy()
    count = (head & _COUNT_MASK).astype(np.int64)
    links[np.arange(links.shape[1])[None, :] >= count[:, None]] = 0
    label = np.ascontiguousarray(graph0[:, off:off + 8]).view(np.uint64).reshape(n)
    return {HEAD: narrowest(head), LINKS: narrowest(links), LABEL: narrowest(label)}


def unpack_level0(saved: "np.lib.npyio.NpzFile", n: int, off: int) -> np.ndarray:
    """The `(n, off + 8)` uint8 records `pack_level0` was given (stale link slots zero)."""
    head, links, label = saved[HEAD], saved[LINKS], saved[LABEL]
    if head.shape != (n,) or links.shape != (n, off // 4 - 1) or label.shape != (n,):
        raise ValueError("sidecar graph arrays do not match its parameters")
    words = np.empty((n, off // 4 + 2), dtype=np.uint32)  # the records as 4-byte words, filled once
    words[:, 0] = head
    words[:, 1:off // 4] = links
    words[:, off // 4:] = label.astype(np.uint64).reshape(n, 1).view(np.uint32)
    return words.view(np.uint8)


class Widened:
    """A loaded `.npz` whose narrowed integer arrays read back as int64 (`keys`), the
    rest as saved: what `memfs.index.sidecar` and `hnswfile.thaw` index with."""

    def __init__(self, saved: "np.lib.npyio.NpzFile", keys: Iterable[str]) -> None:
        self._saved, self._keys = saved, frozenset(keys)
        self.files = saved.files

    def __getitem__(self, key: str) -> np.ndarray:
        arr = self._saved[key]
        return arr.astype(np.int64) if key in self._keys and arr.dtype.kind == "u" else arr
