"""Entry parts persisted in the index (entry/partstore.py): a fresh process serves a big
file's parts from the index, or derives the file it just wrote from the parts of the
content the write started from; the root files are byte for byte a regeneration from
nothing, and a part persisted for other content (a person's edit) is never used."""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfs.api import Memory
from memfs.entry import partstore
from memfs.entry.poolcache import pool_for
from memfs.index.entryparts import PartRow, parts_of, save_parts
from memfs.views import forget_state
from memfs.workspace import init_workspace
from tests.support.cli import env, run
from tests.support.workspace import hashing_memory

BIG = "index/big.md"
NAMES = ("Priya", "Dana", "Tom")
WORDS = ("billing", "postgres", "canary", "rollout", "backup", "invoice", "ledger", "queue")


def big_lines(n: int, start: int = 0) -> str:
    return "".join(f"- {NAMES[i % 3]} noted the {WORDS[i % 8]} work for ticket {i}. <!-- id=b{i:06d} type=knowledge -->\n"
                   for i in range(start, start + n))


@contextlib.contextmanager
def min_items(n: int) -> Iterator[None]:
    old = partstore.MIN_ITEMS
    partstore.MIN_ITEMS = n
    try:
        yield
    finally:
        partstore.MIN_ITEMS = old


def entry_files(root: Path) -> dict[str, bytes]:
    out = {name: (root / name).read_bytes() for name in ("index.md", "memory.md", "skill.md") if (root / name).exists()}
    people = root / "people"
    if people.is_dir():
        out.update({f"people/{p.name}": p.read_bytes() for p in sorted(people.glob("*.md"))})
    return out


def assert_same_as_full_path(mem: Memory) -> None:
    """A regeneration from nothing that neither reads nor writes persisted parts writes nothing new."""
    before = entry_files(mem.ws.root)
    forget_state()
    with min_items(10**9), mem.lock("test"):
        written = mem.regenerate_views()
    assert written == [], f"the full path rewrote {written}"
    assert entry_files(mem.ws.root) == before


def _same_as_full_path_keeping_state(mem: Memory) -> None:
    """assert_same_as_full_path in another pool, this process's pool kept for the next step."""
    from memfs.entry import poolcache
    from memfs import views

    pools, states = dict(poolcache._POOLS), dict(views._STATES)
    try:
        assert_same_as_full_path(mem)
    finally:
        forget_state()
        poolcache._POOLS.update(pools)
        views._STATES.update(states)


def seeded(root: Path, n: int = 40) -> Memory:
    (root / "index" / "big.md").write_text("---\ntitle: Big\n---\n" + big_lines(n))
    mem = hashing_memory(root)
    mem.sync()
    return mem


def counters(mem: Memory) -> tuple[int, int]:
    parts = pool_for(mem.ws).parts
    return parts.served, parts.derived


def test_a_fresh_process_derives_the_written_file_from_its_persisted_parts(ws_path: Path) -> None:
    forget_state()
    with min_items(10), seeded(ws_path) as mem:
        db = mem.indexer.db
        assert set(parts_of(db, BIG)) >= {'["lead"]', '["words"]', '["counts"]', '["stats-parts"]'}
        for k in range(3):
            forget_state()  # each add as a fresh `memfs add` would run it
            mem.add(f"Dana moved the ledger review {k} to Thursday.", category="index/big")
            served, derived = counters(mem)
            assert derived >= 5, (served, derived)  # base days, lead, words, counts, stats, ranking: not recomputed
            digest = db.conn.execute("SELECT hash FROM files WHERE path=?", (BIG,)).fetchone()[0]
            assert {r.digest for r in parts_of(db, BIG).values()} == {digest}  # persisted for the new content
            assert_same_as_full_path(mem)
        forget_state()
        with mem.lock("test"):
            assert mem.regenerate_views() == []
        assert counters(mem)[0] >= 4  # nothing changed: every part served as persisted


def test_a_file_about_nobody_is_written_without_reading_its_rows(ws_path: Path) -> None:
    """Its parts hold no items (no people, no skills): a fresh process reads the few rows
    memory.md shows, by id, and not the file's rows."""
    lines = "".join(f"- Note {_word(i)} about {_word(i + 7919)}. <!-- id=c{i:06d} type=knowledge -->\n"
                    for i in range(60))
    (ws_path / "index" / "big.md").write_text("---\ntitle: Big\n---\n" + lines)
    forget_state()
    with min_items(10), hashing_memory(ws_path) as mem:
        mem.sync()
        for k in range(3):
            forget_state()
            mem.add(f"Moved the {_word(9000 + k)} review to Friday.", category="index/big")
            assert pool_for(mem.ws).files[BIG]._rows is None
            assert "[index/big.md#c0000" in (ws_path / "memory.md").read_text()  # items made from their rows alone
            assert_same_as_full_path(mem)


