"""The category list an input is filed against (`Runtime.category_specs`), kept between
inputs by `categorize.SpecMemo` while the files and the configured categories are the same
(branch flat6: it was rebuilt from ~1,000 files an input at 100,000 items). Checked against
the list built from nothing after random creations, removals and moves of files."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import given, settings, strategies as st

from memfs.categorize import CategorySpec, SpecMemo, specs_of
from tests.support.workspace import hashing_memory


def _fresh(mem) -> list[CategorySpec]:  # type: ignore[no-untyped-def]
    """The list as main built it: configured categories, then every top-level file walked."""
    specs: dict[str, CategorySpec] = {}
    for name, cat in mem.runtime.config.categories.items():
        from memfs.workspace import slugify

        specs[f"{cat.kind}/{slugify(name)}"] = CategorySpec(cat.kind, slugify(name), cat.description)
    for path in mem.runtime.ws.category_files():
        kind, name = mem.runtime.ws.rel(path).split("/", 1)
        if "/" not in name:
            specs.setdefault(f"{kind}/{name[:-3]}", CategorySpec(kind, name[:-3], ""))
    return [specs[k] for k in sorted(specs)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["add", "drop", "same"]),
                          st.sampled_from(["memory/a.md", "memory/b.md", "index/c.md", "skill/d.md",
                                           "memory/sub/e.md", "index/profile.md"])), max_size=12))
def test_the_memo_equals_a_fresh_list_after_any_changes(steps: list[tuple[str, str]]) -> None:
    memo = SpecMemo()
    configured = (("memory", "profile", "who"), ("index", "knowledge", "facts"))
    rels: set[str] = set()
    prev = None
    for op, rel in steps:
        if op == "add":
            rels.add(rel)
        elif op == "drop":
            rels.discard(rel)
        got = memo.get(configured, sorted(rels))
        assert got == specs_of(configured, sorted(rels))
        if prev is not None and prev[1] == sorted(rels):
            assert got is prev[0]  # kept: the categorizer keyed on it keeps its vectors
        prev = (got, sorted(rels))
    assert memo.get(configured[:1], sorted(rels)) == specs_of(configured[:1], sorted(rels))


def test_the_runtime_list_follows_files_on_disk(ws_path: Path) -> None:
    mem = hashing_memory(ws_path)
    rng = random.Random(5)
    names = [f"{k}/{n}.md" for k in ("memory", "index", "skill") for n in ("x", "y", "profile", "deep/z")]
    for _ in range(30):
        rel = rng.choice(names)
        path = mem.runtime.ws.root / rel
        if path.exists():
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("- a fact\n")
        assert mem.category_specs() == _fresh(mem)
    mem.close()
