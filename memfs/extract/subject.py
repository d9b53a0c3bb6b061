"""Chat drops words a fact needs: slang hides the verb, the subject is left out.

Two repairs run before pronouns are rewritten (see ``attribution``):
- ``normalize_slang``: "gonna" -> "going to", "wanna" -> "want to", "kinda" -> "kind of".
- ``restore_subject``: "Love that painting!" -> "I love that painting!", "Gonna continue
  my edu" -> "I'm going to continue my edu"; a gerund that is itself the subject
  ("Taking care of ourselves is vital") or a participle phrase keeps its sentence.
"""

from __future__ import annotations

import re

from memfs.extract.lexicon import ED_ADJECTIVES, IRREGULAR_PAST, is_past_form

# --- slang that hides the verb --------------------------------------------------
_SLANG = [
    (re.compile(r"\bgonna\b", re.I), "going to"),
    (re.compile(r"\bwanna\b", re.I), "want to"),
    (re.compile(r"(?<='ve )gotta\b|(?<=\bhave )gotta\b|(?<='s )gotta\b", re.I), "got to"),  # "It's gotta be"
    (re.compile(r"\bgotta\b", re.I), "have to"),
    (re.compile(r"\bkinda\b", re.I), "kind of"),
    (re.compile(r"\bsorta\b", re.I), "sort of"),
    (re.compile(r"(?<!\w)'cause\b|\bcuz\b|\bcoz\b", re.I), "because"),
    (re.compile(r"(?<![\w'])ya\b(?!')", re.I), "you"),
    (re.compile(r"\blemme\b", re.I), "let me"),
    (re.compile(r"\b([A-Za-z]{3,})in'(?=\W|$)"), r"\1ing"),
]

# --- dropped subjects -------------------------------------------------------------
_DROP_I = frozenset("""
love loved like liked want wanted hope hoped wish think thought feel felt went got had saw
made took started finished need needed miss missed agree enjoyed bought tried visited
can't cannot couldn't didn't don't won't haven't learned found joined signed booked spent
adopted decided met picked painted ran baked cooked watched attended took received
recommend recommended lost won quit moved appreciate admire
""".split())
_DROP_IM = frozenset("""
going planning thinking hoping trying working looking heading loving feeling getting
taking glad happy excited thrilled stoked grateful thankful proud sad bummed swamped
keen into obsessed considering currently busy off impressed amazed inspired touched honored honoured
curious tempted determined nervous worried relieved pumped ready
""".split())
_GERUND_VERB_RE = re.compile(r"\b(?:is|was|are|were|isn't|wasn't|aren't|weren't|has been|"
                             r"can be|makes|made|helps|helped|gives|keeps|means|has|had|would|will|could|can|"
                             r"should|might|must|pays|works|matters|helps|brings|takes|costs|feels|goes|gets|lets|"
                             r"does|did|changed|changes|shows|showed|plays|played|creates|leads|needs|requires|"
                             r"involves|becomes|builds|motivates|inspires|reminds|encourages|excites|scares|calms|relaxes)\b",
                             re.IGNORECASE)
# A clause that starts after the gerund phrase: ", which is exciting", " - it's been".
_LATER_CLAUSE_RE = re.compile(
    r",\s*(?:which|who|where)\b|,\s*(?:and|but|so)\s+(?:i|we|you|it|he|she|they|my|that|this)\b"
    r"|\s-\s|;", re.IGNORECASE)


# The -ing phrase taken up again by a pronoun: "Seeing their smiles when they try it - it's
# a total win!" (the gerund is the topic, not "I'm seeing ...").
_RESUMED_RE = re.compile(r"\s[-\u2013]\s(?:and\s+)?(?:it|that|this)(?:'s|\s+is|\s+was)\s+"
                         r"(?:(?:so|such|a|an|the|really|super|pretty|just|totally|truly)\s+)*(?:[\w-]+\s+)?[\w-]+"
                         r"\s*[.!?\u2026]*$", re.IGNORECASE)
# "Just seeing the sun dip - it was amazing": the -ing phrase is the topic.
_TAKEN_UP_RE = re.compile(r"\s[-\u2013]\s(?:and\s+)?(?:it|that|this)\b", re.IGNORECASE)
# "Just thinking about it pumps me up": the -ing phrase has its own verb.
_VERB_OBJECT_RE = re.compile(r"\b[a-z]+s\s+(?:me|us|him|her|them)\b", re.IGNORECASE)
_IT_BEEN_RE = re.compile(r"^been\s+(?:a|an|quite|such|ages|forever|too long|so long)\b", re.IGNORECASE)
# "Gonna be a great night featuring ...": the dropped subject is "it", not "I".
_IT_GOING_RE = re.compile(r"^going\s+to\s+be\s+(?:(?:a|an|so|such|really|super|pretty|very|totally|the)\s+)*"
                          r"(?:great|amazing|awesome|fun|epic|wild|crazy|busy|long|big|huge|fantastic|incredible|"
                          r"interesting|exciting|tough|hard|lit|blast|night|day|week|weekend|party|show|event|"
                          r"one|time)\b", re.IGNORECASE)