def test_a_part_persisted_for_other_content_is_never_used(ws_path: Path) -> None:
    forget_state()
    with min_items(10), seeded(ws_path) as mem:
        db = mem.indexer.db

        def plant(digest: str) -> None:
            """A words part that says "zebrafish" tops the file, for the content `digest`."""
            row = parts_of(db, BIG)['["words"]']
            counts, surface = partstore._CODECS["words"][1](json.loads(row.value))
            counts["zebrafish"] = 999
            surface["zebrafish"] = {"Zebrafish": 999}
            value = partstore._CODECS["words"][0]((counts, surface))
            save_parts(db, [(BIG, row._replace(digest=digest, value=json.dumps(value)))])

        current = parts_of(db, BIG)['["words"]'].digest
        plant(current)  # control: a row for this very content is what a fresh process serves
        forget_state()
        with mem.lock("test"):
            mem.regenerate_views()
        assert "zebrafish" in (ws_path / "index.md").read_text().lower()
        plant(current)
        # A person edits the file (another hash): the planted row must not be served, nor
        # be the base of the next add's parts.
        path = ws_path / BIG
        path.write_text(path.read_text().replace("ticket 3.", "ticket three, by hand."))
        forget_state()
        mem.sync()
        assert "zebrafish" not in (ws_path / "index.md").read_text().lower()
        plant(current)
        path.write_text(path.read_text().replace("ticket 5.", "ticket five, by hand."))
        forget_state()
        mem.add("Tom checked the queue backlog.", category="index/big")
        assert "zebrafish" not in (ws_path / "index.md").read_text().lower()
        assert_same_as_full_path(mem)



