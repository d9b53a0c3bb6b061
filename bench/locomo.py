#!/usr/bin/env python3
"""LoCoMo retrieval benchmark: memfs recall vs BM25 over raw turns, measured in the same run.

    .venv/bin/python bench/locomo.py                                # default data, minilm
    .venv/bin/python bench/locomo.py --embedder hashing --json /tmp/locomo.json
    .venv/bin/python bench/locomo.py --limit-questions 20 --details /tmp/q.jsonl
    .venv/bin/python bench/locomo.py --from-json /tmp/locomo.json --markdown    # re-render only
    MEMFS_LLM=openai .venv/bin/python bench/locomo.py --llm [--config memfs.toml]

For each conversation (every *.json in --data; a file may hold one LoCoMo sample or a
list of them): a fresh temp workspace; each session becomes one memfs.conversation/1
file (turn ids = dia_ids, the session's date/time) ingested in order through the normal
pipeline (`Memory.ingest_file`; offline extractor unless --llm); then every question of category 1-4
is recalled once (top max(k) items). The baseline is bm25s over the raw turns
"[date] Speaker: text" of the same conversation (lowercase, Porter stems as in memfs's
index, Lucene's English stopwords), scored with the same metric. See
bench/locomo_metric.py for the metric and evidence normalisation, bench/LOCOMO.md for results.

Output: a table on stdout (memfs, BM25, ratio at hit@10, per category), and with --json
exactly {"memfs": {...}, "bm25_turns": {...}, "questions", "by_category", "ingest_seconds",
"recall_ms_p50", "items"}. --details writes one JSON line per question (top hits,
evidence turns, what memfs extracted and stored from them) for miss analysis.
"""

from __future__ import annotations

import argparse
import os
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
#: The LoCoMo sample files (one JSON per conversation): --data, or $MEMFS_BENCH_LOCOMO.
DEFAULT_DATA = Path(os.environ.get("MEMFS_BENCH_LOCOMO", "bench-data/locomo")).resolve()
sys.path.insert(0, str(HERE))

from locomo_metric import (  # noqa: E402
    ALL_AT,
    CATEGORY_NAMES,
    DEFAULT_KS,
    Bm25Lite,
    Conversation,
    PorterStemmer,
    QuestionResult,
    aggregate,
    anchor_of,
    bm25_tokenize,
    first_rank,
    load_file,
    metric_keys,
    percentile,
    score_ranking,
    scored_questions,
    session_to_memfs,
    turn_documents,
    turn_text,
)

SYSTEMS = ("memfs", "bm25_turns")
TARGET_HIT10 = 0.75
TARGET_RATIO = 1.2
LLM_UNAVAILABLE = "LLM mode is not available in this version"
LLM_NOT_CONFIGURED = ('LLM mode is not configured: give --config memfs.toml with [llm] provider = "openai", '
                      "or set MEMFS_LLM=openai")


