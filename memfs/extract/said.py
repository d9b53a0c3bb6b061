"""Who says a line that names nobody, and when such a line is only a reaction.

In a conversation a fact must carry its person. A sentence that names nobody ("That
roadtrip was insane.") is its speaker's: "Name: text", or, for a general statement,
"Name believes ..." (``rewrite.general_belief``). A short one with no date and no name
that points at what the other person said or showed ("That pic is cool", "It was a
blast") is a reaction and no memory at all.
"""

from __future__ import annotations

import re

from memfs.extract.address import has_plural_you
from memfs.extract.attribution import GENERIC_AUTHOR, GENERIC_USER
from memfs.extract.rewrite import general_belief

#: A fact naming nobody, undated, without a proper noun, of at most this many words, is a
#: reaction to what the other person said, not a memory.
REACTION_MAX_WORDS = 9
# A reaction points at what the other person said or showed: "That pic is cool", "It
# was a blast", "Those bowls are amazing", "Bet the atmosphere was incredible".
_DEICTIC_RE = re.compile(
    r"^(?:(?:that|this|those|these)\s+(?:\w+\s+)?(?:is|are|was|were|looks?|sounds?|seems?|must|both|all|can|could|"
    r"might|will|really|make|makes|help|helps)\b|"
    r"(?:that's|it's|they're|there's)\b|(?:that|this|it|they)\s+(?:is|are|was|were|looks?|sounds?|seems?|"
    r"must|really|so|sure|always|just|made|makes|means)\b|"
    r"(?:bet|oops|sorry|sounds|such|so|how|wow|yeah|must|looks|seems|glad|nice|great|awesome|cool|"
    r"long time|much|good|lol|haha|omg|totally|same|what)\b)", re.IGNORECASE)
_PROPER_RE = re.compile(r"(?<=[a-z,;] )[A-Z][a-z]+|\d")


def attributed(text: str, name: str, people: tuple[str, ...], kind: str, dated: bool = False,
               listener: str = "") -> str | None:
    """A conversation fact that names nobody ("That roadtrip was insane.") or only the
    `listener` of a two-person chat is said by its speaker: keep who said it, or the fact
    no longer reads on its own (nor as the speaker's view of the listener). A short one with
    no date and no name in it is a reaction ("That pic is cool.", "Being a mom is
    awesome.") and not worth a line: None."""
    if kind != "conversation":
        return text
    if not listener and has_plural_you(text):
        return None  # "you guys" with no one listener: names no one
    if name in (GENERIC_USER, GENERIC_AUTHOR):
        return text
    if _names(name, text):
        return text
    named = [p for p in people if p and _names(p, text)]
    if named and listener and named == [listener]:
        # "Running can really boost Melanie's mood." said by Caroline to Melanie: her view
        # of the listener, not a fact Melanie told; without its holder it reads as one.
        if _names(listener, text.split(None, 1)[0]):
            return f"{name} thinks {text}"  # "Melanie is an inspiration to everyone."
        return general_belief(text, name) or f"{name}: {text}"
    if named:
        return text
    if is_reaction(text, dated):
        return None
    return general_belief(text, name) or f"{name}: {text}"


def _names(person: str, text: str) -> bool:
    """ "Tim" in "Tim's book", not in "family time"."""
    return re.search(rf"(?<!\w){re.escape(person)}(?!\w)", text, re.IGNORECASE) is not None


def is_reaction(text: str, dated: bool) -> bool:
    """Short, undated, no proper noun, pointing at what the other person said or showed."""
    return not dated and len(text.split()) <= REACTION_MAX_WORDS and not _PROPER_RE.search(text) \
        and _DEICTIC_RE.match(text) is not None
