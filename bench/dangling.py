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
  `here`: it says what was shown, if not by whom;
- a pointer further in that nothing in the line names ("Joanna checked out the library
  there", "Maria won't forget that") is reported apart as `inner` (rules at `inner`).
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


# --- pointers inside a line (session 14) -------------------------------------------------
# After the first word, "it"/"them"/"there" and a pronoun "that"/"this" point back too. A
# reader can still tell what they mean when the line names it before them. Only the line's
# first sentence is read (a later one goes on about it); the first pointer counted is kept:
# - "it" with no singular noun phrase before it in the line (a determiner or a possessive +
#   a word: "the library", "Gina's store"; a quoted title; a capitalized word after a
#   preposition or "watched/read/played"; a gerund subject: "Painting relaxes Jon ... it");
#   not a clause's subject after ", and/but/so/because ..." (it may mean the clause before),
#   not a dummy ("thought it would be fun to ...", "finds it hard to", "finds it fun
#   chatting", "it's been ages since") nor an idiom ("make it", "made it", "love it when",
#   "give it a try", "take it easy", "live it up", "worth it", "go for it", "that's it",
#   "get it.", "keep it up");
# - "them" with no plural before it ("the kids", "dogs"), and no person named before it
#   unless that person is its clause's subject with no infinitive or clause between
#   ("Nate has grown fond of them"): "Books guide Caroline, motivate them" is Caroline,
#   the extractor's singular they;
# - "there" as a place (not "there is/are/...", "out/over/in there", "be/was/get there",
#   "there for", "here and there") with no place before it ("in Paris", "at the park");
# - "that"/"this" as a pronoun object: after a verb or a preposition ("did that", "all
#   that", "about this"), before the end of a clause, a preposition or a time word, in the
#   line's first clause.
_INNER_IT = re.compile(r"\b(?:it|them|there|that|this)\b", re.I)
_DET_NP = re.compile(r"\b(?:a|an|the|this|that|these|those|my|your|his|her|its|our|their|some|any|every|"
                     r"(?-i:[A-Z])[\w-]*'s?)\s+(?!(?:is|was|are|were|be|been|and|but|or|so|of|to|in|on|at|for|"
                     r"with|it|they|he|she|i|we|you|that|this|one|ones|more|much|time|too|very|really|just)\b)"
                     r"(?P<n>[a-z][\w-]*)\b", re.I)
_BARE_PLURAL = re.compile(r"\b(?!(?:is|was|has|does|this|its|his|hers|yours|ours|theirs|always|perhaps|"
                          r"sometimes|less|unless|thus|plus|yes|us|as|cos|bus|gas)\b)[a-z]{3,}[^su']s\b")
_NAME_AFTER = re.compile(r"\b(?:in|at|to|from|about|of|on|for|with|watched|watch|read|reading|played|play|"
                         r"playing|visited|visit|saw|see|loved|loves|love|like|likes|liked)\s+"
                         r"(?:the\s+)?(?-i:[A-Z])[\w'-]+", re.I)
_GERUND_SUBJECT = re.compile(r"^(?!(?:nothing|something|everything|anything|morning|evening|spring|king|"
                             r"wedding|building|thing|during)\b)[a-z]+ing\s+[\w'-]+\s", re.I)
_PLACE_BEFORE = re.compile(r"\b(?:in|at|to|from|near|into|around|visited|visiting|visit|reached|"
                           r"explored|exploring)\s+(?:(?:a|an|the|this|that|my|his|her|their|our|"
                           r"(?-i:[A-Z])[\w-]*'s)\s+[\w-]+|(?-i:[A-Z])[\w'&.-]+)", re.I)
_DUMMY_INNER_IT = re.compile(
    r"^it(?:'s|\s+is|\s+was|\s+would be|\s+will be|\s+could be|\s+can be|\s+might be|\s+has been|"
    r"'d be|\s+had been|\s+feels|\s+felt|\s+seems|\s+seemed|\s+looks|\s+looked|\s+sounds|\s+sounded)"
    r"\s+(?:[\w-]+\s+){0,4}?(?:to\s+[a-z]|that\b|how\b|when\b|if\b|whether\b|like\b|since\b|for\s+\w+\s+to\b)|"
    r"^it\s+(?:\w+\s+){0,2}?(?:to\s+(?!(?:me|him|her|them|us|the|a|an|my|our|their|his|your)\b)[a-z]|"
    r"that\s+(?:i|we|you|he|she|they|[A-Z]\w+)\b|when\b|how\b|if\b)|"
    r"^it\s+(?:\w+\s+){1,3}?\w+ing\s+(?!(?:and|or|but)\b)[\w'-]+|"
    r"^it\s+(?:(?:so|really|very|pretty|quite|super|too|truly|incredibly)\s+)*(?![a-z]+ing\b)[a-z-]+\s+\w+ing\b|"
    r"^it\s+(?:[\w-]+\s+){1,5}?to\s+(?:see|know|hear|watch|be|have|get|do|make|feel|think|learn|find)\b|"
    r"^it(?:'s|\s+is|\s+was|\s+has)?\s+(?:been\s+)?(?:\w+\s+){0,3}(?:years?|months?|weeks?|days?|ages|a while|"
    r"forever|time)\b|^it\s+(?:takes|took|makes sense|made sense|rains|rained|snows|snowed)\b|"
    r"^it(?:'s| is| was) (?:raining|snowing|sunny|cold|hot|warm|freezing)\b", re.I)
_IDIOM_IT = re.compile(
    r"\b(?:make|makes|made|making)\s+it(?:\s+(?:to|through|work|happen|big|out)\b|\s*[.,!]|\s*$)|"
    r"\b(?:love|loves|loved|hate|hates|hated|like|likes|liked)\s+it\s+when\b|"
    r"\b(?:give|gives|gave|giving)\s+it\s+(?:a|an|some|their|his|her|my|your|one's|time)\b|"
    r"\b(?:take|takes|took|taking)\s+it\s+(?:easy|slow|one|day)\b|\b(?:live|lives|living)\s+it\s+up\b|\bworth\s+it\b|\bfor\s+it\b|"
    r"\bthat's\s+it\b|\bbelieve\s+it\s+or\b|\bkeep\s+it\s+up\b|\bkeeps?\s+it\s+real\b|\bnailed\s+it\b|"
    r"\b(?:get|gets|got|getting)\s+it\s*(?:[.!,]|$)|\bas\s+it\s+(?:is|was|were)\b|\bit\s+all\b|\bit\s+out\b|\bhit\s+it\s+off\b", re.I)
_IDIOM_THERE = re.compile(
    r"\bthere(?:'s|\s+(?:is|are|was|were|isn't|aren't|wasn't|weren't|will|would|has|have|had|must|might|"
    r"could|can|should|seems?|seemed|used|may|appears?|remains?|exists?|comes?|came|goes|lies)\b)|"
    r"\b(?:out|over|in|right|up|down|back)\s+there\b|\bthere\s+for\b|\bthere\s+and\s+back\b|"
    r"\bhere\s+and\s+there\b|\b(?:get|gets|got|getting|be|being|been|is|are|was|were|am|almost|nearly)\s+there\b|"
    r"\bthere\s+you\s+go\b|\bthen\s+and\s+there\b", re.I)
_THAT_PRONOUN = re.compile(
    r"\b(?P<prev>[a-z]+)\s+(?:all\s+)?(?P<w>that|this)\s*(?=[.,!?;:\u2026]|$|(?:too|again|anymore|together|"
    r"now|with|for|about|in|at|on|to|from|so much|a lot|as well|yet|last|next|yesterday|today|tonight|"
    r"earlier|before|once|every|one day|someday|soon|again)\b)", re.I)
_NOT_BEFORE_THAT = frozenset("""so now such than is was are were be 's and but or if because like just
even only what said says say think thinks thought know knows knew hope hopes believe believes feel feels
mean means meant realize realized realizes""".split())


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"])")
_NAME = re.compile(r"(?-i:\b[A-Z][a-z]+\b)")
# An infinitive or a clause between the subject and "them": "let nothing stop them" may be the subject.
_EMBEDS = re.compile(r"\b(?:to|let|lets|make|makes|made|help|helps|helped|that|who|which|see|seeing|watch|"
                     r"watching|keep|keeps|having)\b", re.I)
