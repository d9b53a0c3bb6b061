"""Cut a long chat sentence into clauses that each read on their own.

A chat sentence often strings two facts together ("I lost my job yesterday, so I'm
going to start my own business"; "I went to the park and got lost"). As one line it
holds too many words for either fact; as two it says each plainly. The cut runs on the
raw first-person sentence, before attribution, so each clause gets its own names.

Rules (a wrong cut is worse than a long line):
- Cut only at a clause boundary: ", and", ", so", ", but", "; ", " - ", or a bare "and"
  / "so" / "but" before a first-person subject.
- The clause after the cut must carry a subject of its own: the speaker ("I", "I'm",
  "my sister"), or none at all and start on a past-tense or present verb, in which
  case it inherits the subject of the clause before it (**subject carry-over**: "I went
  to the park and loved the slides" -> "I went to the park." / "I loved the slides.").
  Only a first-person subject is carried over: "Melanie" is who "I" is, and attribution
  names it in both clauses.
- A clause that opens on a pronoun pointing elsewhere ("it was great", "they loved it",
  "that's why") or ends on one ("... loved it") is not cut off: what "it" is lives in the
  other clause, so the sentence stays whole there.
- A sentence with "we"/"us"/"our" stays whole: who "we" is (the two speakers, a family,
  "others") is read from the whole sentence, and a half would lose it.
- No cut where a half alone would be false: a purpose ("so I could buy a house") or a
  "but" after an intention or attempt ("I was going to adopt a dog, but ..."); nor where
  it would dangle: a possessive, "that night", "the blue one", "going" without where.
- Both halves need at least ``MIN_WORDS`` words; otherwise the sentence stays whole.
"""

from __future__ import annotations

import re

from memfs.extract.lexicon import ADVERBS, is_past_form

#: The shortest clause worth a line of its own, in words.
MIN_WORDS = 5
# A boundary: the conjunction (if any) is dropped, the clause after it kept.
_BOUNDARY_RE = re.compile(
    r",\s+(?:and|so|but|and then)\s+|;\s+|\s+-\s+|\s+(?:and|so|but)\s+(?=(?:i|i'm|i've|i'd|i'll)\b)",
    re.IGNORECASE)
# The speaker as subject: "I ...", "I'm", "my kids ...", "we ...", "our ...".
_OWN_SUBJECT_RE = re.compile(r"^(?:i|i'm|im|i've|i'd|i'll|my|we|we're|we've|we'll|we'd|our)\b",
                             re.IGNORECASE)
# A clause that opens on someone or something named elsewhere.
_POINTER_RE = re.compile(r"^(?:it|it's|its|that|that's|this|these|those|they|they're|they've|them|"
                         r"he|he's|she|she's|there|here|which|who|what|you|your|you're|so|then|"
                         r"because|cause|since|when|if|as|though|although|even|not|no)\b",
                         re.IGNORECASE)
# Ends on an object that points into the other clause: "... and loved it".
_DANGLING_END_RE = re.compile(r"\b(?:it|that|this|them|these|those|there|one|too|either)\W*$",
                              re.IGNORECASE)
# Present-tense verbs a subject-less clause may open on ("... and love the slides").
# A pronoun inside the clause that points into the other one: "... and really love it so far".
# So do a possessive ("I coach his team": whose?), a time named in the other clause ("that
# night", "since then") and "the X one" ("decided on the blue one": one of what?).
_POINTS_BACK_RE = re.compile(
    r"\b(?:it|its|them|they|their|theirs|he|she|him|his|her|hers|there|these|those|this|"
    r"(?:that|the (?:next|following|same)) (?:night|day|morning|afternoon|evening|week|weekend|month|year|"
    r"summer|winter|spring|fall|time|one)|(?:since|by|until|till|after|before) (?:then|that)|"
    r"(?:the|a|an|another|that|this) (?:[\w-]+ )?ones?(?![\w-]))\b", re.IGNORECASE)
# A verb of motion without its destination ("and I'm going every Tuesday night": where?).
_NO_DESTINATION_RE = re.compile(
    r"\b(?:go|goes|going|went|gone|come|comes|coming|came|head|heading|headed|return|returning|returned)"
    r"(?!\s+(?:to|into|in|at|on|onto|home|back|there|here|out|up|down|abroad|downtown|upstairs|over|away|"
    r"off|along|through|around|inside|outside|with|for|by|\w+ing)\b)(?:\W|$)", re.IGNORECASE)
# A purpose ("so I could buy a house"), not a result: cut off, it would state the wish as done.
_PURPOSE_RE = re.compile(r"^(?:that\s+)?(?:i|we)\s*(?:could|can|would|might|may|will|'d|'ll|wouldn't|"
                         r"couldn't|won't|can't)\b|^(?:i'd|i'll|we'd|we'll)\b", re.IGNORECASE)
