"""A "yes" that answers the other speaker's question, said back as the fact it affirms.

"Are you going to be a bridesmaid?" / "Yes, and I have to give a speech." holds a fact of
the answerer's that no sentence of their turn says: read alone, the answer only says there
is a speech. The opening "yes" is replaced by the question, turned into the answerer's own
statement ("I am going to be a bridesmaid, and I have to give a speech."), and the turn then
goes through extraction like any other (first person to name, dates, filing).

Only a question that reads as one plain statement when turned is used, so nothing is
guessed:

- the turn before is the other named speaker's and asks exactly one question, a yes-no
  question on "you" as the subject ("Are you ...", "Did you ...", "Have you ...", "Do
  you ...", "Will you ...") or on "your" something ("Is your sister ...");
- the question names its own things: no pointer ("Did you make it?": what "it" is lies
  further back), no "any/ever/yet" ("Do you have any pets?" turned would claim some), no
  "or" (which one was affirmed?), none of the asker's "I/me/my" (turned, they would read as
  the answerer's), no plural "you" ("you guys"), and at most ``MAX_WORDS`` words;
- the turn opens on a bare affirmative ("Yes", "Yeah!", "Yep, Tim,", "Of course") that is
  not the start of a longer phrase ("Yeah, that pic was from a show": "yeah" then a
  pointer at what was shown is kept as said, since it may answer another thing).

An echo right after it ("Yes, I did.", "Yeah, I am!") is dropped: the question says it.
"""

from __future__ import annotations

import re

from memfs.extract.lexicon import STOPWORDS

#: The longest question turned into a statement: a plain question, not a paragraph.
MAX_WORDS = 14

_AFFIRM_RE = re.compile(
    r"^(?:(?:oh|ah|well|haha|ha),?\s+)?(?:yes|yeah|yep|yup|sure(?: thing)?|of course|definitely|absolutely|totally|"
    r"indeed|certainly|you bet)(?=[\s.!,;:-]|$)", re.IGNORECASE)
# What may follow it before the rest of the turn: the asker's name, punctuation, a dash.
_AFTER = r"(?:,?\s+{name}\b)?(?:\s*[.!,;:]+\s*|\s+-\s+|\s+(?=(?:I|I'm|I've|we|we're)\b)|\s*$)"
# The echo a turn may open with after its "yes", said again by the question.
_ECHO_RE = re.compile(r"^(?:I|we)\s+(?:am|'m|do|did|have|'ve|will|was|were|sure did|sure am|sure do|"
                      r"definitely (?:am|do|did|have|will))\s*[.!]+\s*", re.IGNORECASE)
# "Are you going to be a bridesmaid?": the auxiliary, then "you" as the subject.
_YOU_Q_RE = re.compile(r"^(are|were|have|do|did|will|can)\s+you\s+(?!guys\b|all\b|two\b|both\b)(.+)$",
                       re.IGNORECASE)
# "Is your sister getting married?": the auxiliary, then "your" something.
_YOUR_Q_RE = re.compile(r"^(is|was|are|were|has|have|does|did|will)\s+your\s+(.+)$", re.IGNORECASE)
# "your (new) sister | getting married": one noun (an adjective before it at most), then the rest.
_OWNED_RE = re.compile(r"((?:(?:new|old|little|big|best|older|younger|own)\s+)?[a-z][\w-]*)\s+(?![A-Z])(\S.*)$")
#: A first sentence this short with no subject of its own ("Every Sunday with my band.")
#: is a detail of the affirmed fact, not a sentence of its own.
_FRAGMENT_WORDS = 6
# Openers of such a detail that are no name, though not stopwords: lower-cased when joined.
_OPENERS = frozenset("twice mostly usually sometimes always".split())
_SUBJECT_RE = re.compile(r"(?:i|i'm|i've|i'll|i'd|we|we're|we've|he|she|he's|she's|they|they're|it|it's|my|our|his|"
                         r"her|their|this|that|there|you|your|[A-Z][\w'-]*\s+(?:is|was|has|had|will|and))\b",
                         re.IGNORECASE)
# A state that, affirmed, is no fact worth a line ("Are you okay?" / "Yes.").
_EMPTY_STATES = frozenset("""okay ok alright sure serious kidding joking ready done free around home back in up
awake busy fine good well set""".split())
# "Did you join in?": a verb and its particle alone are about what was said before.
_PARTICLES = frozenset("in out up on off over back along through around".split())
# Common verbs after "did you", in the past: "Did you get the job?" -> "I got the job".
PAST = {"end": "ended", "get": "got", "go": "went", "make": "made", "see": "saw", "have": "had", "take": "took",
         "find": "found", "buy": "bought", "meet": "met", "try": "tried", "decide": "decided", "finish": "finished",
         "start": "started", "move": "moved", "join": "joined", "win": "won", "visit": "visited", "manage": "managed",
         "pass": "passed", "learn": "learned", "sign": "signed", "book": "booked", "hear": "heard", "read": "read"}