def log(msg: str) -> None:
    print(f"[locomo {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def llm_available() -> bool:
    from memfs.config import Config

    return "llm" in Config.model_fields


#: The environment variables that switch memfs to LLM mode (see memfs/llm/config.py).
LLM_ENV = ("MEMFS_LLM", "MEMFS_LLM_MODEL", "OPENAI_BASE_URL")


def read_llm_table(config_path: Path | None) -> dict[str, Any]:
    """The `[llm]` table of a memfs.toml (empty without one: the environment decides)."""
    if config_path is None:
        return {}
    try:
        import tomllib
    except ImportError:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        data = tomllib.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise SystemExit(f"cannot read {config_path}: {err}") from None
    table = data.get("llm", {})
    if not isinstance(table, dict):
        raise SystemExit(f"{config_path}: [llm] must be a table")
    return table


# -- memfs ---------------------------------------------------------------------------------
def make_config(root: Path, embedder: str, llm: dict[str, Any] | None = None):  # type: ignore[no-untyped-def]
    """The workspace's memfs.toml with the chosen embedder. Offline unless `llm` is given
    (an `[llm]` table, possibly empty): then that table plus MEMFS_LLM / MEMFS_LLM_MODEL /
    OPENAI_BASE_URL from the environment. `MEMFS_RECALL_*` (ranking settings, to compare a
    fusion in one session) applies too; nothing else of the caller's MEMFS_* does."""
    import os

    from memfs.config import load_config

    environ = {"MEMFS_EMBEDDER_PROVIDER": embedder}
    environ.update({k: v for k, v in os.environ.items() if k.startswith("MEMFS_RECALL_")})
    if llm is not None:
        environ.update({k: os.environ[k] for k in LLM_ENV if k in os.environ})
    config = load_config(root, environ=environ)
    if llm:
        from memfs.llm.config import LLMConfig, llm_config_from_env

        config.llm = llm_config_from_env(LLMConfig.model_validate({**config.llm.model_dump(), **llm}), environ)
    return config


class MemfsRun:
    """One conversation in a fresh workspace."""

    def __init__(self, conv: Conversation, tmp: Path, embedder_name: str, shared_embedder: Any,
                 llm: dict[str, Any] | None = None) -> None:
        from memfs.api import Memory
        from memfs.workspace import init_workspace

        self.conv = conv
        self.root = tmp / "ws"
        self.inputs = tmp / "inputs"
        self.inputs.mkdir(parents=True)
        init_workspace(self.root, git=False)
        cfg = make_config(self.root, embedder_name, llm)
        self.mem = Memory(self.root, config=cfg, embedder=shared_embedder)
        self.session_files: list[Path] = []

    def ingest(self) -> float:
        stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in self.conv.name)
        for s in self.conv.sessions:
            path = self.inputs / f"locomo-{stem}-session-{s.number:02d}.json"
            path.write_text(json.dumps(session_to_memfs(self.conv, s), ensure_ascii=False, indent=1), encoding="utf-8")
            self.session_files.append(path)
        t0 = time.perf_counter()
        for path in self.session_files:
            res = self.mem.ingest_file(path)
            if res.status == "failed":
                raise SystemExit(f"memfs could not ingest {path.name}: {res.error}")
        return time.perf_counter() - t0

    def items(self) -> int:
        return self.mem.status().items

    def recall(self, query: str, depth: int) -> tuple[list[Any], float]:
        t0 = time.perf_counter()
        hits = self.mem.recall(query, k=depth)
        return hits, (time.perf_counter() - t0) * 1000

    def stored_by_anchor(self) -> dict[str, list[dict[str, Any]]]:
        """Every item in the index, grouped by the turn its provenance cites (for --details)."""
        out: dict[str, list[dict[str, Any]]] = {}
        db = self.mem.indexer.db
        for item_id, text, src, seen, when in db.conn.execute('SELECT id, text, src, seen, "when" FROM items'):
            out.setdefault(anchor_of(src) or "", []).append({"id": item_id, "text": text, "seen": seen, "when": when})
        return out

    def extracted_by_anchor(self) -> dict[str, list[str]]:
        """What the offline extractor makes of each turn, before dedupe (for --details)."""
        from memfs.extract import extract_offline
        from memfs.readers import read_source

        out: dict[str, list[str]] = {}
        for path in self.session_files:
            source = read_source(path.read_bytes(), path.name)
            for fact in extract_offline(source):
                out.setdefault(fact.anchor, []).append(fact.text)
        return out

    def close(self) -> None:
        self.mem.close()


