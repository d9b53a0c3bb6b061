"""`memfs mcp`: the workspace as an MCP server (stdio, or streamable HTTP on 127.0.0.1).

Built on the official `mcp` SDK, v2 (`mcp.server.mcpserver.MCPServer`, which v1 called
FastMCP); pinned `mcp>=2.3,<3` in the `memfs[mcp]` extra. The tools are `AgentTools`'
verbs; arguments accept the names models commonly send instead (`q`, `limit`, `top_k`…).
Resources are the three root files and every category file (listed fresh each time, so a
category created after start-up is there). Logging goes to stderr only: stdout is the wire.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AliasChoices, BeforeValidator, Field

from memfs.agents.tools import AgentMemory, AgentTools, CategoriesOut, ForgetOut, IngestOut, ReadOut, RecallOut, \
    RecentOut, RememberOut
from memfs.agents.why import Why
from memfs.api import Status
from memfs.core.model import KINDS
from memfs.errors import MemfsError

try:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError, ToolError
    from mcp.server.mcpserver.resources import FunctionResource
    from mcp.types import ToolAnnotations
except ImportError as err:  # pragma: no cover - exercised only without the extra
    raise MemfsError("memfs mcp needs the MCP SDK: pip install 'memfs[mcp]'") from err

INSTRUCTIONS = """\
This server is the user's long-term memory (memfs): dated facts about the user, the people \
they know, their projects and their habits, each with an id and a source.
- Before answering anything about the user, their people, their preferences, their past or \
their projects, call `recall` with a short query; cite the ids you rely on.
- When the user tells you a durable fact about themselves (a preference, an event, a decision), \
call `remember` with one self-contained sentence in the third person ("Alice moved to Lisbon in 2026-03.").
- `memfs://index.md` maps every category; `read` any file it links. `why` shows where a fact \
came from. `forget` deletes a fact (ask the user first).
- Dates: `recall` takes since/until/as_of (7d, 2w, 3m, 1y or YYYY[-MM[-DD]])."""

USE_MEMORY = """\
You have a long-term memory through the memfs tools. Before you answer:
1. Call `recall` with the key words of the question (and since/until if it is about a time).
2. Base your answer on the recalled facts; mention their ids. If nothing relevant comes back, say so \
instead of guessing.
3. If the user states a new durable fact about themselves, call `remember` with it as one sentence.
{question}"""


def _as_list(value: Any) -> Any:
    """Models often send one string where a list is expected ("types": "event")."""
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return value


StrList = Annotated[list[str] | None, BeforeValidator(_as_list)]


def build_server(memory: AgentMemory) -> "MCPServer[Any]":
    """An MCPServer wired to one workspace (not started)."""
    tools = _Clean(AgentTools(memory))
    server = _MemfsServer(tools, name="memfs", title="memfs memory", instructions=INSTRUCTIONS,
                          version=_version(), log_level="WARNING", warn_on_duplicate_resources=False)
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                open_world_hint=False)
    writes = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                             open_world_hint=False)

    @server.tool(description="Search long-term memory (hybrid BM25 + vectors, weighted by reinforcement and "
                 "recency). Call this before answering anything about the user, their people, preferences, "
                 "past or projects. Returns items best first, each with id, text, when, category, file path, "
                 "line, source and score.", annotations=read_only)
    def recall(
        query: Annotated[str, Field(description="What to look for, in a few words.",
                                    validation_alias=AliasChoices("query", "q", "question", "text"))],
        k: Annotated[int, Field(description="How many items (1-100).",
                                validation_alias=AliasChoices("k", "limit", "top_k", "n"))] = 8,
        types: Annotated[StrList, Field(description="Only these types: profile, event, knowledge, behavior, "
                                        "skill, tool.", validation_alias=AliasChoices("types", "type"))] = None,
        categories: Annotated[StrList, Field(description="Only these categories (names as in index.md).",
                                             validation_alias=AliasChoices("categories", "category"))] = None,
        since: Annotated[str | None, Field(description="Only items dated on or after this: 7d, 2w, 3m, 1y or "
                                           "YYYY[-MM[-DD]].")] = None,
        until: Annotated[str | None, Field(description="Only items dated on or before this.")] = None,
        as_of: Annotated[str | None, Field(description="What held at this date (drops later items).",
                                           validation_alias=AliasChoices("as_of", "asof", "at"))] = None,
    ) -> RecallOut:
        return tools.recall(query, k=k, types=types, categories=categories, since=since, until=until, as_of=as_of)

    @server.tool(description="Store one durable fact in long-term memory. Write it as one self-contained "
                 "sentence in the third person with names and absolute dates. A fact already known is "
                 "reinforced (its seen count goes up) instead of duplicated. Returns the stored item.",
                 annotations=writes)
    def remember(
        text: Annotated[str, Field(description="The fact, e.g. 'Alice prefers green tea over coffee.'",
                                   validation_alias=AliasChoices("text", "fact", "content", "memory"))],
        category: Annotated[str | None, Field(description="Category name (see categories), or kind/name; "
                                              "chosen automatically if omitted.")] = None,
        type: Annotated[str | None, Field(description="profile, event, knowledge, behavior, skill or tool; "
                                          "guessed if omitted.")] = None,
        when: Annotated[str | None, Field(description="When it happened: YYYY, YYYY-MM or YYYY-MM-DD.",
                                          validation_alias=AliasChoices("when", "date"))] = None,
    ) -> RememberOut:
        return tools.remember(text, category=category, type=type, when=when)

    @server.tool(description="Memorize a whole document or conversation (Markdown, plain text, a JSON "
                 "message list or memfs.conversation/1), as if dropped into inbox/: facts are extracted, "
                 "deduplicated and filed. Returns what was added, reinforced and superseded.", annotations=writes)
    def ingest(
        content: Annotated[str, Field(description="The document or conversation itself.",
                                      validation_alias=AliasChoices("content", "text", "document"))],
        format: Annotated[str, Field(description="auto, markdown, text, json, jsonl or conversation.")] = "auto",
        title: Annotated[str | None, Field(description="A title (names the archived copy).")] = None,
    ) -> IngestOut:
        return tools.ingest(content, format=format, title=title)

    @server.tool(description="Delete one item from memory by id (its line leaves the Markdown; git history "
                 "keeps it). Destructive: ask the user first.",
                 annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True,
                                             open_world_hint=False))
    def forget(id: Annotated[str, Field(description="The item's id, from recall.",
                                        validation_alias=AliasChoices("id", "item_id", "memory_id"))]) -> ForgetOut:
        return tools.forget(id)

    @server.tool(description="Explain one item: its text and file, the source passage it was distilled from, "
                 "and the git commits that touched it.", annotations=read_only)
    def why(id: Annotated[str, Field(description="The item's id, from recall.",
                                     validation_alias=AliasChoices("id", "item_id", "memory_id"))]) -> Why:
        return tools.why(id)

    @server.tool(description="Items added or reinforced recently, newest first.", annotations=read_only)
    def recent(
        since: Annotated[str, Field(description="7d, 2w, 3m, 1y or YYYY[-MM[-DD]].")] = "7d",
        limit: Annotated[int, Field(description="At most this many items (1-500).",
                                    validation_alias=AliasChoices("limit", "k", "top_k", "n"))] = 50,
    ) -> RecentOut:
        return tools.recent(since=since, limit=limit)

    @server.tool(description="Read one file of the memory folder, e.g. index.md, memory.md, "
                 "memory/preferences.md or a resources/ file. Never reads outside the folder.",
                 annotations=read_only)
    def read(path: Annotated[str, Field(description="Path relative to the memory folder (or memfs://...).",
                                        validation_alias=AliasChoices("path", "file", "uri", "name"))]) -> ReadOut:
        return tools.read(path)

    @server.tool(description="Every category with its kind, title, description, summary and item count.",
                 annotations=read_only)
    def categories() -> CategoriesOut:
        return tools.categories()

    @server.tool(description="Counts (items, categories, resources), inbox queue, failures and the embedder.",
                 annotations=read_only)
    def status() -> Status:
        return tools.status()

    for name, what in (("index.md", "The map: every category with its summary and item count. Read first."),
                       ("memory.md", "The most salient facts about the user and their people."),
                       ("skill.md", "Procedures and tool habits.")):
        server.add_resource(FunctionResource(uri=f"memfs://{name}", name=name, description=what,
                                             mime_type="text/markdown", fn=_reader(tools, name)))

    @server.resource("memfs://{kind}/{name}", name="category", mime_type="text/markdown",
                     description="A category file: memfs://memory/<name>.md, memfs://index/<name>.md or "
                     "memfs://skill/<name>.md.")
    def category_file(kind: str, name: str) -> str:
        if kind not in KINDS:
            raise ResourceError(f"unknown kind {kind!r}: memory, index or skill")
        try:
            return tools.inner.read(f"{kind}/{name}").text
        except MemfsError as err:
            raise ResourceError(str(err)) from None

    @server.prompt("use-memory", description="Answer with the user's long-term memory: recall first, cite ids.")
    def use_memory(question: str | None = None) -> str:
        return USE_MEMORY.format(question=f"\nThe question: {question}" if question else "")

    return server


class _Clean:
    """AgentTools whose user-fixable errors reach the model as one line (ToolError), not a crash."""

    def __init__(self, tools: AgentTools) -> None:
        self.inner = tools
        self.memory = tools.memory

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self.inner, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except MemfsError as err:
                raise ToolError(str(err)) from None

        return call


def _reader(tools: Any, rel: str):  # type: ignore[no-untyped-def]
    def read() -> str:
        try:
            return tools.inner.read(rel).text
        except MemfsError as err:
            raise ResourceError(str(err)) from None

    return read


class _MemfsServer(MCPServer):  # type: ignore[type-arg]
    """Lists the category files fresh on every resources/list (categories come and go)."""

    def __init__(self, tools: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._memfs_tools = tools

    async def list_resources(self):  # type: ignore[no-untyped-def]
        import anyio.to_thread
        from mcp.types import Resource as MCPResource

        listed = await super().list_resources()
        rels = await anyio.to_thread.run_sync(self._memfs_tools.memory.ws.category_rels)
        for rel in rels:
            listed.append(MCPResource(uri=f"memfs://{rel}", name=rel, mime_type="text/markdown",
                                      description=f"Category file {rel}"))
        return listed


def _version() -> str:
    from memfs import __version__

    return __version__


def serve(memory: AgentMemory, http_port: int | None = None, host: str = "127.0.0.1") -> None:
    """Run until the client hangs up (stdio) or SIGINT (HTTP)."""
    import threading

    server = build_server(memory)
    threading.Thread(target=server._memfs_tools.inner.warm_up, daemon=True, name="memfs-warm-up").start()
    if http_port is None:
        server.run("stdio")
    else:
        server.run("streamable-http", host=host, port=http_port)
