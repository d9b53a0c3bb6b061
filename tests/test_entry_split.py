"""A category file past `memory.split_items` is split by topic, losing nothing (issue 12)."""

from __future__ import annotations

from pathlib import Path

from memfs.core.categoryfile import parse_category
from tests.support.workspace import hashing_memory


def _items(root: Path) -> dict[str, tuple[str, str]]:
    out = {}
    for path in sorted((root / "index").glob("*.md")):
        rel = f"index/{path.name}"
        for it in parse_category(path.read_text(), rel).items:
            assert it.id not in out, f"{it.id} in two files"
            out[it.id] = (it.text, rel)
    return out


def test_a_big_knowledge_file_splits_by_heading_and_keeps_every_item(ws_path: Path) -> None:
    lines = [f"- Stack: service {n} runs on port {8000 + n}." for n in range(120)]
    lines += [f"- Decisions: decision {n} was taken in review {n}." for n in range(60)]
    lines += [f"- The wiki page {n} describes the on-call rota." for n in range(30)]
    # (a line memfs wrote: stamping a hand line drops what is nested under it, a store bug
    # outside this issue that `memfs add` shows too)
    lines += ["- Stack: the gateway is special. <!-- id=gw000001 type=knowledge -->",
              "  - a note a person nested under it", ""]
    (ws_path / "index" / "knowledge.md").write_text("---\ntitle: Knowledge\n---\n# Knowledge\n\n" + "\n".join(lines))
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        before = {i: t for i, (t, _) in _items(ws_path).items()}
        assert len(before) == 211
        parts = sorted(p.name for p in (ws_path / "index").glob("knowledge--*.md"))
        assert parts == ["knowledge--decisions.md", "knowledge--stack.md"]
        after = _items(ws_path)
        assert {i: t for i, (t, _) in after.items()} == before  # same ids, same texts
        assert sum(1 for _, rel in after.values() if rel == "index/knowledge--stack.md") == 120
        parent = (ws_path / "index" / "knowledge.md").read_text()
        assert ("- Stack: the gateway is special. <!-- id=gw000001 type=knowledge -->\n"
                "  - a note a person nested under it") in parent  # stays put, with what is under it
        assert sum(1 for _, rel in after.values() if rel == "index/knowledge.md") == 31
        index = (ws_path / "index.md").read_text()
        row = next(ln for ln in index.splitlines() if "](index/knowledge.md)" in ln)
        sub = [ln for ln in index.splitlines() if ln.startswith("  - [") and "knowledge--" in ln]
        assert row.startswith("- [Knowledge]") and len(sub) == 2 and "(120 facts" in "".join(sub)
        assert index.index(row) < index.index(sub[0])
        hits = mem.recall("which port does service 7 run on", k=3)
        assert hits and hits[0].path == "index/knowledge--stack.md"
        mem.sync()  # a second pass has nothing left to split
        assert _items(ws_path) == after
    finally:
        mem.close()


def test_a_file_under_the_limit_or_without_topics_is_left_alone(ws_path: Path) -> None:
    lines = [f"- Fact number {n} about nothing in particular." for n in range(230)]
    (ws_path / "index" / "knowledge.md").write_text("# Knowledge\n\n" + "\n".join(lines) + "\n")
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        assert not list((ws_path / "index").glob("knowledge--*.md"))
        assert (ws_path / "index" / "knowledge.md").read_text().count("\n- ") == 230
    finally:
        mem.close()


def test_a_split_interrupted_after_writing_the_part_is_finished_by_the_next_one(ws_path: Path) -> None:
    item = "- Stack: the queue is RabbitMQ. <!-- id=q0000001 type=knowledge -->\n"
    (ws_path / "index" / "knowledge.md").write_text("# Knowledge\n\n" + item + "- Other fact. <!-- id=o0000001 -->\n")
    (ws_path / "index" / "knowledge--stack.md").write_text("# Knowledge: stack\n\n" + item)  # the crash
    mem = hashing_memory(ws_path)
    try:
        report = mem.sync()
        assert any("q0000001" in w for w in report.warnings)  # the duplicate was reported ...
        assert "q0000001" not in (ws_path / "index" / "knowledge.md").read_text()  # ... and resolved
        assert "q0000001" in (ws_path / "index" / "knowledge--stack.md").read_text()
        assert not mem.sync().warnings
    finally:
        mem.close()


