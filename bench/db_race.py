"""Stress the index's open, in-place migration and repack against other live processes.

The "database disk image is malformed" once seen after one-shot `memfs add` processes had
converted (schema 5 -> 6, memfs.index.ptext) and repacked (memfs.index.compact: VACUUM
into 8 KiB pages) a copied old-layout store (bench/README.md). This script builds an old
layout store once with an older checkout (schema 5, 4 KiB pages), then, per iteration,
copies it fresh and runs real processes on the copy at the same time:

- `holder`: a process with `Memory` open (its writer connection and a read-only searcher)
  recalling in a loop, and now and then adding (taking the writer lock), as the bench did;
- `reader`: a bare read-only connection reading `meta` and the item count in a loop;
- the writers: one-shot `memfs add` CLI processes (the first converts and repacks),
  started a few milliseconds apart so that their opens overlap the others';
- optionally (`--daemon`) a `memfs daemon` started on the copy at the same moment.

After each iteration every process's stderr is scanned for "malformed" / "internal error"
and `PRAGMA integrity_check` runs on the result. Usage:

    PYTHONPATH=. python bench/db_race.py --old /tmp/old-memfs --iterations 20 [--daemon]

`--old` is a folder holding an older `memfs/` package (e.g. `git archive 73cd8f5^ memfs |
tar -x -C /tmp/old-memfs`); `--rows` must reach compact.COMPACT_MIN_ROWS for the repack to run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
BAD = ("malformed", "internal error", "not a database", "Traceback", "disk I/O")

_BUILD = r"""
import sys
from pathlib import Path
from memfs.api import Memory
from memfs.config import load_config
from memfs.workspace import init_workspace
root = init_workspace(Path(sys.argv[1]), git=False).root
n = int(sys.argv[2])
items = "".join(f"- Fact {i} about topic {i % 37} and thing {i * 7 % 101}. <!-- id=f{i:06d} type=knowledge -->\n"
                for i in range(n))
