"""`memfs mcp` driven by the MCP SDK's own clients: stdio (a real `memfs mcp` process)
and streamable HTTP on 127.0.0.1. One server process per test keeps these to seconds."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402

from memfs.fsutil import WriterLock  # noqa: E402
from memfs.workspace import init_workspace  # noqa: E402
from tests.support.cli import MEMFS

ENV = {"MEMFS_EMBEDDER_PROVIDER": "hashing", "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}


def _params(root: Path) -> StdioServerParameters:
    return StdioServerParameters(command=MEMFS[0], args=[*MEMFS[1:], "mcp", "--dir", str(root)],
                                 env=ENV)


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                   check=True, capture_output=True)


def _run(fn: Any) -> Any:
    return anyio.run(fn)


def test_stdio_client_lists_tools_remembers_recalls_reads_and_forgets(tmp_path: Path) -> None:
    root = init_workspace(tmp_path / "mem", git=True).root
    seen: dict[str, Any] = {}

    async def session() -> None:
        async with Client(_params(root)) as c:
            seen["instructions"] = c.instructions
            tools = {t.name: t for t in (await c.list_tools()).tools}
            seen["tools"] = tools
            r = await c.call_tool("remember", {"text": "Alice prefers green tea over coffee in the morning."})
            assert not r.is_error, r.content
            seen["remembered"] = r.structured_content
            again = await c.call_tool("remember", {"fact": "Alice prefers green tea over coffee in the morning."})
            seen["again"] = again.structured_content
            _git(root, "add", "-A")
            _git(root, "commit", "-qm", "remember tea")
            # the wrong argument names models send: q, limit, top_k
            r = await c.call_tool("recall", {"q": "green tea", "limit": 3})
            assert not r.is_error, r.content
            seen["recall"] = r.structured_content
            r = await c.call_tool("recall", {"query": "green tea", "top_k": 1})
            seen["recall_top_k"] = r.structured_content
            seen["why"] = (await c.call_tool("why", {"id": seen["remembered"]["id"]})).structured_content
            res = await c.read_resource("memfs://index.md")
            seen["index"] = res.contents[0].text
            seen["resources"] = [str(x.uri) for x in (await c.list_resources()).resources]
            seen["category"] = (await c.read_resource("memfs://memory/preferences.md")).contents[0].text
            outside = await c.call_tool("read", {"path": "../../etc/passwd"})
            seen["outside"] = (outside.is_error, outside.content[0].text)
            private = await c.call_tool("read", {"path": ".memfs/index.sqlite3"})
            seen["private"] = private.is_error
            r = await c.call_tool("forget", {"id": seen["remembered"]["id"]})
            seen["forget"] = r.structured_content
            seen["after"] = (await c.call_tool("recall", {"query": "green tea"})).structured_content
            seen["why_forgotten"] = (await c.call_tool("why", {"item_id": seen["remembered"]["id"]})
                                     ).structured_content
            bad = await c.call_tool("forget", {"id": "nosuchid"})
            seen["bad_forget"] = (bad.is_error, bad.content[0].text)
            prompt = await c.get_prompt("use-memory", {"question": "what does Alice drink?"})
            seen["prompt"] = prompt.messages[0].content.text

    _run(session)
    tools = seen["tools"]
    assert set(tools) == {"recall", "remember", "ingest", "forget", "why", "recent", "read", "categories", "status"}
    assert tools["forget"].annotations.destructive_hint is True
    assert tools["recall"].annotations.read_only_hint is True
    assert set(tools["recall"].input_schema["properties"]) >= {"query", "k", "types", "categories", "since",
                                                               "until", "as_of"}
    assert tools["recall"].output_schema is not None  # structured results
    assert "recall" in seen["instructions"]
    assert seen["remembered"]["path"] == "memory/preferences.md" and seen["remembered"]["reinforced"] is False
    assert seen["again"]["id"] == seen["remembered"]["id"] and seen["again"]["seen"] == 2
    hit = seen["recall"]["items"][0]
    assert hit["id"] == seen["remembered"]["id"] and hit["text"].startswith("Alice prefers green tea")
    assert set(hit) >= {"id", "text", "when", "category", "path", "line", "source", "score"}
    assert len(seen["recall_top_k"]["items"]) == 1
    assert seen["why"]["found"] and seen["why"]["commits"][0]["subject"] == "remember tea"
    assert "# Index" in seen["index"] and "preferences" in seen["index"].lower()
    assert {"memfs://index.md", "memfs://memory.md", "memfs://skill.md",
            "memfs://memory/preferences.md"} <= set(seen["resources"])
    assert "Alice prefers green tea" in seen["category"]
    assert seen["outside"][0] and "outside the workspace" in seen["outside"][1]
    assert seen["private"]
    assert seen["forget"]["forgotten"] and seen["after"]["items"] == []
    # a forgotten item is still explained from git history
    assert seen["why_forgotten"]["found"] is False and seen["why_forgotten"]["commits"][0]["subject"] == "remember tea"
    assert "Alice prefers green tea" not in (root / "memory" / "preferences.md").read_text()
    assert seen["bad_forget"][0] and "nosuchid" in seen["bad_forget"][1]
    assert "what does Alice drink?" in seen["prompt"] and "recall" in seen["prompt"]


def test_stdio_ingest_recent_time_filters_and_categories(tmp_path: Path) -> None:
    root = init_workspace(tmp_path / "mem", git=False).root
    seen: dict[str, Any] = {}
    conversation = ('{"format": "memfs.conversation/1", "participants": ["Alice", "Bob"], "sessions": [{"id": "S1", '
                    '"time": "2023-05-08T13:56:00", "turns": [{"id": "D1:1", "speaker": "Alice", '
                    '"text": "I adopted a cat called Miso last week."}]}]}')

    async def session() -> None:
        async with Client(_params(root)) as c:
            r = await c.call_tool("ingest", {"content": conversation, "title": "chat with bob"})
            assert not r.is_error, r.content
            seen["ingest"] = r.structured_content
            seen["dup"] = (await c.call_tool("ingest", {"content": conversation, "title": "chat with bob"})
                           ).structured_content
            # a daemon's write burst holds the writer lock: the write waits for it, then goes through
            held = WriterLock(root / ".memfs" / "write.lock", timeout=5, purpose="daemon")
            held.acquire()
            threading.Timer(1.0, held.release).start()
            started = time.monotonic()
            r = await c.call_tool("remember", {"text": "Alice ran the Lisbon marathon.", "when": "2025-10-12"})
            seen["waited"] = (time.monotonic() - started, r.is_error)
            seen["since"] = (await c.call_tool("recall", {"query": "Alice", "since": "2025-01"})).structured_content
            seen["until"] = (await c.call_tool("recall", {"query": "Alice", "until": "2024"})).structured_content
            seen["as_of"] = (await c.call_tool("recall", {"query": "Alice", "as_of": "2024-06-01"})
                             ).structured_content
            seen["types"] = (await c.call_tool("recall", {"query": "Alice", "types": "event"})).structured_content
            bad = await c.call_tool("recall", {"query": "Alice", "since": "last tuesday-ish"})
            seen["bad_since"] = (bad.is_error, bad.content[0].text)
            seen["recent"] = (await c.call_tool("recent", {"since": "1d"})).structured_content
            seen["categories"] = (await c.call_tool("categories", {})).structured_content
            seen["status"] = (await c.call_tool("status", {})).structured_content
            seen["passage"] = (await c.call_tool("why", {"id": seen["ingest"]["added"][0]["id"]})
                               ).structured_content

    _run(session)
    ing = seen["ingest"]
    assert ing["status"] == "processed" and ing["resource"].startswith("resources/")
    assert "chat-with-bob" in ing["resource"]
    assert any("Miso" in it["text"] for it in ing["added"])
    assert seen["dup"]["status"] == "duplicate"
    assert seen["waited"][0] >= 0.9 and seen["waited"][1] is False
    texts = lambda key: [it["text"] for it in seen[key]["items"]]  # noqa: E731
    assert any("marathon" in t for t in texts("since")) and not any("Miso" in t for t in texts("since"))
    assert any("Miso" in t for t in texts("until")) and not any("marathon" in t for t in texts("until"))
    assert any("Miso" in t for t in texts("as_of")) and not any("marathon" in t for t in texts("as_of"))
    assert all(it["type"] == "event" for it in seen["types"]["items"]) and seen["types"]["items"]
    assert seen["bad_since"][0] and "bad time" in seen["bad_since"][1]
    # recent: the ingested item (archived today) and the remembered one (updated today)
    recent = [it["text"] for it in seen["recent"]["items"]]
    assert any("Miso" in t for t in recent) and any("marathon" in t for t in recent)
    cats = {c["path"]: c for c in seen["categories"]["categories"]}
    assert "memory/preferences.md" in cats and sum(c["items"] for c in cats.values()) == 2
    assert seen["status"]["items"] == 2 and seen["status"]["resources"] == 1
    assert "Miso" in seen["passage"]["passage"] and seen["passage"]["source"].endswith("#D1:1")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_streamable_http_on_localhost(tmp_path: Path) -> None:
    root = init_workspace(tmp_path / "mem", git=False).root
    port = _free_port()
    proc = subprocess.Popen([*MEMFS, "mcp", "--dir", str(root), "--http", str(port)],
                            env={**os.environ, **ENV}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.1)
        out: dict[str, Any] = {}

        async def session() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp") as c:
                await c.call_tool("remember", {"text": "The staging database runs PostgreSQL 16 on port 5433."})
                out["recall"] = (await c.call_tool("recall", {"query": "staging database port"})).structured_content

        _run(session)
        assert "5433" in out["recall"]["items"][0]["text"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout:
            proc.stdout.close()
        if proc.stderr:
            proc.stderr.close()


def test_stdout_carries_only_protocol(tmp_path: Path) -> None:
    """A raw JSON-RPC initialize over stdio: every stdout line is JSON (logs go to stderr)."""
    import json

    root = init_workspace(tmp_path / "mem", git=False).root
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "0"}}}
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "recall", "arguments": {"query": "anything"}}}
    stdin = "\n".join(json.dumps(m) for m in (init, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                                               listing)) + "\n"
    proc = subprocess.Popen([*MEMFS, "mcp", "--dir", str(root)], env={**os.environ, **ENV},
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(stdin)
    proc.stdin.flush()
    lines = []
    deadline = time.monotonic() + 30
    while len(lines) < 2 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(json.loads(line))
    proc.stdin.close()
    proc.wait(timeout=10)
    proc.stdout.close()
    if proc.stderr:
        proc.stderr.close()
    assert [m.get("id") for m in lines] == [1, 2]
    assert lines[1]["result"]["structuredContent"] == {"query": "anything", "items": []}


def test_without_the_sdk_memfs_mcp_says_how_to_get_it(ws_path: Path) -> None:
    code = ("import sys; sys.modules['mcp'] = None; sys.argv = ['memfs', 'mcp', '--dir', sys.argv[1]]; "
            "from memfs.cli import main; main()")
    proc = subprocess.run([sys.executable, "-c", code, str(ws_path)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **ENV})
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.strip() == "memfs: error: memfs mcp needs the MCP SDK: pip install 'memfs[mcp]'"