def test_a_write_into_a_split_files_parent_builds_only_the_items_that_move(ws_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """After every write of a parent, its parts are checked for items held twice. The check
    asked every slot for `slot.item`, which builds the Item of each of a big file's lazy
    slots: ~0.4 s per one-shot add into a 50,000-item parent (found timing issue #17 item 3)."""
    from memfs import store
    from memfs.core import slot as slot_module

    lines = "".join(f"- Plain fact {i}. <!-- id=p{i:07d} type=knowledge -->\n" for i in range(1000))
    moved = "- Stack: the queue is RabbitMQ. <!-- id=q0000001 type=knowledge -->\n"
    (ws_path / "index" / "knowledge.md").write_text("# Knowledge\n\n" + moved + lines)
    (ws_path / "index" / "knowledge--stack.md").write_text("# Knowledge: stack\n\n" + moved)
    built: list[str] = []
    real = slot_module.item_from_meta
    monkeypatch.setattr(slot_module, "item_from_meta", lambda text, meta, kind: built.append(text) or real(text, meta, kind))
    with hashing_memory(ws_path) as mem:
        mem.sync()
    assert "q0000001" not in (ws_path / "index" / "knowledge.md").read_text()
    store._PARSED.clear()  # as a fresh process (a one-shot `memfs add`) finds it: a lazy parse
    built.clear()
    with hashing_memory(ws_path) as mem:
        mem.add("One more plain fact about nothing much.", category="index/knowledge")
    assert len(built) < 500, len(built)  # what the entry files rank (~120), not the file's 1,000


def test_the_check_for_items_held_twice_reads_the_parts_ids_without_building_their_items(
        ws_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Every write into a split file's family re-checks it. The check parsed every part in
    full and edited the parent each time: 0.16 s an input once 3,000 notes had filled the
    parts (found measuring issue #18 item 4 with bench/ingest_notes.py)."""
    from memfs import store
    from memfs.core import categoryfile
    from memfs.core import slot as slot_module

    parent = "".join(f"- Plain fact {i}. <!-- id=p{i:07d} type=knowledge -->\n" for i in range(100))
    part = "".join(f"- Stack: service {i} runs on Postgres. <!-- id=s{i:07d} type=knowledge -->\n"
                   for i in range(2000))
    (ws_path / "index" / "knowledge.md").write_text("# Knowledge\n\n" + parent)
    (ws_path / "index" / "knowledge--stack.md").write_text("# Knowledge: stack\n\n" + part)
    with hashing_memory(ws_path) as mem:
        mem.sync()
    built: list[str] = []
    for module in (categoryfile, slot_module):
        real = module.item_from_meta
        monkeypatch.setattr(module, "item_from_meta",
                            lambda text, meta, kind, real=real: built.append(text) or real(text, meta, kind))
    store._PARSED.clear()
    with hashing_memory(ws_path) as mem:
        mem.add("The office plants are watered on Fridays.", category="index/knowledge")
    assert "office plants" in (ws_path / "index" / "knowledge.md").read_text()
    assert len(built) < 1000, len(built)  # not the part's 2,000 items again for the check


def test_the_ids_of_a_part_are_read_again_when_its_bytes_change(ws_path: Path) -> None:
    """The ids are kept by the part's content: a person's edit is never answered from memory."""
    from memfs.entry.split import _ids_in

    part = ws_path / "index" / "knowledge--stack.md"
    part.write_text("# Knowledge: stack\n\n- Stack: queue. <!-- id=q0000001 type=knowledge -->\n")
    assert _ids_in(part, "index/knowledge--stack.md") == {"q0000001"}
    part.write_text("# Knowledge: stack\n\n- Stack: queue. <!-- id=q0000002 type=knowledge -->\n")  # same size
    assert _ids_in(part, "index/knowledge--stack.md") == {"q0000002"}


def test_a_non_utf8_part_is_read_once_its_ids_from_the_bytes_that_were_digested(ws_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Found by review: a second read for the replacement-character parse could cache a newer
    version's ids under the older bytes' digest."""
    from memfs.entry import split

    part = ws_path / "index" / "knowledge--stack.md"
    part.write_bytes(b"# Knowledge: stack\n\n- Stack: caf\xe9 queue. <!-- id=q0000001 type=knowledge -->\n")
    monkeypatch.setattr(split, "read_category", lambda *a: (_ for _ in ()).throw(AssertionError("read again")))
    assert split._ids_in(part, "index/knowledge--stack.md") == {"q0000001"}


def test_a_split_of_a_part_interrupted_and_then_rebuilt_is_finished(ws_path: Path) -> None:
    """Found by review: a crash between writing `knowledge--stack-redis.md` and rewriting
    `knowledge--stack.md` leaves the line in both; a rebuild indexes the copy in the file
    that sorts first (the new one), and the source, now under the limit, never splits again.
    The held-twice check drops the source's copy, whichever copy the index holds."""
    item = "- Stack: the cache is Redis 7. <!-- id=r0000001 type=knowledge -->\n"
    (ws_path / "index" / "knowledge.md").write_text("# Knowledge\n\n- Other fact. <!-- id=o0000001 -->\n")
    (ws_path / "index" / "knowledge--stack.md").write_text(
        "# Knowledge: stack\n\n" + item + "- Stack: the queue is RabbitMQ. <!-- id=q0000001 -->\n")
    (ws_path / "index" / "knowledge--stack-redis.md").write_text("# Knowledge: stack redis\n\n" + item)  # the crash
    mem = hashing_memory(ws_path)
    try:
        report = mem.sync(rebuild=True)
        assert any("r0000001" in w for w in report.warnings)  # the duplicate was reported ...
        assert "r0000001" not in (ws_path / "index" / "knowledge--stack.md").read_text()  # ... and resolved
        assert "q0000001" in (ws_path / "index" / "knowledge--stack.md").read_text()
        assert "r0000001" in (ws_path / "index" / "knowledge--stack-redis.md").read_text()
        assert not mem.sync().warnings
    finally:
        mem.close()
