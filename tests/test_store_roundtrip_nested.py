"""Property tests for issue #10 items 2 and 11: nested content under items survives every
rewrite byte for byte, and the parser's fast path reads files exactly as mistune does."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfs.core.categoryfile import _fast_entries, _mistune_entries, parse_category, split_lines
from memfs.core.itemline import render_item_line
from memfs.core.model import MEMORY_TYPES, Item

words = st.text(alphabet="abcdefghij XYZ.,'é", min_size=1, max_size=20).map(lambda s: "w" + s.strip())
nested_block = st.one_of(
    st.lists(words, min_size=1, max_size=3).map(lambda ws: "".join(f"  - {w}\n" for w in ws)),
    words.map(lambda w: f"\n  {w}\n"),
    words.map(lambda w: f"\n  ```\n  {w}\n  - not an item\n  ```\n"),
    words.map(lambda w: f"  > {w}\n"),
    st.just(""),
)


@st.composite
def nested_file(draw):  # type: ignore[no-untyped-def]
    n = draw(st.integers(1, 6))
    items, blocks = [], []
    for k in range(n):
        items.append(Item(id=f"id{k:06d}", text=draw(words), type=draw(st.sampled_from(MEMORY_TYPES)),
                          seen=draw(st.integers(1, 5))))
        blocks.append(draw(nested_block))
    body = "".join(render_item_line(it) + "\n" + blk for it, blk in zip(items, blocks))
    return "---\ntitle: T\n---\n# T\n\n" + body, items, blocks


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nested_file(), st.data())
def test_nested_content_survives_reinforce_forget_and_add(case, data) -> None:  # type: ignore[no-untyped-def]
    text, items, blocks = case
    doc = parse_category(text, "memory/t.md")
    assert doc.render() == text and [it.id for it in doc.items] == [it.id for it in items]
    bump = data.draw(st.sets(st.sampled_from([it.id for it in items])))
    drop = data.draw(st.sets(st.sampled_from([it.id for it in items])))
    for slot in doc.slots:
        if slot.item.id in bump:
            slot.item = slot.item.model_copy(update={"seen": slot.item.seen + 1, "text": slot.item.text + " again"})
    for item_id in drop:
        doc.remove(item_id)
    doc.add(Item(id="newitem1", text="A new fact.", type="profile"))
    out = doc.render()
    back = parse_category(out, "memory/t.md")
    want = {it.id: (it.seen + (it.id in bump)) for it in items if it.id not in drop}
    want["newitem1"] = 1
    assert {it.id: it.seen for it in back.items} == want
    pos = 0
    for it, blk in zip(items, blocks):  # every kept item's nested block, verbatim and in order
        if it.id in drop or not blk:
            continue
        found = out.find(blk, pos)
        assert found >= 0, (blk, out)
        pos = found + len(blk)


line_kinds = st.one_of(
    st.just("\n"), st.just("# Heading\n"), st.just("## Sub heading\n"),
    words.map(lambda w: f"- {w}\n"),
    words.map(lambda w: f"- {w} <!-- id=ab{sum(map(ord, w)) % 10**6:06d} type=profile -->\n"),
    words.map(lambda w: f"Prose {w}\n"),
    st.sampled_from(["  - nested\n", "    code\n", "```\n", "> quote\n", "1. ordered\n", "* star\n", "---\n",
                     "===\n", "- \n", "-  two spaces\n", "- `code` <!-- id=cc000001 -->\n", "<div>\n",
                     "- a <!-- id=dd000001 --> b\n", "\r\n", "- é accent <!-- id=ee000001 -->\n"]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(line_kinds, max_size=14))
def test_the_fast_path_reads_a_body_exactly_as_mistune_does(body_lines: list[str]) -> None:
    body = "".join(body_lines)
    lines = split_lines(body)
    fast = _fast_entries(lines)
    if fast is None:
        return
    assert fast == _mistune_entries(body, lines, "memory/t.md", [])


def test_the_fast_path_takes_what_memfs_writes() -> None:
    body = "# T\n\nSome prose.\n\n" + "".join(
        render_item_line(Item(id=f"f{i:07d}", text=f"Fact {i}.", type="knowledge")) + "\n" for i in range(50))
    assert _fast_entries(split_lines(body)) is not None
