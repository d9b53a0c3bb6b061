"""Questions that ask for one attribute of someone: where they live, where they work.

"where does Priya live now" shares one word with "Priya moved to Leeds in October" and
none with the answer's verb; "now" matched "Priya now works as a data analyst at Monzo",
which ranked first, and the move was not in the top 4 (issue #19: the headline case of
supersession, the current home, not found). The facts that fill such a slot are the ones
the supersession reader already knows (`extract.supersede.slot_of`: a residence, a role,
an employer), so a question that asks for that slot of a person it names lifts the
candidates that state it of that person (the whole name: "Tom Baker" is not "Tom
Hanks"). A question that names nobody ("where do I live", "where does the config live")
or someone by relation ("where does Priya's mother live") lifts nothing. A fact that ended
("left Monzo") fills nothing; one in the past tense ("lived in Leeds") only a question
in the past tense ("where did she live").

Only the question is read here at import; the slot reader (and its regexes) loads when a
candidate names the person asked about, so a cold `memfs recall` pays nothing otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

#: How much a candidate that fills the asked slot is lifted. Scores are fused ranks times
#: salience; with the default embedder "Priya moved to Leeds" starts ~6th for "where does
#: Priya live now" (behind facts that only share "now"), and 1.6 left it 3rd.
INTENT_BOOST = 3.0
#: Only the start of a query is read: a question is short, and the patterns stay linear.
MAX_QUERY = 300

_WHO = r"(?P<who>[^\W\d_][\w'\u2019 .-]{0,40}?)"
_NOW = r"(?:now |currently |still )?"
_POSSESSOR = r"(?<![\w'\u2019-])(?P<who>[^\W\d_][\w-]{0,40})['\u2019]s (?:current |new )?"


def _any(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.IGNORECASE) for p in patterns)


#: What every question below holds: the patterns are compiled (~2 ms) only for a query with one.
_CUE = re.compile(r"\b(?:where|what|who)\b|['\u2019]s ", re.IGNORECASE)


@lru_cache(maxsize=1)
def _asks() -> tuple[tuple[frozenset[str], tuple[re.Pattern[str], ...]], ...]:
    return (
        (frozenset({"residence"}), _any(
            r"\bwhere (?:does|did|do|is|was|are|were|has|have) " + _WHO + " " + _NOW
            + r"(?:live|lived|living|stay|staying|reside|residing|based|settled|move|moved|call home)\b",
            r"\bwhat (?:city|town|country|place|neighbou?rhood) (?:does|did|is|was) " + _WHO + r" (?:live|living|based)\b",
            _POSSESSOR + r"(?:home|address|home town|hometown)\b")),
        (frozenset({"role", "employer"}), _any(
            r"\bwhere (?:does|did|do|is|was) " + _WHO + " " + _NOW + r"(?:work|working|employed)\b",
            r"\bwho (?:does|did|is|was) " + _WHO + " " + _NOW + r"(?:work|working) for\b",
            r"\bwhat (?:does|did) " + _WHO + r" do (?:for (?:a living|work|money)|now)\b",
            r"\bwhat is " + _WHO + r"['\u2019]s? (?:current |new )?(?:job|role|occupation|profession|position|title)\b",
            _POSSESSOR + r"(?:job|employer|occupation|profession|workplace)\b")),
    )


#: A question about the past ("where did she live"): past-tense facts count too.
_PAST = re.compile(r"\b(?:did|was|were|used to|before|previously|formerly|lived)\b", re.IGNORECASE)
_NOT_NAMES = frozenset("i you he she they we it my your his her their our me him them us the a an this that".split())


@dataclass(frozen=True)
class Intent:
    """The slot attributes a question asks for, of whom (as the slot reader writes a
    subject: lower case, one blank between words)."""

    attributes: frozenset[str]
    who: str
    past: bool


def intent_of(query: str) -> Intent | None:
    """The slot `query` asks for of the person it names, or None: most questions; one that
    names nobody ("where do I live", "where does it live"), or someone by relation
    ("Priya's mother"), whose facts the slot reader files under another subject."""
    query = query[:MAX_QUERY]
    if not _CUE.search(query):
        return None
    for attributes, patterns in _asks():
        for pattern in patterns:
            m = pattern.search(query)
            if m is None:
                continue
            who = " ".join(m.group("who").replace("\u2019", "'").split())
            if "'s " in f"{who} " or not who:
                return None  # "Priya's mother": not Priya's slot
            if who.split()[0].lower() in _NOT_NAMES:
                return None  # "I", "it", "the config": no person named (another word that is
                # no name, "where does config live", matches no fact's subject: `fills`)
            return Intent(attributes, who.lower(), bool(_PAST.search(query)))
    return None


def may_fill(intent: Intent, text: str) -> bool:
    """A cheap first look: the fact names the person at all (else `fills` is False)."""
    return intent.who in text.lower().replace("\u2019", "'")


def fills(intent: Intent, text: str) -> bool:
    """True if the fact `text` states the slot `intent` asks for, of that very person."""
    if not may_fill(intent, text):
        return False
    slot = _slot_of(text)
    if slot is None or slot.ended or slot.attribute not in intent.attributes:
        return False
    if slot.past and not intent.past:
        return False
    return slot.subject == intent.who


@lru_cache(maxsize=4096)
def _slot_of(text: str):  # type: ignore[no-untyped-def]
    """The slot reader's answer, kept: a daemon asks about the same facts question after
    question (~12 µs each, some hundreds of candidates per question)."""
    from memfs.extract.supersede import slot_of

    return slot_of(text)
