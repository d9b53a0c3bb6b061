"""The layering of memfs, enforced on the source with `ast` (after basic-memory's test).

    core ← index / readers / extract / providers / llm ← pipeline ← services ← api
         ← cli / daemon / agents (servers)

A module may import (at run time: imports under `if TYPE_CHECKING:` are annotations only)
modules of its own tier or below, never above; there are no runtime import cycles, even
through function-level imports; no module is over 400 lines; SQL (`import sqlite3`,
`.execute(`) lives in the index package; every exception memfs raises derives from
`MemfsError`. Each allow-list below says why its entries are there.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "memfs"

#: Tier of each module, by the longest matching dotted prefix (docs/architecture.md, Layers).
TIERS: dict[str, int] = {
    # 0 core: the data model and what everything else stands on
    "memfs.core": 0, "memfs.errors": 0, "memfs.fsutil": 0, "memfs.writerlock": 0, "memfs.workspace": 0,
    "memfs.config": 0,
    "memfs.llm.config": 0, "memfs.agents.config": 0, "memfs.progress": 0, "memfs.render": 0,
    "memfs.rootwrite": 0, "memfs.redact": 0, "memfs.forgotten": 0, "memfs.warm_client": 0,
    "memfs.sockconnect": 0, "memfs.rootfind": 0, "memfs.walk": 0, "memfs.configsnap": 0,
    # 1 the parts: index, readers, extraction, embedders, the LLM
    "memfs.index": 1, "memfs.readers": 1, "memfs.extract": 1, "memfs.providers": 1, "memfs.llm": 1,
    "memfs.categorize": 1,
    # 2 the pipeline and the writers of files
    "memfs.pipeline": 2, "memfs.store": 2, "memfs.views": 2, "memfs.entry": 2, "memfs.inbox": 2,
    "memfs.gitops": 2, "memfs.history": 2,
    # 3 services (the verbs' implementations)
    "memfs.services": 3, "memfs.forget": 3, "memfs.export": 3,
    # 4 the facade
    "memfs.api": 4,
    # 5 the edges: CLI, daemon, agents' servers, doctor
    "memfs.cli": 5, "memfs.cli_agents": 5, "memfs.cli_upkeep": 5, "memfs.daemon_watch": 5, "memfs.console": 5, "memfs.coldrecall": 5, "memfs.daemon": 5, "memfs.warm": 5,
    "memfs.warm_write": 5, "memfs.addwire": 0,  # `memfs add` over the daemon's socket (addwire: stdlib only)
    "memfs.doctor": 5, "memfs.agents": 5,
}
#: The package itself (`import memfs`) re-exports the facade and `agents.wrap_openai`, lazily.
PACKAGE_TIER = 5

MAX_LINES = 400
#: Over 400 lines, and being split on other branches of issue #11's wave (the owner named).
TOO_LONG_FOR_NOW = {
}

#: Modules outside memfs/index that still run SQL, and why.
SQL_OUTSIDE_INDEX = {
}

#: Exceptions that are control flow inside memfs, never reported: not MemfsError on purpose.
NOT_MEMFS_ERRORS = {
    "Stop": "pipeline.engine: a step ends the run early (a duplicate input)",
    "Unsettled": "fsutil: a file is still being written; the caller waits and retries",
    "IndexDamaged": "index.heal: the cache is damaged; the caller rebuilds it",
    "_FormatRejected": "llm.wire: the server refused a response_format; the client steps down",
    "_Deadline": "llm.wire: the wall-clock deadline of one request passed",
    "Collision": "entry.ranking: a delta cannot place an entry in a kept sorted list; the caller rebuilds it",
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()
SOURCES = {m: p.read_text(encoding="utf-8") for m, p in MODULES.items()}


def tier(module: str) -> int:
    if module == "memfs":
        return PACKAGE_TIER
    parts = module.split(".")
    for n in range(len(parts), 1, -1):
        prefix = ".".join(parts[:n])
        if prefix in TIERS:
            return TIERS[prefix]
    raise AssertionError(f"{module} has no tier: add it to TIERS in tests/test_architecture.py")


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def runtime_imports(module: str, source: str) -> set[str]:
    """memfs modules `module` imports when it runs (module level or inside functions)."""
    is_pkg = MODULES[module].name == "__init__.py"
    found: set[str] = set()

    def target(node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        base = module.split(".") if is_pkg else module.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        return ".".join(base + ([node.module] if node.module else []))

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "memfs")
        elif isinstance(node, ast.ImportFrom):
            name = target(node)
            if name.split(".")[0] == "memfs":
                subs = [f"{name}.{a.name}" for a in node.names if f"{name}.{a.name}" in MODULES]
                found.update(subs or [name])  # `from memfs import forgotten` is memfs.forgotten
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(source))
    return {m for m in found if m in MODULES and m != module}


def import_graph(sources: dict[str, str] | None = None) -> dict[str, set[str]]:
    sources = sources or SOURCES
    return {m: runtime_imports(m, src) for m, src in sources.items()}


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{m} (tier {tier(m)}) imports {d} (tier {tier(d)})"
                  for m, deps in graph.items() for d in deps if tier(d) > tier(m))


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def _package_edges_removed(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Drop edges to a package's own `__init__` from inside it (Python runs it first anyway;
    memfs/__init__ is lazy), so a cycle means two modules that really need each other."""
    return {m: {d for d in deps if not m.startswith(d + ".")} for m, deps in graph.items()}


