"""The store's parse reads the lines memfs writes in one C-speed match (`bodyscan.LAZY_ITEM`,
`categoryfile._lazy_slots`; issue #17 item 3, a one-shot `memfs add` into a 50,000-item file).

What it must never change: a line it matches is the line `_FAST_ITEM` + `parse_meta` read,
with the same text, comment and id, and metadata a LazySlot may keep unread (`lazy_ok`);
a whole parse with it equals the eager parse and the per-line lazy parse (slots, warnings,
ids, the items once built), on hostile lines, nested lines, CRLF and a BOM."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memfs.core import categoryfile
from memfs.core.bodyscan import _FAST_ITEM, LAZY_ITEM
from memfs.core.categoryfile import LazySlot, parse_category
from memfs.core.itemline import parse_meta
from memfs.core.slot import lazy_ok
from memfs.core.summarytop import Ranked

texts = st.sampled_from(["A fact", "A fact", "Fact 12.", "Tea", "Fact 12", "1. x", "12) y", "a\xa0", "a \t", "x&y", "a`b", "é", "Zoë likes tea",
                         "a -- b", "a <b", "x>y", "1", "q\\", "\u3000a"])
keys = st.sampled_from(["id", "type", "seen", "updated", "when", "src", "superseded_by", "via", "_", "-", "x-y",
                        "ID", "id2", "séen", "2x", "a_b"])
vals = st.sampled_from(["a1", "f0000001", "c-4", "a--b", "a-", "-", "--", "", "3", "0", "12", "\u00b2", "١٢", "x",
                        "2024-05-01", "inbox/x.md", "a%20b", "a=b", "a b", "a\tb", "é", "a>b", "a<b", "x" * 70,
                        "abc%0A", "(x)", "[y]", "a;b", "a\u3000b"])
ids = st.sampled_from(["a1", "f0000001", "c-4", "a_b", "Z9"])
seps = st.sampled_from([" ", " ", " ", "  ", "\t", "\xa0", ""])


@st.composite
def item_line(draw):  # type: ignore[no-untyped-def]
    """Mostly the shape memfs writes (so the one match is tried on near misses), else anything."""
    clean = draw(st.integers(0, 3)) > 0
    pick = (lambda strat, canon: canon if clean else draw(strat))  # noqa: E731
    parts = [f"id={draw(st.one_of(ids, vals))}"] if draw(st.integers(0, 9)) else []
    for _ in range(draw(st.integers(0, 4))):
        at = len(parts) if clean else draw(st.integers(0, len(parts)))
        parts.insert(at, f"{draw(keys)}={draw(vals)}")
    if not draw(st.integers(0, 5)):
        parts.append(f"{draw(keys)}")  # a part without `=`
    inner = pick(seps, " ").join(parts) if parts else ""
    head = pick(st.sampled_from(["- ", "* ", "-", "  - ", "1. "]), "- ")
    close = pick(st.sampled_from([" -->", "-->", " --->", " -- >", " --> "]), " -->")
    end = pick(st.sampled_from(["\n", "\r\n", "", " \n", "\t\n"]), "\n")
    return f"{head}{draw(texts)}{pick(seps, ' ')}<!--{pick(seps, ' ')}{inner}{close}{end}"


@settings(max_examples=1500, deadline=None)
@example("- A fact <!-- id=a1 type=knowledge -->\n")
@example("- A fact <!-- id=a1 id=b2 -->\n")
@example("- A fact <!-- id=a--b -->\n")
@example("- A fact <!-- id=a1 seen=\u00b2 -->\n")
@example("- A fact <!-- id=a1 src=a%20b -->\n")
@example("- A fact <!-- id=a1 _=x -->\n")
@example("- A fact <!-- id=a1 x=a-- -->\n")
@given(item_line())
def test_a_line_the_one_match_reads_is_the_line_the_fast_path_reads(line: str) -> None:
    m = LAZY_ITEM(line)
    if m is None:
        return
    fast = _FAST_ITEM(line)
    assert fast is not None, line
    assert (fast.group(1), fast.group(2)) == (m.group(1), m.group(2))
    meta = parse_meta(m.group(2))
    assert meta is not None and meta["id"] == m.group(3) and lazy_ok(meta), (line, meta)


def test_the_one_match_reads_what_memfs_writes() -> None:
    for line in ["- Fact 3 about topic 3 and thing 21. <!-- id=f0000003 type=knowledge -->\n",
                 "- Ana likes tea. <!-- id=ab12cd34 type=profile when=2024-05 src=inbox/a.md seen=3 "
                 "updated=2026-12-01 superseded_by=ef56 via=merge -->\n",
                 "- Last line <!-- id=x_y-z type=event -->"]:
        assert LAZY_ITEM(line) is not None, line


others = st.sampled_from(["\n", "\r\n", "## Part\n", "# Title\n", "A paragraph.\n", "- an unstamped line\n",
                          "  - a nested sub-bullet <!-- id=n1 type=knowledge -->\n", "    indented code\n",
                          "```\n", "- x <!-- id=q1 -->\n  continued\n", "> quoted <!-- id=q2 -->\n", "<div>\n"])
body_line = st.one_of(item_line(), item_line(), item_line(), others)


def _per_line(text: str, path: str):  # type: ignore[no-untyped-def]
    """The lazy parse without the one-match reader (every line through `fast_entry`)."""
    real = categoryfile._lazy_slots
    categoryfile._lazy_slots = lambda *a: None  # type: ignore[assignment]
    try:
        return parse_category(text, path, lazy=True)
    finally:
        categoryfile._lazy_slots = real  # type: ignore[assignment]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(body_line, max_size=14), st.booleans(), st.booleans())
def test_the_lazy_parse_equals_the_eager_and_the_per_line_parse(lines, bom, front) -> None:  # type: ignore[no-untyped-def]
    text = ("\ufeff" if bom else "") + ("---\ntitle: T\n---\n" if front else "") + "# T\n\n" + "".join(lines)
    eager = parse_category(text, "index/t.md")
    for lazy in (parse_category(text, "index/t.md", lazy=True), _per_line(text, "index/t.md")):
        assert (lazy.warnings, lazy.fast, lazy.newline, lazy.bom) == (eager.warnings, eager.fast, eager.newline, eager.bom)
        assert len(lazy.slots) == len(eager.slots)
        for ls, es in zip(lazy.slots, eager.slots):
            assert (ls.start, ls.end, ls.raw, ls.stamped, ls.head, ls.prefix, ls.removed) == (
                es.start, es.end, es.raw, es.stamped, es.head, es.prefix, es.removed)
            it = es.item
            assert ls.item_id() == ls.origin_id() == it.id
            assert (ls.changed, ls.replaced()) == (es.changed, es.replaced())
            assert ls.rank_fields() == (it.seen, it.updated, bool(it.extra.get("superseded_by")))
        assert not any(isinstance(s, LazySlot) and s.built for s in lazy.slots)
        assert lazy.ids() == eager.ids()
        by_id = lazy._read_by_id  # what the store's first look (store._kept_head) maps ids with
        if by_id is not None:
            assert len(by_id) == len(lazy.slots) and all(by_id[s.item_id()] is s for s in lazy.slots)
        got, want = Ranked.of(lazy.slots), Ranked.of(eager.slots)
        assert (got.summary(), got.newest, got.complete) == (want.summary(), want.newest, want.complete)
        assert lazy.items == eager.items
        assert [s.parsed for s in lazy.slots] == [s.parsed for s in eager.slots]
        assert lazy.render() == eager.render()
