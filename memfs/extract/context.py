"""A conversation line still opening on a pointer, stored with the words it points at.

``dangle`` resolves a pointer when one thing is named just before it; otherwise the line
stayed as said ("Maria: It was in London."), and alone it does not say what was in London.
Dropping such lines was measured and lost the evidence questions are found by
(``dangle``'s docstring). So the line keeps the one sentence that makes it readable:

- the other speaker's question it answers, when the line opens the speaker's turn (after
  nothing but a "Thanks!" or a "Wow!"): ``Maria, in reply to John's "Where in England was
  it?": It was in London.`` The previous turn must be the other person's (a name, not a
  role) and ask exactly one question; a yes-no question must hold the line's kind of
  pointer ("Did they sign it?" / "They signed it ..."), since "Is Spider-Man your
  favorite?" / "It was a real roller coaster" answers what was said before the question;
  a pointer before the line in the same turn ("It's beautiful! It really brings home
  ...") means the line goes on about that, not about the question;
- the speaker's own sentence just before it, when that one was no line of its own, for a
  personal pronoun ("Flowers bring joy. They represent growth ..." -> ``Melanie, after
  saying "Flowers bring joy.": They represent growth ...``). The sentence must be a
  statement with a name, four words or more, or a plural subject for "They": a question,
  a clause, or a short answer ("A few times.") is not what the line means.

The quoted sentence is verbatim (a quote is the speaker's words), short
(``MAX_CONTEXT_CHARS``), and must itself name something: a context that points again
("What inspired it?", "Yeah, I drew it.") or is filler ("Really?", "How about you?")
makes nothing readable and is not added. A dummy "it" before a clause with its own
subject ("It feels like all the hard work John has put in has paid off") reads alone and
gets no quote, which would only crowd its words in search. A short view that names
nothing ("Maria: It can be tough.") is not stored; any other line without this context
gets ``reach``'s wider one, or is not stored.
"""

from __future__ import annotations

import re

from memfs.extract.attribution import ASSISTANT_ROLES, GENERIC_AUTHOR, GENERIC_USER, USER_ROLES
from memfs.extract.dangle import pointer
from memfs.extract.lexicon import STOPWORDS
from memfs.extract.reach import cheer, framed, opens_on_pointer, quoted
from memfs.extract.sentences import content_words, has_content, split_sentences, strip_edges
from memfs.extract.talk import is_talk

#: The longest sentence quoted as context: enough for a question, not a second fact that
#: would crowd the line's own words in search and embedding.
MAX_CONTEXT_CHARS = 90
#: A line this short that names nothing beyond a view ("It can be tough.") is not stored.
MAX_VIEW_WORDS = 6
# "It feels like all the hard work John has put in has paid off": the "it" is a dummy before
# a clause with its own subject and verb; the line reads alone, a quote would only crowd it.
_CLAUSE_AFTER_IT_RE = re.compile(
    r"^it\s+(?:really\s+|just\s+)?(?:feels|felt|seems|seemed|looks|looked|sounds|sounded)\s+(?:like|as if|as though)\s+"
    r"(?:(?:i|we|you|he|she|they|i'm|we're|you're|they're|he's|she's|i've|we've|they've)\b|"
    r"(?:[\w'-]+\s+){1,6}?(?:is|are|was|were|has|have|had|will|would|can|could)\b)", re.IGNORECASE)
# An attachment caption the chat adds to a turn: "Maria shares a photo of a park."
_CAPTION_RE = re.compile(r"^[A-Z][\w'-]*(?: [A-Z][\w'-]*)? shares? (?:a|an|some|the) ", re.IGNORECASE)
# A pronoun in the quoted sentence that points elsewhere again ("What inspired it?").
_POINTS_RE = re.compile(r"\b(?:it|its|they|them|their|he|she|him|his|her)\b|"
                        r"\b(?:this|that|these|those)\s*(?:[?.!,]|$|(?:is|was|are|were|about|for|like)\b)",
                        re.IGNORECASE)