# -- BM25 baseline ---------------------------------------------------------------------------
class Bm25Turns:
    """BM25 over the raw turns "[date] Speaker: text" of one conversation.

    Tokens: bm25s's default rules (lowercase, 2+ character words, Lucene's English
    stopwords) plus Porter stems (the stemmer memfs's FTS5 index uses). Scores: bm25s
    (Lucene BM25, k1=1.5, b=0.75), or the identical plain-Python Bm25Lite when bm25s is not
    installed. Ranking: score (rounded to 1e-4, so float32/float64 noise cannot reorder
    ties), then turn order; a turn sharing no term with the question is not retrieved."""

    def __init__(self, conv: Conversation, stemmer: PorterStemmer) -> None:
        self.stemmer = stemmer
        docs = turn_documents(conv)
        self.ids = [d for d, _ in docs]
        tokens = [bm25_tokenize(t, stemmer) for _, t in docs]
        try:
            import bm25s
        except ImportError:
            self.engine = "bm25lite"
            self.lite = Bm25Lite(tokens)
        else:
            self.engine = "bm25s"
            self.retriever = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
            self.retriever.index(tokens, show_progress=False)
            self.vocab = set(self.retriever.vocab_dict)

    def scores(self, query: str) -> list[float]:
        q = bm25_tokenize(query, self.stemmer)
        if self.engine == "bm25lite":
            return self.lite.scores(q)
        q = [t for t in q if t in self.vocab]
        if not q or not self.ids:
            return [0.0] * len(self.ids)
        return [float(x) for x in self.retriever.get_scores(q)]

    def rank(self, queries: list[str], depth: int) -> list[list[str]]:
        out = []
        for query in queries:
            scored = sorted(((-round(s, 4), i) for i, s in enumerate(self.scores(query)) if s > 0))
            out.append([self.ids[i] for _, i in scored[:depth]])
        return out


# -- the run -------------------------------------------------------------------------------
def find_files(data: Path) -> list[Path]:
    if data.is_file():
        return [data]
    files = sorted(p for p in data.glob("*.json") if p.is_file())
    if not files:
        raise SystemExit(f"no *.json LoCoMo files in {data}")
    return files


def run(data: Path, ks: list[int], embedder: str, limit_questions: int | None = None,
        llm: dict[str, Any] | None = None, details: Path | None = None) -> dict[str, Any]:
    from memfs.providers.embedding import make_embedder

    depth = max(ks + [ALL_AT])
    convs: list[Conversation] = [c for f in find_files(data) for c in load_file(f)]
    with tempfile.TemporaryDirectory(prefix="memfs-locomo-") as tmp0:
        shared = make_embedder(make_config(Path(tmp0), embedder, llm).embedder)
    shared.embed(["warm up"])  # model load is not ingest time
    stemmer = PorterStemmer()
    results: list[QuestionResult] = []
    recall_ms: list[float] = []
    ingest_seconds = 0.0
    items = 0
    skipped = 0
    left = limit_questions
    engines: set[str] = set()
    detail_out = details.open("w", encoding="utf-8") if details else None
    try:
        for conv in convs:
            questions, skip = scored_questions(conv)
            skipped += skip
            if left is not None:
                questions = questions[:left]
                left -= len(questions)
            if not questions:
                continue
            with tempfile.TemporaryDirectory(prefix="memfs-locomo-") as tmp:
                run_ = MemfsRun(conv, Path(tmp), embedder, shared, llm)
                try:
                    secs = run_.ingest()
                    ingest_seconds += secs
                    n_items = run_.items()
                    items += n_items
                    turns = sum(len(s.turns) for s in conv.sessions)
                    log(f"{conv.name}: {len(conv.sessions)} sessions, {turns} turns -> {n_items} items "
                        f"in {secs:.1f} s; {len(questions)} questions")
                    bm25 = Bm25Turns(conv, stemmer)
                    engines.add(bm25.engine)
                    bm = bm25.rank([str(q["question"]) for q, _ in questions], depth)
                    texts = {str(t["dia_id"]): turn_text(t) for s in conv.sessions for t in s.turns}
                    stored = run_.stored_by_anchor() if detail_out else {}
                    extracted = run_.extracted_by_anchor() if detail_out else {}
                    for (q, ev), bm_anchors in zip(questions, bm):
                        hits, ms = run_.recall(str(q["question"]), depth)
                        recall_ms.append(ms)
                        mem_anchors = [anchor_of(h.source) for h in hits]
                        results.append(QuestionResult(conv.name, str(q["question"]), int(q["category"]), ev, {
                            "memfs": score_ranking(mem_anchors, ev, ks),
                            "bm25_turns": score_ranking(bm_anchors, ev, ks)}))
                        if detail_out:
                            detail_out.write(json.dumps({
                                "conversation": conv.name, "question": q["question"], "answer": q.get("answer"),
                                "category": int(q["category"]), "evidence": ev,
                                "memfs_rank": first_rank(mem_anchors, ev), "bm25_rank": first_rank(bm_anchors, ev),
                                "evidence_turns": {e: texts.get(e) for e in ev},
                                "extracted": {e: extracted.get(e, []) for e in ev},
                                "stored": {e: stored.get(e, []) for e in ev},
                                "memfs_top": [{"anchor": a, "text": h.text, "when": h.when, "score": h.score}
                                              for a, h in zip(mem_anchors, hits)][:10],
                                "bm25_top": [{"anchor": a, "text": texts.get(a)} for a in bm_anchors[:5]],
                            }, ensure_ascii=False) + "\n")
                finally:
                    run_.close()
    finally:
        if detail_out:
            detail_out.close()
    summary = aggregate(results, SYSTEMS, ks)
    out = {"memfs": summary["memfs"], "bm25_turns": summary["bm25_turns"], "questions": summary["questions"],
           "by_category": summary["by_category"], "ingest_seconds": round(ingest_seconds, 2),
           "recall_ms_p50": round(percentile(recall_ms, 50), 2), "items": items}
    log(f"baseline scored with {', '.join(sorted(engines)) or '-'}")
    if skipped:
        log(f"{skipped} question(s) of category 1-4 had no usable evidence and were not scored")
    return out


