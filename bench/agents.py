"""Agents benchmark: what the proxy adds to a chat request, and what MCP adds to a recall.

    .venv/bin/python bench/agents.py [--files 100] [--requests 60] [--embedder minilm|hashing] [--json OUT]

1. Proxy overhead: a synthetic workspace (`--files` category files of 10 items), a local
   upstream that answers at once (tests/support/fake_openai.py), and a real `memfs proxy`
   process. Requests alternate in the same run between the upstream directly (the baseline)
   and the proxy, each on a new connection, non-streaming; p50/p95 of each and the p50
   difference. Filing is switched off (`ingest_without_daemon = false`, and the inbox is
   emptied), so this is the request path: parse, recall, inject, forward, relay.
2. MCP recall: a real `memfs mcp` over stdio with the SDK's client: the time to the first
   answer (process start, imports, handshake, first recall), then recall round trips
   against `Memory.recall` in-process on the same queries (the baseline); and the same
   calls as bare JSON-RPC lines, without the SDK client's work.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from _synth import Synth, queries  # noqa: E402

from memfs.api import Memory  # noqa: E402
from memfs.config import load_config  # noqa: E402
from memfs.workspace import init_workspace  # noqa: E402
from tests.support.fake_openai import FakeOpenAI  # noqa: E402


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _post(port: int, path: str, body: bytes) -> float:
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    resp.read()
    conn.close()
    if resp.status != 200:
        raise RuntimeError(f"HTTP {resp.status}")
    return (time.perf_counter() - started) * 1000


def proxy_overhead(root: Path, env: dict[str, str], n: int) -> dict[str, float]:
    upstream = FakeOpenAI(answer="OK.").start()
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "memfs.cli", "proxy", "--dir", str(root), "--upstream",
                             upstream.url, "--port", str(port)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        qs = queries(n + 5)
        bodies = [json.dumps({"model": "m", "messages": [{"role": "user", "content": q}]}).encode() for q in qs]
        for b in bodies[:5]:  # warm up: model load, index open
            _post(port, "/v1/chat/completions", b)
        direct, proxied = [], []
        for b in bodies[5:]:
            direct.append(_post(upstream.port, "/v1/chat/completions", b))
            proxied.append(_post(port, "/v1/chat/completions", b))
        injected = sum(1 for r in upstream.chat_requests()[-2 * n:]
                       if any(m["role"] == "system" for m in r["json"]["messages"]))
        for p in (root / "inbox").glob("*.json"):
            p.unlink()
        return {"direct_p50_ms": statistics.median(direct), "direct_p95_ms": _pct(direct, 0.95),
                "proxy_p50_ms": statistics.median(proxied), "proxy_p95_ms": _pct(proxied, 0.95),
                "overhead_p50_ms": statistics.median(proxied) - statistics.median(direct),
                "requests_with_memory": injected, "requests": n}
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        upstream.stop()


def mcp_recall(root: Path, env: dict[str, str], config_env: dict[str, str], n: int) -> dict[str, float]:
    """SDK client over stdio vs in-process `Memory.recall`, interleaved query by query (the
    machine's load changes from second to second; interleaving shares it evenly)."""
    import anyio
    from mcp import Client, StdioServerParameters

    qs = queries(n, seed=7)
    out: dict[str, float] = {}
    mem = Memory(root, config=load_config(root, environ=config_env))
    mem.recall(qs[0], k=8)

    async def run() -> None:
        started = time.perf_counter()
        params = StdioServerParameters(command=sys.executable, args=["-m", "memfs.cli", "mcp", "--dir", str(root)],
                                       env=env)
        async with Client(params) as c:
            await c.call_tool("recall", {"query": qs[0]})
            out["first_answer_ms"] = (time.perf_counter() - started) * 1000
            sdk, local = [], []
            for q in qs:
                t = time.perf_counter()
                r = await c.call_tool("recall", {"query": q, "k": 8})
                sdk.append((time.perf_counter() - t) * 1000)
                assert not r.is_error
                t = time.perf_counter()
                mem.recall(q, k=8)
                local.append((time.perf_counter() - t) * 1000)
            out.update(mcp_p50_ms=statistics.median(sdk), mcp_p95_ms=_pct(sdk, 0.95),
                       inprocess_p50_ms=statistics.median(local), inprocess_p95_ms=_pct(local, 0.95))

    try:
        anyio.run(run)
    finally:
        mem.close()
    out["overhead_p50_ms"] = out["mcp_p50_ms"] - out["inprocess_p50_ms"]
    return out


def mcp_raw(root: Path, env: dict[str, str], config_env: dict[str, str], n: int) -> dict[str, float]:
    """The same recalls as bare JSON-RPC lines over the server's stdio: the server's cost
    without the SDK client's own work (it validates each result against the output schema
    with the pure-Python jsonschema, about 30 ms for 8 items on this machine)."""
    qs = queries(n, seed=7)
    mem = Memory(root, config=load_config(root, environ=config_env))
    mem.recall(qs[0], k=8)
    proc = subprocess.Popen([sys.executable, "-m", "memfs.cli", "mcp", "--dir", str(root)], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin is not None and proc.stdout is not None

    def send(msg: dict) -> None:
        proc.stdin.write(json.dumps(msg) + "\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    try:
        send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
        proc.stdout.readline()
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        times, local = [], []
        for i, q in enumerate([qs[0], *qs]):
            started = time.perf_counter()
            send({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                  "params": {"name": "recall", "arguments": {"query": q, "k": 8}}})
            reply = json.loads(proc.stdout.readline())
            assert "result" in reply and not reply["result"].get("isError"), reply
            if i:
                times.append((time.perf_counter() - started) * 1000)
                t = time.perf_counter()
                mem.recall(q, k=8)
                local.append((time.perf_counter() - t) * 1000)
        return {"raw_p50_ms": statistics.median(times), "raw_p95_ms": _pct(times, 0.95),
                "raw_inprocess_p50_ms": statistics.median(local),
                "raw_overhead_p50_ms": statistics.median(times) - statistics.median(local)}
    finally:
        mem.close()
        proc.stdin.close()
        proc.wait(timeout=20)
        proc.stdout.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--requests", type=int, default=60)
    ap.add_argument("--embedder", default="minilm", choices=["minilm", "hashing"])
    ap.add_argument("--json")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="memfs-bench-agents-"))
    try:
        root = init_workspace(tmp / "mem", git=False).root
        Synth().populate(root, args.files)
        config_env = {"MEMFS_EMBEDDER_PROVIDER": args.embedder}
        env = {**os.environ, **config_env, "MEMFS_AGENTS_INGEST_WITHOUT_DAEMON": "false",
               "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        with Memory(root, config=load_config(root, environ=config_env)) as mem:
            mem.sync()
        result = {"items": args.files * 10, "embedder": args.embedder,
                  "proxy": proxy_overhead(root, env, args.requests),
                  "mcp": {**mcp_recall(root, env, config_env, args.requests), **mcp_raw(root, env, config_env, args.requests)}}
        print(json.dumps(result, indent=2))
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