# Something named: a capitalized word inside the sentence, a number, or a noun after a determiner.
_NAMED_RE = re.compile(r"(?<=[\w,] )(?!I\b)(?-i:[A-Z])[\w-]+|\d|\b(?:the|a|an|your|my|his|her|their|our)\s+"
                       r"(?!(?:one|ones|thing|things|stuff|way|lot|bit)\b)[a-z-]{3,}|"
                       r"\b(?:what|which)\s+(?:kind of\s+|type of\s+|sort of\s+)?(?!(?:kind|type|sort)\b)[a-z]{3,}\s+"
                       r"(?:was|is|are|were|did|do|does)\b", re.IGNORECASE)  # "What concert was it?"
# A yes-no question: "Is it a yoga studio?", "Did they sign it?", "Any positive vibes?".
_YES_NO_RE = re.compile(r"^(?:is|are|was|were|do|does|did|have|has|had|can|could|will|would|should|any)\b",
                        re.IGNORECASE)
# What a pronoun can point at, by kind: the question must hold one of the line's kind.
_CLASS = {"it": "thing", "its": "thing", "they": "plural", "them": "plural", "their": "plural",
          "these": "shown", "those": "shown", "this": "shown", "that": "shown", "he": "he", "him": "he",
          "his": "he", "she": "she", "her": "she"}
_DEMONSTRATIVE_NOUN_RE = re.compile(r"\b(this|that|these|those)\s+(?!(?:is|was|are|were|the|a|an|one|ones|"
                                    r"for|about|like|to|in|on|of)\b)[a-z]{3,}", re.IGNORECASE)
_PERSONAL = frozenset(w for w, kind in _CLASS.items() if kind != "shown")
# A name inside a sentence (not the first word, not "I").
_NAME_RE = re.compile(r"(?<=[\w,] )(?!I\b)(?-i:[A-Z])[\w-]+")
# The view words of a bare reaction: say how something was, not what it was.
_VIEW_WORDS = frozenset("""tough hard easy rough great good fun amazing awesome cool nice
wonderful fantastic incredible beautiful lovely special worth worthwhile satisfying rewarding
fulfilling challenging scary exciting inspiring crazy wild busy interesting meaningful helpful
important powerful emotional overwhelming perfect bad sad difficult stressful""".split())


def in_context(text: str, name: str, people: tuple[str, ...], before: str | None, previous: str,
               previous_speaker: str, limit: int, turn: str = "") -> str | None:
    """`text` (a settled line by `name`) as it is when it reads alone; with the sentence it
    points at when one makes it readable (within `limit` characters); None when it names
    nothing at all; as said otherwise. `before`: the speaker's words before it in the turn
    (None: not known); `previous`: the turn before, said by `previous_speaker`; `turn`: the
    whole turn, whose attachment may be what the line is about (``reach``)."""
    prefix = f"{name}: "
    body = text[len(prefix):] if text.startswith(prefix) else text
    if cheer(body):
        return None  # "Don't let it get John down.": encouragement, no fact about anyone
    pro = pointer(body)
    if pro is None or _CLAUSE_AFTER_IT_RE.match(body):
        text = framed(text, name, people)
        body = text[len(prefix):] if text.startswith(prefix) else text
        if not opens_on_pointer(body):
            return text
        pro = pointer(body) or body.split(None, 1)[0].lower()
    known = before is not None and name not in (GENERIC_USER, GENERIC_AUTHOR)
    context = _context(name, people, pro, before or "", previous, previous_speaker) if known else None
    if context is not None and len(context) + len(body) + 2 <= limit:
        return f"{context}: {body}"
    if _names_nothing(body, people):
        return None
    return quoted(text, name, people, before if known else None, previous, previous_speaker, turn, limit)


def _context(name: str, people: tuple[str, ...], pro: str, before: str, previous: str,
             previous_speaker: str) -> str | None:
    """ "Maria, in reply to John's "...?"" or "Maria, after saying "..."", or None."""
    said = _sentences(before)
    own = [s for s in said if not _filler(s, people)]
    if own:
        last = own[-1]
        if not _own_topic(last, pro, people):
            return None  # a question, a clause, a short answer, or a sentence that points again
        return f'{name}, after saying "{_quoted(last)}"'
    if any(_POINTS_RE.search(strip_edges(s, people) or s) for s in said):
        return None  # "It's beautiful! It really brings home ...": the line goes on about that
    if not previous_speaker or previous_speaker == name or previous_speaker.lower() in ASSISTANT_ROLES | USER_ROLES:
        return None  # the speaker's own turn, or a role's: whose question it was is not a name
    asked = [s for s in _sentences(previous) if s.endswith("?") and len(s.split()) > 1]
    if len(asked) != 1 or _filler(asked[0], people) or not _readable(asked[0], people):
        return None  # no question, or several: which one the line answers is a guess
    q = strip_edges(asked[0], people) or asked[0]
    if _YES_NO_RE.match(q) and _CLASS.get(pro.split()[0].split("'")[0]) not in _classes(q):
        # "Is Spider-Man your favorite?" / "It was a real roller coaster": a yes-no question
        # is answered by yes or no; a line on another thing than it asks about answers
        # what was said before it.
        return None
    return f'{name}, in reply to {previous_speaker}\'s "{_quoted(asked[0])}"'


