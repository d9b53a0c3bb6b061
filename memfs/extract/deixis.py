"""A place word that points elsewhere: "there" resolved from the context, or the fact dropped.

"Priya's last day there is Friday" says nothing on its own. When "there" means a place
(after a verb of going, living or being, or a noun: "the food there"), it becomes the
last place named before it in the same turn or the turn before ("at Acme", "in York").
If no place is found, the sentence is not worth a line: None. Existential "there"
("there is"), "be there for someone", "out there", "hang in there" are left alone.
"here" after a verb of moving ("moved here from Leeds") is dropped: the reader has no
"here". A line opening on the chat's own "Here's a pic of ..." says who showed it (`shown`).
"""

from __future__ import annotations

import re

_IDIOM = re.compile(
    r"\b(?:out|hang|hanging|hung|in|over|almost|nearly|get|getting|got|be|being|been|is|was|were|are|"
    r"am)\s+there\s+(?:for|with|too|yet|eventually|soon|someday|one day)\b|\b(?:out|hang in|hanging in|"
    r"over|almost|nearly|right) there\b|\bthere you go\b|\bthere for\b|\bbeen there,|\bthere and back\b|"
    r"\bhere and there\b|\bthere!|\b(?:everywhere|anywhere|wherever)\b[^.!?]*\bthere\s+(?:is|are|was|were)\b",
    re.IGNORECASE)
_PLACE_THERE = re.compile(
    r"\b(?P<before>went|go|goes|going|gone|moved|move|moving|live|lives|lived|living|stay|stays|stayed|"
    r"staying|visit|visited|visiting|been|work|works|worked|working|met|arrived|arrive|drove|drive|"
    r"flew|fly|flying|travel|traveled|travelled|walked|walk|headed|head|back|trip|time|day|days|week|"
    r"weeks|weekend|year|years|food|people|weather|view|views|staff|job|shift|everyone|friends|"
    r"school|there|studied|study|studying|born|grew up|raised|ate|eat|eating|shopping|hiking|"
    r"camping|started|start|starting|left|returned|return|returning|it|stuff|place)\s+there\b"
    r"(?!'s\b)",  # "Everywhere you go there's something new": existential
    re.IGNORECASE)
_PLACE = re.compile(
    r"\b(?P<prep>in|at|to|from|near|visited|visiting|visit)\s+(?P<place>(?:the\s+)?(?-i:[A-Z][\w'&.-]*)"
    r"(?:\s+(?:of\s+|de\s+|on\s+)?(?-i:[A-Z][\w'&.-]*))*)",
    re.IGNORECASE)
_NOT_PLACES = frozenset("""i i'm i've i'd i'll monday tuesday wednesday thursday friday saturday
sunday january february march april may june july august september october november december
christmas easter the a an it this that""".split())
_HERE = re.compile(r"\b(moved|moving|move|came|come|coming|relocated|relocating|arrived)\s+here\b",
                   re.IGNORECASE)


def _last_place(context: str) -> tuple[str, str] | None:
    found: tuple[str, str] | None = None
    for m in _PLACE.finditer(context):
        place = m.group("place").strip().rstrip(".,")
        head = place.split()[-1].lower() if place.split() else ""
        first = place.split()[0].lower()
        if not place or head in _NOT_PLACES or (first == "the" and len(place.split()) == 1):
            continue
        if first in _NOT_PLACES and first != "the":
            continue
        prep = m.group("prep").lower()
        found = ("at" if prep == "at" else "in", place)
    return found


def resolve_place(sentence: str, context: str) -> str | None:
    """`sentence` with a place-"there" spelled out from `context` (text said before it);
    None when it cannot be; unchanged when there is nothing to resolve."""
    s = _HERE.sub(r"\1", sentence) if "here" in sentence.lower() else sentence
    if "here" in s.lower():
        s = _resolve_here(s, context)
    if "there" not in s.lower():
        return s
    m = _PLACE_THERE.search(s)
    if m is None or _IDIOM.search(s):
        return s
    place = _last_place(context) or _last_place(s[: m.start()])
    if place is None:
        return None
    prep, name = place
    if name.lower() in s.lower():  # "Priya visited York and loved it there"
        return s
    return s[: m.end() - 5] + f"{prep} {name}" + s[m.end():]


_PLACE_HERE = re.compile(_PLACE_THERE.pattern.replace(r"\s+there\b", r"\s+here\b"), re.IGNORECASE)


def _resolve_here(s: str, context: str) -> str:
    """"loves the food here" -> "loves the food in Lisbon" when a place was just named
    (in the sentence or before it); otherwise left as said (the speaker's own place)."""
    m = _PLACE_HERE.search(s)
    if m is None:
        return s
    place = _last_place(s[: m.start()]) or _last_place(context)
    if place is None:
        return s
    prep, name = place
    return s[: m.end() - 4] + f"{prep} {name}" + s[m.end():]


# "Here's a pic of my fam": the chat's own "here", something the speaker shows. A line
# opening on it has no subject a reader can see; who showed what is the fact.
_SHOWN = re.compile(
    r"^Here(?:'s|\u2019s| is| are)\s+"
    r"(?!to\b|the thing\b|how\b|what\b|why\b|where\b|when\b|hoping\b|(?:some|the) (?:good|great|bad|latest) news\b)"
    r"(?=(?:a|an|the|some|one|another|two|three|this|that|these|those|[A-Z][\w'\u2019-]*(?:'s|\u2019s))\b)")


_PICTURE = re.compile(r"(?:a|an|the|some|one|another|two|three)\s+(?:\w+\s+)?(?:photos?|pics?|pictures?|snaps?|"
                      r"shots?|selfies?|videos?|clips?|screenshots?|images?)\b", re.IGNORECASE)


def shown(text: str, name: str) -> str:
    """"Here's a pic of John's fam at the beach." said by John -> "John shared a pic of
    John's fam at the beach." (a picture is shared in a chat; anything else is shown: "John
    showed the recipe he likes"); any other line as it is ("Here's to a good year", "Here's
    how it works")."""
    m = _SHOWN.match(text)
    if not m or not name:
        return text
    rest = text[m.end():]
    return f"{name} {'shared' if _PICTURE.match(rest) else 'showed'} {rest}"
