"""Verbs that agree with a speaker once "I" has become their name.

"I love painting and find it relaxing" said by Melanie is "Melanie loves painting and finds
it relaxing": every verb the subject governs turns third person, not only the first. A
verb after "and" shares the subject only when nothing between could own it instead: no
"to", no modal and no second verb ("I love to paint and draw", "I help them clean and
cook" keep "draw" and "cook").
"""

from __future__ import annotations

from memfs.extract.lexicon import ADVERBS, MODALS, is_past_form

NON_VERBS = frozenset("""
and or nor but the a an to too also as at in on of for with from by that this these those
it its my your his her their our me you him them us if so then than when where who what
which whose not alone myself both all either only even here there now just very much
more most less least own one ones self personally first last again once no longer
""".split())

AGREE = {"am": "is", "are": "is", "were": "was", "have": "has", "do": "does",
         "don't": "doesn't", "haven't": "hasn't", "aren't": "isn't", "weren't": "wasn't",
         "ain't": "isn't", "dont": "doesn't", "havent": "hasn't"}
_IRREGULAR_3RD = {"be": "is", "have": "has", "do": "does", "go": "goes", "undergo": "undergoes"}
# Verbs common in chat that are read as verbs after "and" with no subject of their own.
# Only these: "I love tea and coffee" must not become "coffees".
COMMON_VERBS = frozenset("""
find feel love like enjoy want need hope think know try keep make take get go give spend plan
miss use see hate live work play help believe wish get look run cook paint read write
""".split())
# What a verb's object or complement opens on; after a noun these do not follow.
_OBJECT_STARTS = frozenset("""it them him her me myself that this these those a an the my your his their our
some every all lots to up out on in at with for about back over around home""".split())
_SECOND_AGREES = frozenset({"am", "have", "do", "don't", "haven't", "dont", "havent"})
_PRESENT = frozenset({"is", "has", "does", "doesn't", "isn't", "hasn't"})
# ", and look at my students!": after a comma "and" may open an order or a new clause.
_CLAUSE_ENDS = frozenset(".!?;:(),\"")
_CLAUSE_WORDS = frozenset("""but because so when that if who which where while since though although
whenever until before after unless or""".split())
_MAX_SPAN = 10  # words between the first verb and "and"


def third_person(verb: str) -> str:
    """Present tense, third person singular of a base-form verb ("try" -> "tries")."""
    low = verb.lower()
    if low in _IRREGULAR_3RD:
        out = _IRREGULAR_3RD[low]
    elif low.endswith(("s", "sh", "ch", "x", "z", "o")):
        out = low + "es"
    elif len(low) > 1 and low.endswith("y") and low[-2] not in "aeiou":
        out = low[:-1] + "ies"
    else:
        out = low + "s"
    if verb[:1].isupper():
        out = out[:1].upper() + out[1:]
    return out


def looks_like_base_verb(word: str) -> bool:
    low = word.lower()
    if not word.islower() or not low.isalpha() or len(low) < 2:
        return False
    if low in NON_VERBS or low in MODALS or low in ADVERBS or is_past_form(low) \
            or low in ("is", "was", "has", "does"):  # already agrees: never "ises"
        return False
    if low.endswith(("ed", "ing", "ly")) and len(low) > 4:
        return False
    if low.endswith("s") and not low.endswith(("ss", "us", "is")):
        return False  # already third person ("makes") or a plural noun
    return True


def is_present_singular(verb: str) -> bool:
    """ "is", "has", "loves": the first verb reads present, so a base verb after "and" agrees too."""
    low = verb.lower()
    return low in _PRESENT or (low.endswith("s") and not low.endswith("ss") and low[:-1].isalpha()
                               and low != "was" and not is_past_form(low))


# Verbs whose object takes a bare verb of its own: "I help them clean and cook".
_BARE_TAKERS = frozenset("help helps let lets make makes watch watches see sees hear hears".split())


def agree_after_and(tokens: list[str], j: int, present: bool) -> None:
    """The verb after "and" that shares the subject of the verb at token ``j`` agrees with it.

    am/have/do always ("Jon was tired and is going home"); a common base verb only when the
    first verb is present ("Melanie loves painting and finds it relaxing"). Never past a comma.
    """
    if tokens[j].lower() in _BARE_TAKERS:
        return
    words = 0
    k = j + 1
    while k < len(tokens):
        tok = tokens[k]
        low = tok.lower()
        if tok.isspace():
            k += 1
            continue
        if low == "to" and _infinitive(tokens, k):
            return  # "love to paint and draw": "draw" is the infinitive's
        if tok in _CLAUSE_ENDS or low in _CLAUSE_WORDS or low in MODALS \
                or low in AGREE or low in COMMON_VERBS or words > _MAX_SPAN:
            return  # a new clause, or a verb in between that "and" may join instead
        if low == "and":
            break
        words += 1
        k += 1
    else:
        return
    k += 1
    while k < len(tokens) and (tokens[k].isspace() or tokens[k].lower() in ADVERBS):
        k += 1
    if k + 2 >= len(tokens) or not tokens[k + 1].isspace():
        return  # "and find." ends the sentence: no object, may be a noun
    verb, low = tokens[k], tokens[k].lower()
    if not verb.islower():
        return
    if low in _SECOND_AGREES:
        tokens[k] = AGREE[low]
    elif present and low in COMMON_VERBS and tokens[k + 2].lower() in _OBJECT_STARTS:
        tokens[k] = third_person(verb)  # "and work in Leeds", not "my family and work so much"


_NOUN_OPENERS = frozenset("the a an my your his her their our its this that these those some".split())


def _infinitive(tokens: list[str], k: int) -> bool:
    """ "to" at token k opens a verb ("to paint"), not a place ("to the clinic", "to Leeds")."""
    nxt = next((t for t in tokens[k + 1:] if not t.isspace()), "")
    return nxt.lower() not in _NOUN_OPENERS and not nxt[:1].isupper() and not nxt[:1].isdigit()
