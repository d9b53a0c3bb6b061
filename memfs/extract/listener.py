"""What one speaker says to the other: their view, their plans, their follow-ups.

Between two people most "you" is the listener. A sentence about the listener alone is
either the speaker's view of them ("You're a great mentor" -> "Gina thinks Jon is a great
mentor") or the listener's own news told back ("You found the perfect spot"), which their
own turn already holds. "Let's ..." is a plan only with a date, a place or a name in it. A
short follow-up joins the fact before it only when it names the same thing.
"""

from __future__ import annotations

import re

from memfs.extract.address import has_plural_you
from memfs.extract.lexicon import is_past_form
from memfs.extract.sentences import content_words
from memfs.extract.worth import no_fact

# A sentence that opens on the speaker is a fact of its own ("I love jazz."), never an add-on.
OWN_SUBJECT_RE = re.compile(r"^(?:i|i'm|im|i've|i'd|i'll|my|me|we|we're|we've|our|"
                             r"(?:love|loved|like|hate|live|work)s?)\b", re.IGNORECASE)
LETS_RE = re.compile(r"^(?:so\s+|and\s+|yes,?\s+)?let'?s\s+(?:just\s+)?(?:keep|continue|stay|never|always|not|"
                     r"don't|hope|make (?:a|the|some|this|it) (?:difference|change|impact|happen|count))\b",
                     re.IGNORECASE)
_CAPITAL_RE = re.compile(r"(?<=\w )[A-Z][a-z]+|\d")
# "you" that is not the one listener: plural or a set phrase. Between two people almost
# every other "you" means the listener, so it becomes their name.
_GENERIC_YOU_RE = re.compile(r"\byou guys\b|\by'all\b|\byou all\b|\byou're all\b|\ball of you\b|"
                             r"\byou two\b|\byou never know\b", re.IGNORECASE)


def is_generic_you(sentence: str) -> bool:
    return "you" in sentence.lower() and bool(_GENERIC_YOU_RE.search(sentence))


_NEVER_KNOW_RE = re.compile(r"\byou never know\b", re.IGNORECASE)


def is_plural_you(sentence: str) -> bool:
    """A "you" that is not the one listener: a group (``address``) or a set phrase. Not "I
    wish you all the best" nor "I'll give you two tickets": one listener there."""
    return has_plural_you(sentence) or _NEVER_KNOW_RE.search(sentence) is not None


def specific(s: str, names: list[str]) -> bool:
    """A proper noun (not a participant) or a number: "Let's meet at Rosie's at 7"."""
    return any(m.group(0) not in " ".join(names) for m in _CAPITAL_RE.finditer(s))


def same_subject(before: str, after: str, names: list[str]) -> bool:
    """The follow-up names something the fact before it named ("... a pottery class. The
    class is on Fridays."), so the two read as one fact, not two glued together."""
    people = {n.lower() for name in names for n in name.split()}
    stems = {w[:5] for w in content_words(before) if w not in people}
    return any(w[:5] in stems for w in content_words(after) if w not in people)


def held_by(s: str, name: str, names: list[str]) -> str:
    """ "Jon is a great mentor" said by Gina to Jon is Gina's view: "Gina thinks Jon is ..."."""
    first = s.split(None, 1)[0] if s.split() else ""
    if not any(first.startswith(n) for n in names if n):
        s = s[:1].lower() + s[1:]
    return f"{name} thinks {s}"


_YOU_VERB_RE = re.compile(r"\b(?:you|you've|you have)\s+(?:(?:just|really|finally|already|totally|definitely|"
                          r"all|both|guys)\s+)?([a-z']+)", re.IGNORECASE)


def told_back(s: str) -> bool:
    """ "You found the perfect spot", "You've done so much": the listener's own past, said
    back to them (a past verb right after "you"), not the speaker's view of them."""
    for m in _YOU_VERB_RE.finditer(s):
        verb = m.group(1).lower()
        if verb in ("were", "did", "had", "been", "got", "went", "made") or is_past_form(verb):
            return True
    return False