_NAME_SUBJECT = re.compile(r"(?:\w+,?\s+)?(?-i:[A-Z][a-z]+)(?:\s+and\s+(?-i:[A-Z][a-z]+))?\s+(?!'s)[a-z]")


def _clause_start(body: str, at: int) -> int:
    """Where the clause holding `at` starts: after the last ", and"/"but"/"so"/";"/". " before it."""
    cut = 0
    for m in re.finditer(r"(?:[,;:\u2014]|\s-)\s*|\b(?:and|but|so|because|since|while|when|after|before)\s+|[.!?]\s+",
                         body[:at], re.I):
        cut = m.end()
    return cut


def _covers(idiom: re.Pattern[str], body: str, at: int) -> bool:
    return any(i.start() <= at < i.end() for i in idiom.finditer(body))


def inner(text: str) -> tuple[str, int] | None:
    """(word, position) of the first pointer after the line's first word that nothing before
    it in the line names, as the rules above; None when every pointer in it is named."""
    body = PREFIX.sub("", text.strip().lstrip('"\u201c*_ '), count=1).lstrip('"\u201c*_ ')
    body = body.replace("\u2019", "'")
    first = WORD.match(body)
    if first is None:
        return None
    body = _SENTENCE.split(body, 1)[0]  # a later sentence in the line goes on about the first
    for m in _INNER_IT.finditer(body, first.end()):
        word, rest, head = m.group(0).lower(), body[m.start():], body[:m.start()]
        clause = _clause_start(body, m.start())
        if word == "it":
            if clause == m.start() or _DUMMY_INNER_IT.match(rest) or _covers(_IDIOM_IT, body, m.start()) or _DET_NP.search(head) \
                    or '"' in head or _NAME_AFTER.search(head) or _GERUND_SUBJECT.match(head):
                continue
        elif word == "them":
            if _BARE_PLURAL.search(head) or (_NAME.search(head) and not (
                    _NAME_SUBJECT.match(body, clause) and not _EMBEDS.search(body, clause, m.start()))):
                continue  # them = a person named before, outside its clause (the extractor's singular they)
        elif word == "there":
            if _covers(_IDIOM_THERE, body, m.start()) or _PLACE_BEFORE.search(head):
                continue
        else:
            t = next((x for x in _THAT_PRONOUN.finditer(body) if x.start("w") == m.start()), None)
            if t is None or t.group("prev").lower() in _NOT_BEFORE_THAT or _clause_start(body, m.start()) > 0:
                continue
        return word, len(WORD.findall(head))
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
    inside = [(t, s, f, *i) for t, s, f in rows if opener(t) is None and (i := inner(t)) is not None]
    return {"folder": str(root), "items": len(rows),
            "inner": len(inside), "inner_by_word": dict(Counter(w for *_, w, _ in inside).most_common()),
            "inner_lines": [{"text": t, "src": s, "file": f, "word": w, "at": a} for t, s, f, w, a in inside],
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
            for line in r["inner_lines"]:
                print(f"  [in:{line['word']}] {line['text']}   <{line['src'].rsplit('/', 1)[-1]}>")
        print(f"{r['folder']}: {r['dangling']} dangling / {r['items']} items (+{r['determiner']} "
              f"demonstrative determiners, +{r['here']} \"Here's\")  {r['by_word']}; "
              f"inner {r['inner']} {r['inner_by_word']}")
    total = {k: sum(r[k] for r in results) for k in ("items", "dangling", "determiner", "here", "inner")}
    print(f"total: {total['dangling']} dangling / {total['items']} items (+{total['determiner']} determiners, "
          f"+{total['here']} \"Here's\"); inner: {total['inner']} lines with a pointer inside at nothing")
    if args.json:
        args.json.write_text(json.dumps({"total": total, "folders": results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