prose = "".join(f"## Section {k}\n\nA paragraph a person wrote about subject {k}, with words {k * 3} "
                f"and {k * 11 % 97} in it.\n\n" for k in range(n // 10))
(root / "index" / "big.md").write_text("---\ntitle: Big\nkind: index\n---\n# Big\n\n" + items + "\n" + prose)
mem = Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"}))
mem.sync()
mem.close()
"""

_HOLDER = r"""
import sys, time
from pathlib import Path
from memfs.api import Memory
from memfs.config import load_config
root = Path(sys.argv[1]); until = time.monotonic() + float(sys.argv[2])
mem = Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"}))
mem.recall("topic 3 thing")  # the read-only searcher opened before the writers start
print("ready", flush=True)
k = 0
while time.monotonic() < until:
    mem.recall(f"subject {k % 50} words")
    if k % 15 == 7:
        mem.add(f"Holder fact {k} about the race.", category="index/big")
    k += 1
mem.close()
print(f"holder done {k}", flush=True)
"""

_READER = r"""
import sys, time
from pathlib import Path
from memfs.index.db import IndexDB
path = Path(sys.argv[1]); until = time.monotonic() + float(sys.argv[2])
db = IndexDB(path, readonly=True)
print("ready", flush=True)
k = 0
while time.monotonic() < until:
    with db.snapshot() as c:
        c.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        c.execute("SELECT count(*) FROM items").fetchone()
    k += 1
print(f"reader done {k}", flush=True)
"""


def _env(pythonpath: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMFS_")}
    env["MEMFS_EMBEDDER_PROVIDER"] = "hashing"
    env["PYTHONPATH"] = str(pythonpath)
    return env


def build_old(old: Path, dest: Path, rows: int) -> None:
    """An index built by the older checkout: schema 5, 4 KiB pages, external-content passages_fts."""
    subprocess.run([sys.executable, "-c", _BUILD, str(dest), str(rows)], env=_env(old), cwd=dest.parent, check=True)
    conn = sqlite3.connect(dest / ".memfs" / "index.sqlite3")
    schema, page = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0], \
        conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    print(f"old store: rows={rows} schema={schema} page_size={page}", flush=True)


def integrity(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        return "; ".join(r[0] for r in conn.execute("PRAGMA integrity_check(5)"))[:300]
    except sqlite3.DatabaseError as err:
        return f"{type(err).__name__}: {err}"
    finally:
        conn.close()


def damage(db: Path) -> None:
    """Garbage over the pages after the header: the schema cannot be read."""
    data = bytearray(db.read_bytes())
    data[100:8192] = os.urandom(8092)
    db.write_bytes(bytes(data))


def iteration(src: Path, work: Path, adds: int, seconds: float, daemon: bool, stagger: float,
              holders: tuple[str, ...] = ("reader", "holder"), code: Path = HERE,
              damaged: bool = False) -> list[str]:
    """One race over a fresh copy; the problems seen (empty: clean)."""
    root = work / "w"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(src, root, symlinks=True)
    env = _env(code)
    db = root / ".memfs" / "index.sqlite3"
    if damaged:
        damage(db)
    logs: dict[str, Path] = {}
    procs: dict[str, subprocess.Popen[str]] = {}

    def start(name: str, args: list[str], cwd: Path = root) -> subprocess.Popen[str]:
        logs[name] = work / f"{name}.log"
        with open(logs[name], "w", encoding="utf-8") as fh:
            procs[name] = subprocess.Popen(args, cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT, text=True)
        return procs[name]

    if "reader" in holders:
        start("reader", [sys.executable, "-c", _READER, str(db), str(seconds)])
    if "holder" in holders:
        start("holder", [sys.executable, "-c", _HOLDER, str(root), str(seconds)])
    deadline = time.monotonic() + (0 if damaged else 30)  # damaged: everyone races to heal it
    while not all("ready" in logs[n].read_text() for n in holders) and time.monotonic() < deadline:
        if any(procs[n].poll() is not None for n in holders):
            break
        time.sleep(0.02)
    if daemon:
        start("daemon", [sys.executable, "-m", "memfs.cli", "daemon"])
    for k in range(adds):
        add = start(f"add{k}", [sys.executable, "-m", "memfs.cli", "add", f"One-shot fact {k} in the race.",
                                "--category", "index/big"])
        if stagger < 0:  # one after the other, as bench/store_large.py runs them
            add.wait()
        else:
            time.sleep(stagger)
    for name, proc in procs.items():
        if name == "daemon":
            continue
        try:
            proc.wait(timeout=seconds + 120)
        except subprocess.TimeoutExpired:
            proc.kill()
    if daemon:
        procs["daemon"].terminate()
        try:
            procs["daemon"].wait(timeout=60)
        except subprocess.TimeoutExpired:
            procs["daemon"].kill()
    problems = []
    heals = sum(log.read_text(encoding="utf-8", errors="replace").count("moved it to") for log in logs.values())
    if damaged and heals != 1:
        problems.append(f"healed {heals} times")
    for name, log in logs.items():
        text = log.read_text(encoding="utf-8", errors="replace")
        hit = [line for line in text.splitlines() if any(b in line for b in BAD) and "moved it to" not in line]
        if hit or (procs[name].returncode not in (0, -15) and name != "daemon"):
            problems.append(f"{name} rc={procs[name].returncode}: {(hit or text.splitlines()[-1:] or [''])[-1][:200]}")
    check = integrity(db)
    if check != "ok":
        problems.append(f"integrity_check: {check}")
    conn = sqlite3.connect(db)
    schema, page = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0], \
        conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    problems.append(f"(schema={schema} page_size={page})")
    return problems


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", type=Path, required=True, help="folder holding an older memfs/ package")
    ap.add_argument("--rows", type=int, default=2400)
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--adds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=6.0, help="how long the holder and reader run")
    ap.add_argument("--stagger", type=float, default=0.05,
                    help="seconds between the add processes' starts (negative: each waits for the one before)")
    ap.add_argument("--daemon", action="store_true")
    ap.add_argument("--holders", default="reader,holder", help="which long-lived processes hold the index open")
    ap.add_argument("--keep", type=Path, help="keep the failing iterations' folders here")
    ap.add_argument("--code", type=Path, default=HERE, help="the memfs checkout the racing processes run")
    ap.add_argument("--damage", action="store_true", help="garble the copy first: the processes race to heal it")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memfs-dbrace-"))
    try:
        src = tmp / "old"
        build_old(args.old, src, args.rows)
        bad = 0
        for i in range(args.iterations):
            t0 = time.perf_counter()
            problems = iteration(src, tmp / "run", args.adds, args.seconds, args.daemon, args.stagger,
                                 tuple(h for h in args.holders.split(",") if h), args.code, args.damage)
            real = [p for p in problems if not p.startswith("(")]
            bad += bool(real)
            print(f"iteration {i}: {'FAIL' if real else 'ok'} {time.perf_counter() - t0:.1f}s "
                  + " | ".join(problems), flush=True)
            if real and args.keep:
                shutil.copytree(tmp / "run", args.keep / f"fail-{i}", symlinks=True)
        print(f"failed iterations: {bad} of {args.iterations}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
