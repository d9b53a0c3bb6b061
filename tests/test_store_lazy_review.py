"""An adversarial review of the store's lazy parse (core/slot.py) and the one-match item
line (bodyscan._FAST_ITEM): hostile metadata values, odd line shapes and sequences of
store operations, each read both lazily and eagerly, must give the same items, warnings,
bytes written and files-row summary, and a write must never crash or lose an id."""

from __future__ import annotations

from pathlib import Path

import pytest
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


doc_op = st.tuples(st.sampled_from(["add", "bump", "supersede", "forget", "redate"]), st.integers(0, 50))


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(line, max_size=10), st.lists(st.lists(doc_op, min_size=1, max_size=3), min_size=1, max_size=4))
# An add then a forget of that new item in one write (never written) stopped the commit's
# shift of the lines above it: the next splice read a stale line (IndexError here; found by
# this test in a helper's run, on main and on the code before the lazy parse alike).
@example(lines=[], rounds=[[("add", 0), ("add", 0)], [("add", 0), ("forget", 0), ("forget", 1)], [("add", 0)]])
def test_the_summary_head_followed_through_lazy_splices_equals_a_full_reparse(lines, rounds) -> None:  # type: ignore[no-untyped-def]
    """Ranked.after on a lazily parsed doc (unbuilt slots ranked from their metadata) gives,
    after every committed splice, what a fresh eager parse of the written text gives."""
    docs = [parse_category(_text(lines), "index/t.md"), parse_category(_text(lines), "index/t.md", lazy=True)]
    ranked = [Ranked.of(d.slots) for d in docs]
    for rnd, ops in enumerate(rounds):
        texts = []
        for j, doc in enumerate(docs):
            for n, (kind, k) in enumerate(ops):
                live = [s for s in doc.slots if not s.removed]
                slot = live[k % len(live)] if live else None
                new = Item(id=f"n{rnd}{n}", text=f"New fact {rnd} {n}", type="knowledge", seen=1 + k % 3,
                           updated="2024-09-0%d" % (k % 9 + 1))
                if kind == "add" or slot is None:
                    doc.add(new)
                elif kind == "bump":
                    slot.item = slot.item.model_copy(update={"seen": slot.item.seen + k % 4 + 1})
                elif kind == "redate":
                    slot.item = slot.item.model_copy(update={"updated": None if k % 2 else "2023-01-01"})
                elif kind == "supersede" and not slot.item.extra.get("superseded_by"):
                    slot.item = slot.item.model_copy(update={"extra": {**slot.item.extra, "superseded_by": new.id}})
                    doc.add(new)
                elif kind == "forget":
                    doc.remove(slot.item_id())
            sp = plan_splice(doc) if doc.dirty else None
            if sp is None:  # not spliceable (mistune body, warnings): the store renders in full
                text = doc.render()
                docs[j] = parse_category(text, "index/t.md", lazy=bool(j))
                ranked[j] = Ranked.of(docs[j].slots)
            else:
                text = sp.text
                commit_splice(doc, sp)
                ranked[j] = ranked[j].after(doc.slots, sp.written, sp.removed, sp.updated_before)
            texts.append(text)
        assert texts[0] == texts[1]
        fresh = parse_category(texts[0], "index/t.md")
        want = Ranked.of(fresh.slots)
        for doc, r in zip(docs, ranked):
            assert (r.summary(), r.newest) == (want.summary(), want.newest)
            assert [s.item_id() for s in doc.slots if not s.removed] == [s.item.id for s in fresh.slots]
            assert doc.ids() == fresh.ids()


op = st.tuples(st.sampled_from(["add", "bump", "supersede", "forget", "meddle", "person_text", "person_meta"]),
               st.integers(0, 50))


def _apply(store, rel: str, path: Path, kind: str, k: int, rnd: int):  # type: ignore[no-untyped-def]
    """One store operation, as services/writer.py and pipeline/persist.py make them."""
    new = Item(id=f"n{rnd:02d}", text=f"New fact {rnd}", type="knowledge", updated="2024-09-09")
    if kind in ("person_text", "person_meta"):
        # A person edits one stamped line between memfs's writes: only its text, or only its metadata.
        lines = path.read_text().splitlines(keepends=True)
        stamped = [i for i, ln in enumerate(lines) if "<!-- id=" in ln]
        if stamped:
            i = stamped[k % len(stamped)]
            lines[i] = lines[i].replace("- ", "- Edited ", 1) if kind == "person_text" else \
                lines[i].replace(" -->", " seen=7 -->", 1)
            path.write_text("".join(lines))
        return None

    def change(doc) -> None:  # type: ignore[no-untyped-def]
        live = [s for s in doc.slots if not s.removed]
        slot = live[k % len(live)] if live else None
        if kind == "add" or slot is None:
            doc.add(new)
        elif kind == "bump":
            slot.item = slot.item.model_copy(update={"seen": slot.item.seen + 1, "updated": "2025-01-0%d" % (k % 9 + 1)})
        elif kind == "supersede":
            if not slot.item.extra.get("superseded_by"):
                slot.item = slot.item.model_copy(update={"extra": {**slot.item.extra, "until": "2024-09",
                                                                   "superseded_by": new.id}})
                doc.add(new)
        elif kind == "forget":
            doc.remove(slot.item_id())
        elif kind == "meddle":
            # A person saves the file while memfs applies its change: the store must re-apply
            # it to their version (read-verify-write), whichever parse it made.
            if not path.read_text().endswith("- Saved meanwhile <!-- id=zz type=knowledge -->\n"):
                path.write_text(path.read_text() + "- Saved meanwhile <!-- id=zz type=knowledge -->\n")
            doc.add(new)

    return store.edit(rel, change)


