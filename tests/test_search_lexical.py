"""A query that names one note by its own rare words finds that note first, even when the
dense ranker prefers many others that say the same in fewer words (memfs.index.fusion)."""

from __future__ import annotations

import json
from pathlib import Path

from memfs.core.itemline import render_item_line
from memfs.core.model import Item
from memfs.index.fusion import fuse, lexical_lead, rrf
from memfs.config import RecallConfig
from tests.support.cli import env, init, run
from tests.support.workspace import hashing_memory

SERVICES = ("kestrel", "osprey", "marten", "heron", "lynx", "otter", "puffin", "wren", "ibis", "vole")
TARGET = ("Notes from the long review: the merlin-472 service retries a request after a socket timeout of "
          "seven seconds, and then gives up; the team discussed this at length, compared several options, "
          "and agreed to revisit the figure after the next release once staging numbers are in.")


def _write(root: Path) -> None:
    """Sixty short lines about socket timeout retries (close to the query for any embedder)
    and the one long line that names merlin-472 (its vector diluted by the rest of it)."""
    items = [Item(id=f"st{i:04d}", text=f"Socket timeout retries for {SERVICES[i % 10]}-{100 + i} are capped.",
                  type="knowledge") for i in range(60)]
    items.append(Item(id="target01", text=TARGET, type="knowledge"))
    body = "".join(render_item_line(it) + "\n" for it in items)
    (root / "memory" / "ops.md").write_text(
        "---\ntitle: Ops\nkind: memory\ndescription: operations notes\n---\n# Ops\n\n" + body, encoding="utf-8")


def _top(root: Path, query: str, **recall: object) -> list[str]:
    mem = hashing_memory(root, **recall)
    try:
        mem.sync()
        return [h.row.id for h in mem.search(query, k=5).hits]
    finally:
        mem.close()


def test_named_note_wins_over_many_similar_ones(ws_path: Path) -> None:
    _write(ws_path)
    query = "merlin-472 socket timeout retries"
    assert _top(ws_path, query)[0] == "target01"
    # Plain RRF (the old fusion): the lines both rankers find bury the named one.
    assert _top(ws_path, query, lexical_weight=0.0)[0] != "target01"


def test_a_query_without_a_specific_word_keeps_rrf_order(ws_path: Path) -> None:
    """No BM25 hit stands out (every line matches the same common words): the fusion is RRF's."""
    _write(ws_path)
    query = "socket timeout retries capped"
    assert _top(ws_path, query) == _top(ws_path, query, lexical_weight=0.0)


def test_lead_is_zero_for_a_flat_lexical_list() -> None:
    flat = [(i, 5.0 - 0.01 * i) for i in range(1, 30)]
    assert lexical_lead(flat, 60.0, 1.0) == {}
    assert lexical_lead([], 60.0, 1.0) == {}
    assert lexical_lead([(1, 9.0), (2, 1.0)], 60.0, 0.0) == {}


def test_lead_goes_to_the_hits_far_above_the_pack() -> None:
    bm = [(1, 12.0), (2, 11.0)] + [(i, 3.0) for i in range(3, 40)]
    lead = lexical_lead(bm, 60.0, 2.0)
    assert set(lead) == {1, 2}
    assert lead[1] == 2.0 / 61 and lead[1] >= lead[2] > 0  # capped at a ranker's first place, times weight
    # Two notes alone contain the words: both are far above "no match" (score 0).
    assert set(lexical_lead([(7, 4.0), (8, 3.5)], 60.0, 1.0)) == {7, 8}


def test_fuse_is_rrf_plus_the_lead() -> None:
    bm = [(1, 12.0)] + [(i, 3.0) for i in range(2, 20)]
    dense = [(i, 0.9 - 0.01 * i) for i in range(5, 40)]
    plain = rrf([([lab for lab, _ in bm], 1.0), ([lab for lab, _ in dense], 1.0)], 60.0)
    assert fuse(bm, dense, RecallConfig(lexical_weight=0.0)) == plain
    fused = fuse(bm, dense, RecallConfig())
    assert max(fused, key=fused.__getitem__) == 1 and max(plain, key=plain.__getitem__) != 1
    assert {lab: v for lab, v in fused.items() if lab != 1} == {lab: v for lab, v in plain.items() if lab != 1}


def test_negative_weight_is_refused_by_the_cli(tmp_path: Path) -> None:
    ws = init(tmp_path / "ws")
    out = run(["recall", "anything"], ws, env(MEMFS_RECALL_LEXICAL_WEIGHT="-1"), check=False)
    assert out.returncode != 0
    assert "lexical_weight" in out.stderr.lower() and out.stderr.strip().count("\n") == 0


def test_cli_recall_finds_the_named_prose_note_first(tmp_path: Path) -> None:
    """End to end over a person's prose notes (passages), through `memfs recall --json`."""
    ws = init(tmp_path / "ws")
    notes = ws / "index" / "services"
    notes.mkdir(parents=True)
    for i in range(40):
        name = f"{SERVICES[i % 10]}-{200 + i}"
        (notes / f"{name}.md").write_text(f"# {name}\n\nSocket timeout retries for {name} are capped at three.\n",
                                          encoding="utf-8")
    (notes / "merlin-472.md").write_text("# Merlin\n\n" + TARGET + "\n", encoding="utf-8")
    e = env()
    run(["sync"], ws, e)
    query = "merlin-472 socket timeout retries"
    hits = json.loads(run(["recall", query, "--json", "-k", "5"], ws, e).stdout)
    assert hits[0]["path"].endswith("merlin-472.md")
    plain = json.loads(run(["recall", query, "--json", "-k", "5"], ws, env(MEMFS_RECALL_LEXICAL_WEIGHT="0")).stdout)
    assert not plain[0]["path"].endswith("merlin-472.md")