def _own_topic(sentence: str, pro: str, people: tuple[str, ...]) -> bool:
    """The speaker's own sentence is what a personal pronoun after it means: a statement
    with a name or four words or more ("Feeling supported by all of you means so much."),
    or a plural subject for "They" ("Flowers bring joy."); not "A few times."."""
    head = pro.split()[0].split("'")[0]
    if not sentence.endswith((".", "!", "\u2026")) or head not in _PERSONAL or not _readable(sentence, people):
        return False
    core = strip_edges(sentence, people)
    names = {n for p in people for n in p.split()}
    return len(core.split()) >= 4 or any(m.group(0) not in names for m in _NAME_RE.finditer(core)) \
        or (_CLASS.get(head) == "plural" and re.match(r"^(?-i:[A-Z])[a-z]+s\s", core) is not None)


def _classes(question: str) -> set[str]:
    """The kinds of thing `question` points at; "this experience" is a thing, "those dates" plural."""
    kinds = {_CLASS[w.lower()] for w in re.findall(r"[A-Za-z]+", question) if w.lower() in _CLASS}
    for m in _DEMONSTRATIVE_NOUN_RE.finditer(question):
        kinds.add("plural" if m.group(1).lower() in ("these", "those") else "thing")
    return kinds


def _sentences(turn: str) -> list[str]:
    """The turn's sentences, without the chat's attachment captions ("Maria shares a photo of ...")."""
    out = []
    for s in split_sentences(" ".join(turn.split())):
        s = s.strip()
        if s and not _CAPTION_RE.match(s):
            out.append(s.rstrip("!") + "?" if s.endswith("?!") else s)
    return out


def _filler(sentence: str, people: tuple[str, ...]) -> bool:
    """ "Thanks, Mel!", "Wow!", "How about you?", "That sounds awesome.": names nothing."""
    core = strip_edges(sentence, people)
    return not core or is_talk(core) or not has_content(core, min_words=3, names=people) \
        or not any(w not in _VIEW_WORDS for w in _content(core, people))


def _readable(sentence: str, people: tuple[str, ...]) -> bool:
    """Short, and names what it is about: not "What inspired it?" nor "Yeah, I drew it."."""
    core = strip_edges(sentence, people) or sentence
    if len(sentence) > MAX_CONTEXT_CHARS or pointer(core) is not None:
        return False
    names = {n for p in people for n in p.split()}
    return _POINTS_RE.search(core) is None or any(m.group(0) not in names for m in _NAMED_RE.finditer(core))


def _quoted(sentence: str) -> str:
    """Double quotes inside become single ones: the quote around it stays one quote."""
    return sentence.replace('"', "'")


def _content(text: str, people: tuple[str, ...]) -> list[str]:
    names = {n.lower() for p in people for n in p.split()}
    return [w for w in content_words(text) if w not in names and w not in STOPWORDS]


def _names_nothing(body: str, people: tuple[str, ...]) -> bool:
    """ "It can be tough.", "It's really satisfying.": a short view of something unnamed, no
    fact. A name, a number, any word beyond the view words or a longer line keeps it ("It
    can be tough, but it's really satisfying and worthwhile" is what the speaker finds)."""
    rest = re.sub(r"^\W*\w+(?:'\w+)?", "", body)  # the pointer itself
    if len(body.split()) > MAX_VIEW_WORDS or re.search(r"(?<=\w )(?-i:[A-Z])|\d", rest):
        return False
    return all(w in _VIEW_WORDS for w in _content(rest, people))
