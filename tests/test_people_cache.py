"""entry/peoplecache.PeopleCache (flat4, issue #18 item 4) gives exactly what
incremental.people_in gives, while re-assembling only the people whose files changed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfs.entry.incremental import People, people_in
from memfs.entry.indexfile import file_words
from memfs.entry.people import read_pages
from memfs.entry.poolcache import pool_for
from memfs.views import forget_state, state_for
from memfs.workspace import init_workspace
from tests.support.workspace import hashing_memory
from tests.test_views_incremental import FACTS, NAMES, apply, assert_same_as_full_rebuild, op


def _people(found: People) -> list[tuple]:  # type: ignore[type-arg]
    return [(p.name, p.aliases, p.rel, [it.id for it in p.subject], [it.id for it in p.mentions],
             p.score, [it.id for it in (p.superseded or [])], sum(1 for it in p.subject if it.current),
             found.sources.get(p.name)) for p in found.people]


def _check(mem) -> None:  # type: ignore[no-untyped-def]
    """The cache the views used for the last regeneration against people_in on the same pool."""
    pool = pool_for(mem.ws)
    state = state_for(mem.ws)
    pages = read_pages(mem.ws)
    words = lambda path: file_words(pool, path)  # noqa: E731 - as the views hand it in
    cached, plain = state.people.find(pool, pages, words), people_in(pool, pages, words)
    assert _people(cached) == _people(plain)
    assert cached.signature == plain.signature and cached.alias_of == plain.alias_of
    assert all(p.current_count == sum(1 for it in p.subject if it.current) for p in cached.people if p.current_count
               is not None)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(op, min_size=1, max_size=6))
def test_cached_people_equal_people_in_after_any_changes(tmp_path_factory: pytest.TempPathFactory,
                                                         steps: list[tuple]) -> None:  # type: ignore[type-arg]
    root = init_workspace(tmp_path_factory.mktemp("pc") / "w", git=False).root
    forget_state()
    with hashing_memory(root) as mem:
        mem.sync()
        for n, name in enumerate(NAMES):
            mem.add(FACTS[n].format(n=name), category="memory/profile")
            mem.add(FACTS[n + 3].format(n=name), category="memory/preferences", when="2026-03-02")
        _check(mem)
        for step in steps:
            apply(mem, step)
            _check(mem)
        assert_same_as_full_rebuild(mem)
    shutil.rmtree(root, ignore_errors=True)


def test_a_write_reassembles_only_the_people_its_file_names(ws_path: Path) -> None:
    """Many files about two people; a fact into a file about Priya alone leaves Dana's
    assembled facts the very objects they were (a new input does not walk every person's facts)."""
    for k in range(8):
        lines = "".join(f"- {name} met the team about project {k}-{i}. <!-- id={name[0]}{k:02d}{i:03d} "
                        f"type=event -->\n" for i in range(10) for name in ("Priya", "Dana"))
        (ws_path / "memory" / f"events-{k}.md").write_text(f"---\ntitle: Events {k}\n---\n" + lines)
    lines = "".join(f"- Priya planned sprint {i}. <!-- id=p{i:03d} type=event -->\n" for i in range(10))
    (ws_path / "memory" / "sprints.md").write_text("---\ntitle: Sprints\n---\n" + lines)
    forget_state()
    with hashing_memory(ws_path) as mem:
        mem.sync()
        cache = state_for(mem.ws).people
        before = dict(cache._people)
        assert {"Priya", "Dana"} <= set(before)
        lists = dict(state_for(mem.ws).facets._lists)
        mem.add("Priya planned the launch sprint.", category="memory/sprints")
        after = cache._people
        assert after["Dana"] is before["Dana"]
        assert after["Priya"] is not before["Priya"]
        # Dana's page and memory.md got her very lists again: the facet cache knew them
        # unchanged by identity, not by copying and comparing her facts.
        kept = state_for(mem.ws).facets._lists
        assert kept["Dana"][0] is lists["Dana"][0] and kept["Dana"][1] is lists["Dana"][1]
        assert kept["Priya"][0] is not lists["Priya"][0]
        _check(mem)
        assert_same_as_full_rebuild(mem)


_LINES = ("Priya met Tom at the market.", "Dana works with Priya on the launch.", "Priya lives in Leeds.",
          "Tom plans a trip with Dana.", "Dana is vegan.", "Tom likes jazz.", "Priya called Dana about Tom.")


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.lists(st.tuples(st.integers(0, 5), st.sampled_from(["append", "drop", "reword",
                                                                              "supersede"]),
                                         st.integers(0, 99)), min_size=1, max_size=3), min_size=2, max_size=6))
def test_a_person_spliced_from_a_few_changed_files_is_people_in(tmp_path_factory: pytest.TempPathFactory,
                                                                steps: list[list[tuple]]) -> None:  # type: ignore[type-arg]
    """flat5: a person named in a few changed files has those files' shares spliced into
    their facts and mentions (PeopleCache._splice); after changes to one to three files at
    a time (lines added, dropped, reworded, superseded, before and after each other), every
    person is what people_in gives."""
    from memfs.entry.peoplecache import PeopleCache

    root = init_workspace(tmp_path_factory.mktemp("sp") / "w", git=False).root
    files = {k: [f"{_LINES[(k + i) % len(_LINES)]} <!-- id=s{k}x{i} type=event -->" for i in range(6)]
             for k in range(6)}

    def write() -> None:
        for k, lines in files.items():
            (root / "memory" / f"f{k}.md").write_text(f"---\ntitle: F{k}\n---\n" + "".join(
                f"- {ln}\n" for ln in lines))

    write()
    forget_state()
    spliced = []
    real = PeopleCache._splice

    def counting(*args: object) -> object:
        spliced.append(args[1])
        return real(*args)  # type: ignore[arg-type]

    PeopleCache._splice = staticmethod(counting)  # type: ignore[method-assign, assignment]
    try:
        with hashing_memory(root) as mem:
            mem.sync()
            _check(mem)
            for n, step in enumerate(steps):
                for k, what, r in step:
                    lines = files[k]
                    if what == "append" or not lines:
                        lines.append(f"{_LINES[r % len(_LINES)]} <!-- id=a{n}x{k}x{r}x{len(lines)} type=event -->")
                    elif what == "drop":
                        del lines[r % len(lines)]
                    elif what == "supersede":  # kept as history: the person's superseded facts
                        at = r % len(lines)
                        lines[at] = lines[at].replace(" type=", f" until=2026-0{1 + r % 9} superseded_by=s0x0 type=", 1)
                    else:
                        at = r % len(lines)
                        lines[at] = f"{_LINES[r % len(_LINES)]} <!-- id=r{n}x{k}x{r} type=event -->"
                write()
                mem.sync()
                _check(mem)
            assert_same_as_full_rebuild(mem)
    finally:
        PeopleCache._splice = staticmethod(real)  # type: ignore[method-assign, assignment]
    assert spliced  # the splice ran, not only the assembly from every file
    shutil.rmtree(root, ignore_errors=True)
