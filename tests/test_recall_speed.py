"""The recall fast paths: the query-vector cache, blocked exact search, the thin client's
hand-made request and its workspace lookup, and the daemon's rendered answer."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memfs import console, rootfind, warm, workspace
from memfs.index.qcache import CachingEmbedder
from memfs.index.vectors import EXACT_BLOCK, exact_search
from tests.conftest import hashing_memory
from tests.support.cli import env as support_env


class CountingEmbedder:
    name = "counting"
    dim = 8

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, hash(t) % self.dim] = 1.0
        return out


def test_cache_embeds_a_repeated_query_once_and_passes_batches_through() -> None:
    inner = CountingEmbedder()
    cache = CachingEmbedder(inner, size=2)
    a1 = cache.embed(["a"])
    a2 = cache.embed(["a"])
    assert np.array_equal(a1, a2) and inner.calls == [["a"]]
    assert cache.peek("a") is not None and cache.peek("zzz") is None
    with pytest.raises(ValueError):
        a2[0, 0] = 5.0  # shared between callers: read-only
    cache.embed(["x", "y"])  # a batch (ingestion): not cached
    assert inner.calls[-1] == ["x", "y"] and cache.peek("x") is None
    cache.embed(["b"])
    cache.embed(["c"])  # size 2: "a" was least recently used
    assert cache.peek("a") is None and cache.peek("b") is not None
    assert (cache.name, cache.dim) == ("counting", 8)


def test_searcher_does_not_embed_the_same_query_twice(ws_path: Path) -> None:
    mem = hashing_memory(ws_path)
    try:
        mem.add("Alice prefers green tea over coffee in the morning.")
        first = mem.recall("what does Alice drink")
        searcher = mem.runtime.searcher
        assert searcher is not None and isinstance(searcher.embedder, CachingEmbedder)
        misses = searcher.embedder.misses
        again = mem.recall("what does Alice drink")
        assert searcher.embedder.misses == misses and searcher.embedder.hits >= 1
        assert [h.id for h in again] == [h.id for h in first] and "green tea" in first[0].text
    finally:
        mem.close()


@pytest.mark.parametrize("n", [1, EXACT_BLOCK - 1, EXACT_BLOCK, 3 * EXACT_BLOCK + 17])
def test_blocked_exact_search_matches_one_matvec(n: int) -> None:
    rng = np.random.default_rng(n)
    matrix = rng.standard_normal((n, 32)).astype(np.float32)
    labels = np.arange(100, 100 + n, dtype=np.int64)
    q = rng.standard_normal(32).astype(np.float32)
    got = exact_search(q, labels, matrix, 10)
    scores = matrix @ q
    want = [int(labels[i]) for i in np.argsort(-scores, kind="stable")[: min(10, n)]]
    assert [lab for lab, _ in got] == want
    assert np.allclose([s for _, s in got], sorted(scores, reverse=True)[: len(want)], atol=1e-5)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_hand_made_json_string_is_json(text: str) -> None:
    assert json.loads(console.json_string(text)) == text


def test_request_line_is_the_servers_verb_and_lone_surrogates_go_to_the_full_cli() -> None:
    req = json.loads(console.request_line('say "hi"\n\\ Zoë', 3, True))
    assert req == {"verb": warm.RENDER_VERB, "query": 'say "hi"\n\\ Zoë', "k": 3, "format": "json"}
    assert json.loads(console.request_line("x", None, False))["k"] is None
    with pytest.raises(UnicodeEncodeError):
        console.request_line("bad \udcff byte", None, False)


def test_thin_client_names_agree_with_the_packages() -> None:
    assert rootfind.CONFIG_NAME == workspace.CONFIG_NAME
    assert console.RENDER_VERB == warm.RENDER_VERB
    assert console.SOCKET == str(warm.socket_path(Path(".memfs")))


def test_socket_lookup_finds_the_workspace_like_find_workspace(ws_path: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    root = str(ws_path.resolve())
    deep = ws_path / "memory" / "sub"
    deep.mkdir()
    monkeypatch.chdir(deep)
    assert rootfind.workspace_root(None) == root
    monkeypatch.chdir(tmp_path)
    assert rootfind.workspace_root(None) is None
    assert rootfind.workspace_root(str(ws_path)) == root
    assert rootfind.workspace_root(str(tmp_path)) is None  # not a workspace: the full CLI says so
    monkeypatch.setenv("MEMFS_DIR", str(ws_path))
    assert rootfind.workspace_root(None) == root


def _one_shot_server(path: Path, reply: bytes) -> threading.Thread:
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(path))
    srv.listen(1)

    def serve() -> None:
        conn, _ = srv.accept()
        conn.recv(65536)
        conn.sendall(reply)
        conn.close()
        srv.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    return t


def test_ask_returns_the_text_or_none_on_an_error_line(tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    t = _one_shot_server(path, b"ok\n## Memory recall: x\n\n_No matching memory._\n")
    assert console.ask(str(path), b"{}\n") == "## Memory recall: x\n\n_No matching memory._\n"
    t.join(5)
    path.unlink()
    t = _one_shot_server(path, b"error: ValueError: boom\n")
    assert console.ask(str(path), b"{}\n") is None
    t.join(5)
    assert console.ask(str(tmp_path / "nobody.sock"), b"{}\n") is None


def test_rendered_answer_is_what_the_cli_prints(ws_path: Path) -> None:
    mem = hashing_memory(ws_path)
    try:
        mem.add('Zoë said "tea, not coffee" on 2024-03-02.')
        server = type("S", (), {})()
        server.memory, server.embedder, server.lock = mem, CachingEmbedder(mem.embedder), threading.Lock()
        line = console.request_line("what does Zoë drink", 2, True)
        out = warm._answer(server, line)
        assert out.startswith(b"ok\n")
        rows = [h.model_dump() for h in mem.recall("what does Zoë drink", k=2)]
        assert out[3:].decode() == json.dumps(rows, ensure_ascii=False, indent=2) + "\n"
        md = warm._answer(server, console.request_line("what does Zoë drink", 2, False))[3:].decode()
        from memfs.render import render_recall_markdown

        assert md == render_recall_markdown("what does Zoë drink", rows) + "\n"
        assert warm._answer(server, b"not json\n").startswith(b'{"ok": false')
        bad = warm._answer(server, b'{"verb": "recall-rendered", "query": "x", "format": "xml"}\n')
        assert bad.startswith(b"error: ValueError")
    finally:
        mem.close()


def test_thin_client_imports_nothing_heavy(ws_path: Path) -> None:
    """What `memfs.console` costs before and while it asks the socket: no json, pathlib,
    socket.py, typing or memfs.workspace (each a few ms on every warm recall)."""
    (ws_path / ".memfs").mkdir(exist_ok=True)
    t = _one_shot_server(ws_path / ".memfs" / "daemon.sock", b"ok\nrendered answer\n")
    probe = ("import sys; before = set(sys.modules); import memfs.console as c\n"
             "assert c._quick(['recall', 'tea'])\n"
             "print(' '.join(sorted(set(sys.modules) - before - {'_socket'})))")
    env = support_env(embedder=None)
    out = subprocess.run([sys.executable, "-c", probe], cwd=ws_path, env=env, capture_output=True, text=True,
                         timeout=30)
    t.join(5)
    assert out.returncode == 0, out.stderr
    answer, modules = out.stdout.split("\n", 1)
    assert answer == "rendered answer"
    assert set(modules.split()) <= {"__future__", "memfs", "memfs.console", "memfs.rootfind", "memfs.sockconnect"}, modules


def test_cold_path_answers_exactly_what_memory_recall_answers(ws_path: Path) -> None:
    from memfs import coldrecall
    from memfs.api import RecallHit

    assert coldrecall.HIT_FIELDS == tuple(RecallHit.model_fields)
    mem = hashing_memory(ws_path)
    try:
        for text in ("Alice prefers green tea over coffee in the morning.", "Bob drinks espresso after lunch.",
                     "On 2024-05-01 Alice moved to Lisbon."):
            mem.add(text)
        want = [h.model_dump() for h in mem.recall("what does Alice drink", k=2)]
    finally:
        mem.close()
    os.environ["MEMFS_EMBEDDER_PROVIDER"] = "hashing"  # what hashing_memory's config says (autouse fixture cleans)
    assert coldrecall.rows(str(ws_path), "what does Alice drink", 2) == want
    assert coldrecall.answer(str(ws_path), "what does Alice drink", 2, True) == \
        json.dumps(want, ensure_ascii=False, indent=2) + "\n"


def test_cold_path_steps_aside_when_a_sync_is_needed(tmp_path: Path) -> None:
    from memfs import coldrecall

    root = workspace.init_workspace(tmp_path / "fresh", git=False).root
    (root / ".memfs" / "index.sqlite3").unlink(missing_ok=True)
    assert coldrecall.rows(str(root), "tea", None) is None
    assert coldrecall.rows(str(tmp_path / "nowhere"), "tea", None) is None


def test_warm_server_answers_many_concurrent_clients(ws_path: Path) -> None:
    """Sixteen clients at once (more than socketserver's default listen queue of 5): every
    one gets the answer the full CLI would print, none falls back."""
    from concurrent.futures import ThreadPoolExecutor

    mem = hashing_memory(ws_path)
    server = None
    try:
        for text in ("Alice prefers green tea over coffee in the morning.", "Bob drinks espresso after lunch."):
            mem.add(text)
        server = warm.WarmServer(mem)
        server.start()
        sock = str(warm.socket_path(mem.ws.state))
        queries = [f"what does {name} drink {i}" for i in range(4) for name in ("Alice", "Bob", "Carol", "Dan")]

        def one(q: str) -> str | None:
            return console.ask(sock, console.request_line(q, 3, True))

        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(one, queries * 3))
        want = {q: json.dumps([h.model_dump() for h in mem.recall(q, k=3)], ensure_ascii=False, indent=2) + "\n"
                for q in queries}
        assert answers == [want[q] for q in queries * 3]
    finally:
        if server is not None:
            server.stop()
        mem.close()


def test_vector_copy_refreshed_by_difference_equals_a_full_reload(ws_path: Path) -> None:
    """New, changed and removed items and ones without a vector: after every change the
    copy is exactly `labeled_vectors()`, and unchanged blobs are not read again."""
    from memfs.index.db import IndexDB
    from memfs.index.vcache import VectorCopy

    mem = hashing_memory(ws_path)
    try:
        for i in range(30):
            mem.add(f"Person {i} keeps a garden of {i} roses.")
        db = IndexDB(ws_path / ".memfs" / "index.sqlite3", readonly=True)
        copy = VectorCopy()

        def check() -> None:
            with db.snapshot():
                copy.refresh(db)
                labels, matrix = db.labeled_vectors()
            order = np.argsort(labels)
            assert np.array_equal(copy.labels, labels[order]) and np.array_equal(copy.matrix, matrix[order])

        check()
        reads: list[int] = []
        real = db.cached_vectors
        db.cached_vectors = lambda hashes: reads.append(len(hashes)) or real(hashes)  # type: ignore[method-assign]
        check()
        assert reads == []  # nothing changed: no blob read
        mem.add("Somebody new likes tulips.")
        rows = mem.indexer.db.all_items()
        mem.forget(rows[0].id)
        check()
        assert reads and sum(reads) <= 2
        with mem.indexer.db.transaction() as c:  # an item whose vector is not stored yet is left out
            c.execute("INSERT INTO items(id, path, category, kind, type, text, seen, text_hash) "
                      "VALUES('late', 'index/a.md', 'a', 'index', 'fact', 'late', 1, 'no-vector-yet')")
        check()
        with mem.indexer.db.transaction():  # ... until its vector arrives
            mem.indexer.db.store_vectors([("no-vector-yet", np.ones(mem.embedder.dim, dtype=np.float32))])
        check()
        with mem.indexer.db.transaction() as c:  # another embedder (sync's _embedder_changed): none kept
            c.execute("DELETE FROM embeddings")
            mem.indexer.db.set_meta("embedder", "another")
        check()
        assert len(copy.labels) == 0
        db.close()
    finally:
        mem.close()
