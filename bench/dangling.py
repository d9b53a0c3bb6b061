#!/usr/bin/env python3
"""Lines that open on a pointer at nothing: "It taught Caroline self-acceptance."

    PYTHONPATH=. python bench/dangling.py WORKSPACE...            # any memfs folder(s)
    PYTHONPATH=. python bench/dangling.py --locomo DATA [--keep DIR]  # ingest each LoCoMo conversation
    PYTHONPATH=. python bench/dangling.py --inputs FILE...         # ingest files into one workspace
    PYTHONPATH=. python bench/dangling.py --truth                  # the messages of bench/truth/*.jsonl
    add --show to print every dangling line, --json OUT for the figures.

A stored line is read alone (an agent `cat`s it, recall returns it), so one whose first
word points back at something said before it ("It", "They", "That", "There", "He",
"This", "Those", "His") says nothing, or says something false once the reader guesses.
The counter is independent of the extractor (its own plain rules, broader than the
extractor's), so a fix cannot pass by agreeing with itself:

- the item text is read as stored; a leading "Name: " or "Heading: " (at most four words
  before the colon) is skipped, since it names who said the line, not what "it" is;
- the line dangles when its first word is a personal, possessive or demonstrative pronoun,
  "there" or "here" — except a dummy subject that points forward, not back: existential
  "there is/are/was ...", "It's great to/that/how ...", "It's been two years since ...".
- "this/that/these/those + noun" (a demonstrative determiner) counts too, reported apart
  as `determiner`: "That roadtrip was insane" does not say which roadtrip either;
- "Here's a pic of ..." is the chat's own "here" (a photo shown) and is reported apart as
  `here`: it says what was shown, if not by whom.
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

ITEM = re.compile(r"^\s{0,3}[-*+] (.*?)\s*<!--(.*?)-->\s*$")
PREFIX = re.compile(r"^(?:[\w'&.-]+ ){0,3}[\w'&.-]+: (?=\S)")
PRONOUNS = frozenset("""it it's its they they're they've they'll they'd them their theirs he he's he'd
he'll she she's she'd she'll him his her hers there there's here here's""".split())
DEMONSTRATIVES = frozenset("this that these those that's this's".split())
_COPULA = r"(?:'s|\s+is|\s+was|\s+will be|\s+would be|\s+can be|\s+could be|\s+must be|\s+must have been|" \
          r"\s+has been|'s been|\s+had been|\s+feels|\s+felt|\s+seems|\s+seemed)"
EXISTENTIAL = re.compile(
    r"^there(?:'s|\s+(?:is|are|was|were|isn't|aren't|wasn't|weren't|will|would|has|have|had|must|might|"
    r"could|can|should|seems?|seemed|used|may|appears?|remains?|exists?))\b", re.I)
DUMMY_IT = re.compile(
    rf"^it{_COPULA}\s+(?:not\s+)?(?:(?:so|really|very|pretty|super|quite|too|always|never|also|just|such|"
    rf"a bit|kind of|incredibly|absolutely|totally)\s+)*[a-z-]+\s+(?:(?:for|to)\s+\w+\s+)?"
    rf"(?:to\s+[a-z]|that\b|how\b|when\b|if\b|whether\b|what\b|seeing\b|being\b|knowing\b|having\b|"
    rf"getting\b|watching\b|hearing\b|working\b|doing\b|going\b|stepping\b|(?:i|we|you|he|she|they)\s)|"
    rf"^it(?:'s|\s+has)?\s+been\s+(?:\w+\s+){{0,3}}(?:years?|months?|weeks?|days?|ages|a while|forever|"
    rf"a long time)\b.*\bsince\b|^it\s+(?:takes|took)\s+.*\bto\s+[a-z]", re.I)
WORD = re.compile(r"[A-Za-z][A-Za-z']*")


def opener(text: str) -> tuple[str, str] | None:
    """(first word, kind) when `text` opens on a pointer at nothing; kind is "pronoun" or
    "determiner". None when the line reads on its own."""
    body = PREFIX.sub("", text.strip().lstrip('"\u201c*_ '), count=1).lstrip('"\u201c*_ ')
    m = WORD.match(body)
    if m is None:
        return None
    first = m.group(0).lower().replace("\u2019", "'")
    if first in ("here", "here's"):
        return first, "here"  # "Here's a pic of ...": the chat's own here, counted apart
    if first in PRONOUNS:
        if EXISTENTIAL.match(body) or DUMMY_IT.match(body):
            return None
        return first, "pronoun"
    if first in DEMONSTRATIVES:
        nxt = WORD.match(body[m.end():].lstrip())
        word2 = nxt.group(0).lower() if nxt else ""
        pronoun = first.endswith("'s") or word2 in ("is", "was", "are", "were", "has", "had", "will", "would",
                                                    "can", "could", "made", "makes", "means", "meant", "sounds",
                                                    "looks", "really", "must", "", "one", "ones", "all", "too") \
            or (first in ("that", "this") and re.fullmatch(r"[a-z]+[^su]s", word2) is not None)  # "That saves"
        return first, "pronoun" if pronoun else "determiner"
    return None


def items(root: Path) -> list[tuple[str, str, str]]:
    """(text, src, file) of every item line under memory/, index/, skill/."""
    out = []
    for kind in ("memory", "index", "skill"):
        for path in sorted((root / kind).rglob("*.md")):
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                m = ITEM.match(line)
                if m:
                    meta = dict(p.partition("=")[::2] for p in m.group(2).split() if "=" in p)
                    out.append((m.group(1), unquote(meta.get("src", "")), str(path.relative_to(root))))
    return out


def count(root: Path) -> dict:
    rows = items(root)
    found = [(t, s, f, *o) for t, s, f in rows if (o := opener(t)) is not None]
    return {"folder": str(root), "items": len(rows),
            "dangling": sum(1 for *_, k in found if k == "pronoun"),
            "determiner": sum(1 for *_, k in found if k == "determiner"),
            "here": sum(1 for *_, k in found if k == "here"),
            "by_word": dict(Counter(w for *_, w, k in found if k == "pronoun").most_common()),
            "lines": [{"text": t, "src": s, "file": f, "word": w, "kind": k} for t, s, f, w, k in found]}


def _workspace(root: Path):  # type: ignore[no-untyped-def]
    from memfs.api import Memory
    from memfs.config import load_config
    from memfs.workspace import init_workspace

    init_workspace(root, git=False)
    return Memory(root, config=load_config(root, environ={"MEMFS_EMBEDDER_PROVIDER": "hashing"}))


def build_locomo(data: Path, out: Path) -> list[Path]:
    from locomo_metric import load_file, session_to_memfs

    roots = []
    for path in sorted(data.glob("*.json")):
        for conv in load_file(path):
            root = out / f"ws-{path.stem}"
            with _workspace(root) as mem:
                for s in conv.sessions:
                    f = out / f"{path.stem}-session-{s.number:02d}.json"
                    f.write_text(json.dumps(session_to_memfs(conv, s)), encoding="utf-8")
                    mem.ingest_file(f)
            roots.append(root)
    return roots


def build_inputs(files: list[Path], out: Path) -> Path:
    root = out / "ws-inputs"
    with _workspace(root) as mem:
        for f in files:
            mem.ingest_file(f)
    return root


def truth_files(out: Path) -> list[Path]:
    """Each message of bench/truth/*.jsonl as a one-message chat file."""
    files = []
    for n, path in enumerate(sorted((HERE / "truth").glob("*.jsonl"))):
        for i, line in enumerate(l for l in path.read_text().splitlines() if l.strip()):
            row = json.loads(line)
            for j, text in enumerate(row.get(k) for k in ("text", "old", "new")):
                if text:
                    f = out / f"truth-{n}-{i}-{j}.json"
                    f.write_text(json.dumps([{"role": "user", "name": row.get("speaker", "Robin"), "content": text,
                                              "timestamp": (row.get("said") or "2026-10-05") + "T10:00:00"}]))
                    files.append(f)
    return files


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="*", type=Path)
    ap.add_argument("--locomo", type=Path)
    ap.add_argument("--inputs", nargs="+", type=Path)
    ap.add_argument("--truth", action="store_true")
    ap.add_argument("--keep", type=Path, help="build workspaces here instead of a temporary folder")
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as td:
        out = args.keep or Path(td)
        out.mkdir(parents=True, exist_ok=True)
        roots = list(args.folders)
        if args.locomo:
            roots += build_locomo(args.locomo, out)
        if args.inputs:
            roots.append(build_inputs(args.inputs, out))
        if args.truth:
            roots.append(build_inputs(truth_files(out), out / "truth"))
        results = [count(r) for r in roots]
    for r in results:
        if args.show:
            for line in r["lines"]:
                print(f"  [{line['kind'][:3]}] {line['text']}   <{line['src'].rsplit('/', 1)[-1]}>")
        print(f"{r['folder']}: {r['dangling']} dangling / {r['items']} items (+{r['determiner']} "
              f"demonstrative determiners, +{r['here']} \"Here's\")  {r['by_word']}")
    total = {k: sum(r[k] for r in results) for k in ("items", "dangling", "determiner", "here")}
    print(f"total: {total['dangling']} dangling / {total['items']} items (+{total['determiner']} determiners, "
          f"+{total['here']} \"Here's\")")
    if args.json:
        args.json.write_text(json.dumps({"total": total, "folders": results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
