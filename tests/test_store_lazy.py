"""Issue #10 item 11 / #17 item 3: the store's parse builds only the Items a write touches.

A lazy parse (core/slot.py) must be indistinguishable from the eager one: the same ids,
warnings, duplicates and items once built; what the splice and the files-row summary read
without building an item must be what the built item says; and a write must give the same
bytes as from an eager parse, while building only the slots it touches."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memfs.config import load_config
from memfs.core.categoryedit import commit_splice, plan_splice
from memfs.core.categoryfile import LazySlot, parse_category
from memfs.core.model import Item
from memfs.core.summarytop import NEED, Ranked
from memfs.store import CategoryStore
from memfs.workspace import init_workspace

ids = st.sampled_from(["a1", "a2", "b_3", "c-4", "bad id!", "x" * 70, "a1"])  # "a1" twice: duplicates
values = {
    "type": st.sampled_from(["profile", "knowledge", "nonsense"]),
    "seen": st.sampled_from(["1", "3", "0", "", "x", "\u00b2", "12"]),  # "²".isdigit() but int("²") fails
    "updated": st.sampled_from(["2024-05-01", "2024", "bad", "2023-01-02"]),
    "when": st.sampled_from(["2025-02", "soon"]),
    "superseded_by": st.sampled_from(["", "a2", "zz9"]),
    "src": st.sampled_from(["", "inbox/x.md", "a%20b"]),
}


@st.composite
def meta_line(draw):  # type: ignore[no-untyped-def]
    parts = [f"id={draw(ids)}"]
    for key, strat in values.items():
        if draw(st.booleans()):
            parts.append(f"{key}={draw(strat)}")
    text = draw(st.sampled_from(["A fact", "Another fact.", "Priya likes tea", "x"]))
    return f"- {text} <!-- {' '.join(parts)} -->\n"


line = st.one_of(meta_line(), meta_line(), st.sampled_from(["\n", "## Part\n", "- an unstamped line\n",
                                                               "A paragraph.\n\n"]))


def _text(lines: list[str]) -> str:
    return "---\ntitle: T\n---\n# T\n\n" + "".join(lines)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(line, max_size=12))
def test_a_lazy_parse_reads_exactly_what_the_eager_parse_reads(lines) -> None:  # type: ignore[no-untyped-def]
    text = _text(lines)
    eager, lazy = parse_category(text, "index/t.md"), parse_category(text, "index/t.md", lazy=True)
    assert lazy.warnings == eager.warnings and lazy.fast == eager.fast
    assert len(lazy.slots) == len(eager.slots)
    for ls, es in zip(lazy.slots, eager.slots):
        assert (ls.start, ls.end, ls.raw, ls.stamped, ls.head, ls.prefix) == (
            es.start, es.end, es.raw, es.stamped, es.head, es.prefix)
        # Read without building: the id, unchanged, not replaced, and the summary's fields.
        it = es.item
        assert ls.item_id() == ls.origin_id() == it.id
        assert (ls.changed, ls.replaced()) == (es.changed, es.replaced())
        assert not isinstance(ls, LazySlot) or not (ls.changed or ls.replaced())
        assert ls.rank_fields() == (it.seen, it.updated, bool(it.extra.get("superseded_by")))
    assert not any(isinstance(s, LazySlot) and s.built for s in lazy.slots)
    assert lazy.ids() == eager.ids()
    before = Ranked.of(eager.slots)
    got = Ranked.of(lazy.slots)
    assert (got.summary(), got.newest, got.complete) == (before.summary(), before.newest, before.complete)
    assert lazy.items == eager.items  # built now: the very items the eager parse gives
    assert [s.parsed for s in lazy.slots] == [s.parsed for s in eager.slots]
    assert not lazy.dirty


@st.composite
def flat_file(draw):  # type: ignore[no-untyped-def]
    n = draw(st.integers(1, 10))
    body = "".join(draw(st.sampled_from(["", "\n", "## Section\n"])) + f"- Fact {k} <!-- id=i{k:04d} type=knowledge"
                   f"{' seen=%d' % draw(st.integers(2, 4)) if draw(st.booleans()) else ''}"
                   f"{' updated=2024-0%d-01' % draw(st.integers(1, 9)) if draw(st.booleans()) else ''} -->\n"
                   for k in range(n))
    return _text([body]), [f"i{k:04d}" for k in range(n)]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(flat_file(), st.data())
def test_a_splice_from_a_lazy_parse_equals_one_from_the_eager_parse(case, data) -> None:  # type: ignore[no-untyped-def]
    text, item_ids = case
    docs = [parse_category(text, "index/t.md"), parse_category(text, "index/t.md", lazy=True)]
    for rnd in range(3):
        bump = data.draw(st.sets(st.sampled_from(item_ids))) if item_ids else set()
        drop = (data.draw(st.sets(st.sampled_from(item_ids))) if item_ids else set()) - bump
        new = [Item(id=f"n{rnd}{k}", text=f"New {rnd} {k}", type="knowledge", updated="2024-09-09")
               for k in range(data.draw(st.integers(0, 2)))]
        out = []
        for doc in docs:
            for item_id in sorted(bump):
                slot = doc.find(item_id)
                slot.item = slot.item.model_copy(update={"seen": slot.item.seen + 1})
            for item_id in sorted(drop):
                doc.remove(item_id)
            for item in new:
                doc.add(item)
            sp = plan_splice(doc) if doc.dirty else None
            out.append(sp.text if sp is not None else None)
            if sp is not None:
                commit_splice(doc, sp)
        assert out[0] == out[1]
        item_ids = [s.item_id() for s in docs[1].slots]
    fresh = parse_category(docs[0].render(), "index/t.md")
    for doc in docs:
        assert [(s.item, s.start, s.raw) for s in doc.slots] == [(s.item, s.start, s.raw) for s in fresh.slots]


def _big(tmp_path: Path, n: int) -> tuple[Path, CategoryStore]:
    root = init_workspace(tmp_path / "w", git=False).root
    lines = "".join(f"- Fact {i} about thing {i % 13}. <!-- id=f{i:06d} type=knowledge -->\n" for i in range(n))
    (root / "index" / "big.md").write_text("---\ntitle: Big\nkind: index\n---\n# Big\n\n" + lines)
    from memfs.workspace import Workspace

    return root, CategoryStore(Workspace(root), load_config(root, environ={}))


def test_a_write_builds_only_the_items_it_touches_and_keeps_every_id(tmp_path: Path) -> None:
    n = 3000
    root, store = _big(tmp_path, n)
    path = root / "index" / "big.md"
    doc = store.edit("index/big.md", lambda d: d.add(Item(id="new1", text="One more fact.", type="knowledge")))
    unbuilt = sum(1 for s in doc.slots if isinstance(s, LazySlot) and not s.built)
    assert unbuilt >= n - NEED - 1, unbuilt  # built: the summary's head, not 3,000 Items
    target = "f001234"

    def bump(d) -> None:  # type: ignore[no-untyped-def]
        slot = d.find(target)
        slot.item = slot.item.model_copy(update={"seen": 5})

    from memfs.store import _PARSED

    _PARSED.clear()  # a fresh process: parse the file again
    doc = store.edit("index/big.md", bump)
    assert sum(1 for s in doc.slots if isinstance(s, LazySlot) and not s.built) >= n - NEED - 2
    back = parse_category(path.read_text(), "index/big.md")
    assert [it.id for it in back.items] == [f"f{i:06d}" for i in range(n)] + ["new1"]
    assert back.find(target).item.seen == 5 and not back.warnings
    assert path.read_text().count("\n") == 6 + n + 1


pieces = st.sampled_from(["- ", "-", " ", "\t", "1", "12", "١", ".", ")", "a", "Fact", "é", "\xa0", "<!--", "-->",
                          "--", "-", " id=a1", " type=knowledge", "id=b2", "=", "%20", "<", ">", "\\", "&", "`", "\r",
                          "\u2028", "\x01", "#", "\n"])


def _line_by_line(lines: list[str]):  # type: ignore[no-untyped-def]
    """_fast_entries as it was: fast_line on every line."""
    from memfs.core.bodyscan import fast_line

    out, prev = [], False
    for i, ln in enumerate(lines):
        got = fast_line(ln, prev)
        if got is None:
            return None
        if got is True:
            prev = False
            continue
        out.append((i, i + 1, 1, "- ", got[4], got[5]))  # type: ignore[index]
        prev = True
    return out


@settings(max_examples=600, deadline=None)
@example(["- Fact 1 <!-- id=a1 type=knowledge -->\n", "- 1. x <!-- id=a2 -->\n", "- a\xa0 \t<!-- id=a3 --> \n"])
@example(["- a <!-- id=a1 -- x -->\n", "- a <!-- id=a1 --->\n", "- a <!-- id=a%20 seen=2 -->", "- 1 <!-- x=1 -->\n"])
@example(["- 12) <!-- id=a1 -->\n", "- 1.x <!-- id=a1 -->\n", "- a <!-- id=a1 -->\r\n", "- a&b <!-- id=a1 -->\n"])
@given(st.lists(st.lists(pieces, max_size=9).map(lambda p: "- " + "".join(p) + "\n"), min_size=1, max_size=4))
def test_the_one_match_item_line_reads_what_fast_line_reads(lines) -> None:  # type: ignore[no-untyped-def]
    from memfs.core.bodyscan import _fast_entries
    from memfs.core.front import split_lines

    lines = split_lines("".join(lines))
    assert _fast_entries(lines) == _line_by_line(lines)


def test_a_one_shot_add_does_not_load_the_extractor(ws_path: Path) -> None:
    """`memfs add` files a fact it is given: the offline extractor (~0.1-0.2 s of imports)
    must not load with the API or the entry files (memfs/extract/__init__.py is lazy)."""
    import subprocess
    import sys

    from tests.support.cli import env

    probe = ("import sys; from memfs.api import Memory\n"
             "m = Memory('.')\n"
             "m.add('Ana keeps bees on the roof.'); m.close()\n"
             "print('memfs.extract.offline' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ws_path, env=env(), capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
