"""Index-safety items of issue 10 for `.memfs/`: an atomic `sync --rebuild`, a damaged or
foreign index that heals, and read-only use.

Real processes throughout: the rebuild is SIGKILLed (or slowed) from inside the real CLI
through SQLite's progress handler, damage is done to the real file, and the read-only
runs are a real `memfs recall` on a write-protected tree (as `nobody` when run as root,
since root ignores file modes)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import MEMFS, env, init, run
from tests.support.figures import figure

FILES = 3
PER_FILE = 400


def _populate(ws: Path) -> None:
    """FILES category files of PER_FILE items each, written as a person would."""
    for f in range(FILES):
        lines = [f"# Notes {f}\n\n"]
        for n in range(PER_FILE):
            lines.append(f"- Orchard {f} tree {n} grows apples of the variety number {f * 1000 + n}. "
                         f"<!-- id={f:02x}{n:06x} type=knowledge -->\n")
        (ws / "index" / f"orchard-{f}.md").write_text("".join(lines))


@pytest.fixture
def big(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    e = env()
    ws = init(tmp_path / "w", e)
    _populate(ws)
    run(["sync"], ws, e)
    yield ws, e


def _count_items(ws: Path) -> int:
    conn = sqlite3.connect(f"file:{ws / '.memfs' / 'index.sqlite3'}?mode=ro", uri=True, timeout=30)
    try:
        return int(conn.execute("SELECT count(*) FROM items").fetchone()[0])
    finally:
        conn.close()


#: The real CLI, with a hook inside `sync --rebuild`: at `MEMFS_TEST_AT` ("plan": while the
#: new rows are being prepared; "write": inside the SQLite write transaction) it either
#: SIGKILLs itself (`MEMFS_TEST_DO=kill`) or sleeps a little on every step (`slow`).
REBUILD_HOOK = textwrap.dedent("""
    import os, signal, sys, time
    import memfs.index.context as ctx
    import memfs.index.sync as s
    at, do = os.environ["MEMFS_TEST_AT"], os.environ["MEMFS_TEST_DO"]
    calls = [0]
    def act():
        calls[0] += 1
        if do == "kill" and calls[0] == 200:
            os.kill(os.getpid(), signal.SIGKILL)
        if do == "slow":
            time.sleep(0.002)
    real_context = ctx.ContextResolver.context
    def context(self, *a, **k):
        if at == "plan":
            act()
        return real_context(self, *a, **k)
    ctx.ContextResolver.context = context
    real_sync = s.Indexer.sync
    def sync(self, rebuild=False, **k):
        if rebuild and at == "write":
            def handler():
                if self.db.conn.in_transaction:
                    act()
                return 0
            self.db.conn.set_progress_handler(handler, 500)
        return real_sync(self, rebuild=rebuild, **k)
    s.Indexer.sync = sync
    from memfs.cli import main
    sys.argv = ["memfs"] + sys.argv[1:]
    main()