@pytest.mark.slow  # ~30 s: two workspaces and real store writes per example (400 examples passed by hand)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(line, max_size=8), st.lists(op, min_size=1, max_size=6), st.booleans())
def test_store_operations_write_the_same_bytes_from_a_lazy_and_an_eager_parse(tmp_path_factory, lines, ops, crlf) -> None:  # type: ignore[no-untyped-def]
    import memfs.store as store_mod
    from memfs.config import load_config
    from memfs.errors import MemfsError
    from memfs.store import CategoryStore, decode_category
    from memfs.workspace import Workspace, init_workspace

    text = _text(lines, crlf)
    stores, paths = [], []
    for name in ("eager", "lazy"):
        root = init_workspace(tmp_path_factory.mktemp(name) / "w", git=False).root
        (root / "index" / "t.md").write_bytes(text.encode())
        stores.append(CategoryStore(Workspace(root), load_config(root, environ={})))
        paths.append(root / "index" / "t.md")
    real = store_mod.decode_category
    for rnd, (kind, k) in enumerate(ops):
        results = []
        for idx, (store, path) in enumerate(zip(stores, paths)):
            store_mod.decode_category = real if idx else (lambda data, rel, lazy=False, line_ids=None: decode_category(data, rel))
            try:
                doc = _apply(store, "index/t.md", path, kind, k, rnd)
                results.append(None)
            except MemfsError as err:  # a refusal must be the same refusal (any other error fails)
                doc = None
                results.append(str(err))
            finally:
                store_mod.decode_category = real
            if doc is not None and not doc.warnings:
                # The doc the next edit starts from (store._PARSED) is the file as written.
                fresh = parse_category(path.read_text(), "index/t.md")
                assert [s.item_id() for s in doc.slots if not s.removed] == [s.item.id for s in fresh.slots]
                got, want = Ranked.of(doc.slots), Ranked.of(fresh.slots)
                assert (got.summary(), got.newest) == (want.summary(), want.newest)
        assert results[0] == results[1]
        assert paths[0].read_bytes() == paths[1].read_bytes(), (kind, k)
    _same_parse(parse_category(paths[0].read_text(), "index/t.md"),
                parse_category(paths[1].read_text(), "index/t.md", lazy=True))


def test_the_cli_adds_and_forgets_through_hostile_lines_without_a_traceback(tmp_path: Path) -> None:
    """End to end (`python -m memfs.cli`): an add and a forget into a file a person left odd
    (an id and a date that decode to end in a newline, a nested child, a duplicate id)."""
    from tests.support.cli import init, run

    ws = init(tmp_path / "w")
    path = ws / "index" / "tea.md"
    body = ("- Priya likes green tea <!-- id=abc%0A type=knowledge -->\n"
            "- Sam likes coffee <!-- id=k2 type=knowledge updated=2024-05-01%0A -->\n"
            "- Ana brews pu-erh <!-- id=k3 type=knowledge seen=2 -->\n"
            "  - a note a person nested under it\n"
            "- Ana brews pu-erh again <!-- id=k3 type=knowledge -->\n")
    path.write_text("---\ntitle: Tea\nkind: index\n---\n# Tea\n\n" + body)
    added = run(["add", "Lee drinks oolong every morning", "--category", "tea", "--type", "knowledge"], ws)
    gone = run(["forget", "k2", "--yes"], ws)
    for proc in (added, gone):
        assert "Traceback" not in proc.stderr and "validation error" not in proc.stderr
    text = path.read_text()
    assert "  - a note a person nested under it\n" in text
    # The second line stamped k3 (a person's copy) is an item of its own: it keeps its text
    # and metadata under a new id, stamped by the add's write (core/entryitem.py).
    assert "- Ana brews pu-erh again <!-- id=" in text and "pu-erh again <!-- id=k3" not in text
    back = parse_category(text, "index/tea.md")
    assert [it.text for it in back.items] == ["Priya likes green tea", "Ana brews pu-erh",
                                               "Ana brews pu-erh again", "Lee drinks oolong every morning"]
    assert not back.warnings


