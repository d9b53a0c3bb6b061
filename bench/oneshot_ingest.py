"""A one-shot `memfs ingest FILE` (a fresh process; with --daemon, one handing it to a daemon) as the store grows
(issue #18 item 4).

    python bench/oneshot_ingest.py --store-cache DIR --tree base=/path/to/old --tree this=. [--runs 5] [--daemon | --auto]

The README's own command: each run is a whole `memfs -C STORE ingest chat.json` process (the
installed script's entry, `memfs.console.entry`, run by this interpreter), timed from outside (interpreter start, imports, the pipeline, the entry files a
fresh process regenerates from nothing but what the index keeps). The stores are
bench/ingest_scale.py's (`--store-cache`, built there if missing: 1k/10k/100k items in
100-item files, hashing embedder). Each tree gets its own copy of each store (what one
tree's writes persist would otherwise be read by the other) and one untimed ingest first:
the first process after a store built by other code persists what later ones read, as
any earlier memfs process of that version would have. The trees then take turns, so the
load falls on both alike. A chat is bench/ingest_scale.py's: 10 new fact-like turns.

With --daemon, a `memfs daemon` (same interpreter, entry and env) runs on each tree's copy
of each store, started and caught up (its "caught up" line and socket) before the untimed
ingest and stopped with SIGTERM after the timed ones: each run is still a whole CLI process,
which hands the file to the daemon (memfs.addwire.try_daemon_ingest). Every such run must
not have loaded memfs.api (the CLI ingesting locally would), else the bench fails.

Without --daemon or --auto every run is a fresh process doing the whole ingest itself
(`[daemon] auto_start_items` = 0). With --auto the config is the default one: the untimed
first ingest of a store of `auto_start_items` items or more starts a daemon in the background
(memfs.services.autodaemon), the bench waits until it has caught up (the time is reported),
times the runs as a user's next commands would go (each says whether it was handed over)
and stops that daemon with SIGTERM at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import ingest_scale  # noqa: E402


#: What the installed `memfs` script runs (pyproject's [project.scripts]).
ENTRY = "from memfs.console import entry; entry()"
#: The same, saying at exit whether this process loaded memfs.api (a handed-off ingest never does).
TRACED = ("import sys\ntry:\n    from memfs.console import entry; entry()\nfinally:\n"
          "    sys.stderr.write('\\napi loaded: %s\\n' % ('memfs.api' in sys.modules))")
READY_TIMEOUT = 600.0  # a daemon's catch-up at 100,000 items


def tree_env(tree: Path, auto: bool = False) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(tree), MEMFS_EMBEDDER_PROVIDER="hashing")
    if not auto:  # (a tree without the setting ignores it: MEMFS_DAEMON is no section there)
        env["MEMFS_DAEMON_AUTO_START_ITEMS"] = "0"
    return env


#: Whether each timed run was handed to a daemon (--auto), per tree and size.
HANDED: dict[str, dict[str, list[bool]]] = {}


def ingest_once(tree: Path, root: Path, chat: Path, daemon: bool = False, auto: bool = False) -> float:
    env = tree_env(tree, auto)
    t = time.perf_counter()
    # cwd: `-c` puts the current folder first on sys.path, before PYTHONPATH's tree
    done = subprocess.run([sys.executable, "-c", TRACED if daemon or auto else ENTRY, "-C", str(root), "ingest",
                           str(chat)], env=env, capture_output=True, text=True, cwd=root.parent)
    took = time.perf_counter() - t
    if done.returncode != 0 or "+10 added" not in done.stdout:
        raise SystemExit(f"{tree}: ingest failed: {done.stdout}{done.stderr}")
    if daemon and "\napi loaded: False\n" not in done.stderr:
        raise SystemExit(f"{tree}: the CLI did not hand {chat.name} to the daemon: {done.stderr}")
    if auto:
        HANDED.setdefault(str(tree), {}).setdefault(root.name, []).append("\napi loaded: False\n" in done.stderr)
    where = subprocess.run([sys.executable, "-c", "import memfs; print(memfs.__file__)"], env=env, cwd=root.parent,
                           capture_output=True, text=True).stdout.strip()
    if not where.startswith(str(tree)):
        raise SystemExit(f"the child imported memfs from {where}, not {tree}")
    return took


def start_daemon(tree: Path, root: Path, log: Path) -> tuple[subprocess.Popen[bytes], float]:
    """`memfs daemon` on ROOT, once it has caught up and listens; and how long that took."""
    t = time.perf_counter()
    with open(log, "wb") as fh:
        proc = subprocess.Popen([sys.executable, "-c", ENTRY, "daemon"], env=tree_env(tree), cwd=root,
                                stdout=subprocess.DEVNULL, stderr=fh)
    sock = root / ".memfs" / "daemon.sock"
    while "memfs daemon: caught up" not in log.read_text(errors="replace") or not sock.exists():
        if proc.poll() is not None or time.perf_counter() - t > READY_TIMEOUT:
            proc.kill()
            raise SystemExit(f"{tree}: the daemon on {root} exited ({proc.wait()}) or did not catch up "
                             f"within {READY_TIMEOUT:.0f} s:\n{log.read_text(errors='replace')}")
        time.sleep(0.05)
    return proc, time.perf_counter() - t


def auto_daemon_pid(root: Path) -> int | None:
    """The pid in the daemon lock of ROOT, if a daemon holds it (this checkout's reading of the lock)."""
    from memfs.services.autodaemon import lock_holder

    holder = lock_holder(root / ".memfs")
    return holder[0] if holder is not None and holder[0] > 0 else None


def wait_auto_daemon(tree: Path, root: Path) -> float | None:
    """Seconds until the daemon the first ingest started (if any) has caught up and listens."""
    t = time.perf_counter()
    log, sock = root / ".memfs" / "daemon.log", root / ".memfs" / "daemon.sock"
    time.sleep(0.5)  # its lock is taken within this
    if auto_daemon_pid(root) is None:
        return None
    while not (log.exists() and "memfs daemon: caught up" in log.read_text(errors="replace") and sock.exists()):
        if auto_daemon_pid(root) is None or time.perf_counter() - t > READY_TIMEOUT:
            raise SystemExit(f"{tree}: the started daemon on {root} exited or did not catch up:\n"
                             f"{log.read_text(errors='replace') if log.exists() else ''}")
        time.sleep(0.05)
    return time.perf_counter() - t + 0.5


def stop_auto_daemon(root: Path) -> None:
    pid = auto_daemon_pid(root)
    if pid is None:
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.perf_counter() + 120
    while auto_daemon_pid(root) is not None and time.perf_counter() < deadline:
        time.sleep(0.1)


def stop_daemon(tree: Path, proc: subprocess.Popen[bytes], log: Path) -> str:
    """SIGTERM, which must end it with 0; its log."""
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = proc.wait()
    if code != 0:
        raise SystemExit(f"{tree}: the daemon exited {code}:\n{log.read_text(errors='replace')}")
    return log.read_text(errors="replace")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--store-cache", type=Path, required=True)
    ap.add_argument("--tree", action="append", required=True, help="NAME=PATH of a code tree (repeat)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--daemon", action="store_true", help="a memfs daemon runs on each store (the CLI hands it over)")
    ap.add_argument("--auto", action="store_true", help="the default config: the first ingest of a big store "
                    "starts a daemon the next ones are handed to")
    args = ap.parse_args()
    trees = {name: Path(path).resolve() for name, path in (t.split("=", 1) for t in args.tree)}
    rng = random.Random(11)
    out: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for size in (int(s) for s in args.sizes.split(",")):
            cached = args.store_cache / f"w{size}-100"
            if not cached.is_dir():  # build (and cache) it the way ingest_scale does
                ingest_scale.run(size, 1, 100, tmp, args.store_cache)
            roots = {}
            n = 0
            for name in trees:
                roots[name] = tmp / f"{name}-{size}"
                shutil.copytree(cached, roots[name], symlinks=True)
            chats = []
            for _ in range(args.runs + 1):
                n += 1
                chats.append(tmp / f"chat-{size}-{n}.json")
                chats[-1].write_text(json.dumps(ingest_scale.chat(rng, 100 + n, 10)))
            daemons: dict[str, tuple[subprocess.Popen[bytes], float, Path]] = {}
            try:
                for name, tree in trees.items() if args.daemon else ():
                    log = tmp / f"daemon-{name}-{size}.log"
                    daemons[name] = (*start_daemon(tree, roots[name], log), log)
                first = {name: ingest_once(tree, roots[name], chats[0], args.daemon, args.auto)
                         for name, tree in trees.items()}
                started = {name: wait_auto_daemon(tree, roots[name]) for name, tree in trees.items()} \
                    if args.auto else {}
                HANDED.clear()  # the timed runs only
                times: dict[str, list[float]] = {name: [] for name in trees}
                for chat in chats[1:]:
                    for name, tree in trees.items():
                        times[name].append(ingest_once(tree, roots[name], chat, args.daemon, args.auto))
                for name, (proc, _, log) in daemons.items():
                    print(f"{size:>7} items  {name}: daemon log:\n{stop_daemon(trees[name], proc, log)}", end="")
            finally:
                for root in roots.values() if args.auto else ():
                    stop_auto_daemon(root)
                for proc, _, _ in daemons.values():
                    if proc.poll() is None:
                        proc.kill()
                        proc.wait()
            for name in trees:
                shutil.rmtree(roots[name], ignore_errors=True)
                out.setdefault(name, {})[str(size)] = times[name]
                ready = f", daemon ready in {daemons[name][1]:.2f} s" if name in daemons else ""
                if args.auto:
                    handed = HANDED.get(str(trees[name]), {}).get(roots[name].name, [])
                    ready = (f", a daemon started, ready {started[name]:.2f} s after it" if started.get(name)
                             else ", no daemon started") + f"; handed over: {sum(handed)} of {len(handed)}"
                print(f"{size:>7} items  {name}: median {statistics.median(times[name]):.2f} s "
                      f"{[round(t, 2) for t in times[name]]} (first, untimed: {first[name]:.2f} s{ready})", flush=True)
    for name, by_size in out.items():
        sizes = sorted(by_size, key=int)
        lo, hi = statistics.median(by_size[sizes[0]]), statistics.median(by_size[sizes[-1]])
        print(f"{name}: {sizes[-1]} / {sizes[0]} items = {hi / lo:.1f}x")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