# -- report --------------------------------------------------------------------------------
def ratio(a: float, b: float) -> float | None:
    return a / b if b else None


def render(res: dict[str, Any], ks: list[int]) -> str:
    keys = metric_keys(ks)
    if not res["questions"]:
        return "no questions scored (categories 1-4 with evidence)"
    lines = []
    head = f"{'':<16}" + "".join(f"{k:>9}" for k in keys)
    lines.append(f"LoCoMo retrieval, {res['questions']} questions (categories 1-4)")
    lines.append(head)
    for system in SYSTEMS:
        lines.append(f"{system:<16}" + "".join(f"{res[system][k]:>9.3f}" for k in keys))
    lines.append(f"{'memfs / bm25':<16}" + "".join(
        f"{(ratio(res['memfs'][k], res['bm25_turns'][k]) or 0):>8.2f}x" for k in keys))
    main = "hit@10" if "hit@10" in keys else keys[-2]
    lines.append("")
    lines.append(f"by category ({main}):  {'n':>4} {'memfs':>7} {'bm25':>7} {'ratio':>7}")
    for cat, entry in res["by_category"].items():
        m, b = entry["memfs"][main], entry["bm25_turns"][main]
        r = ratio(m, b)
        name = f"{cat} {CATEGORY_NAMES.get(int(cat), '')}"
        lines.append(f"  {name:<18} {entry['questions']:>4} {m:>7.3f} {b:>7.3f} "
                     f"{(f'{r:.2f}x' if r is not None else '-'):>7}")
    lines.append("")
    lines.append(f"items {res['items']}, ingest {res['ingest_seconds']:.1f} s, recall p50 {res['recall_ms_p50']:.1f} ms")
    if main == "hit@10":
        m, b = res["memfs"]["hit@10"], res["bm25_turns"]["hit@10"]
        r = ratio(m, b)
        met = m >= TARGET_HIT10 and r is not None and r >= TARGET_RATIO
        lines.append(f"target hit@10 >= {TARGET_HIT10} and >= {TARGET_RATIO}x BM25: memfs {m:.3f}, "
                     f"{(f'{r:.2f}x' if r is not None else 'n/a')} -> {'MET' if met else 'NOT MET'}")
    return "\n".join(lines)