def test_the_index_after_lazy_writes_equals_a_rebuild_from_the_files(tmp_path: Path) -> None:
    """Adds (new and reinforcing), forgets and a vector fill through `Memory` on a file of odd
    lines: the files rows (summary, item count) the index keeps from the lazy docs' deltas
    equal those of a fresh workspace rebuilt from the same Markdown."""
    import random
    import shutil

    from memfs.workspace import init_workspace
    from tests.support.workspace import hashing_memory

    rng = random.Random(7)
    root = init_workspace(tmp_path / "w", git=False).root
    odd = ["seen=3", "seen=0", "seen=\u00b2", "updated=2024-05-01", "updated=2024%0A", "x-note=a%3Db",
           "superseded_by=f000003 until=2024", "type=nonsense", "when=2025-02"]
    lines = []
    for i in range(150):
        lines.append(f"- Fact {i} about tea {i % 13} <!-- id={'abc%0A' if i == 40 else f'f{i:06d}'} type=knowledge "
                     f"{' '.join(rng.sample(odd, rng.randrange(3)))} -->\n" + ("  - nested note\n" if i % 50 == 7 else ""))
    (root / "index" / "tea.md").write_text("---\ntitle: Tea\nkind: index\n---\n# Tea\n\n" + "".join(lines))
    mem = hashing_memory(root)
    try:
        mem.sync()
        for step, what in enumerate(["new", "again", "forget", "new"]):
            if what == "forget":
                mem.forget(f"f{rng.randrange(150):06d}")
            else:
                mem.add(f"Brand new tea fact {step}" if what == "new" else f"Fact {rng.randrange(150)} about tea 1",
                        category="tea", type="knowledge")
            mem.fill_vectors()
        copy = tmp_path / "copy"
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".memfs"))
        fresh = hashing_memory(copy)
        try:
            fresh.sync(rebuild=True)
            assert [tuple(r) if r else None for _, r in mem.category_rows()] == \
                [tuple(r) if r else None for _, r in fresh.category_rows()]
        finally:
            fresh.close()
    finally:
        mem.close()


def test_a_date_in_other_digits_is_not_a_date() -> None:
    """`updated=２０２６-01-01` (fullwidth digits) matched `\\d` and sorted after every ASCII
    date, so it stayed the file's newest stamp for good. Dates are ASCII digits only: such a
    value is kept as the person's own metadata, not read as a date."""
    from memfs.core.itemline import when_ok
    from memfs.core.model import parse_when

    assert when_ok("2026-01-01") and not when_ok("２０２６-01-01") and not when_ok("٢٠٢٦")
    with pytest.raises(ValueError):
        parse_when("２０２６-01-01")


def test_memfs_setting_a_field_a_person_wrote_badly_is_not_undone_on_the_next_read() -> None:
    """`updated=a1` (not a date) is kept as the person's metadata. When memfs then dates the
    item, the line held `updated=2023-01-01 updated=a1` and the next read took the later,
    bad one: memfs' date was lost (found by the summary-head hypothesis test)."""
    from memfs.core.categoryfile import parse_category

    doc = parse_category("- A fact <!-- id=a1 updated=a1 -->\n", "index/t.md")
    assert doc.slots[0].item.updated is None and doc.slots[0].item.extra == {"updated": "a1"}
    slot = doc.slots[0]
    slot.item = slot.item.model_copy(update={"updated": "2023-01-01"})
    again = parse_category(doc.render(), "index/t.md").slots[0].item
    assert again.updated == "2023-01-01" and "updated" not in again.extra


def test_a_bump_of_an_unstamped_line_is_written_or_refused(tmp_path: Path) -> None:
    """Found by the store-operations hypothesis test (CI, 2026-12-01)."""
    from memfs.config import load_config
    from memfs.store import CategoryStore
    from memfs.workspace import Workspace, init_workspace

    root = init_workspace(tmp_path / "w", git=False).root
    path = root / "index" / "t.md"
    path.write_text("- an unstamped line\n")
    store = CategoryStore(Workspace(root), load_config(root, environ={}))

    def change(doc) -> None:  # type: ignore[no-untyped-def]
        slot = doc.slots[0]
        slot.item = slot.item.model_copy(update={"seen": slot.item.seen + 1, "updated": "2025-01-01"})

    doc = store.edit("index/t.md", change)
    fresh = parse_category(path.read_text(), "index/t.md")
    assert (doc.slots[0].item.seen, Ranked.of(doc.slots).newest) == (fresh.slots[0].item.seen, Ranked.of(fresh.slots).newest)


def test_an_invalid_type_is_not_written_beside_memfs_own() -> None:
    """`type=bogus` reads as the file's default type, kept in `extra`; when memfs rewrote the
    line it wrote `type=knowledge … type=bogus`: two keys, the later winning the next read."""
    doc = parse_category("- A fact <!-- id=a1 type=bogus -->\n", "index/t.md")
    assert doc.slots[0].item.type == "knowledge" and doc.slots[0].item.extra == {"type": "bogus"}
    slot = doc.slots[0]
    slot.item = slot.item.model_copy(update={"seen": 2})
    text = doc.render()
    assert text.count("type=") == 1, text
    again = parse_category(text, "index/t.md").slots[0].item
    assert (again.type, again.seen, again.extra) == ("knowledge", 2, {})
