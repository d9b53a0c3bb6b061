"""Many writers and many readers against one workspace (invariant 6, docs/architecture.md).

- CLI writers (`add`, `forget`, `ingest`) in other processes while the daemon ingests:
  serialised by the writer lock, none lost, none applied twice.
- Readers never take the lock: a recall from another process answers while a writer holds
  the lock *and* an open SQLite write transaction, and 8 reader processes hammering
  recall while the daemon ingests 200 files see no error at all.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from memfs.fsutil import WriterLock
from tests.support.cli import MEMFS, env, init, run
from tests.support.daemon import Daemon, wait
from tests.support.factories import conversation
from tests.support.figures import figure
from tests.support.workspace import indexed_items, item_set, waiting


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


@pytest.mark.slow
def test_recall_answers_while_a_writer_holds_the_lock_and_a_transaction(tmp_path: Path) -> None:
    e = env()
    ws = init(tmp_path / "w", e)
    run(["add", "Olga keeps three cats named after planets."], ws, e)
    lock = WriterLock(ws / ".memfs" / "write.lock", timeout=5, purpose="test writer")
    lock.acquire()
    conn = sqlite3.connect(str(ws / ".memfs" / "index.sqlite3"), isolation_level=None, timeout=30)
    try:
        conn.execute("BEGIN IMMEDIATE")  # the writer is mid-update: the write lock of SQLite is held too
        conn.execute("UPDATE items SET text = 'half-written' WHERE 1")
        t0 = time.monotonic()
        out = run(["recall", "cats planets", "--json"], ws, e, timeout=60)
        took = time.monotonic() - t0
        hits = json.loads(out.stdout)
        assert hits and hits[0]["text"] == "Olga keeps three cats named after planets."  # the committed state
        assert took < 10, took  # answered, not queued behind the writer (its lock wait is 30-60 s)
        st = run(["status", "--json"], ws, e, timeout=60)
        assert json.loads(st.stdout)["items"] == 1
    finally:
        conn.execute("ROLLBACK")
        conn.close()
        lock.release()
    # Meanwhile a CLI *writer* queues behind the lock instead of writing around it.
    lock.acquire()
    proc = subprocess.Popen(MEMFS + ["add", "Olga also keeps a tortoise."], cwd=ws, env=e,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    assert proc.poll() is None  # still waiting for the lock
    lock.release()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert any("tortoise" in t for _, _, t in indexed_items(ws))


def _cli_writer(ws: Path, e: dict[str, str], n: int, src: Path, out: dict) -> None:
    """One person at a shell: add three facts, forget one of them, ingest a file."""
    done: dict[str, object] = {"added": [], "forgot": None, "ingest": None, "errors": []}
    facts = [f"Writer {n} planted tree number {k} in the orchard of village {n * 10 + k}." for k in range(3)]
    try:
        for fact in facts:
            r = run(["add", fact, "--json"], ws, e, timeout=120, check=False)
            if r.returncode:
                done["errors"].append(r.stderr)  # type: ignore[union-attr]
                continue
            done["added"].append(json.loads(r.stdout))  # type: ignore[union-attr]
        victim = done["added"][0]["id"]  # type: ignore[index]
        r = run(["forget", victim, "--yes"], ws, e, timeout=120, check=False)
        done["forgot"] = victim if r.returncode == 0 else None
        if r.returncode:
            done["errors"].append(r.stderr)  # type: ignore[union-attr]
        r = run(["ingest", str(src), "--json"], ws, e, timeout=120, check=False)
        if r.returncode:
            done["errors"].append(r.stderr)  # type: ignore[union-attr]
        else:
            done["ingest"] = json.loads(r.stdout)[0]
    except Exception as err:  # noqa: BLE001
        done["errors"].append(repr(err))  # type: ignore[union-attr]
    out[n] = done


@pytest.mark.slow
def test_cli_writers_while_the_daemon_ingests_are_serialised_and_none_is_lost(tmp_path: Path) -> None:
    e = env(MEMFS_INGEST_SETTLE_SECONDS="0")
    ws = init(tmp_path / "w", e)
    writers = 3
    srcs = []
    for n in range(writers):
        p = tmp_path / f"writer-{n}.json"
        p.write_text(json.dumps(conversation(500 + n, turns=8)))
        srcs.append(p)
    with Daemon(ws, e, tmp_path / "daemon.log") as d:
        d.wait_ready()
        inbox_inputs = {f"c{n:03d}.json": json.dumps(conversation(n, turns=8)) for n in range(24)}
        for name, data in inbox_inputs.items():
            (ws / "inbox" / name).write_text(data)
        results: dict[int, dict] = {}
        threads = [threading.Thread(target=_cli_writer, args=(ws, e, n, srcs[n], results)) for n in range(writers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        wait(lambda: not waiting(ws), 120, "inbox drained")
        assert d.stop() == 0
        log = d.log()
    assert all(not r["errors"] for r in results.values()), {n: r["errors"] for n, r in results.items()}
    store = item_set(ws)
    texts = [t for _, t, _, _ in store]
    ids = {i for i, _, _, _ in store}
    for n, r in results.items():
        assert len(r["added"]) == 3
        for a in r["added"]:
            if a["id"] == r["forgot"]:
                assert a["id"] not in ids and a["text"] not in texts  # forgotten, and only that
            else:
                assert a["id"] in ids and texts.count(a["text"]) == 1  # present exactly once
        ing = r["ingest"]
        assert ing["status"] == "processed" and ing["added"]
        assert set(ing["added"]) <= ids and set(ing["reinforced"]) <= ids | {r["forgot"]}
    archived = sorted(p.name for p in (ws / "resources").rglob("*.json"))
    digests = {name.rsplit("-", 1)[1] for name in archived}
    assert len(archived) == len(digests) == len(inbox_inputs) + writers  # every input archived exactly once
    assert "failed" not in log and "locked" not in log
    assert not list(ws.rglob("*.tmp"))
    report = json.loads(run(["sync", "--json"], ws, e).stdout)
    assert report["items_added"] == report["items_removed"] == report["items_updated"] == 0
    figure("writers_cli_processes", writers * 5)
    figure("writers_daemon_inputs", len(inbox_inputs))


_API_READER = textwrap.dedent("""
    import json, os, sys, time
    ws, out, stop = sys.argv[1], sys.argv[2], sys.argv[3]
    queries = ["dog shelter", "nurse hospital town", "favourite book Dune", "swimming Saturday",
               "who adopted Rex", "where does Ben work", "sister Porto chemistry", "peanut allergy"]
    from memfs.api import Memory
    mem = Memory(ws)
    lat, errors, n, hits_seen = [], [], 0, 0
    while not os.path.exists(stop):
        t0 = time.perf_counter()
        try:
            hits = mem.recall(queries[n % len(queries)], k=5)
            for h in hits:
                if not h.text or not h.path.endswith(".md") or h.line is None:
                    raise AssertionError(f"malformed hit {h!r}")
            hits_seen += len(hits)
        except Exception as err:
            errors.append(f"{type(err).__name__}: {err}")
        lat.append(time.perf_counter() - t0)
        n += 1
        time.sleep(0.02)
    json.dump({"lat": lat, "errors": errors, "hits": hits_seen}, open(out, "w"))
