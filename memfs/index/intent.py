"""Questions that ask for one attribute of someone: where they live, where they work.

"where does Priya live now" shares one word with "Priya moved to Leeds in October" and
none with the answer's verb; "now" matched "Priya now works as a data analyst at Monzo",
which ranked first, and the move was not in the top 4 (issue #19: the headline case of
supersession, the current home, not found). The facts that fill such a slot are the ones
the supersession reader already knows (`extract.supersede.slot_of`: a residence, a role,
an employer), so a question that asks for that slot lifts the candidates that fill it,
for the person it names (any person when it names none). A fact that ended ("left
Monzo") fills nothing; one in the past tense ("lived in Leeds") only for a question in
the past tense ("where did she live").

Only the question is read here at import; the slot reader (and its regexes) loads on the
first question that asks for a slot, so a cold `memfs recall` pays nothing otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: How much a candidate that fills the asked slot is lifted (scores are fused ranks times
#: salience; 1.6 lifts a fact a few places, not past every exact match of the question).
INTENT_BOOST = 1.6

_WHO = r"(?P<who>[\w'\u2019 -]{1,40}?)"
_NOW = r"(?:now |currently |still )?"
_POSSESSOR = r"\b(?P<who>[A-Z][\w-]*)['\u2019]s (?:current |new )?"


def _any(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.IGNORECASE) for p in patterns)


_ASKS: tuple[tuple[frozenset[str], tuple[re.Pattern[str], ...]], ...] = (
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
_PAST = re.compile(r"\b(?:did|was|were|used to|before|previously|formerly|lived|moved)\b", re.IGNORECASE)
_NOT_NAMES = frozenset("i you he she they we it my your his her their our me him them us".split())


@dataclass(frozen=True)
class Intent:
    """The slot attributes a question asks for, of whom (lower case; "" for anyone)."""

    attributes: frozenset[str]
    who: str
    past: bool


def intent_of(query: str) -> Intent | None:
    """The slot `query` asks for, or None (most questions)."""
    for attributes, patterns in _ASKS:
        for pattern in patterns:
            m = pattern.search(query)
            if m is None:
                continue
            who = m.group("who").strip()
            words = re.findall(r"[A-Z][\w-]*", who)
            name = " ".join(words).lower() if words and who.split()[0].lower() not in _NOT_NAMES else ""
            return Intent(attributes, name, bool(_PAST.search(query)))
    return None


def fills(intent: Intent, text: str) -> bool:
    """True if the fact `text` states the slot `intent` asks for, of the person it names."""
    from memfs.extract.supersede import slot_of

    slot = slot_of(text)
    if slot is None or slot.ended or slot.attribute not in intent.attributes:
        return False
    if slot.past and not intent.past:
        return False
    return not intent.who or slot.subject == intent.who or slot.subject.split()[0] == intent.who.split()[0]
