#!/usr/bin/env python3
"""Bring your own notes (issue #18): memfs over a person's existing folder of Markdown.

    .venv/bin/python bench/notes.py --notes 1000             # full section at 1k notes
    .venv/bin/python bench/notes.py --notes 10000 --only start,size --embedder hashing
    .venv/bin/python bench/notes.py --notes 1000 --baseline /path/to/older/memfs/checkout

The vault is generated deterministically (seed 18): front-matter, headings, paragraphs and
bullet lists in 50 subfolders (40 under index/, 5 under skill/, 5 under memory/), with
boilerplate lines shared between notes, as people's notes have. Each note states a few
facts in prose; for each fact the generator writes two questions: a *keyword* one (words
taken from the note) and a *paraphrased* one (the note's subject name, otherwise other
words). A question is a hit when a note it was written for is among the top 5 recalled.

Measured, each through the real CLI (`python -m memfs.cli`, a process per command, as a
person runs it) unless said: cold index, items and passages indexed, sync warnings, no-change
resync, one-edit resync, cold CLI search, in-process search, the daemon's start (spawn to
"watching"), and `.memfs/` size against the Markdown. `--baseline DIR` runs the same
commands with another memfs checkout on its own copy of the vault (a same-run baseline).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SEED = 18

AREAS = ["platform", "billing", "search", "mobile", "data", "security", "infra", "growth"]
SUBS = ["design", "runbooks", "meetings", "incidents", "research"]
NAMES = ["kestrel", "osprey", "marten", "heron", "lynx", "otter", "puffin", "wren", "ibis", "vole", "tern",
         "stoat", "plover", "egret", "gannet", "shrike", "civet", "dunlin", "merlin", "serin"]
DBS = ["PostgreSQL", "Redis", "Cassandra", "SQLite", "DynamoDB", "ClickHouse"]
LANGS = ["Rust", "Go", "Kotlin", "TypeScript", "Python", "Elixir"]
PEOPLE = ["Priya", "Marcus", "Ines", "Dana", "Tomas", "Yuki", "Amara", "Jonas", "Leila", "Bruno"]
FILLER = ["The team discussed this at length and agreed to revisit it after the next release.",
          "Several options were compared, and the simplest one that met the requirements was chosen.",
          "This section is kept short on purpose; the details live in the linked documents.",
          "Nobody objected, although a few questions about monitoring were left open for later.",
          "The numbers below come from the staging environment and may differ in production.",
          "A follow-up review is planned once more traffic has gone through the new path."]
SHARED = ["- Reviewed in the weekly architecture sync.", "- Owner: platform team.", "- Status: active.",
          "- See the onboarding guide for access.", "- Last checked during the quarterly audit."]

# (prose template, keyword question, paraphrased question); {p} is the note's subject name.
FACTS = [
    ("The {p} service retries a request after a socket timeout of {n} seconds and then gives up.",
     "{p} socket timeout retries", "how long does {p} wait before a connection attempt is abandoned"),
    ("{p} keeps its session data in {db} and purges it after {n} days.",
     "{p} session data {db} purge", "where are {p} user logins stored and for how long"),
    ("The {p} parser was rewritten in {lang} to cut memory use by half.",
     "{p} parser rewritten {lang}", "which programming language did {p} port its parsing code to"),
    ("{person} is the on-call lead for {p} and approves every schema migration.",
     "{p} on-call lead {person} schema migration", "who signs off database changes for {p}"),
    ("Deploys of {p} are frozen on Fridays after {n} in the afternoon.",
     "{p} deploys frozen Fridays", "when are {p} releases not allowed at the end of the week"),
    ("The {p} dashboard alerts when the error rate stays above {n} percent for five minutes.",
     "{p} dashboard alerts error rate percent", "what failure level makes {p} page someone"),
]


def _note(rng: random.Random, idx: int, folder: str) -> tuple[str, list[dict[str, str]]]:
    p = f"{rng.choice(NAMES)}-{idx}"
    facts = rng.sample(FACTS, 3)
    questions = []
    sections = ["Overview", "Design", "Operations", "Open questions"]
    body = ["---", f"title: {p.title()} {folder.rsplit('/', 1)[-1]}", f"tags: [{folder.split('/')[1]}, notes]",
            f"date: 2026-{1 + idx % 12:02d}-{1 + idx % 28:02d}", "---", f"# {p.title()}", ""]
    for s_i, section in enumerate(sections[:2 + idx % 3]):
        body += [f"## {section}", ""]
        for _ in range(1 + rng.randrange(2)):
            sentences = rng.sample(FILLER, 2)
            if facts and rng.random() < 0.7:
                tpl, kq, pq = facts.pop()
                vals = {"p": p, "n": str(rng.randrange(3, 60)), "db": rng.choice(DBS), "lang": rng.choice(LANGS),
                        "person": rng.choice(PEOPLE)}
                sentences.insert(rng.randrange(3), tpl.format(**vals))
                questions.append({"keyword": kq.format(**vals), "paraphrase": pq.format(**vals)})
            body += [" ".join(sentences), ""]
        if s_i % 2 == 1:
            body += rng.sample(SHARED, 2) + [f"- {p.title()} tracking ticket {rng.randrange(1000, 9999)}.", ""]
    for tpl, kq, pq in facts:  # any fact left: a bullet, so lists carry facts too
        vals = {"p": p, "n": str(rng.randrange(3, 60)), "db": rng.choice(DBS), "lang": rng.choice(LANGS),
                "person": rng.choice(PEOPLE)}
        body.append("- " + tpl.format(**vals))
        questions.append({"keyword": kq.format(**vals), "paraphrase": pq.format(**vals)})
    body.append("")
    return "\n".join(body), questions


def make_vault(root: Path, notes: int, flat: bool = False) -> list[dict[str, str]]:
    """Write `notes` notes into root's kind folders; return the questions (with target paths)."""
    rng = random.Random(SEED)
    folders = [f"index/{a}/{s}" for a in AREAS for s in SUBS]  # 40
    folders += [f"skill/howto/{s}" for s in SUBS] + [f"memory/people/{s}" for s in SUBS]  # 50 in all
    questions: list[dict[str, str]] = []
    for i in range(notes):
        folder = folders[i % len(folders)]
        text, qs = _note(rng, i, folder)
        rel = f"{folder.split('/')[0]}/note-{i:05d}.md" if flat else f"{folder}/note-{i:05d}.md"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        questions += [{**q, "path": rel} for q in qs]
    return questions


