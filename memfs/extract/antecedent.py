"""What a sentence-opening "It"/"They"/"He"/"She" points at, when the sentence before says.

A chat follow-up ("I painted that lake sunrise last year. It's special to me.") used to be
glued onto the fact before it, so it would not dangle. Glued, a line holds two facts and
too many words for either. When the sentence before names exactly one thing the pronoun
can point at, the follow-up becomes a line of its own with that thing spelled out:
"Melanie painted that lake sunrise in 2022." / "The lake sunrise is special to Melanie."

Rules (precision first: an unresolved follow-up stays glued, never stored dangling):
- "It"/"Its" points at a singular noun phrase opened by a determiner or a possessive
  ("a pottery class", "that lake sunrise", "Melanie's necklace"); "They"/"Them" at a
  plural one ("the kids", "some friends from church"); "He"/"She" at a relative or a
  pet named by a possessive ("Melanie's son", "my grandma").
- The sentence before must hold exactly one candidate of the right number; two ("this
  photo at a beautiful location") are ambiguous, so nothing is resolved.
- An "It" that usually means the whole event or situation is not resolved: "It's been",
  "It made/taught/showed/meant", "It feels/seems/sounds/looks", "It was a ...
  decision/experience" read as the situation, not a thing.
- A demonstrative or an indefinite article becomes "the": "a pottery class" -> "The
  pottery class"; a possessive stays ("Melanie's son").
"""

from __future__ import annotations

import re

from memfs.extract.lexicon import RELATION_WORDS
from memfs.extract.sentences import split_sentences

#: The longest noun phrase taken as an antecedent, in words after its determiner.
MAX_NP_WORDS = 4
_DETERMINER = r"(?:a|an|the|this|that|these|those|some|(?!(?:It|That|There|Here|What|Let|He|She|Who|Where)'s)[A-Z][\w-]*'s)"
# A word that ends a noun phrase: prepositions, conjunctions, verbs-ish glue, dates.
_STOP = frozenset("""a an the called named in on at to for with from by of about into onto over after before during since
until and or but so because when while which who that where than as is are was were be been has have
near behind under above below beside besides between among across along around through past inside outside
without within toward towards against upon via like off up down out his her my your our
had will would can could should it its it's they them their there here this these those very really
just also too yesterday today tomorrow last next ago""".split())
_NOT_HEADS = frozenset("""few lot lots bit couple way sort kind try chance time moment while day week
month year break walk look nap shot step swim run lot difference importance power reason part rest same other others one ones thing things
something stuff idea point sense""".split())
_NP_RE = re.compile(rf"\b(?P<det>{_DETERMINER})\s+(?P<body>(?:[\w-]+\s+){{0,{MAX_NP_WORDS - 1}}}[\w-]+)")
_SITUATION_RE = re.compile(
    r"^it(?:'s| is| was| has)? ?(?:been|made|makes|taught|teaches|showed|shows|meant|means|felt|feels|"
    r"seems|seemed|sounds|sounded|looks|looked|took|takes|gave|gives|got|gets|turned|ended|"
    r"happened|all|just|kind|sort|like|a (?:\w+ )?(?:decision|experience|process|journey|reminder|"
    r"relief|mix|balancing act|lot|blast|way|thing|time|moment|day|week|year|step|bit|sign|shame|"
    r"struggle|challenge|change|dream|honor|privilege|pleasure|chance|game changer|part))\b",
    re.IGNORECASE)
# Extraposed "it" ("It's great that ...", "It's awesome how ...", "It's nice to ..."): a
# dummy subject, not a pointer; and a clause after a comma may change the subject.
_DUMMY_RE = re.compile(r"^(?:\w+\s+){0,4}?(?:(?:that|how|when|what|if|seeing|being|knowing|having|getting|"
                       r"watching|hearing|finding|is|was|are)\b|to\s+(?!(?:me|him|her|them|us|the|a|an|my|our|"
                       r"their|his|everyone|anyone)\b)(?-i:[a-z]))|,", re.IGNORECASE)
# What a thing does or is: the follow-ups worth resolving ("It helps me relax").
_THING_VERB_RE = re.compile(r"^(?:is|was|has|have|are|were|helps|helped|help|reminds|reminded|remind|"
                            r"represents|represent|stands|stand|brings|bring|keeps|keep|holds|hold|"
                            r"symbolizes|symbolize|means|mean|looks|look|belongs|belong|came|comes|come|"
                            r"sits|hangs|goes|go|costs|cost|needs|need|gets|get|really|always|still|also)\b",
                            re.IGNORECASE)
