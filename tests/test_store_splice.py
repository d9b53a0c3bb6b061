"""Issue #17 item 3: a write into a category file splices only the lines it changes.

The splice must give exactly the text a full render gives, read back to exactly the
intended items, and leave the document as a fresh parse of the written text would be
(the next edit starts from it without parsing the file again)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfs.core.categoryedit import commit_splice, plan_splice
from memfs.core.categoryfile import parse_category
from memfs.core.itemline import render_item_line
from memfs.core.model import MEMORY_TYPES, Item

words = st.text(alphabet="abcdefghij XYZ.,'é", min_size=1, max_size=20).map(lambda s: "w" + s.strip())
filler = st.sampled_from(["", "\n", "## Section\n", "\nA plain paragraph line.\n\n", "### Sub\n\n"])


@st.composite
def flat_file(draw):  # type: ignore[no-untyped-def]
    n = draw(st.integers(0, 8))
    items = [Item(id=f"id{k:06d}", text=draw(words), type=draw(st.sampled_from(MEMORY_TYPES)),
                  seen=draw(st.integers(1, 5))) for k in range(n)]
    body = "".join(draw(filler) + render_item_line(it) + "\n" for it in items) + draw(filler)
    if draw(st.booleans()) and body.endswith("\n"):
        body = body[:-1]  # no newline at the end of the file
    front = draw(st.sampled_from(["---\ntitle: T\n---\n", "---\ntitle: T\nitems: 3\nupdated: 2024-01-01\n---\n", ""]))
    return front + "# T\n\n" + body, items


def _shape(doc):  # type: ignore[no-untyped-def]
    return [(s.item, s.start, s.end, s.raw, s.stamped) for s in doc.slots], doc.lines, doc.front_raw


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(flat_file(), st.data())
def test_a_splice_equals_the_full_render_and_leaves_a_fresh_parse(case, data) -> None:  # type: ignore[no-untyped-def]
    text, items = case
    doc = parse_category(text, "memory/t.md")
    assert doc.fast
    ids = [it.id for it in items]
    for _round in range(3):  # successive edits, each from the doc the last one left
        bump = data.draw(st.sets(st.sampled_from(ids))) if ids else set()
        drop = data.draw(st.sets(st.sampled_from(ids))) if ids else set()
        for slot in doc.slots:
            if slot.item.id in bump:
                slot.item = slot.item.model_copy(update={"seen": slot.item.seen + 1})
        for item_id in drop - bump:
            doc.remove(item_id)
        for k in range(data.draw(st.integers(0, 2))):
            new_id = f"new{_round}{k}{len(ids):04d}"
            doc.add(Item(id=new_id, text=data.draw(words), type="profile"))
        if data.draw(st.booleans()):
            doc.front.pop("items", None)
            doc.front.pop("updated", None)
            doc.front["kind"] = "memory"
        if not doc.dirty:
            continue  # nothing to write (the store returns before rendering)
        full = doc.render()
        sp = plan_splice(doc)
        assert sp is not None
        assert sp.text == full
        commit_splice(doc, sp)
        fresh = parse_category(full, "memory/t.md")
        assert _shape(doc) == _shape(fresh)
        assert not doc.dirty
        ids = [it.id for it in doc.items]


def test_a_body_only_mistune_reads_is_never_spliced() -> None:
    doc = parse_category("# T\n\n- a fact <!-- id=a1 type=profile -->\n  - nested by a person\n", "memory/t.md")
    assert not doc.fast
    doc.add(Item(id="b2", text="Another.", type="profile"))
    assert plan_splice(doc) is None


def test_a_line_that_would_not_read_back_is_refused_by_the_splice() -> None:
    doc = parse_category("# T\n\n- a fact <!-- id=a1 type=profile -->\n", "memory/t.md")
    doc.add(Item(id="b2", text="Uses `code` and <b>html</b>.", type="profile"))
    assert plan_splice(doc) is None  # not fast-path text: the store renders and re-parses in full
    doc2 = parse_category("# T\n\n- a fact <!-- id=a1 type=profile -->\n", "memory/t.md")
    doc2.add(Item(id="a1", text="Same id twice.", type="profile"))
    assert plan_splice(doc2) is None
