"""The line-id table (core/lineids.py): a lazy parse given the table of exactly its text
reads what the parse that matches every line reads, and a spliced write keeps the table
equal to the table of the text it wrote (issue #17 item 3: a fresh process's add into a
50,000-item file matches none of its lines)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfs.core.categoryfile import parse_category
from memfs.core.front import split_front, split_lines
from memfs.core.lineids import LineSlot, line_id
from memfs.core.model import Item
from tests.test_store_lazy_review import _same_parse, _text, line, op


def _table(text: str) -> list[str | None]:
    return [line_id(ln) for ln in split_lines(split_front(text.lstrip("\ufeff"))[2])]


def _slots(doc):  # type: ignore[no-untyped-def]
    return [(s.item_id(), s.origin_id(), s.start, s.end, s.raw, s.stamped, s.removed, s.head, s.prefix,
             s.rank_fields(), s.item) for s in doc.slots]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(line, max_size=12), st.booleans(), st.booleans())
def test_a_parse_from_the_table_reads_what_matching_every_line_reads(lines, crlf, bom) -> None:  # type: ignore[no-untyped-def]
    text = _text(lines, crlf, bom)
    matched = parse_category(text, "index/t.md", lazy=True)
    if matched._line_ids is None:  # not a fast-path body: no table, the full parse as before
        assert parse_category(text, "index/t.md", lazy=True, line_ids=_table(text))._line_ids is None
        return
    assert matched._line_ids == _table(text)
    tabled = parse_category(text, "index/t.md", lazy=True, line_ids=list(matched._line_ids))
    eager = parse_category(text, "index/t.md")
    _same_parse(eager, tabled)
    assert _slots(tabled) == _slots(parse_category(text, "index/t.md", lazy=True))
    assert tabled._read_by_id is not None and list(tabled._read_by_id) == list(matched._read_by_id or {})


def test_a_table_of_other_lines_is_not_used() -> None:
    text = _text(["- A fact <!-- id=a1 type=knowledge -->\n", "- B fact <!-- id=b2 type=knowledge -->\n"])
    wrong = parse_category(text, "index/t.md", lazy=True, line_ids=[None, None])  # shorter: ignored
    assert [s.item_id() for s in wrong.slots] == ["a1", "b2"]


def test_a_line_slot_reads_its_text_and_comment_only_when_asked() -> None:
    text = _text(["- Priya likes tea <!-- id=p1 type=knowledge seen=3 -->\n"])
    doc = parse_category(text, "index/t.md", lazy=True, line_ids=_table(text))
    slot = doc.slots[0]
    assert isinstance(slot, LineSlot) and slot.unbuilt and "_meta_read" not in slot.__dict__
    assert slot.rank_fields() == (3, None, False) and slot.unbuilt
    assert slot.item == Item(id="p1", text="Priya likes tea", type="knowledge", seen=3)
    twin = slot.copy()
    assert twin.item == slot.item and twin is not slot


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(line, max_size=8), st.lists(op, min_size=1, max_size=6))
def test_spliced_writes_keep_the_table_of_the_text_they_wrote(tmp_path_factory, lines, ops) -> None:  # type: ignore[no-untyped-def]
    from memfs.config import load_config
    from memfs.errors import MemfsError
    from memfs.store import CategoryStore
    from memfs.workspace import Workspace, init_workspace
    from tests.test_store_lazy_review import _apply

    root = init_workspace(tmp_path_factory.mktemp("t") / "w", git=False).root
    path = root / "index" / "t.md"
    path.write_bytes(_text(lines).encode())
    store = CategoryStore(Workspace(root), load_config(root, environ={}))
    for rnd, (kind, k) in enumerate(ops):
        try:
            doc = _apply(store, "index/t.md", path, kind, k, rnd)
        except MemfsError:
            continue
        if doc is not None and doc._line_ids is not None:
            assert doc._line_ids == _table(path.read_text()), (kind, k)


def test_a_fresh_process_parses_a_file_memfs_wrote_from_its_table(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The index keeps the table with each spliced write; the next store (a fresh process:
    no parse kept in memory) reads the file from it, and a file changed since is matched."""
    from memfs import store as store_mod
    from memfs.core import categoryfile
    from memfs.workspace import init_workspace
    from tests.support.workspace import hashing_memory

    root = init_workspace(tmp_path / "w", git=False).root
    (root / "index" / "big.md").write_text("---\ntitle: Big\n---\n# Big\n\n" + "".join(
        f"- Fact {i} about the lake. <!-- id=f{i:05d} type=knowledge -->\n" for i in range(200)))
    with hashing_memory(root) as mem:
        mem.sync()
        mem.add("One new fact about the lake.", category="index/big")  # a splice: the table is kept
    given_tables: list[bool] = []
    real = categoryfile._lazy_slots
    monkeypatch.setattr(categoryfile, "_lazy_slots", lambda lines, path, kind, ids=None:
                        given_tables.append(ids is not None) or real(lines, path, kind, ids))
    for fact in ("Another fact about the lake.", "A third fact about the lake."):
        store_mod._PARSED.clear()
        with hashing_memory(root) as mem:
            mem.add(fact, category="index/big")
    (root / "index" / "big.md").write_text((root / "index" / "big.md").read_text() + "- A person's line.\n")
    store_mod._PARSED.clear()
    with hashing_memory(root) as mem:
        mem.add("A fourth fact about the lake.", category="index/big")
    assert given_tables[:2] == [True, True] and given_tables[-1] is False
    text = (root / "index" / "big.md").read_text()
    for fact in ("One new fact", "Another fact", "A third fact", "A fourth fact", "A person's line"):
        assert text.count(fact) == 1, fact  # every write landed once, the person's line kept
    assert [s.item.id for s in parse_category(text, "index/big.md").slots][-5:] == \
        [s.item_id() for s in parse_category(text, "index/big.md", lazy=True).slots][-5:]