_IT_RE = re.compile(r"^(?P<pro>it's|it is|it was|it has|it)\s+(?P<rest>.+)$", re.IGNORECASE)
_THEY_RE = re.compile(r"^(?P<pro>they're|they are|they were|they've|they have|they)\s+(?P<rest>.+)$",
                      re.IGNORECASE)
_PERSON_RE = re.compile(r"^(?P<pro>he's|she's|he|she)\s+(?P<rest>.+)$", re.IGNORECASE)
_VERB_FOR = {"it's": "is", "it is": "is", "it was": "was", "it has": "has", "they're": "are",
             "they are": "are", "they were": "were", "they've": "have", "they have": "have",
             "he's": "is", "she's": "is"}


def _phrases(sentence: str) -> list[tuple[str, str, int]]:
    """(determiner, words, start) of each noun phrase in `sentence`, cut at the first glue
    word or at a name that opens a relative clause ("a show Melanie went to")."""
    out: list[tuple[str, str, int]] = []
    pos = 0
    quoted = [m.span() for m in re.finditer(r'"[^"]*"', sentence)]
    while (m := _NP_RE.search(sentence, pos)) is not None:
        kept: list[str] = []
        cut_at_name = False
        for word in m.group("body").split():
            if word.lower() in _STOP or word[:1].isdigit():
                break
            if kept and word[:1].isupper() and kept[-1].islower():
                cut_at_name = True  # "the new Batman movie": "The new" alone is no thing
                break
            kept.append(word)
        pos = m.start("body") + len(" ".join(kept)) if kept else m.end("det")
        if any(a <= m.start() < b for a, b in quoted):
            continue  # a title in quotes is one name, not a phrase to take apart
        if kept and (cut_at_name or kept[0].lower() in _NOT_HEADS or len(kept[-1]) <= 2):
            # "a few talks", "a way of ...": a quantity or a manner; still something "it" may mean
            out.append(("", " ".join(kept), m.start()))
        elif kept:
            out.append((m.group("det"), " ".join(kept), m.start()))
    return out


def _plural(words: str) -> bool:
    last = words.split()[-1].lower()
    return (last.endswith("s") and not last.endswith(("ss", "us", "is"))) or last in (
        "children", "people", "kids", "folks", "grandkids")


def _spell(det: str, words: str) -> str:
    if det.endswith("'s"):
        return f"{det} {words}"
    return f"The {words}"


def _one(candidates: list[tuple[str, str]]) -> tuple[str, str] | None:
    unique = {(d.lower(), w.lower()): (d, w) for d, w in candidates}
    return next(iter(unique.values())) if len(unique) == 1 else None


# An activity before the noun phrase ("chilling and taking in the beauty of nature"): "It"
# is then the activity, not the thing (so are light-verb nouns: "take a break", _NOT_HEADS).
# A phrase after a copula is said of the subject ("I'm going to be a big change"); after a
# preposition of place or manner it is the setting ("around the campfire"), not the topic.
_AFTER_RE = re.compile(r"\b(?:is|was|are|were|be|been|being|around|across|of|from|with|by|about|"
                       r"through|near|behind|under|over|like|off|and|or)\s+$", re.IGNORECASE)
_OPENS_ON_POINTER_RE = re.compile(r"^(?:it|it's|its|they|they're|them|this|that|that's|these|those|he|"
                                  r"he's|she|she's|there|here)\b", re.IGNORECASE)
_ACTIVITY_RE = re.compile(r"\b\w+ing\s+(?:\w+\s+)?$",
                          re.IGNORECASE)


def _antecedent(before: str) -> tuple[str, str] | None:
    """The one thing `before` names that a pronoun after it may mean, or None."""
    if _OPENS_ON_POINTER_RE.match(before.strip()) or re.match(r"^\w+ing\b", before.strip()):
        return None  # it points elsewhere itself, or its topic is an activity ("Taking time off ...")
    found = _phrases(before)
    if len(found) != 1 or not found[0][0]:
        return None  # nothing, or more than one thing, it could point at
    lead = before[: found[0][2]]
    if _ACTIVITY_RE.search(lead) or _AFTER_RE.search(lead):
        return None
    return found[0][0], found[0][1]