""")

_CLI_READER = textwrap.dedent("""
    import json, os, subprocess, sys, time
    ws, out, stop = sys.argv[1], sys.argv[2], sys.argv[3]
    queries = ["dog shelter", "nurse hospital", "book Dune", "swimming"]
    lat, errors, n = [], [], 0
    while not os.path.exists(stop):
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "memfs.cli", "recall", queries[n % 4], "--json"], cwd=ws,
                           capture_output=True, text=True, timeout=120)
        try:
            if r.returncode:
                raise RuntimeError(r.stderr.strip())
            json.loads(r.stdout)
        except Exception as err:
            errors.append(f"{type(err).__name__}: {err}")
        lat.append(time.perf_counter() - t0)
        n += 1
    json.dump({"lat": lat, "errors": errors}, open(out, "w"))
""")


@pytest.mark.slow
def test_eight_readers_while_the_daemon_ingests_200_files(tmp_path: Path) -> None:
    e = env(MEMFS_INGEST_SETTLE_SECONDS="0")
    ws = init(tmp_path / "w", e)
    stop = tmp_path / "stop"
    run(["add", "Ana adopted a dog from the shelter."], ws, e)  # readers have something from the start
    with Daemon(ws, e, tmp_path / "daemon.log") as d:
        d.wait_ready()
        readers = []
        kinds = ["api"] * 6 + ["cli-warm", "cli-cold"]
        for n, kind in enumerate(kinds):
            script = _API_READER if kind == "api" else _CLI_READER
            renv = dict(e, MEMFS_NO_WARM="1") if kind == "cli-cold" else e
            out = tmp_path / f"reader-{n}.json"
            readers.append((kind, out, subprocess.Popen([sys.executable, "-c", script, str(ws), str(out), str(stop)],
                                                        cwd=ws, env=renv)))
        time.sleep(1.0)  # readers are up and querying before the writes start
        t0 = time.monotonic()
        for n in range(200):  # dropped like a sync tool does: temp name, then rename
            tmp = ws / "inbox" / f".c{n:03d}.json.part"
            tmp.write_text(json.dumps(conversation(n, turns=3)))
            os.rename(tmp, ws / "inbox" / f"c{n:03d}.json")
        wait(lambda: not waiting(ws), 180, "200 files ingested")
        ingest_seconds = time.monotonic() - t0
        stop.touch()
        for _, _, proc in readers:
            assert proc.wait(timeout=120) == 0
        assert d.stop() == 0
        log = d.log()
    results = [(kind, json.loads(out.read_text())) for kind, out, _ in readers]
    errors = [err for _, r in results for err in r["errors"]]
    api = [x for kind, r in results if kind == "api" for x in r["lat"]]
    cli = [x for kind, r in results if kind != "api" for x in r["lat"]]
    assert len(list((ws / "resources").rglob("*.json"))) == 200
    assert "failed" not in log
    figure("readers_processes", len(readers))
    figure("readers_recalls_api", len(api))
    figure("readers_recalls_cli", len(cli))
    figure("readers_errors", len(errors))
    figure("readers_api_latency_ms_p50_p99_max",
           (round(_pct(api, .5) * 1000, 1), round(_pct(api, .99) * 1000, 1), round(max(api) * 1000, 1)))
    figure("readers_cli_latency_ms_p50_p99_max",
           (round(_pct(cli, .5) * 1000, 1), round(_pct(cli, .99) * 1000, 1), round(max(cli) * 1000, 1)))
    figure("readers_ingest_seconds_200_files", round(ingest_seconds, 1))
    assert errors == [], errors[:5]
    assert len(api) > 200 and len(cli) > 4
    assert max(api) < 10.0  # never stuck behind the writer (a lock wait would be 30-60 s)