def test_a_part_persisted_by_other_code_is_never_used(ws_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """memfs upgraded (or a word list changed) over an index that keeps parts: a row for this
    very content, made by other code, is neither served nor derived from."""
    forget_state()
    with min_items(10), seeded(ws_path) as mem:
        db = mem.indexer.db
        row = parts_of(db, BIG)['["words"]']
        counts, surface = partstore._CODECS["words"][1](json.loads(row.value))
        counts["zebrafish"], surface["zebrafish"] = 999, {"Zebrafish": 999}  # what the old code counted
        save_parts(db, [(BIG, row._replace(value=json.dumps(partstore._CODECS["words"][0]((counts, surface)))))])
        monkeypatch.setattr(partstore, "code_digest", lambda: "another-version")
        forget_state()
        with mem.lock("test"):
            mem.regenerate_views()
        assert counters(mem) == (0, 0)
        assert "zebrafish" not in (ws_path / "index.md").read_text().lower()
        assert {r.horizon.split("|")[0] for r in parts_of(db, BIG).values()} == {"another-version"}  # rewritten
        forget_state()
        mem.add("Dana moved the ledger review to Thursday.", category="index/big")
        assert counters(mem)[1] >= 5  # rows of this code: derived from again
        assert_same_as_full_path(mem)

def test_a_damaged_row_is_computed_afresh(ws_path: Path) -> None:
    forget_state()
    with min_items(10), seeded(ws_path) as mem:
        db = mem.indexer.db
        rows = parts_of(db, BIG)
        save_parts(db, [(BIG, r._replace(value=v)) for r, v in zip(rows.values(), ("{", "[1]", '{"a": "b"}', "null"))])
        forget_state()
        mem.add("Priya renamed the billing queue.", category="index/big")
        assert_same_as_full_path(mem)


def test_rows_of_a_file_gone_from_the_index_are_dropped(ws_path: Path) -> None:
    forget_state()
    with min_items(10), seeded(ws_path) as mem:
        assert parts_of(mem.indexer.db, BIG)
        (ws_path / BIG).unlink()
        mem.sync()
        assert parts_of(mem.indexer.db, BIG) == {}


def test_codecs_round_trip_every_persisted_part() -> None:
    from collections import Counter
    from datetime import date

    samples = {"lead": ({"Priya": 3}, {"Priya": 1}), "words": (Counter(a=2), {"a": Counter(A=2)}),
               "counts": (1, 2, 3), "stats-parts": (4, 3, Counter({"2026-01-02": 4}), Counter({"2026-01": 3})),
               "split-sizes": (Counter(x=20), Counter(), 40),
               "rank-members": {(1, "knowledge", date(2026, 1, 2)): ["a", "b"], (2, "fact", None): ["c"]},
               "rank-cost-counts": Counter({12: 3, 40: 1}), "base-days": {"2026-01-02": 7}}
    assert set(samples) == set(partstore.PERSISTED)
    for name, value in samples.items():
        enc, dec = partstore._CODECS[name]
        got = dec(json.loads(json.dumps(enc(value))))
        assert got == value and type(got) is type(value)
        if isinstance(value, tuple):
            assert [type(x) for x in got] == [type(x) for x in value]


op = st.one_of(
    st.tuples(st.just("add"), st.integers(0, 10**6)),
    st.tuples(st.just("reinforce"), st.integers(0, 39)),
    st.tuples(st.just("forget"), st.integers(0, 39)),
    st.tuples(st.just("edit"), st.integers(0, 39)),
    st.tuples(st.just("supersede"), st.integers(0, 39)),
    st.tuples(st.just("dated"), st.integers(1, 12)),
    st.tuples(st.just("other"), st.integers(0, 10**6)),
)


def _apply(mem: Memory, step: tuple) -> None:  # type: ignore[type-arg]
    root = mem.ws.root
    kind, n = step
    path = root / BIG
    if kind == "add":
        mem.add(f"{NAMES[n % 3]} wrote the {WORDS[n % 8]} runbook number {n}.", category="index/big")
    elif kind == "reinforce":  # an exact twin of an item of the file
        mem.add(f"{NAMES[n % 3]} noted the {WORDS[n % 8]} work for ticket {n}.", category="index/big")
    elif kind == "forget":
        if f"id=b{n:06d} " in path.read_text():
            mem.forget(f"b{n:06d}")
    elif kind == "edit":  # a person rewrites a line by hand
        path.write_text(path.read_text().replace(f"for ticket {n}.", f"for ticket {n}, checked by hand."))
        mem.sync()
    elif kind == "supersede":
        text = path.read_text()
        if f"id=b{n:06d} " in text:
            path.write_text(text.replace(f"id=b{n:06d} ", f"id=b{n:06d} superseded_by=b{(n + 1) % 40:06d} until=2026-10 "))
            mem.sync()
    elif kind == "dated":  # a line of an input of another day moves the store's horizon
        events = root / "memory" / "events.md"
        text = events.read_text() if events.exists() else "---\ntitle: Events\n---\n"
        events.write_text(text + f"- Priya flew to Lisbon. <!-- id=d{n:04d}{len(text) % 997:03d} type=event "
                                 f"src=resources/2026/{n:02d}/14-chat-0123456789abcdef.json#S1:1 -->\n")
        mem.sync()
    else:
        mem.add(f"Dana prefers the {WORDS[n % 8]} dashboard {n}.", category="memory/preferences")


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(op, st.booleans()), min_size=1, max_size=6))
def test_fresh_processes_with_persisted_parts_equal_the_full_path(tmp_path_factory: pytest.TempPathFactory,
                                                                  steps: list[tuple]) -> None:  # type: ignore[type-arg]
    """Each step in a fresh process, or in the process of the step before (a daemon whose
    views came from persisted parts, rows not read)."""
    root = init_workspace(tmp_path_factory.mktemp("parts") / "w", git=False).root
    forget_state()
    with min_items(10), seeded(root) as mem:
        for step, fresh in steps:
            if fresh:
                forget_state()
            _apply(mem, step)
            assert_same_as_full_path(mem) if fresh else _same_as_full_path_keeping_state(mem)
    shutil.rmtree(root, ignore_errors=True)


