"""A form of address left in a line: "Sorry about your job Tom, I know it was hard".

Commas around a vocative are often left out in chat, so ``sentences.strip_edges`` (which
needs them) misses it and the stored line reads "Sorry about Tom's job Tom". In a
two-person chat the listener is "you"; their name closing a clause right after a word
that cannot take it as an object or a title (not a preposition, "and", a relation word like
"my brother Tom", nor a capitalised word) is an address, and so is their name opening the
sentence right before "I" / "you" ("Tom I loved the cake"). Either is cut.
"""

from __future__ import annotations

import functools
import re

from memfs.extract.lexicon import RELATION_WORDS

_TAKES_A_NAME = frozenset("""to for with at about from of on in by into onto like than as and or nor but between
among without near beside behind over under after before since except including via vs versus named called
is was are were be been being it's that's this dear coach teacher boss colleague mr mrs ms miss dr uncle aunt
""".split()) | RELATION_WORDS
_OPENS = r"(?:I|I'm|I've|I'll|I'd|you|you're|you've|your|we|we're|my|thanks|thank|congrats|congratulations)\b"


@functools.lru_cache(maxsize=64)
def _patterns(listener: str) -> tuple[re.Pattern[str], re.Pattern[str]] | None:
    first = listener.split()[0] if listener.split() else ""
    if len(first) < 3 or not first[:1].isupper():
        return None
    # The name or a nickname that is its start ("Mel" for Melanie), never a longer word
    # ("Mar" of Maria is no licence for "March").
    alt = "|".join(re.escape(first[:n]) for n in range(len(first), 2, -1))
    name = rf"(?:{alt})"
    end = re.compile(rf"(?P<before>\b[A-Za-z][\w']*)\s+{name}(?![\w'-])(?=\s*(?:[,.!?\u2026]|$))")
    start = re.compile(rf"^{name}\s+(?={_OPENS})")
    return end, start


def drop_vocative(sentence: str, listener: str) -> str:
    """ "Sorry about your job Tom, I know it was hard" said to Tom -> "Sorry about your job, I know ..."."""
    if not listener or listener.split()[0][:3] not in sentence:
        return sentence
    pats = _patterns(listener)
    if pats is None:
        return sentence
    end, start = pats
    out = end.sub(lambda m: m.group(0) if m.group("before").lower() in _TAKES_A_NAME else m.group("before"),
                  sentence)
    out = start.sub("", out)
    return out[:1].upper() + out[1:] if out != sentence and out else out