def _gerund_is_subject(sentence: str) -> bool:
    """ "Taking care of ourselves is vital": the -ing phrase has its own verb."""
    if _RESUMED_RE.search(sentence) and sentence.split(None, 1)[0].lower() not in _DROP_IM:
        return True
    m = _GERUND_VERB_RE.search(sentence) or _own_verb(sentence)
    return m is not None and not _LATER_CLAUSE_RE.search(sentence[:m.start()])


# The gerund phrase's own verb, one the list above lacks: "Losing my job gave me the push",
# "Having a pal brightens my days", "Biking sounds like fun", "Searching for a studio's a
# tough job". Only where no other subject, clause or comma comes before it ("Thinking about
# what she told me" is still "I'm thinking ..."; "Adding it to my list, sounds fun" too).
_OWN_VERB_RE = re.compile(r"(?P<v>\b[a-z]+[^\W\ds']s)\s+(?:me|us|him|her|them|my|our|his|their)\b|"
                          r"(?P<l>\b(?:sounds|looks|seems|feels)\s+like|\b[a-z]+s\s+up\s+(?:a|an|the|so|new|my)\b)|"
                          r"(?P<p>\b[a-z]{3,})\s+(?:me|us|my|our)\b|"
                          r"\b[a-z]{3,}'s\s+(?:a|an|the|so|such|really|very|not|always|never)\b", re.IGNORECASE)
_CLAUSE_BEFORE_RE = re.compile(r"\b(?:i|you|he|she|we|they|it|who|which|that|what|how|when|where|why|"
                               r"because|if|while|whether|whoever)\b", re.IGNORECASE)


def _own_verb(sentence: str) -> re.Match[str] | None:
    for m in _OWN_VERB_RE.finditer(sentence):
        if m.group("p") and not is_past_form(m.group("p")):
            continue  # "Taking my dog": not a past verb before "my"
        if m.start() == 0 or _CLAUSE_BEFORE_RE.search(sentence[:m.start()]) or "," in sentence[:m.start()]:
            return None  # "Hoping she likes me": the verb is the clause's, not the gerund's
        return m
    return None
_OBJECT_START = frozenset("""my a an the some this that these those to up out back our his her
their it them home into on in at by with for""".split())
_YOU_RE = re.compile(r"\b(?:you|your|you're|you've|yours)\b", re.IGNORECASE)
_ING_NOUNS = frozenset("""thing things something nothing anything everything morning mornings
evening evenings wedding weddings building buildings meeting meetings ceiling king ring
spring string wing sibling siblings offspring pudding during ping swing sing bring sting
feeling feelings painting paintings drawing drawings reading writing clothing darling
earring earrings setting ending beginning opening blessing blessings according nothing
interesting amazing exciting inspiring boring relaxing challenging rewarding stunning
charming annoying exhausting frustrating fascinating surprising touching encouraging
disappointing overwhelming refreshing promising heartwarming terrifying interesting
outstanding breathtaking satisfying uplifting calming soothing thrilling intriguing
""".split())
_DROP_ADV = frozenset({"just", "really", "finally", "recently", "also", "actually", "totally",
                       "always", "never", "still", "highly", "definitely", "even", "once"})
_NOT_AFTER_DROP = frozenset({"is", "was", "are", "were", "can", "will", "would", "has",
                             "have", "'s", "of", "and", "it's", "but", "or"})

_THANK_RE = re.compile(r"(?:thank you|thanks)((?:\s+(?:so|very))?\s+much|\s+a lot)?\s+(?=for\s+(?!asking\b)[a-z]+ing\b)",
                       re.IGNORECASE)
_EACH_OTHER_RE = re.compile(r"\b(?:each other|one another)\b", re.IGNORECASE)
_SLANG_ANY_RE = re.compile(r"gonna|wanna|gotta|kinda|sorta|cause|cuz|coz|in'|\bya\b|lemme",
                           re.IGNORECASE)
_FIRST_TWO_RE = re.compile(r"([A-Za-z']+)(\s+)([A-Za-z']+)?")
_IT_MADE_ME_RE = re.compile(r"(?:[A-Za-z']+\s+)?(?:made|makes|make|gave|gives|got|gets|helped|"
                            r"helps|reminded|reminds|brought|brings)\s+(?:me|my)\b", re.IGNORECASE)