def markdown_bytes(root: Path) -> int:
    return sum(p.stat().st_size for kind in ("memory", "index", "skill") for p in (root / kind).rglob("*.md"))


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def cli(code: Path, ws: Path, env: dict[str, str], *args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "memfs.cli", *args], cwd=ws, capture_output=True, text=True,
                         env={**env, "PYTHONPATH": str(code)}, timeout=7200)
    return time.perf_counter() - t, out


def daemon_start(code: Path, ws: Path, env: dict[str, str]) -> tuple[float, float | None]:
    """Seconds from spawn to the daemon's "watching" line (the index already built), and to
    its "caught up" line (views refreshed, model loaded) where the daemon prints one."""
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "memfs.cli", "daemon"], cwd=ws, text=True,
                            env={**env, "PYTHONPATH": str(code)}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert proc.stderr is not None
        watching: float | None = None
        for line in proc.stderr:
            if "watching" in line:
                watching = time.perf_counter() - t
                if code != REPO:
                    return watching, None
            if "caught up" in line and watching is not None:
                return watching, time.perf_counter() - t
        raise RuntimeError("the daemon exited before watching")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:  # still in its start-up work: SIGTERM waits for it
            proc.kill()
            proc.wait(timeout=60)


def counts(ws: Path) -> dict[str, int]:
    import sqlite3

    conn = sqlite3.connect(ws / ".memfs" / "index.sqlite3")
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    out = {"items": conn.execute("SELECT count(*) FROM items").fetchone()[0],
           "files": conn.execute("SELECT count(*) FROM files").fetchone()[0],
           "embeddings": conn.execute("SELECT count(*) FROM embeddings").fetchone()[0]}
    out["passages"] = conn.execute("SELECT count(*) FROM passages").fetchone()[0] if "passages" in tables else 0
    conn.close()
    return out