def resolve_opening(follow_up: str, before: str) -> str | None:
    """`follow_up` with its opening pronoun replaced by what `before` names, or None."""
    s = follow_up.strip()
    found = _antecedent(before)
    if found is None:
        return None
    phrases = [found]
    m = _IT_RE.match(s)
    if m is not None:
        if _SITUATION_RE.match(s):
            return None
        found = _one([p for p in phrases if not _plural(p[1])])
        return _join(found, m, s) if found else None
    m = _THEY_RE.match(s)
    if m is not None:
        found = _one([p for p in phrases if _plural(p[1]) and p[0].lower() not in ("a", "an", "this", "that")])
        return _join(found, m, s) if found else None
    m = _PERSON_RE.match(s)
    if m is not None:
        found = _one([p for p in phrases if p[1].split()[-1].lower() in RELATION_WORDS
                      and not _plural(p[1])])
        return _join(found, m, s, person=True) if found else None
    return None


def _join(found: tuple[str, str], m: re.Match[str], s: str, person: bool = False) -> str | None:
    pro = " ".join(m.group("pro").lower().split())
    rest = m.group("rest")
    verb = _VERB_FOR.get(pro)
    participle = pro in ("it's", "he's", "she's", "it has", "they've", "they have") and re.match(r"^(?:\w+ )?\w+ed\b|^(?:\w+ )?(?:been|got|gotten|"
                                                             r"made|done|taken|given|shown|taught)\b", rest)
    if participle or _DUMMY_RE.match(rest) or (verb is None and not person and not _THING_VERB_RE.match(rest)):
        return None
    if re.search(r"\b(?:it|they|them|he|she|him|her)\b", rest, re.IGNORECASE):
        return None  # a second pointer in the same sentence: still not readable alone
    subject = _spell(*found)
    return f"{subject} {verb} {rest}" if verb else f"{subject} {rest}"


_VIEW_RE = re.compile(r"^they (?P<verb>find|found|have found) it\b(?P<rest>.*)$", re.IGNORECASE)
_VIEW_VERB = {"find": "finds", "found": "found", "have found": "has found"}


def resolve_view(follow_up: str, before: str, name: str) -> str | None:
    """ "They found it inspiring." (the speaker's view of what they just told) -> "Gina found
    the council meeting inspiring." when `before` names exactly one thing; else None."""
    m = _VIEW_RE.match(follow_up.strip())
    if m is None or re.search(r"\b(?:it|they|them|he|she|him|her)\b", m.group("rest"), re.IGNORECASE):
        return None
    found = _antecedent(before)
    if found is None or _plural(found[1]):
        return None
    det, words = found
    thing = f"{det} {words}" if det.endswith("'s") else f"the {words}"
    verb = _VIEW_VERB[" ".join(m.group("verb").lower().split())]
    return f"{name} {verb} {thing}{m.group('rest')}"


#: Public names for ``dangle``, which resolves a line opening a turn from the turn before.
antecedent_of = _antecedent
NOT_HEADS = _NOT_HEADS
SITUATION_RE = _SITUATION_RE
phrases_of = _phrases
plural = _plural


_TITLE_RE = re.compile(r'"(?P<t>(?-i:[A-Z])[^"]{1,60}?)[.,!?]?"')
_IT_OPENS_RE = re.compile(r"^(?:it|it's|it is|it was|it has|it made|it gave)\b", re.IGNORECASE)


def title_topic(turn: str) -> tuple[str, str] | None:
    """ "I loved "Becoming Nicole" by Amy Ellis Nutt. It's a true story ..." / "What did you
    take away from it?": a turn that names one title in quotes and then goes on about it with
    "It" is about that title (its author, after "by", is not the topic)."""
    titles = {m.group("t").strip() for m in _TITLE_RE.finditer(turn)}
    if len(titles) != 1:
        return None
    sentences = [x for x in split_sentences(" ".join(turn.split())) if x.strip()]
    at = next((i for i, x in enumerate(sentences) if '"' in x), None)
    if at is None or not any(_IT_OPENS_RE.match(x.strip()) for x in sentences[at + 1:]):
        return None
    return next(iter(titles)), "name"
