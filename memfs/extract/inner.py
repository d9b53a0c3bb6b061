"""A pointer inside a line ("Maria hasn't tried it yet"): resolved from the turn, or joined to it.

``dangle`` settles a line whose first word points back; a pointer further in is as empty
to a reader who ``cat``s the line alone: "Joanna checked out the library there" (where?),
"Caroline highly recommends it" (what?). Precision first, since a kept line that dangles
is less harmful than a true fact lost:

1. **Resolve** an object "it" (after a verb or a preposition, not a clause's subject) or
   a place "there" from the same turn's sentence just before the line's, when that one
   names exactly one candidate of the right kind (``antecedent``: one singular noun
   phrase, whole and naming a thing, for "it"; one place after "in/at/to/from/near" for
   "there") and the line names nothing before the pointer it could mean instead.
   "this"/"that" mean what was said, and "them" is too often people named further back
   (or the speaker's "me", which attribution writes "them"): never resolved.
2. **Join** it to the line of the sentence just before it in the turn (``dangle.joined``)
   when it stays unresolved and the pointer carries its point: the line is its subject (a
   person, or nothing after "Name: ") and a verb phrase of lowercase words ending on the
   pointer, save a short tail ("yet", "for sure"): "Caroline loved "Becoming Nicole" ...
   Caroline highly recommends it for sure." Not storing such lines was measured: they are
   what a question asks about ("What book did Caroline recommend?", "Which team did John
   sign with?" / "John can't wait to play with them"), LoCoMo hit@10 0.815 -> 0.809.
3. **Keep** it as said otherwise: alone it still holds the verb a question matches, and
   the rest of the line may say more ("Caroline painted it after visiting the beach").
   Idioms ("make it", "worth it", "go for it", "out there", "be there for") and a dummy
   object ("finds it hard to ...") point at nothing.
"""

from __future__ import annotations

import re

from memfs.extract.antecedent import NOT_HEADS, antecedent_of, plural
from memfs.extract.sentences import split_sentences

# An object pointer: after a verb or a preposition, not the subject of a clause of its own.
_OBJECT_RE = re.compile(r"(?<=[a-z] )(?P<p>it|them|there|that|this)(?=\s*(?:[.!,;]|$)|\s+(?!(?:is|was|are|were|"
                        r"has|had|will|would|can|could|does|did|'s|must|might|seems?|feels?|looks?)\b)[a-z])")
_CLAUSE_OPENERS = frozenset("""and but so or because since when how if that why while as though where what
until once cause which who whether""".split())
_IDIOM_RE = re.compile(
    r"\b(?:make|makes|made|making)\s+it\b|\b(?:worth|for|of)\s+it\s+all\b|\bworth\s+it\b|\bfor\s+it\b|"
    r"\b(?:get|gets|got)\s+it\b|\b(?:take|takes|took|taking)\s+it\s+(?:easy|slow)\b|\bnailed\s+it\b|"
    r"\blive\s+it\s+up\b|\bknow\s+it\s*[.!,]|\bkeep\s+it\s+up\b|\bthat's\s+it\b|\bbelieve\s+it\b|\bit\s+all\b|\bhit\s+it\s+off\b|"
    r"\b(?:out|over|in|up|down|back|right|be|is|are|was|were|been|being|get|got|getting|almost|nearly)\s+there\b|"
    r"\bthere\s+for\b|\b(?:like|than|as|so|now|such)\s+(?:that|this)\b|\b(?:all|of)\s+that\s+(?:is|was)\b",
    re.IGNORECASE)
# "finds it hard to ...", "made it easier for ...": a dummy object before what it stands for.
_DUMMY_OBJECT_RE = re.compile(r"\bit\s+(?:(?:so|really|very|pretty|quite|super|too|a bit)\s+)*[a-z-]+(?:\s+and\s+"
                              r"[a-z-]+)?\s+(?:to\s+[a-z]|that\b|how\b|when\b|\w+ing\b|for\s+\w+\s+to\b)",
                              re.IGNORECASE)
_PLACE_RE = re.compile(r"\b(?P<prep>in|at|to|from|near|visited|visiting)\s+(?P<place>(?-i:[A-Z][\w'&-]*)"
                       r"(?:\s+(?-i:[A-Z][\w'&-]*))*|the\s+(?!(?:same|other|end|moment|time|way|rest)\b)"
                       r"[a-z-]{3,}(?:\s+[a-z-]{3,})?(?=\s*(?:[.!,;]|$|\b(?:and|but|with|for|last|this|on|in|"
                       r"yesterday|today|earlier)\b)))", re.IGNORECASE)
_NOT_PLACES = frozenset("""i i'm monday tuesday wednesday thursday friday saturday sunday january february
march april may june july august september october november december christmas easter""".split())
# What may follow the pointer when it carries the point: a few adverbs, no new content.
_TAIL = (r"(?:\s+(?:too|again|yet|now|anymore|already|either|though|lately|recently|so much|a lot|for sure|"
         r"as well|at all|right now|every day|all the time|for a while|a bit|more))*")
_NAMED_BEFORE_RE = re.compile(r"\b(?:a|an|the|this|that|these|those|my|your|his|her|its|our|their|some|(?-i:[A-Z])[\w-]*'s)\s+"
                              r"[a-z][\w-]*|\"|(?<=[a-z] )(?-i:[A-Z])[\w-]+", re.IGNORECASE)
