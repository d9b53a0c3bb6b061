"""A big sync streams its vectors (memfs.index.sidecar_build): embedded into the cache chunk
by chunk, the graph filled from the cache chunk by chunk; the index it leaves is the one
the whole-matrix build left."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import memfs.index.sidecar_build as build_mod
import memfs.index.sync as sync_mod
from memfs.index.vectors import HnswSidecar
from tests.support.workspace import hashing_memory


def _notes(root: Path, files: int, per_file: int) -> None:
    for f in range(files):
        lines = "".join(f"- Fact {f}-{i} about topic{f % 7} and thing{i}. <!-- id=f{f:04d}i{i:03d} type=knowledge -->\n"
                        for i in range(per_file))
        # The repeated line gives labels that share one vector (one graph node) across chunks.
        lines += f"- Owner: platform team. <!-- id=own{f:04d} type=knowledge -->\n"
        (root / "index" / f"t{f:04d}.md").write_text(f"# T{f}\n\nA paragraph of prose about kestrel {f}.\n\n{lines}")


def test_a_streamed_build_embeds_chunk_by_chunk_and_keeps_no_vector(ws_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(sync_mod, "SAVE_CHUNK", 16)
    calls: list[int] = []
    _notes(ws_path, 12, 10)
    with hashing_memory(ws_path, exact_search_max=0) as mem:
        inner = mem.indexer.embedder.embed
        mem.indexer.embedder.embed = lambda texts: (calls.append(len(texts)), inner(texts))[1]  # type: ignore[method-assign]
        seen: dict[str, object] = {}
        real = sync_mod.Indexer._update_sidecar

        def spy(self, plan, vectors, rebuild_all):  # type: ignore[no-untyped-def]
            seen["vectors"], seen["inserts"] = vectors, list(plan.inserts)
            return real(self, plan, vectors, rebuild_all)

        monkeypatch.setattr(sync_mod.Indexer, "_update_sidecar", spy)
        report = mem.sync()
        db = mem.indexer.db
        distinct = int(db.conn.execute("SELECT count(*) FROM embeddings").fetchone()[0])
        assert report.embedded == distinct > 16
        assert max(calls) <= 16 and sum(calls) == distinct  # chunks of SAVE_CHUNK, each text once
        assert seen == {"vectors": {}, "inserts": []}  # nothing parsed or embedded held for the graph
        assert mem.search("Fact 5-3 about topic5 and thing3", k=3).hits[0].row.id == "f0005i003"
        # A second sync has nothing to embed.
        calls.clear()
        assert mem.sync().embedded == 0 and calls == []


@pytest.mark.parametrize("chunk", [1, 7, 10_000])
def test_the_graph_filled_chunk_by_chunk_is_the_whole_matrix_graph(ws_path: Path, monkeypatch, chunk: int) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(build_mod, "CHUNK", chunk)
    monkeypatch.setattr(build_mod.rebuild_streaming, "__defaults__", (chunk,))
    _notes(ws_path, 9, 8)
    with hashing_memory(ws_path, exact_search_max=0) as mem:
        mem.sync()
        db = mem.indexer.db
        labels, matrix = db.labeled_vectors()
        streamed = HnswSidecar(ws_path / ".memfs", mem.embedder.dim, mem.embedder.name)
        build_mod.rebuild_streaming(streamed, db)
        whole = HnswSidecar(ws_path / "other", mem.embedder.dim, mem.embedder.name)
        whole.rebuild(labels, matrix)
        assert set(streamed.labels) == set(whole.labels) == {int(x) for x in labels}
        assert streamed._members == whole._members  # noqa: SLF001 - same slots, same labels on each
        assert streamed.index.get_current_count() == whole.index.get_current_count() < len(labels)  # type: ignore[union-attr]
        for q in matrix[::5]:
            exact = np.argsort(-(matrix @ q), kind="stable")[:5]
            got = streamed.search(q, 5, ef=200)
            assert got[0][0] in {int(labels[i]) for i in exact if abs(matrix[i] @ q - matrix[exact[0]] @ q) < 1e-6}
            # the same scores (labels may differ only among ties)
            assert np.allclose([s for _, s in whole.search(q, 5, ef=200)], [s for _, s in got], atol=1e-6)