def test_a_table_that_disagrees_with_the_lines_is_not_trusted() -> None:
    """A damaged row under the right digest: the spot check over the file catches it and the
    lines are matched instead (never a heading read as an item)."""
    lines = ["- Fact %d <!-- id=f%03d type=knowledge -->\n" % (i, i) for i in range(100)]
    text = _text(lines)
    good = _table(text)
    for bad in ([None] * len(good), good[:-1] + ["zzz"], ["f000"] + good[1:]):
        doc = parse_category(text, "index/t.md", lazy=True, line_ids=bad)
        assert [s.item_id() for s in doc.slots] == [f"f{i:03d}" for i in range(100)]
        assert doc._line_ids == good


def _tamper(root: Path, rel: str, edit, fix_mark: bool) -> None:  # type: ignore[no-untyped-def]
    """Rewrite the kept table of `rel` with `edit(ids)`; `fix_mark`: with a checksum that
    matches the damage (what no bit rot does: the table is then wrong but well-formed)."""
    import marshal
    import sqlite3

    from memfs.index.entryparts import LINE_IDS, _table_mark

    conn = sqlite3.connect(root / ".memfs" / "index.sqlite3")
    blob, marks = conn.execute("SELECT value, marks FROM entry_parts WHERE path=? AND key=?", (rel, LINE_IDS)).fetchone()
    ids = marshal.loads(blob)
    edit(ids)
    new = marshal.dumps(ids)
    conn.execute("UPDATE entry_parts SET value=?, marks=? WHERE path=? AND key=?",
                 (new, _table_mark(new) if fix_mark else marks, rel, LINE_IDS))
    conn.commit()
    conn.close()


def test_a_damaged_kept_table_is_never_trusted_and_loses_nothing(tmp_path: Path) -> None:
    """Found by review: a row changed on a line the spot check does not sample made every
    later write of the file fail (a LineSlot whose line says another id), or re-stamped an
    untouched item under a new id (read as a copy). A checksum catches damage; a table that
    is wrong yet well-formed is caught by the first line that contradicts it."""
    from memfs import store as store_mod
    from memfs.workspace import init_workspace
    from tests.support.workspace import hashing_memory

    ids = [f"x{i:06d}" for i in range(400)]
    for case, fix_mark in (("unknown", False), ("unknown", True), ("copy", True), ("copy", False)):
        root = init_workspace(tmp_path / f"{case}-{fix_mark}", git=False).root
        rel = "index/big.md"
        (root / rel).write_text("---\ntitle: Big\n---\n# Big\n\n" + "".join(
            f"- Fact number {i} about zebra{i} <!-- id={x} type=knowledge -->\n" for i, x in enumerate(ids)))
        with hashing_memory(root) as mem:
            mem.sync()
            mem.add("Orla plays the banjo.", category=rel)
        line = 2 + 96  # body line of x000096: between the spot checks

        def damage(table, line=line, case=case):  # type: ignore[no-untyped-def]
            assert table[line] == "x000096"
            table[line] = "x000097" if case == "unknown" else "x000000"
        _tamper(root, rel, damage, fix_mark)
        store_mod._PARSED.clear()
        with hashing_memory(root) as mem:
            mem.add("Orla plays the harp.", category=rel)  # succeeds
            mem.forget("x000096")
        text = (root / rel).read_text()
        assert "x000096" not in text and "zebra96 " not in text, (case, fix_mark)
        assert all(f"id={x} " in text for x in ids if x != "x000096"), (case, fix_mark)
        assert "Orla plays the banjo." in text and "Orla plays the harp." in text