""")


@pytest.mark.slow
@pytest.mark.parametrize("at", ["plan", "write"])
def test_sigkill_half_way_through_sync_rebuild_keeps_the_old_index(big, at: str) -> None:
    ws, e = big
    before = _count_items(ws)
    assert before == FILES * PER_FILE
    proc = subprocess.run([sys.executable, "-c", REBUILD_HOOK, "sync", "--rebuild"], cwd=ws, timeout=120,
                          env={**e, "MEMFS_TEST_AT": at, "MEMFS_TEST_DO": "kill"}, capture_output=True, text=True)
    assert proc.returncode == -9, proc.stderr  # it really died half way
    assert _count_items(ws) == before
    hits = json.loads(run(["recall", "apples variety 1207", "--json"], ws, e).stdout)
    assert hits and any("1207" in h["text"] for h in hits)
    assert "1207" in run(["recall", "apples variety 1207"], ws, e).stdout
    run(["sync", "--rebuild"], ws, e)  # and a rebuild that is not killed still works
    assert _count_items(ws) == before


@pytest.mark.slow
@pytest.mark.parametrize("at", ["plan", "write"])
def test_readers_never_see_an_empty_index_during_sync_rebuild(big, at: str) -> None:
    ws, e = big
    expected = FILES * PER_FILE
    proc = subprocess.Popen([sys.executable, "-c", REBUILD_HOOK, "sync", "--rebuild"], cwd=ws,
                            env={**e, "MEMFS_TEST_AT": at, "MEMFS_TEST_DO": "slow"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    from tests.support.workspace import hashing_memory

    counts: list[int] = []
    hits: list[int] = []
    mem = hashing_memory(ws)
    try:
        while proc.poll() is None:
            counts.append(_count_items(ws))
            hits.append(len(mem.recall("apples variety 1207", k=5)))
            time.sleep(0.02)
    finally:
        mem.close()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert len(counts) >= 5, "the rebuild was too quick to be observed"
    assert min(counts) == expected and max(counts) == expected, sorted(set(counts))
    assert min(hits) == 5
    assert _count_items(ws) == expected
    figure(f"rebuild readers ({at})", f"{len(counts)} reads during the rebuild, item counts seen "
           f"{min(counts)}..{max(counts)} of {expected}, recall hits min {min(hits)}/5")


def _damage_truncate(db: Path) -> None:
    with open(db, "r+b") as fh:
        fh.truncate(db.stat().st_size // 2)


def _damage_garbage(db: Path) -> None:
    with open(db, "r+b") as fh:
        fh.write(b"SQLite format 3\0" + os.urandom(8000))


def _damage_not_sqlite(db: Path) -> None:
    db.write_bytes(b"this is not a database at all\n" * 100)


def _other_version(db: Path) -> None:
    conn = sqlite3.connect(db)
    conn.execute("UPDATE meta SET value='1' WHERE key='schema'")
    conn.commit()
    conn.close()


def _foreign(db: Path) -> None:
    db.unlink()
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE items (x INTEGER)")
    conn.execute("INSERT INTO items VALUES (1)")
    conn.commit()
    conn.close()


DAMAGE = {"truncated": _damage_truncate, "garbage pages": _damage_garbage, "not sqlite": _damage_not_sqlite,
          "other version": _other_version, "foreign tables": _foreign}


def _checkpoint(db: Path) -> None:
    """Fold the WAL into the main file, so damage to the file is damage to the index."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)


CASES = ([(d, "sync --rebuild") for d in sorted(DAMAGE)] + [(d, "recall") for d in sorted(DAMAGE)]
         + [("truncated", first) for first in ("status", "add", "sync")] + [("foreign tables", "status")])


@pytest.mark.parametrize("damage, first", [  # the `sync --rebuild` cases are the slow ones
    pytest.param(d, f, marks=pytest.mark.slow) if f == "sync --rebuild" else (d, f) for d, f in CASES])
def test_a_damaged_or_foreign_index_heals_with_one_line(tmp_path: Path, damage: str, first: str) -> None:
    e = env()
    ws = init(tmp_path / "w", e)
    run(["add", "Olga keeps three cats named after planets.", "-c", "pets"], ws, e)
    db = ws / ".memfs" / "index.sqlite3"
    _checkpoint(db)
    DAMAGE[damage](db)
    args = {"sync --rebuild": ["sync", "--rebuild"], "recall": ["recall", "cats planets", "--json"],
            "status": ["status", "--json"], "add": ["add", "Olga also keeps a tortoise.", "-c", "pets"],
            "sync": ["sync"]}[first]
    out = run(args, ws, e)  # exit 0, not "internal error: DatabaseError"
    notes = [line for line in out.stderr.splitlines() if ".memfs/index.sqlite3" in line]
    assert len(notes) == 1, out.stderr
    assert "internal error" not in out.stderr
    if damage == "other version":
        assert "another memfs version" in notes[0]
    else:
        assert "moved it to .memfs/damaged/" in notes[0]
        assert len(list((ws / ".memfs" / "damaged").iterdir())) == 1
    if first == "recall":
        assert json.loads(out.stdout)[0]["text"] == "Olga keeps three cats named after planets."
    hits = json.loads(run(["recall", "cats planets", "--json"], ws, e).stdout)
    assert hits and hits[0]["text"] == "Olga keeps three cats named after planets."
    again = run(["status", "--json"], ws, e)
    assert again.stderr == "" and json.loads(again.stdout)["items"] == (2 if first == "add" else 1)