def test_one_shot_cli_adds_into_a_big_file_keep_its_parts(tmp_path: Path) -> None:
    """End to end: `memfs add` processes (no daemon) into a file of MIN_ITEMS items persist
    the file's parts for its new content, and the root files are the full path's."""
    e = env()
    root = tmp_path / "w"
    run(["init", str(root)], tmp_path, e)
    # Words no 20 items share: a file past `split_items` that no topic or keyword splits.
    lines = "".join(f"- Note {_word(i)} about {_word(i + 7919)}. <!-- id=c{i:06d} type=knowledge -->\n"
                    for i in range(partstore.MIN_ITEMS))
    (root / "index" / "big.md").write_text("---\ntitle: Big\n---\n" + lines)
    run(["sync"], root, e)
    for k in range(2):
        run(["add", f"Moved the {_word(50000 + k)} rollout to Friday.", "--category", "index/big"], root, e)
        conn = sqlite3.connect(root / ".memfs" / "index.sqlite3")
        try:
            digest = conn.execute("SELECT hash FROM files WHERE path=?", (BIG,)).fetchone()[0]
            got = {r[0] for r in conn.execute("SELECT digest FROM entry_parts WHERE path=?", (BIG,))}
        finally:
            conn.close()
        assert got == {digest}
    forget_state()
    with hashing_memory(root) as mem:
        assert_same_as_full_path(mem)


def _word(i: int) -> str:
    out = "zq"
    while True:
        i, r = divmod(i, 26)
        out += chr(97 + r)
        if not i:
            return out


def test_partrow_keys_name_only_plain_values() -> None:
    assert partstore.key_text(("words",)) == '["words"]'
    assert partstore.key_text(("split-sizes", None)) == '["split-sizes",null]'
    assert partstore.key_text(("rank-classes", "index", 30.0)) is None  # holds items: not persisted
    assert isinstance(PartRow("k", "d", 1, "", "m", "v"), tuple)


def _digest_of(tree: Path) -> str:
    import subprocess
    import sys

    code = (f"import sys; sys.path.insert(0, {str(tree)!r}); from memfs.entry import partstore; "
            "import memfs; assert memfs.__file__.startswith(sys.path[0]), memfs.__file__; print(partstore.code_digest())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}, cwd=tree.parent)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_the_code_digest_tells_versions_apart_however_memfs_is_installed(tmp_path: Path) -> None:
    """From a folder, a zip (zipapp) or compiled files only, two versions that differ in one
    word list never share a digest, and one version installed twice the same way does."""
    import compileall
    import zipfile

    import memfs

    src = Path(memfs.__file__).parent
    trees = {}
    for name, extra in (("a", ""), ("a2", ""), ("b", "\nEXTRA = frozenset({'zebrafish'})\n")):
        root = tmp_path / name
        shutil.copytree(src, root / "memfs", ignore=shutil.ignore_patterns("__pycache__"))
        lexicon = root / "memfs" / "extract" / "lexicon.py"
        lexicon.write_text(lexicon.read_text() + extra)
        trees[name] = root
    folder = {k: _digest_of(v) for k, v in trees.items()}
    assert folder["a"] == folder["a2"] != folder["b"]
    zipped = {}
    for name in ("a", "b"):
        archive = tmp_path / f"{name}.zip"
        with zipfile.ZipFile(archive, "w") as z:
            for f in sorted((trees[name] / "memfs").rglob("*")):
                z.write(f, f.relative_to(trees[name]))
        zipped[name] = _digest_of(archive)
    assert zipped["a"] != zipped["b"]
    for name in ("a", "b"):  # compiled files beside the sources' places, the sources gone
        compileall.compile_dir(trees[name] / "memfs", legacy=True, quiet=1)
        for f in (trees[name] / "memfs").rglob("*.py"):
            f.unlink()
    assert _digest_of(trees["a"]) != _digest_of(trees["b"])


def test_the_code_digest_is_the_running_codes_not_the_files_replaced_since(tmp_path: Path) -> None:
    """A daemon whose files an upgrade replaced keeps labelling its rows with its own code's
    digest (it is taken when partstore is imported), not the new files'."""
    import subprocess
    import sys

    import memfs

    root = tmp_path / "tree"
    shutil.copytree(Path(memfs.__file__).parent, root / "memfs", ignore=shutil.ignore_patterns("__pycache__"))
    lexicon = root / "memfs" / "extract" / "lexicon.py"
    code = (f"import sys, pathlib; sys.path.insert(0, {str(root)!r}); from memfs.entry import partstore; "
            "before = partstore.code_digest(); f = pathlib.Path(sys.argv[1]); "
            "f.write_text(f.read_text() + '\\nEXTRA = 1\\n'); print(before, partstore.code_digest())")
    out = subprocess.run([sys.executable, "-c", code, str(lexicon)], capture_output=True, text=True, timeout=120,
                         env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    before, after = out.stdout.split()
    assert before == after
    assert _digest_of(root) != before  # a process started after the upgrade: the new code's
