"""Pure code of the LoCoMo retrieval benchmark (bench/locomo.py): reading LoCoMo files,
converting sessions to memfs.conversation/1, normalising evidence, scoring, aggregating.

No memfs import and no I/O beyond `load_file`, so tests can check every number by hand.

Metric (as bench/locomo README): for each question of category 1-4, take the top-k
retrieved units (memfs items or raw turns); each unit points at one turn (its dia_id:
the anchor after '#' in a memfs item's provenance). hit@k = at least one of the top k
points at an evidence turn; all@k = every evidence turn is pointed at by one of the top k.

Evidence normalisation (the released data has a few malformed entries):
  * an entry holding several ids ("D8:6; D9:17", "D1:3, D1:4") is split;
  * "D:11:26" reads as "D11:26"; leading zeros are dropped ("D1:03" -> "D1:3");
  * a token that is not a dia_id ("D") is dropped;
  * with the conversation's turn ids known, an id that names no turn ("D10:19" in a
    session of 18 turns) is dropped: it cannot be retrieved by any system;
  * duplicates are kept once, in order. A question left with no evidence is not scored
    (counted as `skipped`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

SCORED_CATEGORIES = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
DEFAULT_KS = (1, 5, 10, 20)
ALL_AT = 10  # all@10 is always reported

_SESSION_KEY = re.compile(r"session_(\d+)")
_DIA_TOKEN = re.compile(r"D:?0*(\d+):0*(\d+)", re.IGNORECASE)
_SPLIT = re.compile(r"[;,\s]+")
_LOCOMO_TIME_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M%p on %d %B, %Y")
_PHOTO_PREFIX = re.compile(r"^(?:a|an)\s+(?:photo|photograph|photography|picture|image)\s+of\s+", re.IGNORECASE)


# -- reading ---------------------------------------------------------------------------
@dataclass
class Session:
    number: int
    date_time: str | None
    turns: list[dict[str, Any]]


@dataclass
class Conversation:
    """One LoCoMo sample: two speakers, numbered sessions, questions."""

    name: str
    speakers: list[str]
    sessions: list[Session]
    qa: list[dict[str, Any]] = field(default_factory=list)

    def turn_ids(self) -> set[str]:
        return {str(t["dia_id"]) for s in self.sessions for t in s.turns if "dia_id" in t}


def conversation_from_json(obj: dict[str, Any], name: str) -> Conversation:
    """A LoCoMo sample, flat (this folder's files) or as released ({"conversation": {...}, "qa": [...]})."""
    body = obj.get("conversation", obj)
    if not isinstance(body, dict):
        raise ValueError(f"{name}: expected a LoCoMo conversation object")
    speakers = [str(body[k]) for k in ("speaker_a", "speaker_b") if body.get(k)]
    sessions: list[Session] = []
    for key, value in body.items():
        m = _SESSION_KEY.fullmatch(key)
        if m and isinstance(value, list) and value:
            dt = body.get(f"{key}_date_time")
            sessions.append(Session(int(m.group(1)), str(dt) if dt else None, [t for t in value if isinstance(t, dict)]))
    sessions.sort(key=lambda s: s.number)
    qa = obj.get("qa", body.get("qa", []))
    sample = obj.get("sample_id")
    return Conversation(str(sample) if sample else name, speakers, sessions, list(qa or []))


def load_file(path: Path) -> list[Conversation]:
    """One file: a sample, or a list of samples (locomo10.json)."""
    obj = json.loads(Path(path).read_text(encoding="utf-8"))
    stem = Path(path).stem
    if isinstance(obj, list):
        return [conversation_from_json(o, f"{stem}-{i}") for i, o in enumerate(obj, 1)]
    return [conversation_from_json(obj, stem)]


def locomo_time_to_iso(text: str | None) -> str | None:
    """'1:56 pm on 8 May, 2023' -> '2023-05-08T13:56:00'; None stays None.

    A string of another shape is returned unchanged (memfs's reader parses ISO and
    LoCoMo times itself, and says so clearly when it cannot)."""
    if text is None:
        return None
    clean = " ".join(str(text).split())
    for fmt in _LOCOMO_TIME_FORMATS:
        try:
            return datetime.strptime(clean, fmt).isoformat()
        except ValueError:
            continue
    return clean


def turn_text(turn: dict[str, Any]) -> str:
    """The turn's text, plus its shared photo as a sentence: "Melanie shares a photo of a sunset."

    Only `blip_caption` (what the image shows, as the conversation partner would see it)
    is used; `query` and `img_url` are how the dataset fetched the image and are left out."""
    text = " ".join(str(turn.get("text") or "").split())
    caption = " ".join(str(turn.get("blip_caption") or "").split()).rstrip(".")
    if caption:
        speaker = str(turn.get("speaker") or "").strip() or "They"
        body = _PHOTO_PREFIX.sub("", caption)
        sentence = f"{speaker} shares a photo of {body}."
        text = f"{text} {sentence}" if text else sentence
    return text


def session_to_memfs(conv: Conversation, session: Session) -> dict[str, Any]:
    """One session as a memfs.conversation/1 document; turn ids are the dia_ids."""
    turns = []
    for t in session.turns:
        text = turn_text(t)
        if not text or "dia_id" not in t:
            continue
        turns.append({"id": str(t["dia_id"]), "speaker": str(t.get("speaker") or "unknown"), "text": text})
    sess: dict[str, Any] = {"id": f"S{session.number}", "turns": turns}
    iso = locomo_time_to_iso(session.date_time)
    if iso:
        sess["time"] = iso
    return {"format": "memfs.conversation/1", "title": f"{' and '.join(conv.speakers)}, session {session.number}",
            "participants": list(conv.speakers), "sessions": [sess]}


def turn_documents(conv: Conversation) -> list[tuple[str, str]]:
    """(dia_id, "[date] Speaker: text") for every turn: the BM25 baseline's corpus."""
    docs = []
    for s in conv.sessions:
        for t in s.turns:
            if "dia_id" not in t:
                continue
            docs.append((str(t["dia_id"]), f"[{s.date_time or ''}] {t.get('speaker', '')}: {turn_text(t)}"))
    return docs


# -- evidence and scoring --------------------------------------------------------------
def normalize_dia_id(token: str) -> str | None:
    m = _DIA_TOKEN.fullmatch(token.strip())
    return f"D{int(m.group(1))}:{int(m.group(2))}" if m else None


def normalize_evidence(evidence: Iterable[Any] | str | None, known_ids: set[str] | None = None) -> list[str]:
    """The evidence turn ids of a question, cleaned (see the module docstring)."""
    if evidence is None:
        return []
    if isinstance(evidence, str):
        evidence = [evidence]
    out: list[str] = []
    for entry in evidence:
        for token in _SPLIT.split(str(entry)):
            if not token:
                continue
            dia = normalize_dia_id(token)
            if dia is None or dia in out:
                continue
            if known_ids is not None and dia not in known_ids:
                continue
            out.append(dia)
    return out


def anchor_of(source: str | None) -> str | None:
    """'resources/2023/05/08-x.json#D1:3' -> 'D1:3' (normalised); None without an anchor."""
    if not source or "#" not in source:
        return None
    anchor = source.rsplit("#", 1)[1]
    return normalize_dia_id(anchor) or anchor


def metric_keys(ks: Sequence[int] = DEFAULT_KS) -> list[str]:
    return [f"hit@{k}" for k in ks] + [f"all@{ALL_AT}"]


def score_ranking(anchors: Sequence[str | None], evidence: Sequence[str],
                  ks: Sequence[int] = DEFAULT_KS) -> dict[str, float]:
    """hit@k and all@10 of one ranked list of turn anchors against the evidence turns."""
    need = set(evidence)
    out: dict[str, float] = {}
    for k in ks:
        out[f"hit@{k}"] = 1.0 if need & set(anchors[:k]) else 0.0
    out[f"all@{ALL_AT}"] = 1.0 if need and need <= set(anchors[:ALL_AT]) else 0.0
    return out


def first_rank(anchors: Sequence[str | None], evidence: Sequence[str]) -> int | None:
    """1-based rank of the first unit that points at an evidence turn."""
    need = set(evidence)
    return next((i for i, a in enumerate(anchors, 1) if a in need), None)


@dataclass
class QuestionResult:
    conversation: str
    question: str
    category: int
    evidence: list[str]
    scores: dict[str, dict[str, float]]  # system -> metric -> 0/1


def mean_scores(rows: Sequence[dict[str, float]], keys: Sequence[str]) -> dict[str, float]:
    if not rows:
        return {k: 0.0 for k in keys}
    return {k: round(sum(r[k] for r in rows) / len(rows), 4) for k in keys}


def aggregate(results: Sequence[QuestionResult], systems: Sequence[str],
              ks: Sequence[int] = DEFAULT_KS) -> dict[str, Any]:
    """{system: means, "questions": n, "by_category": {"1": {system: means, "questions": n}}}."""
    keys = metric_keys(ks)
    out: dict[str, Any] = {s: mean_scores([r.scores[s] for r in results], keys) for s in systems}
    out["questions"] = len(results)
    by_cat: dict[str, Any] = {}
    for cat in sorted({r.category for r in results}):
        rows = [r for r in results if r.category == cat]
        entry: dict[str, Any] = {s: mean_scores([r.scores[s] for r in rows], keys) for s in systems}
        entry["questions"] = len(rows)
        by_cat[str(cat)] = entry
    out["by_category"] = by_cat
    return out


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100); 0.0 for no values."""
    if not values:
        return 0.0
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def scored_questions(conv: Conversation) -> tuple[list[tuple[dict[str, Any], list[str]]], int]:
    """(question, normalised evidence) of categories 1-4, and how many were skipped for lack of evidence."""
    known = conv.turn_ids()
    out = []
    skipped = 0
    for q in conv.qa:
        try:
            cat = int(q.get("category"))
        except (TypeError, ValueError):
            continue
        if cat not in SCORED_CATEGORIES or not str(q.get("question") or "").strip():
            continue
        ev = normalize_evidence(q.get("evidence"), known)
        if not ev:
            skipped += 1
            continue
        out.append((q, ev))
    return out, skipped


# -- BM25 baseline tokenisation ----------------------------------------------------------
class PorterStemmer:
    """Porter stemming through SQLite FTS5's `porter` tokenizer: the stemmer memfs's own
    BM25 index uses, so the baseline's BM25 is not handicapped by a missing stemmer.
    Callable on a list of words (what bm25s.tokenize expects); results are cached."""

    def __init__(self) -> None:
        import sqlite3

        self._conn = sqlite3.connect(":memory:")
        self._conn.execute("CREATE VIRTUAL TABLE w USING fts5(t, tokenize='porter unicode61 remove_diacritics 2')")
        self._conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(w, 'instance')")
        self._cache: dict[str, str] = {}

    def __call__(self, words: list[str]) -> list[str]:
        todo = sorted({w for w in words if w not in self._cache})
        if todo:
            with self._conn:
                self._conn.execute("DELETE FROM w")
                self._conn.executemany("INSERT INTO w(rowid, t) VALUES (?, ?)", list(enumerate(todo, 1)))
            stems: dict[int, str] = {}
            for doc, term in self._conn.execute("SELECT doc, term FROM v ORDER BY doc, offset"):
                stems.setdefault(int(doc), term)
            for i, word in enumerate(todo, 1):
                self._cache[word] = stems.get(i, word)
        return [self._cache[w] for w in words]


#: Lucene's English stopwords: bm25s's `stopwords="en"` list, copied so the tokenizer
#: (and the results) are the same with or without bm25s installed.
BM25_STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these "
    "they this to was will with".split())
_BM25_TOKEN = re.compile(r"(?u)\b\w\w+\b")


def bm25_tokenize(text: str, stemmer: PorterStemmer | None = None) -> list[str]:
    """bm25s's default rules (lowercase, words of 2+ characters, English stopwords), then Porter stems."""
    words = [w for w in _BM25_TOKEN.findall(text.lower()) if w not in BM25_STOPWORDS]
    return stemmer(words) if stemmer is not None and words else words