def render_markdown(res: dict[str, Any], ks: list[int]) -> str:
    """The tables of bench/LOCOMO.md: overall (with the ratio) and per category."""
    keys = metric_keys(ks)
    lines = ["| system | " + " | ".join(keys) + " |", "|---|" + "---:|" * len(keys)]
    for system in SYSTEMS:
        lines.append(f"| {system} | " + " | ".join(f"{res[system][k]:.3f}" for k in keys) + " |")
    lines.append("| memfs / bm25 | " + " | ".join(
        f"{(ratio(res['memfs'][k], res['bm25_turns'][k]) or 0):.2f}x" for k in keys) + " |")
    lines += ["", "| category | n | " + " | ".join(f"memfs {k}" for k in keys) + " | " +
              " | ".join(f"bm25 {k}" for k in keys) + " |", "|---|---:|" + "---:|" * (2 * len(keys))]
    for cat, entry in res["by_category"].items():
        lines.append(f"| {cat} {CATEGORY_NAMES.get(int(cat), '')} | {entry['questions']} | " +
                     " | ".join(f"{entry['memfs'][k]:.3f}" for k in keys) + " | " +
                     " | ".join(f"{entry['bm25_turns'][k]:.3f}" for k in keys) + " |")
    lines += ["", f"{res['questions']} questions, {res['items']} items, ingest {res['ingest_seconds']:.1f} s, "
              f"recall p50 {res['recall_ms_p50']:.1f} ms"]
    return "\n".join(lines)


def parse_ks(text: str) -> list[int]:
    try:
        ks = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"--k expects comma-separated integers, got {text!r}") from None
    if not ks or ks[0] < 1:
        raise argparse.ArgumentTypeError("--k values must be >= 1")
    return ks


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"folder of LoCoMo *.json (default {DEFAULT_DATA})")
    ap.add_argument("--k", type=parse_ks, default=list(DEFAULT_KS), help="cut-offs, e.g. 1,5,10,20")
    ap.add_argument("--json", type=Path, help="write the results as JSON here")
    ap.add_argument("--limit-questions", type=int, help="score only the first N questions overall (smoke runs)")
    ap.add_argument("--embedder", choices=("minilm", "hashing"), default="minilm")
    ap.add_argument("--llm", action="store_true",
                    help="LLM mode: the [llm] profile of --config, plus MEMFS_LLM / MEMFS_LLM_MODEL / OPENAI_BASE_URL")
    ap.add_argument("--config", type=Path, help="with --llm: the memfs.toml whose [llm] table to use")
    ap.add_argument("--details", type=Path, help="write per-question diagnostics (JSON lines) here")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables (as in bench/LOCOMO.md)")
    ap.add_argument("--from-json", type=Path, help="only render the results of an earlier --json run")
    args = ap.parse_args(argv)
    if args.from_json:
        res = json.loads(args.from_json.read_text(encoding="utf-8"))
        print(render_markdown(res, args.k) if args.markdown else render(res, args.k))
        return 0
    llm = None
    if args.llm:
        if not llm_available():
            print(LLM_UNAVAILABLE, file=sys.stderr)
            return 2
        llm = read_llm_table(args.config)
        with tempfile.TemporaryDirectory(prefix="memfs-locomo-") as tmp0:
            profile = make_config(Path(tmp0), args.embedder, llm).llm
        if not profile.enabled:
            print(LLM_NOT_CONFIGURED, file=sys.stderr)
            return 2
        log(f"LLM mode: {profile.provider}:{profile.model}" + (f" at {profile.base_url}" if profile.base_url else ""))
    if not args.data.exists():
        print(f"no such data folder: {args.data}", file=sys.stderr)
        return 2
    res = run(args.data, args.k, args.embedder, args.limit_questions, llm, args.details)
    print(render_markdown(res, args.k) if args.markdown else render(res, args.k))
    if args.json:
        args.json.write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