@pytest.mark.slow
def test_deep_damage_found_by_sync_rebuild_heals(big) -> None:
    ws, e = big
    db = ws / ".memfs" / "index.sqlite3"
    _checkpoint(db)
    size = db.stat().st_size
    with open(db, "r+b") as fh:  # garbage over pages in the middle: the header still reads
        fh.seek(size // 2)
        fh.write(os.urandom(16384))
    out = run(["sync", "--rebuild"], ws, e)
    assert "was damaged" in out.stderr and out.stderr.count("\n") == 1
    assert _count_items(ws) == FILES * PER_FILE
    assert run(["sync", "--rebuild"], ws, e).stderr == ""


# -- read-only use ---------------------------------------------------------------------

def _as_reader() -> list[str]:
    """Root ignores file modes: drop to `nobody` so a write-protected tree is read-only."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: cannot make a tree read-only")
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]


def _snapshot(root: Path) -> dict[str, tuple[int, int, int]]:
    out = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        out[str(path.relative_to(root))] = (st.st_size, st.st_mtime_ns, stat.S_IMODE(st.st_mode))
    return out


def _chmod_tree(root: Path, writable: bool) -> None:
    for path in [root, *root.rglob("*")]:
        mode = path.lstat().st_mode
        os.chmod(path, (mode | 0o200) if writable else (mode & ~0o222))


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A folder other users can enter (pytest's tmp_path is 0700 to its owner)."""
    base = Path(tempfile.mkdtemp(prefix="memfs-ro-", dir="/tmp"))
    os.chmod(base, 0o755)
    yield base
    _chmod_tree(base, writable=True)
    shutil.rmtree(base, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.parametrize("scope", ["workspace", ".memfs only"])
def test_recall_works_on_a_read_only_workspace_and_writes_nothing(shared_tmp: Path, scope: str) -> None:
    e = {**env(), "HOME": str(shared_tmp), "MEMFS_NO_WARM": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    ws = init(shared_tmp / "w", e)
    run(["add", "Olga keeps three cats named after planets.", "-c", "pets"], ws, e)
    run(["add", "Olga's tortoise is called Pluto.", "-c", "pets"], ws, e)
    _chmod_tree(ws if scope == "workspace" else ws / ".memfs", writable=False)
    before = _snapshot(ws)
    reader = _as_reader()
    out = subprocess.run(reader + MEMFS + ["recall", "cats planets", "--json"], cwd=ws, env=e,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)[0]["text"] == "Olga keeps three cats named after planets."
    assert out.stderr == ""
    st = subprocess.run(reader + MEMFS + ["status", "--json"], cwd=ws, env=e, capture_output=True, text=True,
                        timeout=120)
    assert st.returncode == 0 and json.loads(st.stdout)["items"] == 2, st.stderr
    # A writer cannot write there: one line, exit 1, nothing changed.
    add = subprocess.run(reader + MEMFS + ["add", "Olga got a parrot."], cwd=ws, env=e, capture_output=True,
                         text=True, timeout=120)
    assert add.returncode == 1 and add.stderr.count("\n") == 1 and "not writable" in add.stderr, add.stderr
    assert _snapshot(ws) == before


def test_a_reader_never_runs_schema_changes(tmp_path: Path) -> None:
    """The API's reader opens the index `mode=ro`: an in-process recall never takes the
    SQLite write lock, so it answers while another connection holds it."""
    from tests.support.workspace import hashing_memory

    e = env()
    ws = init(tmp_path / "w", e)
    run(["add", "Olga keeps three cats named after planets."], ws, e)
    mem = hashing_memory(ws)
    statements: list[str] = []
    try:
        assert mem.recall("cats planets")
        mem.runtime.searcher.db.conn.set_trace_callback(statements.append)  # type: ignore[union-attr]
        assert mem.recall("cats planets")
        mem.runtime.searcher.db.conn.set_trace_callback(None)  # type: ignore[union-attr]
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            mem.runtime.searcher.db.conn.execute("CREATE TABLE x (y)")  # type: ignore[union-attr]
    finally:
        mem.close()
    ddl = [s for s in statements if s.split()[0].upper() in ("CREATE", "DROP", "ALTER", "INSERT", "UPDATE",
                                                              "DELETE", "PRAGMA") and "data_version" not in s]
    assert ddl == []