# "Glad you're looking into other avenues", "It's great that you have a support system",
# "So cool that you get to travel": the speaker's pleasure at the listener's own news. What
# follows the lead is the listener's fact, told in their turn; restated as the speaker's view
# ("Maria thinks John is looking into other avenues") it is a guess, not news.
_GLAD_FOR_RE = re.compile(
    r"^(?:[\w' ]{0,25}[,!]\s+)?(?:(?:i'm|i am|it's|it is|that's|that is|so|really|just|always)\s+)*"
    r"(?:glad|happy|great|cool|nice|awesome|good|amazing|wonderful)\s+(?:that\s+|to\s+(?:see|hear|know)\s+(?:that\s+)?)?"
    r"(?:you|you're|you've|you and your)\b", re.IGNORECASE)


def glad_for(sentence: str) -> bool:
    """ "Hey John, glad you're looking into other avenues": the listener's news, welcomed."""
    return _GLAD_FOR_RE.match(sentence.strip()) is not None


def courtesy(text: str, speaker: str, listener: str, names: list[str]) -> bool:
    """A line that is only talk between the two: a prediction or wish about the listener
    ("Caroline will be an awesome mom", "Jon's hard work will pay off"), a promise to keep
    them posted ("Tim will let John know how it goes"), or eagerness for their news ("Gina
    can't wait to see Jon's studio done"). Undated and naming nothing but the two people:
    with a date, a place or a name it is a plan, and kept. Also any line ``worth`` finds holds
    no fact: well-wishing, cheering, a look at what was shown, a feeling about nothing."""
    if no_fact(text, speaker, listener):
        return True
    if not listener or listener not in text or specific(text, names):
        return False
    lis, spk = re.escape(listener), re.escape(speaker)
    return bool(re.search(rf"\b{lis}(?:'s(?: [\w-]+){{0,3}})? (?:will|won't|is going to|are going to)\b", text)
                or re.search(rf"^{spk} will (?:make sure to |be sure to )?(?:\w+ )?(?:let|keep|tell|send|show|give|update|text|call|shout|"
                             rf"get back)\b.*\b{lis}\b", text)
                or _EAGER_RE.search(text))


_EAGER_RE = re.compile(r"\bcan't wait (?:to (?:see|hear|show|try|read|watch|check)\b|for)")


# An impersonal "you" in a statement about how something works: "It's a good way to work out
# your legs and core", "it's grippy but still lets you move", "Running helps you sleep". It
# is anyone, not the listener: naming the listener there writes a false fact ("a good way to
# work out Tim's legs"). Only when the first "you" of the sentence is this one, so "your
# studio lets you ..." still names the listener's studio.
_IMPERSONAL_YOU_RE = re.compile(
    r"\b(?:an?|the|one|another)\s+(?:[\w-]+\s+){0,2}ways?\s+to\s+(?:[\w-]+\s+){1,3}?(?:you|your|yourself)\b|"
    r"\b(?:lets|helps|makes|keeps|gives|allows|gets|brings|takes|puts|teaches|forces|reminds)\s+you\b|"
    # "a strategy game where you build settlements", "It's great when you find a group ..."
    r"\ban?\s+(?:[\w-]+\s+){0,3}(?:where|in which)\s+you\b|"
    r"^(?:it's|it is|it can be|it feels|it's always)\s+(?:so\s+|really\s+|just\s+|super\s+)*[\w-]+\s+(?:when|whenever)\s+you\b",
    re.IGNORECASE)
# The same verbs in the base form ("they still let you move") only where no first person
# is in the sentence: "I can help you" is the listener.
_IMPERSONAL_BASE_RE = re.compile(r"\b(?:can|still)\s+(?:let|help|make|keep|give|"
                                 r"allow|get|bring|take|teach|force)\s+you\b", re.IGNORECASE)
_FIRST_RE = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|me|my|mine|myself|we|we're|we've|us|our)\b", re.IGNORECASE)
_ANY_YOU_RE = re.compile(r"\b(?:you|your|you're|you've|you'll|you'd|yours|yourself)\b", re.IGNORECASE)


def is_impersonal_you(sentence: str) -> bool:
    """ "It's a good way to work out your legs": the first "you" of the sentence is anyone."""
    if "you" not in sentence.lower():
        return False
    first = _ANY_YOU_RE.search(sentence)
    if first is None:
        return False
    m = _IMPERSONAL_YOU_RE.search(sentence)
    if m is None and not _FIRST_RE.search(sentence):
        m = _IMPERSONAL_BASE_RE.search(sentence)
    return m is not None and m.start() <= first.start() < m.end()
