"""The person pages' memos (the parsed front-matter in entry/people.py, the assembled page
in entry/pages.py) give what a fresh computation gives, whatever edit a person or memfs
made to the page between two regenerations."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memfs.entry import pages, people
from memfs.entry.pagefile import PAGE_BEGIN, PAGE_END, PageParts, digest

_PIECES = st.sampled_from([
    "", "x", "\n", "\n\n", "note\n", "---\n", "title: Priya\n", "aliases: [Pri]\n", "aliases: Mel\n",
    "- Priya lives in Leeds.\n", "## Facts\n", PAGE_BEGIN, PAGE_END, " -->", "-->\n", ": [\n", "é",
])
_TEXT = st.lists(_PIECES, max_size=8).map("".join)


@st.composite
def page(draw: st.DrawFn) -> str:
    """A page memfs wrote (front, text around, a block with a right or wrong digest), or
    arbitrary text a person typed over it."""
    if draw(st.booleans()):
        return draw(_TEXT)
    body = draw(_TEXT)
    front = draw(st.sampled_from(["", "---\ntitle: Priya\n---\n", "---\ntitle: Priya\naliases: [Pri]\n---\n",
                                  "---\ntitle: [\n---\n"]))
    parts = PageParts(front, draw(_TEXT), None, None, draw(_TEXT))
    text = pages.assemble(parts, body)
    if draw(st.booleans()):  # an edit inside the block (the digest no longer agrees)
        text = text.replace(body, draw(_TEXT), 1) if body else text.replace(PAGE_BEGIN + "\n", PAGE_BEGIN + "\nx\n")
    return text


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(page(), _TEXT, st.one_of(st.none(), _TEXT)), min_size=1, max_size=6),
       st.integers(0, 3))
def test_the_assembled_page_memo_equals_a_fresh_assembly(steps: list[tuple[str, str, str | None]],
                                                         repeat_from: int) -> None:
    pages._ASSEMBLED.clear()
    # Some steps repeated as they were (the memo's hits), the rest changed (its misses).
    steps = steps + steps[repeat_from:]
    for existing, body, before in steps:
        for text in (existing, None):
            got = pages.page_text("people/priya.md", text, "Priya", body, before)
            assert got == pages._page_text(text, "Priya", body, before)


@settings(max_examples=150, deadline=None)
@given(st.lists(page(), min_size=1, max_size=6), st.integers(0, 3))
def test_the_front_matter_memo_equals_a_fresh_parse(tmp_path_factory: object, texts: list[str],
                                                   repeat_from: int) -> None:
    folder = Path(tmp_path_factory.mktemp("people"))  # type: ignore[attr-defined]
    path = folder / "priya.md"
    people._FRONTS.clear()
    for text in texts + texts[repeat_from:]:
        path.write_text(text, encoding="utf-8")
        got = people.read_page_front(path, "people/priya.md")
        if text == "":  # emptied just now: perhaps mid-save, read as unreadable (test_stalled_save.py)
            assert got.error and "being saved" in got.error
            continue
        assert got == people.parse_page_front(text, "priya", "people/priya.md")


def test_a_page_edited_inside_its_block_is_not_served_from_the_memo() -> None:
    """The memo's key is the page's text: the same body over an edited block keeps the edit."""
    pages._ASSEMBLED.clear()
    body = "# Priya\n\n- Priya lives in Leeds.\n"
    clean = pages.page_text("k", None, "Priya", body, None)
    assert clean is not None and pages.page_text("k", clean, "Priya", body, body) == clean
    edited = clean.replace("- Priya lives in Leeds.", "- Priya lives in York.", 1)
    again = pages.page_text("k", edited, "Priya", body, body)
    assert again is not None and "Priya lives in York." in again.split(PAGE_END)[1]
    assert digest(body) in again


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([b"a", b"\r", b"\n", b"\r\n", b"\xc3\xa9", b"\xef\xbb\xbf", b"\xff", b"\xc3",
                                 b"-", b" "]), max_size=40).map(b"".join))
def test_read_page_reads_what_text_mode_reads(tmp_path_factory: object, raw: bytes) -> None:
    """Universal newlines, a BOM kept, an invalid byte raising: exactly open(..).read()."""
    from memfs.entry.pagefile import read_page

    path = Path(tmp_path_factory.mktemp("page")) / "p.md"  # type: ignore[attr-defined]
    path.write_bytes(raw)
    try:
        with open(path, encoding="utf-8") as fh:
            want: str | type[Exception] = fh.read()
    except UnicodeDecodeError:
        want = UnicodeDecodeError
    try:
        got: str | type[Exception] = read_page(path)
    except UnicodeDecodeError:
        got = UnicodeDecodeError
    assert got == want


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["Priya is vegan.", "Priya ran (2024-05) a race.", "é"]),
                          st.sampled_from([None, "2024-05", "2026"]), st.sampled_from(["a", "b"])),
                min_size=1, max_size=12))
def test_a_kept_page_bullet_is_its_items_own(specs: list[tuple[str, str | None, str]]) -> None:
    """pages._bullet keeps page_bullet per item object: equal ids, other texts or dates, and
    items made again after others were dropped each get their own line."""
    from memfs.entry.pool import EntryItem

    for text, when, item_id in specs:
        it = EntryItem(id=item_id, text=text, type="event", when=when, src=None, seen=1, updated=None,
                       path="memory/a.md", line=1)
        assert pages._bullet(it) == pages.page_bullet(it)
        assert pages._bullet(it) == pages.page_bullet(it)  # the kept one
        del it