def hit_rates(code: Path, ws: Path, env: dict[str, str], questions: list[dict[str, str]], k: int = 5
              ) -> dict[str, float]:
    """In-process recall of every question (a child process on `code`), top-k by path."""
    script = f"""
import json, sys, time
from memfs.api import Memory
qs = json.load(open({str(ws / 'questions.json')!r}))
m = Memory({str(ws)!r})
m.recall("warm up", k=1)
res = {{}}
times = []
for kind in ("keyword", "paraphrase"):
    hit = 0
    for q in qs:
        t = time.perf_counter()
        paths = [h.path for h in m.recall(q[kind], k={k})]
        times.append(time.perf_counter() - t)
        hit += q["path"] in paths
    res[kind] = hit / len(qs)
times.sort()
res["search_ms_median"] = 1000 * times[len(times) // 2]
res["search_ms_p95"] = 1000 * times[int(len(times) * 0.95)]
both = [h for h in m.recall("socket timeout", k=50) if "socket" in h.text.lower() and "timeout" in h.text.lower()]
res["socket_timeout_hits"] = len(both)
print(json.dumps(res))
"""
    # cwd=ws: with `-c`, the current folder comes first on sys.path; from a checkout it
    # would import that checkout's memfs instead of `code`'s.
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ws,
                         env={**env, "PYTHONPATH": str(code)}, timeout=7200)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(code: Path, base: Path, notes: int, env: dict[str, str], only: set[str], sample: int,
        flat: bool = False) -> dict[str, object]:
    ws = base / "vault"
    state = base / "state.json"  # a kept vault (--workdir): built once, measured again
    saved = json.loads(state.read_text()) if state.exists() else {}
    if saved.get("notes") != notes or saved.get("flat") != flat:
        shutil.rmtree(ws, ignore_errors=True)
        saved = {}
        subprocess.run([sys.executable, "-m", "memfs.cli", "init", str(ws), "--no-git"], check=True,
                       capture_output=True, env={**env, "PYTHONPATH": str(code)})
        questions = make_vault(ws, notes, flat)
        (base / "all_questions.json").write_text(json.dumps(questions))
    questions = json.loads((base / "all_questions.json").read_text())
    rng = random.Random(SEED + 1)
    picked = rng.sample(questions, min(sample, len(questions)))
    (ws / "questions.json").write_text(json.dumps(picked))
    res: dict[str, object] = {"notes": notes, "markdown_bytes": markdown_bytes(ws), "questions": len(picked)}
    res["notes_with_socket_timeout"] = sum(1 for q in questions if "socket timeout" in q["keyword"])
    _progress(f"sync ({'again, kept vault' if saved else 'cold'})")
    t, out = cli(code, ws, env, "sync")
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    if saved:  # the cold figure is the first run's; this sync only caught up with the code
        res["cold_index_s"], res["resume_sync_s"] = saved["cold_index_s"], t
    else:
        res["cold_index_s"] = t
        state.write_text(json.dumps({"notes": notes, "flat": flat, "cold_index_s": t}))
    res["sync_warnings"] = out.stderr.count("warning") + out.stderr.count("not indexed")
    res.update(counts(ws))
    _progress(f"indexed {counts(ws)}; resyncs")
    res["no_change_resync_s"] = statistics.median(cli(code, ws, env, "sync")[0] for _ in range(3))
    target = ws / questions[0]["path"]
    edits = []
    for n in range(3):
        with target.open("a", encoding="utf-8") as fh:
            fh.write(f"\nAn added paragraph, edit number {n}, about the broker failover drill.\n")
        edits.append(cli(code, ws, env, "sync")[0])
    res["one_edit_resync_s"] = statistics.median(edits)
    _progress("cli search")
    res["cli_search_s"] = statistics.median(cli(code, ws, env, "recall", q["keyword"])[0] for q in picked[:5])
    if "search" in only or not only:
        _progress("hit rates")
        res.update(hit_rates(code, ws, env, picked))
    _progress("daemon start")
    # The first start after the index is built, then a second one (caches warm).
    res["daemon_start_first_s"], res["daemon_caught_up_first_s"] = daemon_start(code, ws, env)
    res["daemon_start_s"], res["daemon_caught_up_s"] = daemon_start(code, ws, env)
    res["memfs_bytes"] = dir_bytes(ws / ".memfs")
    res["size_ratio"] = res["memfs_bytes"] / res["markdown_bytes"]  # type: ignore[operator]
    res["size_parts"] = size_parts(ws)
    if "descriptions" in only and code == REPO:
        res["descriptions"] = description_cost(ws)
    return res


