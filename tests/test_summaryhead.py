"""The files-row summary head (core/summarytop.Ranked) kept in the index by content hash
(index/entryparts.summary_head): a fresh process's write into a big file ranks its changed
slots from it, the files row is exactly a full sync's, and a head kept for other bytes
(a person's edit) is never used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memfs import store
from memfs.core import summarytop
from memfs.index.entryparts import SUMMARY_HEAD, PartRow, parts_of, save_parts
from memfs.views import forget_state
from tests.support.workspace import hashing_memory

BIG = "index/big.md"


def _files_row(mem) -> tuple:  # type: ignore[no-untyped-def]
    return mem.indexer.db.conn.execute("SELECT hash, summary, updated, items FROM files WHERE path=?",
                                       (BIG,)).fetchone()


def _full_row(root: Path) -> tuple:
    """The files row a full sync of the same bytes writes (a fresh index beside)."""
    import shutil

    other = root.parent / "full"
    shutil.copytree(root, other, ignore=shutil.ignore_patterns(".memfs"))
    forget_state()
    with hashing_memory(other) as mem:
        mem.sync()
        return _files_row(mem)


def _seed(root: Path, n: int = 80) -> None:
    lines = "".join(f"- Fact {i} about the ledger number {i % 13}. <!-- id=h{i:06d} type=knowledge"
                    f"{' seen=' + str(1 + i % 4) if i % 3 else ''} updated=2026-0{1 + i % 9}-1{i % 10} -->\n"
                    for i in range(n))
    (root / "index" / "big.md").write_text("---\ntitle: Big\n---\n" + lines)


def test_a_fresh_parse_takes_the_kept_head_and_the_row_equals_a_full_sync(ws_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _seed(ws_path)
    calls: list[int] = []
    real = summarytop.Ranked.of
    monkeypatch.setattr(summarytop.Ranked, "of", staticmethod(lambda slots: (calls.append(1), real(slots))[1]))
    with hashing_memory(ws_path) as mem:
        mem.sync()
        mem.add("Ledger review moved to Friday.", category="index/big")  # no head kept yet: ranked afresh
        assert calls and SUMMARY_HEAD in parts_of(mem.indexer.db, BIG)
        for k in range(3):
            store._PARSED.clear()  # as a fresh process: the file is parsed again
            calls.clear()
            mem.add(f"Ledger note {k} was filed late.", category="index/big", when=f"2026-11-0{k + 1}")
            assert calls == [], "the kept head was not used"
            got = _files_row(mem)
        forget_state()
    assert got == _full_row(ws_path)


def test_a_head_kept_for_other_bytes_is_never_used(ws_path: Path) -> None:
    _seed(ws_path)
    with hashing_memory(ws_path) as mem:
        mem.sync()
        mem.add("Ledger review moved to Friday.", category="index/big")
        db = mem.indexer.db

        def plant() -> None:
            """A head of the items seen once only: a summary no full ranking gives."""
            row = parts_of(db, BIG)[SUMMARY_HEAD]
            _, _, newest = json.loads(row.value)
            ids = [f"h{i:06d}" for i in range(0, 80, 3)]
            save_parts(db, [(BIG, row._replace(value=json.dumps([ids, True, newest])))])

        plant()
        store._PARSED.clear()
        mem.add("Control fact about nothing.", category="index/big")
        assert _files_row(mem)[1].startswith("Fact 0 about")  # the control: a kept head is what a fresh parse takes
        plant()
        path = ws_path / BIG
        path.write_text(path.read_text().replace("Fact 5 about", "Fact five, by hand, about"))  # another hash
        store._PARSED.clear()
        mem.add("Ledger audit is due in March.", category="index/big")
        got = _files_row(mem)
        forget_state()
    assert got == _full_row(ws_path)


def test_a_damaged_head_row_is_ranked_afresh(ws_path: Path) -> None:
    _seed(ws_path)
    with hashing_memory(ws_path) as mem:
        mem.sync()
        mem.add("Ledger review moved to Friday.", category="index/big")
        db = mem.indexer.db
        row = parts_of(db, BIG)[SUMMARY_HEAD]
        for bad in ("{", '[["nope"], true, null]', '[[1], "x", 3]'):
            save_parts(db, [(BIG, PartRow(SUMMARY_HEAD, row.digest, row.count, "", "", bad))])
            store._PARSED.clear()
            mem.add(f"Ledger fact {len(bad)} for the damaged head.", category="index/big")
            row = parts_of(db, BIG)[SUMMARY_HEAD]
        got = _files_row(mem)
        forget_state()
    assert got == _full_row(ws_path)