_STATEMENT = {"are": "I am", "were": "I was", "have": "I have", "do": "I", "did": "I did", "will": "I will",
              "can": "I can"}
# What a turned question may not hold: a pointer, a polarity word, a choice, the asker.
_BLOCKED_RE = re.compile(
    r"\b(?:it|its|that|this|these|those|them|they|there|he|him|she|her|one|ones|any|anyone|anything|anybody|"
    r"anywhere|anymore|anytime|ever|yet|at all|or|either|i|me|my|mine|we|us|our|i'm|i've|i'd|i'll)\b", re.IGNORECASE)
# A lead-in of the question's turn: "Oh nice!", "Wow, Joanna." -- only the last sentence counts.
_SENTENCE_RE = re.compile(r"[^.!?]+[.!?]+")


_IDIOM_RE = re.compile(r"\b(?:these days|this (?:week|weekend|month|year|summer|winter|spring|fall|autumn|time|morning|"
                       r"evening)|that time)\b", re.IGNORECASE)


def idioms_out(question: str) -> str:
    """The question without phrases whose "this"/"these" point at no earlier thing ("these days")."""
    return _IDIOM_RE.sub(" ", question)


def the_question(previous: str) -> str | None:
    """The one question of the turn before, or None when it asks none or several."""
    said = previous.strip()
    asked = [s.strip() for s in _SENTENCE_RE.findall(said if said.endswith(("?", ".", "!")) else said + ".")
             if s.strip().endswith("?")]
    return asked[0] if len(asked) == 1 else None


def _empty(aux: str, words: list[str]) -> bool:
    """ "Are you okay?", "Did you join in?": turned, it says nothing a reader can keep."""
    if aux in ("are", "were"):
        return not words or (len(words) == 1 and words[0] in _EMPTY_STATES)
    return len(words) < 2 or (len(words) == 2 and words[1] in _PARTICLES)


def _as_statement(question: str) -> str | None:
    """ "Are you going to be a bridesmaid?" -> "I am going to be a bridesmaid"; None when it
    would not read as one plain statement."""
    q = question.rstrip("?").strip()
    q = re.sub(r"^(?:so|and|but|oh|wow|hey),?\s+", "", q, flags=re.IGNORECASE)
    if len(q.split()) > MAX_WORDS or _BLOCKED_RE.search(idioms_out(q)):
        return None
    m = _YOU_Q_RE.match(q)
    if m is not None:
        aux, rest = m.group(1).lower(), m.group(2)
        rest = re.sub(r"\byour\b", "my", re.sub(r"\byourself\b", "myself", rest, flags=re.IGNORECASE), flags=re.IGNORECASE)
        if re.search(r"\byou\b", rest, re.IGNORECASE) or _empty(aux, rest.lower().split()):
            return None  # "Do you think you ...": a second clause; "Are you okay?": nothing kept
        if aux == "did":  # "Did you end up moving?" -> "I ended up moving"; else "I did go"
            verb, _, tail = rest.partition(" ")
            if verb.lower() in PAST:
                return f"I {PAST[verb.lower()]} {tail}".rstrip()
        return f"{_STATEMENT[aux]} {rest}"
    m = _YOUR_Q_RE.match(q)
    if m is not None:
        aux, rest = m.group(1).lower(), m.group(2)
        owned = _OWNED_RE.match(rest)
        if owned is None or re.search(r"\byou(?:r)?\b", rest, re.IGNORECASE):
            return None
        return f"my {owned.group(1)} {aux} {owned.group(2)}"
    return None


def affirmed(text: str, previous: str, previous_speaker: str, name: str) -> str:
    """``text`` (a turn by ``name``) with its opening "yes" said as the fact it affirms,
    when the turn before (by ``previous_speaker``) asked one plain yes-no question of them;
    otherwise ``text`` as it is."""
    if not previous or not previous_speaker or previous_speaker == name:
        return text
    m = _AFFIRM_RE.match(text)
    after = m and re.compile(_AFTER.format(name=re.escape(previous_speaker))).match(text, m.end())
    if not after:
        return text
    question = the_question(previous)
    statement = _as_statement(question) if question else None
    if statement is None:
        return text
    rest = _ECHO_RE.sub("", text[after.end():], count=1).strip()
    if not rest:
        return statement + "."
    first = re.match(r"[^.!?]*", rest).group(0)  # type: ignore[union-attr]
    if re.match(r"(?:and|but|so)\b", rest, re.IGNORECASE) or (
            len(first.split()) <= _FRAGMENT_WORDS and _SUBJECT_RE.match(first) is None):
        # "Yes, and I have to ..." / "Yes, every Sunday with my band.": one sentence
        lead = rest.split(None, 1)[0]
        plain = lead.lower() in STOPWORDS and lead != "I" and not lead.startswith("I'") or lead.lower() in _OPENERS
        return f"{statement}, {rest[:1].lower() if plain else rest[:1]}{rest[1:]}"
    return f"{statement}. {rest[:1].upper()}{rest[1:]}"
