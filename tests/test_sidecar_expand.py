"""A loaded (frozen) hnsw sidecar expands its nearest slots into labels in numpy: the same
labels, scores and order as the per-slot loop, shared slots (equal vectors) and cuts at k
included."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memfs.index.sidecar import HnswSidecar


@pytest.mark.parametrize("k", [1, 2, 5, 17, 60])
def test_the_numpy_expansion_is_the_loop(tmp_path: Path, k: int) -> None:
    rng = np.random.default_rng(3)
    base = rng.normal(size=(300, 8)).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    vecs = base[rng.integers(0, 300, size=900)]  # equal vectors share a slot: 1-8 labels each
    side = HnswSidecar(tmp_path, 8, "test")
    side.upsert(list(range(1, 901)), vecs)
    side.delete([7, 8, 400])
    side.save(1)
    again = HnswSidecar(tmp_path, 8, "test")
    assert again.load(lambda: (np.arange(1, 901), vecs))
    assert again._csr is not None  # noqa: SLF001  (frozen: the numpy path)
    for q in rng.normal(size=(20, 8)).astype(np.float32):
        q /= np.linalg.norm(q)
        got = again.search(q, k, 64)
        assert got == _loop_search(again, q, k, 64) and len(got) == min(k, 897)


def _loop_search(side: HnswSidecar, q: np.ndarray, k: int, ef: int) -> list[tuple[int, float]]:
    """HnswSidecar.search as it was: one lookup per nearest slot."""
    side.index.set_ef(max(ef, k))
    slots, dists = side.index.knn_query(q.reshape(1, -1), k=k)
    out: list[tuple[int, float]] = []
    for slot, d in zip(slots[0].tolist(), dists[0].tolist()):
        for lab in _loop_labels(side._csr, slot, k - len(out)):  # noqa: SLF001
            out.append((lab, 1.0 - d))
        if len(out) >= k:
            break
    return out


def _loop_labels(csr, slot: int, most: int) -> list[int]:  # type: ignore[no-untyped-def]
    """The per-slot lookup the loop used over the frozen arrays."""
    csr_slots, offsets, labels, _ = csr
    i = int(np.searchsorted(csr_slots, slot))
    if i >= len(csr_slots) or csr_slots[i] != slot:
        return []
    start = int(offsets[i])
    return labels[start:min(int(offsets[i + 1]), start + most)].tolist()
