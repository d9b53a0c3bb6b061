"""When a speaker's later "I"/"my"/"me" in a line may read "they"/"their"/"them".

"Jon is sprucing up Jon's biz plan and tweaking Jon's pitch" repeats a name a reader has
just met; "Jon is sprucing up their biz plan and tweaking their pitch" says the same with
no doubt who is meant. A pronoun is only safe when the speaker is the last person the
line named before it: nobody else (another name, a he/she/they, a "you", a group, a
counted plural) stands between, so "their" cannot be read as someone else's.
"""

from __future__ import annotations

import re

# Anything a "they"/"their" could point at instead of the speaker.
_OTHER_REFERENT_RE = re.compile(
    r"\b(?:they|them|their|theirs|they're|they've|he|she|his|him|her|hers|you|your|yours|"
    r"we|us|our|ours|others|family|everyone|everybody|peoples?|kids|children|friends|team)\b",
    re.IGNORECASE)
# A capitalised word is taken for another name (conservative: "Sweden" blocks too).
_CAPITALISED_RE = re.compile(r"\b[A-Z][\w'-]*")
_SENTENCE_END_RE = re.compile(r"[.!?;:]\s|\s-\s|\u2014")
_COUNTED_RE = re.compile(r"\b(?:two|three|four|five|six|seven|eight|nine|ten|\d+|several|many|few|both|"
                         r"multiple|couple|lots?)\b", re.IGNORECASE)


def speaker_last_named(before: str, name: str) -> bool:
    """True when ``before`` (the line up to a pronoun) last named ``name`` as a subject.

    The mention must be the bare name ("Jon is", not "Jon's kids" or "Jon and others"),
    in the same clause, with no other possible referent after it.
    """
    at = before.rfind(name)
    if at < 0 or (at > 0 and (before[at - 1].isalnum() or before[at - 1] in "'-")):
        return False
    if before[:at].rstrip().lower().endswith((" and", " &", " or", "with")):
        return False  # "Gina and Jon": "their" would be both of theirs
    after = before[at + len(name):]
    if after[:1].isalnum() or after.startswith(("'s", "\u2019s", " and ", " & ", ",")):
        return False
    return nobody_since(after)


def nobody_since(text: str) -> bool:
    """True when ``text`` (what follows a mention of the speaker) names nobody else."""
    return not (_SENTENCE_END_RE.search(text) or _OTHER_REFERENT_RE.search(text)
                or _COUNTED_RE.search(text) or _CAPITALISED_RE.search(text))


_THEY_RE = re.compile(r"\b(?:they|them|their|theirs|they're|they've)\b", re.IGNORECASE)


def they_before(tokens: list[str], own: list[int], i: int) -> bool:
    """A "they" before token i that is not the speaker's (``own``): a later "their" could be theirs."""
    return bool(_THEY_RE.search("".join(t for k, t in enumerate(tokens[:i]) if k not in own)))