class Bm25Lite:
    """BM25 (Lucene variant, bm25s's default: k1=1.5, b=0.75) in plain Python: the fallback
    when bm25s is not installed (the test extra), and a cross-check of it in the tests."""

    def __init__(self, corpus: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75) -> None:
        import math
        from collections import Counter

        self.k1, self.b = k1, b
        self.tfs = [Counter(doc) for doc in corpus]
        self.lens = [len(doc) for doc in corpus]
        n = len(corpus)
        self.avg = (sum(self.lens) / n) if n else 0.0
        df: Counter[str] = Counter()
        for tf in self.tfs:
            df.update(tf.keys())
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def scores(self, query: Sequence[str]) -> list[float]:
        out = []
        for tf, dl in zip(self.tfs, self.lens):
            norm = self.k1 * (1 - self.b + self.b * dl / self.avg) if self.avg else self.k1
            s = 0.0
            for t in query:  # a repeated query word counts each time, as in bm25s
                f = tf.get(t, 0)
                if f:
                    s += self.idf[t] * f / (f + norm)  # Lucene 8+: no (k1 + 1) factor
            out.append(s)
        return out

    def top(self, query: Sequence[str], k: int) -> list[tuple[int, float]]:
        """(doc index, score) of the k best documents with a positive score, best first."""
        ranked = sorted(((s, i) for i, s in enumerate(self.scores(query)) if s > 0), key=lambda x: (-x[0], x[1]))
        return [(i, s) for s, i in ranked[:k]]
