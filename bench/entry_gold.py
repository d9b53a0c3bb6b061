#!/usr/bin/env python3
"""What memory.md shows first, judged against LoCoMo's gold observations (issue #19).

    PYTHONPATH=. python bench/entry_gold.py --data DATA [--keep DIR] [--json OUT]

memory.md is what an agent reads at the start of every conversation, so its lines should
be the facts a careful reader would pick. For each LoCoMo conversation in DATA (each
session ingested in order through `Memory.ingest_file`, the workspace's default config:
the offline extractor and MiniLM, as a user gets it) this reads memory.md's item lines
and, for each, the turn its item cites (its `src=` in the category file), then reports:

- lines: memory.md's item lines, and per label ("Constraint", "Who", "Work" ...);
- gold@0.3 / gold@0.5: the share of those lines whose text reaches token F1 >= 0.3 / 0.5
  with a gold observation of the same turn (LoCoMo's short third-person facts; the F1 of
  bench/llm_local.py: stopwords dropped, crude suffix stemming). Gold is sparse, so this
  is a lower bound on the lines worth reading, but it does not depend on memfs's rules.

`--keep DIR` keeps the workspaces (DIR/ws-<conversation>) to read them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from urllib.parse import unquote

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from llm_local import f1, gold_observations, toks  # noqa: E402

_ENTRY_LINE = re.compile(r"^- (?:(?P<label>[A-Z][\w ,]*): )?(?:\([\d-]+\) )?(?P<text>.*) \[(?P<path>[^\]#]+)#(?P<id>\w+)\]$")


def build(data: Path, out: Path) -> list[tuple[Path, dict]]:  # type: ignore[type-arg]
    from locomo_metric import load_file, session_to_memfs

    from memfs.api import Memory
    from memfs.workspace import init_workspace

    done = []
    for path in sorted(data.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        for conv in load_file(path):
            root = out / f"ws-{path.stem}"
            init_workspace(root, git=False)
            with Memory(root) as mem:
                for s in conv.sessions:
                    f = out / f"{path.stem}-session-{s.number:02d}.json"
                    f.write_text(json.dumps(session_to_memfs(conv, s)), encoding="utf-8")
                    mem.ingest_file(f)
            done.append((root, raw.get("conversation", raw) if isinstance(raw, dict) else raw))
            break  # one conversation a file
    return done


def turn_of_items(root: Path) -> dict[str, str]:
    """{item id: the turn its src cites} over the category files (memfs's own parser)."""
    from memfs.core.categoryfile import parse_category

    out: dict[str, str] = {}
    for kind in ("memory", "index", "skill"):
        for path in sorted((root / kind).rglob("*.md")):
            doc = parse_category(path.read_text(encoding="utf-8", errors="replace"), str(path.relative_to(root)))
            for item in doc.items:
                src = unquote(item.src or "")
                out[item.id] = src.split("#", 1)[1] if "#" in src else ""
    return out


def score(root: Path, raw: dict) -> dict:  # type: ignore[type-arg]
    sessions = {int(m.group(1)) for k in raw if (m := re.fullmatch(r"session_(\d+)", k))}
    gold: dict[str, list[list[str]]] = {}
    for text, ids in gold_observations(raw, sessions):
        for i in ids:
            gold.setdefault(i, []).append(toks(text))
    turns = turn_of_items(root)
    labels: Counter[str] = Counter()
    n = at3 = at5 = 0
    for line in (root / "memory.md").read_text(encoding="utf-8").splitlines():
        m = _ENTRY_LINE.match(re.sub(r" <!--.*?-->", "", line))
        if not m:
            continue
        n += 1
        labels[(m.group("label") or "-").split(",")[0]] += 1
        best = max((f1(toks(m.group("text")), g) for g in gold.get(turns.get(m.group("id"), ""), [])), default=0.0)
        at3 += best >= 0.3
        at5 += best >= 0.5
    return {"lines": n, "gold@0.3": at3, "gold@0.5": at5, "labels": dict(labels)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--keep", type=Path)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as td:
        out = args.keep or Path(td)
        out.mkdir(parents=True, exist_ok=True)
        rows = {root.name: score(root, raw) for root, raw in build(args.data, out)}
    total = {k: sum(r[k] for r in rows.values()) for k in ("lines", "gold@0.3", "gold@0.5")}
    labels: Counter[str] = Counter()
    for r in rows.values():
        labels.update(r["labels"])
    for name, r in rows.items():
        print(f"{name}: {r['lines']} lines, gold@0.3 {r['gold@0.3']}, gold@0.5 {r['gold@0.5']}")
    n = max(total["lines"], 1)
    print(f"total: {total['lines']} memory.md lines; holding a gold fact of their turn: "
          f"{total['gold@0.3'] / n:.3f} at F1 >= 0.3, {total['gold@0.5'] / n:.3f} at F1 >= 0.5")
    print("labels: " + ", ".join(f"{k} {v}" for k, v in labels.most_common()))
    import memfs
    print(f"memfs: {Path(memfs.__file__).parent}")
    if args.json:
        args.json.write_text(json.dumps({"total": total, "labels": dict(labels), "conversations": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
