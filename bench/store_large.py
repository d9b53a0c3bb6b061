"""`memfs add` into one category file holding N items (issue #10, item 11).

Measures, in-process with the hashing embedder, the wall time of `Memory.add` into a file
of N flat items (what memfs writes), after an initial sync. Run it against two code trees
in the same session for a same-run baseline, e.g.:

    PYTHONPATH=/path/to/old python bench/store_large.py 50000
    PYTHONPATH=.             python bench/store_large.py 50000

It prints the initial sync time, 3 one-shot `memfs add` runs (a fresh CLI process each, beside
`python -c pass`), the first add (this process's first regeneration of the
root files reads the whole store; later ones only what changed), then each of 5 adds; the
figure is their median. A second argument names a folder where the synced store is kept
and reused (both code trees then measure the same store without a 5-minute sync each). It also
times the write path alone (issue #17, item 3): `CategoryStore.edit` of the file plus the
index update of that file (`Indexer.sync(only=[file])`), 5 adds and 5 reinforcements,
without `Memory.add`'s regeneration of the root files (index.md, memory.md), which
reads the whole store whatever the write. Last, the one-shot add again with a `memfs daemon`
running on the store (the daemon does the write: memfs.addwire), through the full CLI
(`-m memfs.cli`) and the installed script's thin path (`-m memfs.console`), interleaved.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from memfs.api import Memory
from memfs.config import load_config
from memfs.workspace import init_workspace


def main(n: int, cache: Path | None = None) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="memfs-bench-large-"))
    try:
        built = cache / f"big-{n}" if cache else None
        if built is not None and built.is_dir():  # the same synced store for both code trees
            root = tmp / "w"
            shutil.copytree(built, root, symlinks=True)
            mem = Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"}))
        else:
            root = init_workspace(tmp / "w", git=False).root
            lines = "".join(f"- Fact number {i} about topic {i % 97} and thing {i * 7 % 1013}. "
                            f"<!-- id=f{i:07d} type=knowledge -->\n" for i in range(n))
            (root / "index" / "big.md").write_text("---\ntitle: Big\nkind: index\n---\n# Big\n\n" + lines)
            mem = Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"}))
            t0 = time.perf_counter()
            mem.sync()
            print(f"items={n} initial_sync={time.perf_counter() - t0:.2f}s", flush=True)
            if built is not None:
                # Closed first: copying opens and closes index.sqlite3 in this process, which
                # drops the POSIX locks its open connection holds (SQLite's "how to corrupt",
                # 2.2); the one-shot adds below then checkpoint and delete the WAL under it and
                # this process's next read fails "database disk image is malformed".
                mem.close()
                shutil.copytree(root, built, symlinks=True)
                mem = Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"}))
        cli_runs = _one_shot_adds(root)  # before this process writes: the store as built
        t0 = time.perf_counter()
        mem.add("A first fact: this process's first regeneration reads the whole store.", category="index/big")
        print(f"first add in this process (full regeneration) {time.perf_counter() - t0:.2f}s", flush=True)
        times = []
        for k in range(5):
            t0 = time.perf_counter()
            mem.add(f"New fact {k} about the big file.", category="index/big")
            times.append(time.perf_counter() - t0)
        write, bump = [], []
        from memfs.core.model import Item
        from memfs.store import CategoryStore

        rel = "index/big.md"
        for k in range(5):
            with mem.lock("bench"):
                item = Item(id=f"bench{k:04d}", text=f"Write path fact {k}.", type="knowledge")
                t0 = time.perf_counter()
                CategoryStore(mem.ws, mem.config).edit(rel, lambda doc, item=item: doc.add(item))
                mem.indexer.sync(only=[rel])
                write.append(time.perf_counter() - t0)
            with mem.lock("bench"):
                target = f"f{k * 997:07d}"

                def again(doc, target=target):  # type: ignore[no-untyped-def]
                    slot = doc.find(target)
                    slot.item = slot.item.model_copy(update={"seen": slot.item.seen + 1})

                t0 = time.perf_counter()
                CategoryStore(mem.ws, mem.config).edit(rel, again)
                mem.indexer.sync(only=[rel])
                bump.append(time.perf_counter() - t0)
        mem.close()
        print("write path (store + index), add: " + " ".join(f"{t:.3f}s" for t in write)
              + f"  median={statistics.median(write):.3f}s")
        print("write path (store + index), reinforce: " + " ".join(f"{t:.3f}s" for t in bump)
              + f"  median={statistics.median(bump):.3f}s")
        print("Memory.add: " + " ".join(f"{t:.3f}s" for t in times) + f"  median={statistics.median(times):.3f}s")
        print(cli_runs)
        print(_daemon_adds(root))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _one_shot_adds(root: Path, runs: int = 3) -> str:
    """Wall time of a one-shot `memfs add` (a fresh process per write, as a person runs it),
    against `python -c pass` in the same run (interpreter start)."""
    import os
    import subprocess

    env = {**os.environ, "MEMFS_EMBEDDER_PROVIDER": "hashing"}
    base, cli = [], []
    for k in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        base.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "memfs.cli", "add", f"One-shot CLI fact {k}.", "--category",
                        "index/big"], cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)
        cli.append(time.perf_counter() - t0)
    return (f"one-shot CLI add: " + " ".join(f"{t:.2f}s" for t in cli) + f"  median={statistics.median(cli):.2f}s"
            f"  (python -c pass median={statistics.median(base):.3f}s)")


def _daemon_adds(root: Path, runs: int = 6) -> str:
    """The same one-shot `memfs add`, with a `memfs daemon` running on the store (hashing):
    the daemon does the write over its socket (memfs.addwire). Its first add builds the
    daemon's entry files of the file (reported apart); the figure is the median of the rest."""
    import os
    import subprocess

    env = {**os.environ, "MEMFS_EMBEDDER_PROVIDER": "hashing"}
    log = root.parent / "daemon.log"
    with open(log, "w", encoding="utf-8") as fh:
        proc = subprocess.Popen([sys.executable, "-m", "memfs.cli", "daemon"], cwd=root, env=env,
                                stdout=subprocess.DEVNULL, stderr=fh)
    try:
        deadline = time.monotonic() + 900
        while "caught up" not in log.read_text(encoding="utf-8"):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"daemon did not start: {log.read_text(encoding='utf-8')}")
            time.sleep(0.2)
        base: list[float] = []
        took: dict[str, list[float]] = {"memfs.cli": [], "memfs.console": []}
        for k in range(runs):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            base.append(time.perf_counter() - t0)
            for module, times in took.items():  # interleaved: the full CLI, the installed script's thin path
                t0 = time.perf_counter()
                out = subprocess.run([sys.executable, "-m", module, "add", f"Daemon-served fact {k} via {module}.",
                                      "--category", "index/big"], cwd=root, env=env, check=True,
                                     capture_output=True, text=True)
                times.append(time.perf_counter() - t0)
                assert out.stdout.startswith("added "), out
    finally:
        proc.terminate()
        proc.wait(timeout=120)
    return "\n".join(
        f"one-shot CLI add, daemon running ({module}): first {t[0]:.2f}s, then " + " ".join(f"{x:.3f}s" for x in t[1:])
        + f"  median={statistics.median(t[1:]):.3f}s  (python -c pass median={statistics.median(base):.3f}s)"
        for module, t in took.items())


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50_000, Path(sys.argv[2]) if len(sys.argv) > 2 else None)
