"""An adversarial review of the store's lazy parse (core/slot.py) and the one-match item
line (bodyscan._FAST_ITEM): hostile metadata values, odd line shapes and sequences of
store operations, each read both lazily and eagerly, must give the same items, warnings,
bytes written and files-row summary, and a write must never crash or lose an id."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memfs.core.categoryedit import commit_splice, plan_splice
from memfs.core.categoryfile import LazySlot, parse_category
from memfs.core.model import Item
from memfs.core.summarytop import Ranked

#: Metadata values as a person or another tool might leave them: percent-escapes of a
#: newline, CR, blank, '=', '%', '--'; Unicode digits; a bare '='; empty.
raw_values = st.sampled_from([
    "a1", "a2", "k-3", "%0A", "a1%0A", "a1%0D", "a%20b", "a%3Db", "%25", "a%2D%2Db", "=", "a=b", "", "x" * 65,
    "1", "3", "0", "\u00b2", "\u0663", "\uff12", "007", "9" * 25,
    "2024", "2024-05-01", "2024-05-01%0A", "2024%0A", "\uff12\uff10\uff12\uff14", "2024-13-40", "soon",
    "profile", "knowledge", "event", "nonsense", "inbox/x.md",
])
keys = st.sampled_from(["id", "id", "type", "when", "src", "seen", "updated", "superseded_by", "until", "x-note"])


@st.composite
def meta_line(draw):  # type: ignore[no-untyped-def]
    pairs = [("id", draw(raw_values))] + draw(st.lists(st.tuples(keys, raw_values), max_size=4))
    if draw(st.booleans()):
        draw(st.randoms()).shuffle(pairs)
    comment = "<!-- " + " ".join(f"{k}={v}" for k, v in pairs) + " -->"
    text = draw(st.sampled_from(["A fact", "Priya likes tea", "x", "2 cats", "caf\u00e9 \u00e9t\u00e9", "a\xa0b"]))
    gap = draw(st.sampled_from([" ", "  ", "\t", " \t"]))
    tail = draw(st.sampled_from(["", " ", "\t"]))
    return f"- {text}{gap}{comment}{tail}\n"


plain = st.sampled_from(["\n", "## Part\n", "- an unstamped line\n", "A paragraph.\n\n", "  - a nested child\n",
                         "    more of the item\n", "> a quote\n"])
line = st.one_of(meta_line(), meta_line(), meta_line(), plain)


def _text(lines: list[str], crlf: bool = False, bom: bool = False) -> str:
    text = "---\ntitle: T\n---\n# T\n\n" + "".join(lines)
    if crlf:
        text = text.replace("\n", "\r\n")
    return ("\ufeff" if bom else "") + text


def _same_parse(eager, lazy) -> None:  # type: ignore[no-untyped-def]
    assert lazy.warnings == eager.warnings and lazy.fast == eager.fast
    assert [s.item_id() for s in lazy.slots] == [s.item.id for s in eager.slots]
    assert lazy.ids() == eager.ids()
    for ls, es in zip(lazy.slots, eager.slots):
        it = es.item
        assert ls.rank_fields() == (it.seen, it.updated, bool(it.extra.get("superseded_by")))
    a, b = Ranked.of(eager.slots), Ranked.of(lazy.slots)
    assert (b.summary(), b.newest, b.complete) == (a.summary(), a.newest, a.complete)
    assert lazy.items == eager.items


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(["- A fact <!-- id=abc%0A type=knowledge -->\n"], False, False)
@given(st.lists(line, max_size=10), st.booleans(), st.booleans())
def test_hostile_metadata_reads_the_same_lazily_and_eagerly(lines, crlf, bom) -> None:  # type: ignore[no-untyped-def]
    text = _text(lines, crlf, bom)
    _same_parse(parse_category(text, "index/t.md"), parse_category(text, "index/t.md", lazy=True))


def test_an_id_that_decodes_to_end_in_a_newline_is_bad_metadata_in_both_parses() -> None:
    # `id=abc%0A` decodes to 'abc\n', which `^...$` let through (its `$` matches before a
    # final newline); the model's own pattern does not, so the lazy slot's deferred build
    # raised a multi-line pydantic error long after the parse, once the file was written.
    text = _text(["- A fact <!-- id=abc%0A type=knowledge -->\n", "- B fact <!-- id=k2 type=knowledge -->\n"])
    eager, lazy = parse_category(text, "index/t.md"), parse_category(text, "index/t.md", lazy=True)
    _same_parse(eager, lazy)
    assert len(eager.warnings) == 1 and "\n" not in eager.warnings[0] and "invalid item id" in eager.warnings[0]
    assert not isinstance(lazy.slots[0], LazySlot) and not lazy.slots[0].stamped


def test_an_add_into_a_file_with_a_newline_id_writes_and_indexes(tmp_path: Path) -> None:
    from memfs.workspace import init_workspace
    from tests.support.workspace import hashing_memory

    root = init_workspace(tmp_path / "w", git=False).root
    path = root / "index" / "tea.md"
    path.write_text("---\ntitle: Tea\nkind: index\n---\n# Tea\n\n- Priya likes green tea <!-- id=abc%0A type=knowledge -->\n"
                    "- Sam likes coffee <!-- id=k2 type=knowledge -->\n")
    mem = hashing_memory(root)
    try:
        added = mem.add("Lee drinks oolong every morning", category="tea", type="knowledge")
        hits = {h.id for h in mem.recall("tea", k=10)}
    finally:
        mem.close()
    back = parse_category(path.read_text(), "index/tea.md")
    assert [it.text for it in back.items] == ["Priya likes green tea", "Sam likes coffee",
                                               "Lee drinks oolong every morning"]
    assert {added.id, "k2"} <= hits and not back.warnings


def test_a_date_that_decodes_to_end_in_a_newline_never_splits_the_line_on_a_rewrite() -> None:
    # `updated=2024-05-01%0A` was taken as a date and written back raw: the comment then
    # spanned two lines, and the file left the fast path for good.
    text = _text(["- A fact <!-- id=a1 type=knowledge updated=2024-05-01%0A -->\n", "- B <!-- id=a2 when=2024%0A -->\n"])
    for lazy in (False, True):
        doc = parse_category(text, "index/t.md", lazy=lazy)
        for slot in doc.slots:
            slot.item = slot.item.model_copy(update={"seen": 2})
        out = doc.render()
        assert out.count("\n") == text.count("\n") and "%0A" in out
        back = parse_category(out, "index/t.md")
        assert back.fast and not back.warnings and [it.seen for it in back.items] == [2, 2]
