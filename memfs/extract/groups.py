"""Who "we" is, when a speaker says it.

"we"/"us" must become named people for a line to read on its own, and stay plural so the
verb after it needs no change: the two people talking ("since we last chatted", "we
volunteered together"), the speaker's family when the turn mentions family, otherwise
"Name and others".
"""

from __future__ import annotations

import re

from memfs.extract.lexicon import FAMILY_WORDS

_FAMILY_RE = re.compile(r"\b(?:" + "|".join(sorted(FAMILY_WORDS, key=len, reverse=True))
                        + r")\b", re.IGNORECASE)
_MUTUAL_RE = re.compile(r"\b(?:chat|chats|chatted|chatting|talk|talks|talked|talking|spoke|"
                        r"speak|spoken|met|meet|caught up|catch up|hung out|hang out|each other|"
                        r"last time|texted|messaged|friendship|conversation|conversations)\b",
                        re.IGNORECASE)


# "We're like a family", "It's like having a second family": a metaphor, no family meant.
_LIKE_FAMILY_RE = re.compile(r"\blike\s+(?:\w+\s+){0,2}(?:family|families|brothers|sisters|siblings)\b|"
                             r"\bsecond\s+family\b", re.IGNORECASE)
# A group in the turn: then "we ... each other" is that group, not the two talking.
_GROUP_RE = re.compile(r"\b(?:team|teams|teammates?|group|groups|crew|squad|class|classmates|club|members|"
                       r"community|colleagues|coworkers|co-workers|friends|everyone|everybody|all|people|"
                       r"folks|guys|veterans|volunteers|players|fans|neighbors|neighbours)\b", re.IGNORECASE)
# What a photo shows is no one the speaker means by "we": "[shares a photo of a group of people]".
_SHOWN_RE = re.compile(r"\b(?:shares?|shared|sends?|sent)\s+(?:a|an|some|the)\s+(?:photo|picture|pic|image|"
                       r"video|screenshot|drawing)s?\b.*", re.IGNORECASE | re.DOTALL)
_TOGETHER_RE = re.compile(r"\btogether\b", re.IGNORECASE)
# "We both love dramas", "both of us": the two talking.
_BOTH_RE = re.compile(r"\b(?:we|we're|we've|we'd|we'll|us)\s+both\b|\bboth\s+of\s+us\b", re.IGNORECASE)
# The speaker's own team, named in the turn: who "we" is ("we were trailing in the 4th").
_TEAM_RE = re.compile(r"\b(?:my|our)\s+(?:\w+\s+)?(?:team|teammates|squad)\b", re.IGNORECASE)


# Said of any group: "we ... each other" is the two talking only when the turn names no other group.
_ONLY_MUTUAL = frozenset({"each other", "one another"})
# What is between the people "we" is, not owned by one: "have our love", "our bond".
_BETWEEN = frozenset({"love", "bond", "bonds", "connection", "memories"})


def between_us(noun: str) -> bool:
    """ "our love" is the whole group's: one owner ("Melanie's love") would be a different fact."""
    return noun.lower() in _BETWEEN


_YOU_RE = re.compile(r"\b(?:you|your|you're|you've|you'll|you'd)\b", re.IGNORECASE)


def shared_owner(group: str, name: str, addressee: str | None, context: str, sentence: str) -> str | None:
    """Whose "our love" / "our bond" it is when the turn's own words say: the two talking, or
    the family or team the speaker names (not a photo's). None: the speaker's form stays."""
    if addressee and group == f"{name} and {addressee}":
        return group
    if _YOU_RE.search(sentence):
        return None  # "you'll always have our love": given to the listener, or unclear who
    said = _SHOWN_RE.sub("", context)
    if group.endswith(" and family") and _FAMILY_RE.search(_LIKE_FAMILY_RE.sub("", said)) \
            or group.endswith(" and the team"):
        return group
    return None


def group_possessive(group: str) -> str:
    """ "Caroline and Melanie's", "Tim and others'"."""
    return group + ("'" if group.endswith("s") else "'s")


def group_name(name: str, context: str, sentence: str = "", addressee: str | None = None) -> str:
    """What "we" becomes: plural, so the verb after it needs no change.

    "since we last chatted" between two people -> "Caroline and Melanie"; a turn that
    mentions family -> "Caroline and family"; the speaker's team it names -> "John and the
    team"; otherwise "Caroline and others".
    """
    # "each other"/"one another" says the group is mutual, not that it is the two talking:
    # "We push each other to be our best" is John's team, said to Tim.
    found = [m.lower() for m in _MUTUAL_RE.findall(sentence)]
    mutual = any(m not in _ONLY_MUTUAL for m in found) or (
        bool(found) and not _GROUP_RE.search(_SHOWN_RE.sub("", context)) and not _FAMILY_RE.search(context))
    if addressee and (mutual or _BOTH_RE.search(sentence) or (
            _TOGETHER_RE.search(sentence) and not _FAMILY_RE.search(sentence))):
        return f"{name} and {addressee}"  # "we volunteered together", said to the other one
    if _FAMILY_RE.search(_LIKE_FAMILY_RE.sub("", context)):
        return f"{name} and family"
    said = _SHOWN_RE.sub("", context)  # the group the turn names, when it names one
    if _TEAM_RE.search(said):
        return f"{name} and the team"
    return f"{name} and others"


# What each person has one of: "our lives" said by one speaker is "Maria's life", not
# "Maria's lives" (a singular owner with a plural that counts owners).
_ONE_EACH = {"lives": "life", "minds": "mind", "souls": "soul", "hearts": "heart", "bodies": "body",
             "imaginations": "imagination", "selves": "self", "childhoods": "childhood"}


def one_each(noun: str) -> str | None:
    """The singular of a noun that counts owners ("lives" -> "life"), else None."""
    out = _ONE_EACH.get(noun.lower())
    return out if out is None or noun.islower() else out.capitalize()


_COLLECTIVE = frozenset({"team", "crew", "band", "group", "class", "squad", "club", "staff", "choir"})
_LEADS = frozenset({"", ".", "!", "?", ",", ";", "and", "but", "so", "because", "when", "then"})


def owned_group(owner: str, noun: str, lead: str) -> bool:
    """ "my colleagues and I", "my team and I" opening a clause (``lead`` the word before the
    owner): the speaker is one of a plural subject, so "I" is named, never "they"."""
    return owner.endswith("'s") and lead.lower() in _LEADS and (
        noun.lower() in _COLLECTIVE or (noun.endswith("s") and not noun.endswith("ss")))


_ALL_OF_US_RE = re.compile(r"\ball of us\b|\bus all\b", re.IGNORECASE)


def all_of_us(sentence: str, group: str) -> str:
    """ "an inspiration to us all" / "for all of us": everyone the group is, said whole --
    "an inspiration to everyone", "for the whole family", "for both Tim and John" -- not
    "to Caroline and others all"."""
    if not _ALL_OF_US_RE.search(sentence) or not group.endswith((" and others", " and family")) \
            and " and " not in group:
        return sentence
    whole = "everyone" if group.endswith(" and others") else "the whole family" \
        if group.endswith(" and family") else "the whole team" if group.endswith(" and the team") else f"both {group}"
    return _ALL_OF_US_RE.sub(whole, sentence)
