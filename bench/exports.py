"""Chat-export benchmark: one export file against the same conversations as separate files,
and a grown re-export with and without "replays reinforce nothing".

    .venv/bin/python bench/exports.py [--conversations 100] [--messages 20] [--grown 10] [--embedder hashing]

1. A synthetic ChatGPT ``conversations.json`` (N conversations of M messages, each user
   message a distinct fact) is ingested as one file. Baseline, same run: the same
   conversations as N ``memfs.conversation/1`` files ingested one after another.
2. A newer export in which G conversations grew by one exchange is ingested. Baseline,
   same run: the same grown export with the replay filter switched off (what memfs did
   before: every earlier message extracted again and reinforced).
3. ``rm -rf .memfs``: the first ingest afterwards rebuilds the ledger of memorized
   messages from resources/; its cost is timed against ``sync --rebuild`` of the same
   workspace.

Last run (2026-12-01, hashing embedder, 60 conversations x 20 messages, 10 grown; the
2-core machine at load average ~16, so read the ratios, not the seconds):

| what | figure | baseline (same run) |
|---|---|---|
| one export file, 60 conversations -> 545 items | 35.4 s | 60 separate files: 40.8 s |
| the grown re-export (10 conversations +1 exchange) | 4.7 s; +7 added, 3 reinforced, seen +10; 200 messages skipped | replay filter off: 14.2 s; 103 reinforced, seen +110 |
| ledger rebuilt after rm -rf .memfs (60 resources, 1,420 messages) | 0.23 s | sync --rebuild: 1.26 s |
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from memfs.api import Memory  # noqa: E402
from memfs.config import load_config  # noqa: E402
from memfs.workspace import init_workspace  # noqa: E402

import random  # noqa: E402

PEOPLE = ["Ana", "Ben", "Chloe", "Dev", "Emma", "Farid", "Gita", "Hugo", "Ines", "Jon", "Kai", "Lena", "Mateo",
          "Nora", "Omar", "Pia", "Quinn", "Rosa", "Sven", "Tara", "Umar", "Vera", "Wim", "Xia", "Yusuf", "Zoe"]
NOUNS = ("bicycle boat piano garden telescope bakery studio beehive camera kayak violin tent drone loom kiln "
         "aquarium greenhouse motorbike canoe harp typewriter sewing-machine chessboard easel microscope "
         "trampoline hammock lathe accordion skateboard").split()
PLACES = ("Lisbon Porto Madrid Berlin Oslo Lyon Turin Ghent Cork Bergen Krakow Seville Tallinn Bologna Split "
          "Graz Aarhus Leeds Nantes Utrecht Bilbao Cluj Riga Zadar Brno").split()
TEMPLATES = [
    "My friend {p} bought a {n} in {c} in {y}.",
    "I started learning to repair a {n} with {p} last spring.",
    "{p} and I are planning a trip to {c} for the {n} festival.",
    "My sister {p} works at a {n} shop near {c}.",
    "I sold my old {n} to {p} before moving to {c}.",
    "Every Sunday I visit {p} in {c} to talk about the {n}.",
    "I am allergic to the varnish on the {n} {p} gave me.",
    "{p} taught me to photograph the harbour of {c} in {y}.",
]


def _fact(c: int, m: int) -> str:
    rnd = random.Random(c * 1000 + m)
    return rnd.choice(TEMPLATES).format(p=rnd.choice(PEOPLE), n=rnd.choice(NOUNS), c=rnd.choice(PLACES),
                                        y=rnd.randint(1990, 2024))


def _conversation(c: int, messages: int, extra: int = 0) -> dict:
    t0 = 1_700_000_000 + c * 86_400
    mapping: dict[str, dict] = {"root": {"id": "root", "parent": None, "children": [], "message": None}}
    parent = "root"
    for m in range(messages + 2 * extra):
        node = f"c{c}-m{m}"
        role = "user" if m % 2 == 0 else "assistant"
        text = _fact(c, m) if role == "user" else "That sounds lovely, tell me more."
        mapping[node] = {"id": node, "parent": parent, "children": [], "message": {
            "id": node, "author": {"role": role}, "create_time": t0 + 60 * m,
            "content": {"content_type": "text", "parts": [text]}, "metadata": {}, "recipient": "all"}}
        mapping[parent]["children"].append(node)
        parent = node
    return {"title": f"Chat {c}", "create_time": t0, "update_time": t0 + 60 * (messages + 2 * extra),
            "mapping": mapping, "current_node": parent, "id": f"conv-{c}"}


def _memory(root: Path, embedder: str, warm: bool = False) -> Memory:
    """A Memory with its embedder loaded; ``warm``: one small input ingested first, so the
    clock does not measure first-use costs (imports, category vectors, the index)."""
    mem = Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": embedder}))
    mem.embedder.embed(["warm up"])
    if warm:
        note = root / "inbox" / "warm-up.md"
        note.write_text("# Warm up\n\nThe warm-up note mentions a quiet harbour town.\n")
        mem.ingest_file(note)
    return mem


def _seen_total(mem: Memory) -> int:
    return sum(r.seen for r in mem.indexer.db.all_items())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--conversations", type=int, default=100)
    ap.add_argument("--messages", type=int, default=20)
    ap.add_argument("--grown", type=int, default=10)
    ap.add_argument("--embedder", default="hashing")
    args = ap.parse_args()
    n, m, g = args.conversations, args.messages, args.grown
    tmp = Path(tempfile.mkdtemp(prefix="memfs-bench-exports-"))
    export = [_conversation(c, m) for c in range(n)]
    grown = [_conversation(c, m, extra=1 if c < g else 0) for c in range(n)]
    out: dict[str, object] = {"conversations": n, "messages_each": m, "grown": g, "embedder": args.embedder}

    # 1. One export file vs the same conversations as separate files.
    root = init_workspace(tmp / "export", git=False).root
    mem = _memory(root, args.embedder, warm=True)
    (root / "inbox" / "conversations.json").write_text(json.dumps(export))
    t0 = time.perf_counter()
    first = mem.ingest_file(root / "inbox" / "conversations.json")
    out["export_seconds"] = round(time.perf_counter() - t0, 2)
    out["export_items"] = len(first.added)
    base = init_workspace(tmp / "separate", git=False).root
    bmem = _memory(base, args.embedder, warm=True)
    from memfs.readers.unpack import unpack

    parts = unpack(json.dumps(export).encode(), max_bytes=20_000_000, max_export_bytes=500_000_000)
    assert parts is not None
    for i, part in enumerate(parts.parts):
        (base / "inbox" / f"c{i}.json").write_bytes(part.data)
    t0 = time.perf_counter()
    items = sum(len(bmem.ingest_file(base / "inbox" / f"c{i}.json").added) for i in range(len(parts.parts)))
    out["separate_files_seconds"] = round(time.perf_counter() - t0, 2)
    out["separate_files_items"] = items
    bmem.close()

    # 2. The grown export, with and without the replay filter (a copy of the workspace each).
    mem.close()
    off_root = tmp / "export-no-filter"
    shutil.copytree(root, off_root)
    for target, label in ((root, "grown"), (off_root, "grown_without_filter")):
        gm = _memory(target, args.embedder)
        if label == "grown_without_filter":
            gm.memorizer.ledger.split = lambda source, resource: (source, [], 0)  # type: ignore[method-assign]
        seen0 = _seen_total(gm)
        (target / "inbox" / "conversations.json").write_text(json.dumps(grown))
        t0 = time.perf_counter()
        r = gm.ingest_file(target / "inbox" / "conversations.json")
        out[f"{label}_seconds"] = round(time.perf_counter() - t0, 2)
        out[f"{label}_added"] = len(r.added)
        out[f"{label}_reinforced"] = len(r.reinforced)
        out[f"{label}_seen_increase"] = _seen_total(gm) - seen0
        out[f"{label}_replayed_messages"] = r.replayed
        gm.close()

    # 3. rm -rf .memfs: sync --rebuild, then the ledger rebuilt by the next ingest.
    shutil.rmtree(root / ".memfs")
    rm = _memory(root, args.embedder)
    t0 = time.perf_counter()
    rm.sync(rebuild=True)
    out["sync_rebuild_seconds"] = round(time.perf_counter() - t0, 2)
    t0 = time.perf_counter()
    rm.memorizer.ledger._prepare()
    out["ledger_rebuild_seconds"] = round(time.perf_counter() - t0, 3)
    out["ledger_messages"] = rm.indexer.db.conn.execute("SELECT count(*) FROM replay_messages").fetchone()[0]
    rm.close()
    shutil.rmtree(tmp)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