_DETERMINER_RE = re.compile(r"\b(?:a|an|the|this|that|these|those|my|your|his|her|our|their|some|every|\d[\w-]*)\b", re.IGNORECASE)


def settle_inner(text: str, name: str, people: tuple[str, ...], before: str | None,
                 turn: str = "") -> tuple[str, bool]:
    """(`text` (a stored line by `name`) with an inner pointer resolved from `before` (the
    turn's words before the line's sentence, `turn` all of them), whether an unresolved
    pointer carries the line's point)."""
    prefix = f"{name}: "
    said = text.startswith(prefix)
    body = text[len(prefix):] if said else text
    first = split_sentences(body)[0] if body.strip() else body
    m = _pointer(first)
    if m is None:
        return text, False
    word, at = m.group("p").lower(), m.start("p")
    own = split_sentences(turn[len(before or ""):].strip() or body)[0] if before is not None else ""
    if word == "them" and not re.search(r"\bthem\b", own, re.IGNORECASE):
        return text, False  # the speaker's "me", which attribution writes "them": no pointer
    named = _PLACE_RE.search(first[:at]) if word == "there" else _NAMED_BEFORE_RE.search(
        _strip_people(first[:at], people))  # "there" may only mean a place the line names
    if not named:
        spelled = _from_before(word, before)
        if spelled is not None:
            return text[: len(prefix) * said + at] + spelled + text[len(prefix) * said + m.end("p"):], False
    return text, _carries_point(first, at, m.end("p"), people, said)


def _pointer(sentence: str) -> re.Match[str] | None:
    """The first object pointer in `sentence` that is neither an idiom nor a dummy object."""
    for m in _OBJECT_RE.finditer(sentence):
        at = m.start("p")
        if sentence[:at].split()[-1].lower() in _CLAUSE_OPENERS:
            continue  # "... and it made Caroline feel ...": a clause's subject, which may mean the clause before
        if any(i.start() <= at < i.end() for i in _IDIOM_RE.finditer(sentence)):
            continue
        if m.group("p").lower() == "it" and _DUMMY_OBJECT_RE.match(sentence, at):
            continue
        if m.group("p").lower() in ("that", "this") and not re.match(r"\s*(?:[.!,;]|$|(?:too|again|yet|now|anymore|"
                                                                     r"with|for|about|in|at|on)\b)",
                                                                     sentence[m.end("p"):]):
            continue  # "that space", "this summer": a determiner; "that I ..." a clause
        return m
    return None


def _strip_people(head: str, people: tuple[str, ...]) -> str:
    for p in people:
        if p:
            head = head.replace(f"{p}'s", "").replace(p, "")
    return head


def _from_before(word: str, before: str | None) -> str | None:
    """The one candidate the turn's sentence before names for `word`, spelled; else None."""
    sentences = [s for s in split_sentences(" ".join((before or "").split())) if s.strip()]
    if not sentences or sentences[-1].rstrip().endswith("?"):
        return None
    last = sentences[-1]
    if word == "there":
        places = {m.group("place").lower(): m for m in _PLACE_RE.finditer(last)
                  if m.group("place").split()[0].lower() not in _NOT_PLACES}
        if len(places) != 1:
            return None
        found = next(iter(places.values()))
        if re.match(r"\s*(?:,|and\b|or\b)\s*(?:the\s+)?(?-i:[A-Z])", last[found.end():]):
            return None  # "to Portland and Seattle": two places
        place = found.group("place")
        return f"at {place}" if place.lower().startswith("the ") else f"in {place}"
    if word != "it":
        return None  # "this"/"that" mean what was said; "them" is too often people named earlier
    found = antecedent_of(last)
    if found is None or plural(found[1]) or not _thing(found, last):
        return None
    det, words = found
    return f"{det} {words}" if det.endswith("'s") else f"the {words}"


def _thing(found: tuple[str, str], sentence: str) -> bool:
    """A whole noun phrase naming a thing: "a yoga class", not "That looks yummy" (a
    demonstrative pronoun), "a real difference" (a light verb's object) or "Guitar's mostly"."""
    det, words = found
    if det.lower() in ("this", "that", "these", "those", "some") or any(w.lower() in NOT_HEADS for w in words.split()):
        return False
    if not re.fullmatch(r"[a-z]+(?: [a-z]+){0,2}", words) or re.search(r"(?:ly|ing|ed)$", words):
        return False
    return re.search(rf"\b{re.escape(words)}(?=\s*(?:[.!,;]|$)|\s+(?:in|at|on|for|with|from|to|and|last|this|"
                     rf"yesterday|today|recently|ago|by)\b)", sentence) is not None


def _carries_point(sentence: str, start: int, end: int, people: tuple[str, ...], said: bool) -> bool:
    """The sentence is its subject and a verb phrase of plain words ending on the pointer."""
    if not re.fullmatch(_TAIL + r"\s*[.!]?\s*", sentence[end:], re.IGNORECASE):
        return False
    head = sentence[:start]
    subject = next((p for p in people if p and head.startswith(f"{p} ")), None)
    verb_phrase = head[len(subject):] if subject else (head if said else None)
    if verb_phrase is None or re.search(r"[A-Z\d,;:\"()\u2014-]", verb_phrase[1:] if said else verb_phrase):
        return False
    return not _DETERMINER_RE.search(verb_phrase) and len(verb_phrase.split()) <= 8
