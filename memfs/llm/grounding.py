"""Checks that a model's output rests on what it was shown: the rule "LLM mode is never
worse than offline" is enforced here, not trusted to the model.

Everything is lexical and deterministic (no second model call): content words are
lower-cased word tokens minus stopwords, with a crude suffix stemmer ("moved" ~ "moving",
"hikes" ~ "hiking"), digits kept. Lexical overlap is a weak test of truth, but a strong
test of *invention*: a fact that shares no content word with the turn it cites, a summary
made of words no item contains, or the schema's own example text ("The summary text.")
all fail it, and those are the failures small models actually produce.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

STOPWORDS = frozenset("""a an the and or but if of to in on at for with by from as is are was were be been being am
i me my mine you your yours he him his she her hers it its we us our they them their this that these those
there here so very really just also too not no do does did have has had having will would can could should
about into over after before than then up out what which who whom whose when where why how all any some
one ones thing things something someone people person user assistant speaker author now still again
yes yeah ok okay oh well lot lots much many more most get got go going went like""".split())

_WORD_RE = re.compile(r"[^\W_]+")  # Unicode letters and digits
_SUFFIXES = ("ing", "ed", "es", "s", "ly")

#: Texts a model copies from a schema or prompt instead of answering (lower-case, no final stop).
PLACEHOLDERS = frozenset({
    "the summary text", "summary text", "summary", "the summary", "one paragraph summary", "text", "string",
    "a summary", "lorem ipsum", "n/a", "na", "none", "null", "todo", "tbd", "...", "…", "example",
    "one standalone sentence", "one standalone sentence; people by name", "fact", "the fact",
    "up-to-date memory text", "the corrected, up-to-date memory", "memory", "your summary here",
})


def stem(word: str) -> str:
    for suf in _SUFFIXES:
        if len(word) > len(suf) + 3 and word.endswith(suf):
            return word[: -len(suf)]
    return word


def content_words(text: str, exclude: Iterable[str] = ()) -> set[str]:
    """Stemmed content words of ``text``; ``exclude`` (e.g. speaker names) are left out."""
    skip = {stem(w) for e in exclude for w in _WORD_RE.findall((e or "").lower())}
    out = set()
    for w in _WORD_RE.findall(text.lower()):
        if len(w) < 2 and not w.isdigit():
            continue
        if w in STOPWORDS:
            continue
        s = stem(w)
        if s not in skip:
            out.add(s)
    return out


def is_placeholder(text: str) -> bool:
    """The schema's example or an empty stand-in instead of an answer."""
    low = " ".join(text.lower().split()).strip(" .!\"'`*_#:-")
    if not low or low in PLACEHOLDERS:
        return True
    return bool(re.fullmatch(r"(the |a )?(summary|text|string|placeholder)( text| here| goes here)?", low))


def fact_grounded(fact: str, cited: Iterable[str], names: Iterable[str] = ()) -> bool:
    """A fact shares at least one content word, other than a person's name, with the turns it
    cites, and says more than a name ("Ben." is not a fact)."""
    names = list(names)
    own = content_words(fact, exclude=names)
    if not own:
        return False
    source: set[str] = set()
    for text in cited:
        source |= content_words(text, exclude=names)
    return bool(own & source)


def turn_covered(turn: str, facts: Iterable[str], names: Iterable[str] = (), share: float = 0.25,
                 enough: int = 3) -> bool:
    """The facts citing a turn carry enough of it for the offline extractor to have nothing to
    add: together they share ``share`` of its content words (at least one, and ``enough``
    suffice for a long turn). A turn cited only by a thin fact ("Caroline went somewhere.")
    is not covered, so its offline facts are filed too."""
    names = list(names)
    words = content_words(turn, exclude=names)
    if not words:
        return True
    said: set[str] = set()
    for fact in facts:
        said |= content_words(fact, exclude=names)
    need = max(1, min(enough, math.ceil(share * len(words))))
    return len(words & said) >= need


def summary_grounded(summary: str, items: Iterable[str], min_share: float = 0.5) -> bool:
    """Not a placeholder, and at least ``min_share`` of its content words (and at least two,
    or all of them when it has fewer) occur in the items it summarises."""
    if is_placeholder(summary):
        return False
    own = content_words(summary)
    if not own:
        return False
    pool: set[str] = set()
    for item in items:
        pool |= content_words(item)
    shared = own & pool
    return len(shared) >= min(2, len(own)) and len(shared) >= min_share * len(own)


_NAME_RE = re.compile(r"\b[A-Z][a-zA-Z'\u00C0-\u024F-]+")
_LEADING = frozenset({"The", "A", "An", "This", "That", "These", "Those", "It", "There", "Their", "His", "Her",
                      "Our", "My", "In", "On", "At", "Since", "After", "Before", "When", "Now", "Today"})


def subject_of(text: str) -> set[str]:
    """What an item is about: its capitalised names (the first one first), else its first
    content words. Stemmed and lower-cased, comparable with `content_words`."""
    names = [m.group(0) for m in _NAME_RE.finditer(text) if m.group(0) not in _LEADING]
    if names:
        return {stem(re.sub(r"'s?$", "", names[0].lower()))}
    words = [stem(w) for w in _WORD_RE.findall(text.lower()) if w not in STOPWORDS and len(w) > 1]
    return set(words[:2])


def keeps_subject(old: str, new: str) -> bool:
    """An UPDATE may change what is said about the subject, never the subject itself."""
    subject = subject_of(old)
    return bool(subject) and bool(subject & content_words(new))