# An intention, an attempt or a near miss before "but" ("I was going to adopt a dog, but ..."):
# its half alone would say it happened or still holds.
_UNREALISED_RE = re.compile(
    r"\b(?:was|were|am|is|are|'m|'re)\s+(?:going|about|supposed|planning|hoping|trying|meaning)\s+to\b|"
    r"\b(?:planned|wanted|hoped|meant|tried|intended|expected|attempted|wished|offered|promised|"
    r"agreed|decided|thought about|considered|almost|nearly|would have|could have|should have|"
    r"might have|'d have)\b", re.IGNORECASE)
_PRESENT_VERB_RE = re.compile(r"^(?:love|like|enjoy|hate|want|need|hope|plan|feel|think|know|"
                              r"have|am|can|will|try|keep|make|take|go|work|live|help|get|"
                              r"started|start|finally|also|now)\b", re.IGNORECASE)
# The clause before the cut is subordinate ("My favorite was when we were down 10 and I hit
# the shot") or a list ("I watch movies, hike, and have game nights"): no cut after it.
_UNFINISHED_RE = re.compile(r"\b(?:when|because|if|while|since|after|before|until|unless|whether|"
                            r"although|though|as soon as|so that)\b|,", re.IGNORECASE)
# Who "we" is depends on the whole sentence ("we were teammates, so we played together" is
# the two speakers; cut, its first half would read "and others"): such a sentence stays whole.
_WE_RE = re.compile(r"\b(?:we|we're|we've|we'll|we'd|us|our|ours)\b", re.IGNORECASE)
_WORD_RE = re.compile(r"[\w']+")


def _words(text: str) -> int:
    return len(_WORD_RE.findall(text))


def _opens_on_verb(clause: str) -> bool:
    first = clause.split(None, 1)
    if not first:
        return False
    words = clause.split()
    i = 0
    while i < len(words) - 1 and words[i].lower().strip(",") in ADVERBS:
        i += 1
    word = words[i].lower().strip(",.!")
    return is_past_form(word) or _PRESENT_VERB_RE.match(word) is not None


def _carry(head: str, tail: str) -> str | None:
    """`tail` as a clause with a subject, or None when it cannot stand alone."""
    if (_POINTER_RE.match(tail) or _DANGLING_END_RE.search(tail) or _POINTS_BACK_RE.search(tail)
            or _NO_DESTINATION_RE.search(tail)):
        return None
    if _OWN_SUBJECT_RE.match(tail):
        return tail
    if _opens_on_verb(tail) and _OWN_SUBJECT_RE.match(head):
        subject = head.split(None, 1)[0]
        if subject.lower() in ("my", "our"):  # "my son ... and loved it": whose? too far
            return None
        plain = {"i'm": "I", "im": "I", "i've": "I", "i'd": "I", "i'll": "I", "we're": "we",
                 "we've": "we", "we'll": "we", "we'd": "we"}.get(subject.lower(), subject)
        return f"{plain} {tail}"
    return None


def _cuttable(head: str, bound: str, tail: str) -> bool:
    """False for a purpose after "so" or a "but" after an unrealised intention: each half
    alone would be false ("Rosa could buy a house", "Rosa was going to adopt a dog")."""
    word = bound.strip(" ,;-").lower()
    if word == "so" and _PURPOSE_RE.match(tail):
        return False
    return not (word == "but" and _UNREALISED_RE.search(head))


def split_clauses(sentence: str) -> list[str]:
    """`sentence` as one or more clauses, each with its own subject; whole when no cut is safe."""
    text = sentence.strip()
    if _words(text) < 2 * MIN_WORDS or text.endswith("?") or _WE_RE.search(text):
        return [sentence]
    pieces: list[str] = []
    bounds: list[str] = []
    last = 0
    for m in _BOUNDARY_RE.finditer(text):
        pieces.append(text[last:m.start()])
        bounds.append(m.group(0))
        last = m.end()
    pieces.append(text[last:])
    if len(pieces) < 2:
        return [sentence]
    out: list[str] = []
    current = pieces[0].strip()
    for bound, tail in zip(bounds, pieces[1:]):
        tail = tail.strip()
        bare = tail.rstrip(".!\u2026 ")
        carried = _carry(current, bare) if _OWN_SUBJECT_RE.match(current) and _cuttable(current, bound, bare) else None
        if (carried is None or _words(tail) < MIN_WORDS or _words(current) < MIN_WORDS
                or _DANGLING_END_RE.search(current.rstrip(".!\u2026 ")) or _UNFINISHED_RE.search(current)):
            current = current + bound + tail  # no safe cut: the tail stays with its clause
            continue
        out.append(current)
        current = carried + tail[len(bare):]
    out.append(current)
    out = [p for p in out if p.strip(" .,;-!")]
    if len(out) < 2:
        return [sentence]
    return [_end(p) for p in out]


def _end(clause: str) -> str:
    clause = clause.strip().rstrip(",;-").strip()
    return clause if clause[-1:] in ".!\u2026" else clause + "."


def clauses_of(sentences: list[str]) -> list[str]:
    """Every sentence of a chat turn cut into its clauses (``split_clauses``)."""
    return [clause for sentence in sentences for clause in split_clauses(sentence)]