def test_every_module_has_a_tier() -> None:
    for module in MODULES:
        tier(module)


def test_layers_point_down() -> None:
    assert layer_violations(import_graph()) == []


def test_no_runtime_import_cycles() -> None:
    assert cycles(_package_edges_removed(import_graph())) == []


def test_the_checks_catch_a_violation() -> None:
    """The checks above fail on a deliberate violation (so they cannot pass vacuously)."""
    graph = import_graph()
    graph["memfs.core.model"] = graph["memfs.core.model"] | {"memfs.api"}  # core reaching up
    assert layer_violations(graph) == ["memfs.core.model (tier 0) imports memfs.api (tier 4)"]
    fake = dict(SOURCES)
    fake["memfs.store"] += "\n\ndef _late() -> None:\n    from memfs.pipeline import persist\n"
    assert ["memfs.pipeline.persist", "memfs.store"] in cycles(_package_edges_removed(import_graph(fake)))
    typed = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from memfs.api import Memory\n"
    assert runtime_imports("memfs.core.model", typed) == set()


def test_no_module_over_400_lines() -> None:
    long = {str(p.relative_to(ROOT.parent)): n for p in MODULES.values()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert set(long) - set(TOO_LONG_FOR_NOW) == set(), long
    assert set(TOO_LONG_FOR_NOW) - set(long) == set(), "no longer too long: drop it from TOO_LONG_FOR_NOW"


def _runs_sql(source: str) -> bool:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name == "sqlite3" for a in node.names):
            return True
        if isinstance(node, ast.Attribute) and node.attr in ("execute", "executemany", "executescript"):
            return True
    return False


def test_sql_only_in_the_index_package() -> None:
    offenders = {str(p.relative_to(ROOT.parent)) for m, p in MODULES.items()
                 if not m.startswith("memfs.index") and _runs_sql(p.read_text(encoding="utf-8"))}
    assert offenders - set(SQL_OUTSIDE_INDEX) == set()
    assert set(SQL_OUTSIDE_INDEX) - offenders == set(), "no SQL left there: drop it from SQL_OUTSIDE_INDEX"
    assert _runs_sql("import sqlite3\n") and _runs_sql("db.conn.execute('SELECT 1')\n")


_BUILTIN_ERRORS = {"Exception", "BaseException", "ValueError", "RuntimeError", "OSError", "KeyError", "TypeError"}


def _classes() -> list[tuple[str, str, set[str]]]:
    """(module, class name, base names) of every class memfs defines."""
    out = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                out.append((module, node.name, {b.id if isinstance(b, ast.Name) else
                                                b.attr if isinstance(b, ast.Attribute) else "" for b in node.bases}))
    return out


def test_exceptions_derive_from_memfs_error() -> None:
    """Every exception class memfs defines derives (transitively, by name) from MemfsError."""
    classes = _classes()
    rooted = {"MemfsError"}
    while True:  # a fixed point over the bases: subclasses of subclasses
        more = {name for _, name, bases in classes if bases & rooted} - rooted
        if not more:
            break
        rooted |= more
    stray = sorted(f"{module}.{name}" for module, name, bases in classes
                   if bases & _BUILTIN_ERRORS and name not in rooted and name not in NOT_MEMFS_ERRORS
                   and not (module == "memfs.errors" and name == "MemfsError"))
    assert stray == []


def test_pipeline_does_not_see_the_facade() -> None:
    """The pipeline takes a `PipelineRuntime`, not `memfs.api.Memory` (not even for typing)."""
    for module, path in MODULES.items():
        if module.startswith("memfs.pipeline"):
            assert "memfs.api" not in path.read_text(encoding="utf-8"), module


def test_edges_call_only_the_facade() -> None:
    """CLI, daemon and agents never reach into the index (`.indexer`, `.db.`) or mutate config."""
    for module, path in MODULES.items():
        if tier(module) != 5 or module == "memfs.doctor":
            continue
        text = path.read_text(encoding="utf-8")
        for needle in (".indexer", "indexer.db", ".memorizer", "_spec_vectors", "config.git.autocommit ="):
            assert needle not in text, f"{module} uses {needle}"