_VERB_ME_RE = re.compile(r"[A-Za-z']+\s+me\b", re.IGNORECASE)
# "Growing up, I saw ..." / "Seeing their smiles, we knew ...": a participle phrase.
_PARTICIPLE_COMMA_RE = re.compile(
    r"[A-Za-z']+(?:\s+[A-Za-z']+)?,|[^,]{0,80},\s*(?:i|we|you|he|she|they|my|our|i'm|"
    r"we're|we've|i've)\b", re.IGNORECASE)


def normalize_slang(sentence: str) -> str:
    if not _SLANG_ANY_RE.search(sentence):
        return sentence
    for pattern, repl in _SLANG:
        sentence = pattern.sub(repl, sentence)
    return sentence


def restore_subject(sentence: str) -> str:
    """Chat drops the subject: "Love that painting!" -> "I love that painting!"."""
    m = _THANK_RE.match(sentence)
    if m:  # "Thank you for using your voice": who thanks whom, or the line names only the listener
        return f"I thank you{m.group(1) or ''} {sentence[m.end():]}"
    m = _FIRST_TWO_RE.match(sentence)
    if not m:
        return sentence
    first, nxt = m.group(1).lower(), (m.group(3) or "").lower()
    if first in ("i", "im", "i'm", "i've", "i'd", "i'll", "we", "my", "our"):
        return sentence
    if first in ("don't", "dont", "never") and _YOU_RE.search(sentence):
        return sentence  # "Don't let anything stop you": an imperative, not a dropped "I"
    if nxt in _NOT_AFTER_DROP:
        return sentence
    rest = sentence[0].lower() + sentence[1:]
    if _IT_MADE_ME_RE.match(sentence) or \
            _VERB_ME_RE.match(sentence) and first not in (
                "love", "loved", "miss", "missed", "sent", "told", "gave", "showed"):
        return sentence  # "Really made me think" / "Made my day": the subject is "it"
    if first == "been":  # "Been quite a ride", "Been ages": it has; "Been reading a lot": I have
        return ("It's " if _IT_BEEN_RE.match(sentence) else "I've ") + rest
    ing_verb = (first.endswith("ing") and len(first) > 5 and first not in _ING_NOUNS
                and first not in _DROP_I)
    if ing_verb and _EACH_OTHER_RE.search(sentence):
        return sentence  # "Chasing our dreams and helping each other out": more than "I"
    if first in _DROP_IM or ing_verb:
        if first == "going" and _IT_GOING_RE.match(sentence):
            return sentence  # "Gonna be a great night": it is, not I am
        if first.endswith("ing") and (_gerund_is_subject(sentence)
                                      or _YOU_RE.search(sentence)
                                      or _PARTICIPLE_COMMA_RE.match(sentence)):
            # "Taking care of ourselves is vital." has its subject; "Seeing their
            # smiles, we knew ..." is a participle; "Taking in kids in need - you're so
            # kind" is about the other person.
            return sentence
        return "I'm " + rest
    if first in _DROP_I or (
            (first in IRREGULAR_PAST or (first.endswith("ed") and first not in ED_ADJECTIVES))
            and first not in ("was", "were", "did", "had", "said", "used", "need", "meant")
            and nxt in _OBJECT_START):
        return "I " + rest  # "Lost my job yesterday", "Finished a painting"
    if first in _DROP_ADV and nxt and (nxt in _DROP_I or nxt in IRREGULAR_PAST
                                       or (nxt.endswith("ed") and nxt not in ED_ADJECTIVES)):
        if first in ("always", "never") and (nxt in IRREGULAR_PAST or nxt.endswith("ed")):
            return "I've " + rest
        return "I " + rest
    if first in ("have", "had") and nxt == "to":
        return "I " + rest  # "Have to check the floor quality too"
    if first in _DROP_ADV and nxt in ("here", "there", "happy", "glad", "up", "down", "excited", "proud"):
        return "I'm " + rest  # "Always up for something sweet"
    if first in _DROP_ADV and nxt == "been":
        return "I've " + rest  # "Just been tinkering with that recipe"
    if first in _DROP_ADV and nxt.endswith("ing") and len(nxt) > 5 and nxt not in _ING_NOUNS \
            and not _gerund_is_subject(sentence) and not _YOU_RE.search(sentence) and not _TAKEN_UP_RE.search(sentence) \
            and not _VERB_OBJECT_RE.search(sentence):
        return "I'm " + rest  # "Still working on opening a dance studio"
    return sentence

