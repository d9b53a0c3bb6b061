"""A "you" that means more than the listener: "you guys", "you two", "all of you".

Between two people "you" alone is the listener, but "you guys" / "you all" / "you two" is
the listener and the people with them. Naming only the listener there writes "Tim guys" or
a false fact, so the phrase becomes the listener's name kept plural, as "we" becomes
"Name and others": "Tim and others", "Tim and another person" for a pair. Any "you" /
"your" after it in the sentence is that group again ("they" / "their"). Where the chat
has no one listener the phrase names no one and the line is not stored (``said``).
"""

from __future__ import annotations

import re

_GROUP_WORDS = r"guys|all|folks|lot|people|girls|boys|kids|ladies|gals|gents|three|four|five"
_PAIR_WORDS = r"two|both"
# "all" that is no address: "you all right?", "tell you all about it", "wish you all the best".
_NOT_ADDRESS = r"(?!\s+(?:right|the|day|night|week|weekend|month|year|along|over|this|that|about|alone|my|your|" \
               r"those|these|of|set|good|done|by)\b)"
# A number before a plural noun counts what "you" gets: "give you two tickets".
_NOT_COUNT = r"(?!\s+[a-z]+s\b)"
_PLURAL_YOU_RE = re.compile(
    rf"\b(?:you|u|ya)\s+(?:(?P<pair>{_PAIR_WORDS})|{_GROUP_WORDS})\b{_NOT_ADDRESS}{_NOT_COUNT}|"
    rf"\b(?:all|(?P<pair2>both)) of you\b|\by'?all\b", re.IGNORECASE)
_YOU_CONTRACTED_RE = re.compile(r"\b(you|u|ya)('re|'ve)\s+(all|both)\b", re.IGNORECASE)
_LATER_YOU_RE = re.compile(r"\b(?:you|your|yours|yourselves|yourself|you're|you've|you'll|you'd)\b",
                           re.IGNORECASE)
_THEY_FOR = {"your": "their", "yours": "theirs", "yourselves": "themselves", "yourself": "themselves",
             "you're": "they're", "you've": "they've", "you'll": "they'll", "you'd": "they'd"}
# After these "you" is an object: "can't wait to see you".
_TAKES_OBJECT = frozenset("""to for with at about from of on in by see saw miss missed love loved meet met tell
told thank help helped show showed give gave invite invited join joined call called visit visited
hug hugged""".split())


def has_plural_you(sentence: str) -> bool:
    low = sentence.lower()
    return ("you" in low or "y'all" in low or "yall" in low) and (
        _PLURAL_YOU_RE.search(sentence) is not None or _YOU_CONTRACTED_RE.search(sentence) is not None)


def plural_you(sentence: str, listener: str) -> str:
    """ "I miss you guys" said to Tim -> "I miss Tim and others"; later "you"/"your" -> "they"/"their"."""
    sentence = _YOU_CONTRACTED_RE.sub(_uncontract, sentence)  # "you're all set" -> "you all are set"
    m = _PLURAL_YOU_RE.search(sentence)
    if m is None:
        return sentence
    group = f"{listener} and another person" if (m.group("pair") or m.group("pair2")) else f"{listener} and others"
    head, tail = sentence[: m.start()], _PLURAL_YOU_RE.sub(group, sentence[m.end():])
    return head + group + _LATER_YOU_RE.sub(lambda y: _they(y, tail), tail)


def _they(m: re.Match[str], text: str) -> str:
    low = m.group(0).lower()
    if low != "you":
        out = _THEY_FOR[low]
    else:
        before = text[: m.start()].split()
        out = "them" if before and before[-1].lower().strip(",") in _TAKES_OBJECT else "they"
    return out.capitalize() if m.group(0)[0].isupper() else out


def _uncontract(m: re.Match[str]) -> str:
    verb = "are" if m.group(2).lower() == "'re" else "have"
    return f"{m.group(1)} {m.group(3)} {verb}"
