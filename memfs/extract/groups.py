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


_TOGETHER_RE = re.compile(r"\btogether\b", re.IGNORECASE)


def group_name(name: str, context: str, sentence: str = "", addressee: str | None = None) -> str:
    """What "we" becomes: plural, so the verb after it needs no change.

    "since we last chatted" between two people -> "Caroline and Melanie"; a turn that
    mentions family -> "Caroline and family"; otherwise "Caroline and others".
    """
    if addressee and (_MUTUAL_RE.search(sentence) or (
            _TOGETHER_RE.search(sentence) and not _FAMILY_RE.search(sentence))):
        return f"{name} and {addressee}"  # "we volunteered together", said to the other one
    if _FAMILY_RE.search(context):
        return f"{name} and family"
    return f"{name} and others"