def _progress(what: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {what}", file=sys.stderr, flush=True)


def description_cost(ws: Path) -> dict[str, float]:
    """The start-up cost the issue measured (24 s of 24.4 s at 10k notes): embedding every
    category's description with the default embedder (MiniLM), as before (no cache), then
    through the embedding cache: once to fill it, once as every later start does."""
    script = f"""
import json, time
from memfs.api import Memory
from memfs.categorize import Categorizer
from memfs.config import load_config
from pathlib import Path
cfg = load_config(Path({str(ws)!r}), environ={{}})
m = Memory({str(ws)!r}, config=cfg)
specs = m.category_specs()
m.embedder.embed(["warm up"])
out = {{"specs": len(specs)}}
t = time.perf_counter(); Categorizer(m.embedder, specs)._spec_vectors(); out["uncached_s"] = time.perf_counter() - t
t = time.perf_counter(); Categorizer(m.embedder, specs, m.indexer.embed_cached)._spec_vectors()
out["fill_cache_s"] = time.perf_counter() - t
t = time.perf_counter(); Categorizer(m.embedder, specs, m.indexer.embed_cached)._spec_vectors()
out["cached_s"] = time.perf_counter() - t
print(json.dumps(out))
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMFS_")}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ws,
                         env={**env, "PYTHONPATH": str(REPO)}, timeout=7200)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def size_parts(ws: Path) -> dict[str, int]:
    """Where `.memfs/` space goes: SQLite tables and indexes (dbstat) and the other files."""
    import sqlite3

    out: dict[str, int] = {}
    conn = sqlite3.connect(ws / ".memfs" / "index.sqlite3")
    try:
        for name, size in conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC"):
            out[f"sqlite:{name}"] = int(size)
    except sqlite3.OperationalError:
        pass
    conn.close()
    for p in (ws / ".memfs").iterdir():
        if p.is_file() and not p.name.startswith("index.sqlite3"):
            out[p.name] = p.stat().st_size
    return dict(sorted(out.items(), key=lambda kv: -kv[1])[:12])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=1000)
    ap.add_argument("--embedder", choices=["default", "hashing"], default="default",
                    help="default: the workspace's memfs.toml (MiniLM); hashing: dim 384, no model")
    ap.add_argument("--baseline", type=Path, help="another memfs checkout, run on its own copy of the vault")
    ap.add_argument("--only", default="", help="comma list; 'search' adds hit rates (always on without --only)")
    ap.add_argument("--sample", type=int, default=200, help="questions asked (of 3 per note)")
    ap.add_argument("--flat", action="store_true",
                    help="notes at the top of their kind folder (every note a filing target: the start-time case)")
    ap.add_argument("--descriptions-only", type=int, default=0, metavar="N",
                    help="only time embedding N top-level notes' descriptions, uncached then cached")
    ap.add_argument("--baseline-only", action="store_true", help="measure only the --baseline checkout")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--workdir", type=Path,
                    help="keep the vault here and reuse it (same --notes): a rerun skips generation and the "
                         "cold embedding (the embedding cache survives an index-layout change)")
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMFS_")}
    if args.embedder == "hashing":
        env.update({"MEMFS_EMBEDDER_PROVIDER": "hashing", "MEMFS_EMBEDDER_DIM": "384"})
    only = {s for s in args.only.split(",") if s}
    if args.descriptions_only:
        base = Path(tempfile.mkdtemp(prefix="memfs-notes-desc-"))
        try:
            ws = base / "w"
            subprocess.run([sys.executable, "-m", "memfs.cli", "init", str(ws), "--no-git"], check=True,
                           capture_output=True, env={**env, "PYTHONPATH": str(REPO)})
            for i in range(args.descriptions_only):  # top-level notes: each one a filing target
                (ws / "index" / f"note-{i:05d}.md").write_text(
                    f"---\ndescription: Notes on {NAMES[i % len(NAMES)]} {i}, its design and operations\n---\n")
            res = description_cost(ws)
        finally:
            shutil.rmtree(base, ignore_errors=True)
        print(json.dumps({"descriptions": res}))
        return 0
    results: dict[str, object] = {}
    for label, code in (("memfs", REPO), ("baseline", args.baseline)):
        if code is None or (label == "memfs" and args.baseline_only):
            continue
        keep = args.workdir is not None
        base = args.workdir / label if keep else Path(tempfile.mkdtemp(prefix=f"memfs-notes-{label}-"))
        base.mkdir(parents=True, exist_ok=True)
        try:
            results[label] = run(code.resolve(), base, args.notes, env, only, args.sample, args.flat)
        finally:
            if not keep:
                shutil.rmtree(base, ignore_errors=True)
        print(json.dumps({label: results[label]}, indent=1), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
