"""Who "the user" is: a plain message list whose user introduces themselves.

"Hi! I'm Priya, I just moved here" names the user for the whole source; from then on
their first person becomes "Priya", not "the user", and the introduction itself is not a
fact ("Priya is Priya"). Conservative: a capitalised one- or two-word name right after
"I'm" / "I am" / "my name is" / "call me" / "this is", ending the clause, and not a
nationality, faith or other capitalised adjective.
"""

from __future__ import annotations

import re

_NAME = r"(?P<name>(?-i:[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?)(?: (?-i:[A-Z][a-z]+))?)"
_INTRO = re.compile(
    r"(?:^|(?<=[.!?,:;])\s*|\b(?:hi|hello|hey|hiya)\b[,!.]?\s+)"
    r"(?:i'm|i am|im|my name is|my name's|call me|this is|it's)\s+" + _NAME
    + r"(?=\s*(?:[,.!;:)-]|$)|\s+(?:and|here|from|by the way)\b)",
    re.IGNORECASE,
)
_NOT_NAMES = frozenset("""british english american canadian indian chinese japanese french german
spanish italian irish scottish welsh australian dutch swedish norwegian danish polish russian
mexican brazilian korean african european asian jewish muslim christian catholic hindu buddhist
sikh atheist vegan vegetarian okay ok sorry fine good great here back home new done sure not
just so very really also still always never back monday tuesday wednesday thursday friday
saturday sunday january february march april may june july august september october november
december""".split())
# The introduction as a clause to remove: "I'm Priya, " / "My name is Priya and ".
_CLAUSE = r"(?<![\w'])(?:i'm|i am|im|my name is|my name's|call me)\s+{name}\s*(?:[,.!;:-]+\s*|\s+and\s+|$)"


def introduced_name(texts: list[str]) -> str | None:
    """The name the user gives themselves in any of `texts`, else None."""
    for text in texts:
        for m in _INTRO.finditer(text or ""):
            name = m.group("name")
            if name.split()[0].lower() in _NOT_NAMES:
                continue
            return name
    return None


# After the name and a comma, a noun phrase saying who they are (an appositive), not a new
# clause: "I'm Marcus, the backend engineer" / "I'm Priya, a designer from Leeds". Precision
# first, since a clause taken for one writes a false fact ("Priya is the weather in Leeds is
# awful"): it opens on an article or a title word, names a role within its first words, and
# up to the next stop holds no verb-like word (an auxiliary, a copula, an -ed form).
_APPOSITIVE = (r"(?<![\w'])(?:i'm|i am|im|my name is|my name's)\s+{name}\s*,\s+"
               r"(?=(?:the|a|an|head|lead|chief|senior|junior|founder|co-founder|ceo|cto|cfo|coo|vp)\b)")
_ROLE_RE = re.compile(
    r"^(?:[\w-]+\s+){0,4}?(?:engineer|designer|developer|manager|lead|head|director|founder|co-founder|ceo|cto|"
    r"cfo|coo|vp|owner|student|teacher|nurse|doctor|intern|analyst|consultant|scientist|researcher|writer|"
    r"editor|artist|chef|coach|architect|officer|president|chair|sponsor|organi[sz]er|admin|assistant|"
    r"accountant|lawyer|librarian|recruiter|salesperson|marketer|photographer|musician|pilot|paramedic)s?\b",
    re.IGNORECASE)
_VERBISH_RE = re.compile(r"\b(?:is|are|was|were|be|been|am|has|have|had|do|does|did|will|would|can|could|"
                         r"should|may|might|must|shall|\w{2,}ed)\b|n't\b", re.IGNORECASE)
_STOP_RE = re.compile(r"[,.;:!?]")


def drop_introduction(text: str, name: str) -> str:
    """The turn without its introduction clause ("I'm Priya, I just moved" -> "I just moved");
    an appositive after the name stays, as what they are ("I'm Priya, a designer from
    Leeds" -> "I'm a designer from Leeds", not the fragment "A designer from Leeds")."""
    m = re.search(_APPOSITIVE.format(name=re.escape(name)), text, re.IGNORECASE)
    if m is not None:
        phrase = _STOP_RE.split(text[m.end():], 1)[0]
        if _ROLE_RE.match(phrase) and not _VERBISH_RE.search(phrase):
            return (text[: m.start()] + "I'm " + text[m.end():]).strip()
    pat = re.compile(_CLAUSE.format(name=re.escape(name)), re.IGNORECASE)
    return pat.sub("", text, count=1).strip()
