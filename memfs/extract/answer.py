"""A short answer to the other speaker's question, said as the fact it completes.

"How many followers do you have now?" / "About 2,000." and "What's your sister's name?" /
"Lily." hold facts of the answerer's that their turn alone does not say: "About 2,000."
names nothing, so it was not stored at all, and "In Leeds, near the university." was stored
as a line no reader could place. The answer's first sentence is replaced by the question
completed with it ("I have about 2,000 followers now.", "my sister's name is Lily.",
"I live these days in Leeds, near the university."), and the turn is then extracted like
any other (first person to name, dates, filing).

Only questions of a few plain shapes are completed, each asked of "you" or "your"
something, and only with an answer of the shape it asks for:

- how many: "How many N do / did / have / will you V ...?" with a number or a count;
- where: "Where do / did you V ...?", "Where are you from / based / living ...?" with a
  place ("in Leeds", "Leeds", "at the hospital");
- what is: "What's your N?" / "What was your N?" with a short noun phrase ("Lily",
  "probably Dune");
- when: "When is / was X?", "When do / did / will you V ...?" with a time ("June 14th",
  "next Monday", "in 2019");
- how long: "How long have you been V-ing ...?" with a span ("three years", "since I was
  twelve");
- how old: "How old is your N?" with an age ("She's three.", "Three.").

The question must be the one question of the other speaker's turn just before, hold no
pointer ("Where did you buy it?": what is "it"?), none of the asker's "I/me/my" and no
"or"; the answer's first sentence must be short (``MAX_ANSWER_WORDS``) and not a sentence
with its own subject ("I live in Leeds." says it already). A "yes" is ``affirm``'s.
"""

from __future__ import annotations

import re

from memfs.extract.affirm import PAST, idioms_out, the_question
from memfs.extract.lexicon import STOPWORDS

#: The longest first sentence read as a short answer to complete.
MAX_ANSWER_WORDS = 8

# A question's words that point elsewhere or belong to the asker: not completed.
_BLOCKED_RE = re.compile(r"\b(?:it|its|that|this|these|those|them|they|there|he|him|she|her|one|ones|or|i|me|my|"
                         r"mine|we|us|our|i'm|i've|i'd|i'll|else)\b", re.IGNORECASE)
_LEAD_RE = re.compile(r"^(?:(?:so|and|oh|hey|wow|nice|cool)[,!]?\s+)+", re.IGNORECASE)
# An answer that opens on its own subject is a sentence, not a completion ("I live in Leeds.").
# ... and one that opens on talk answers nothing ("Thanks!", "Good question.").
_SUBJECT_RE = re.compile(r"^(?:i|i'm|i've|i'd|i'll|we|we're|we've|he|she|he's|she's|they|they're|it|it's|my|our|his|her|"
                         r"their|its|your|"
                         r"you|that|this|there|yes|yeah|yep|no|nope|not|nah|haha|lol|dunno|idk|thanks|thank|thx|ty|"
                         r"wow|ok|okay|sure|great|cool|nice|awesome|aw+|yay|hey|hi|hello|good|same|me too|you too|"
                         r"of course|definitely|absolutely|who knows|no idea|hard to say|hmm+|what|how|why|where|when|"
                         r"who|which|let's|lets|please|sorry)\b", re.IGNORECASE)
# The answer's hedges and fillers before its content: dropped ("Um, Leeds") or kept lower-case ("probably Dune").
_FILLER_RE = re.compile(r"^(?:(?:um+|uh+|hmm+|well|oh|ah|honestly|actually)[,.]?\s+)+", re.IGNORECASE)
_HEDGES = frozenset("""probably maybe definitely just only around about almost nearly roughly over under since for
near from to until after before during every next last this early late tomorrow today tonight yesterday""".split())
_NUMBER = (r"(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
           r"forty|fifty|hundred|hundreds|thousand|thousands|dozen|dozens|a few|a couple|several|a lot|lots|many)")
_COUNT_RE = re.compile(rf"\b{_NUMBER}\b", re.IGNORECASE)
# A count and nothing else: "About 2,000", "three or so" -- not "two brothers and a sister".
_ONLY_COUNT_RE = re.compile(rf"^(?:(?:about|around|like|maybe|almost|nearly|over|just|only|roughly|probably)\s+)?"
                            rf"{_NUMBER}(?:\s+or so|ish|\+)?$", re.IGNORECASE)
_VERB_RE = re.compile(r"\b(?:is|was|are|were|has|have|had|do|does|did|will|would|can|could)\b", re.IGNORECASE)
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_WHEN_WORD_RE = re.compile(rf"\b(?:{_MONTHS}|monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|"
                           r"today|tonight|yesterday|next|last|this|week|weekend|month|year|spring|summer|autumn|"
                           r"fall|winter|christmas|\d{4}|\d{1,2}(?:st|nd|rd|th)?)\b", re.IGNORECASE)
_TIME_PREP_RE = re.compile(r"^(?:on|in|at|next|last|this|tomorrow|today|tonight|yesterday|around|early|late|mid|"
                           r"before|after|from|until|by|since|sometime|every)\b", re.IGNORECASE)
_DAY_RE = re.compile(r"\b\d{1,2}(?:st|nd|rd|th)?\b|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
                     re.IGNORECASE)
_PLACE_PREP_RE = re.compile(r"^(?:in|at|on|near|by|from|to|outside|around|downtown|abroad|overseas|home|back|up|down|"
                            r"across|over)\b", re.IGNORECASE)
_FROM_RE = re.compile(r"^from\s+", re.IGNORECASE)
_MOTION = frozenset("go went move moved travel travelled traveled fly flew head drive drove".split())
_SPAN_RE = re.compile(rf"^(?:for\s+|since\s+|about\s+|around\s+|almost\s+|nearly\s+|over\s+)?(?:{_NUMBER}|a|an)\s+"
                      r"(?:years?|months?|weeks?|days?|hours?|decades?)\b|^since\b", re.IGNORECASE)
_AGE_RE = re.compile(rf"\b({_NUMBER})\b(?:\s+(years?|months?|weeks?)(?:\s+old)?)?", re.IGNORECASE)

_HOW_MANY_RE = re.compile(r"^how many ([a-z][\w-]*(?: [a-z][\w-]*)?) (do|did|have|will) you ([a-z][\w'-]*)(.*)$",
                          re.IGNORECASE)
_WHERE_DO_RE = re.compile(r"^where (do|did) you ([a-z][\w'-]*)(.*)$", re.IGNORECASE)
_WHERE_ARE_RE = re.compile(r"^where are you (from|based|living|staying|working|studying|going|moving|headed)(.*)$",
                           re.IGNORECASE)
_WHAT_IS_RE = re.compile(r"^what(?:'s| is| was) your ([a-z][\w' -]*)$", re.IGNORECASE)
_WHEN_IS_RE = re.compile(r"^when(?:'s| is| was| are| were) ((?:your|the|[A-Z][\w-]*'s) [\w' -]+)$", re.IGNORECASE)
_WHEN_DO_RE = re.compile(r"^when (do|did|will) you ([a-z][\w'-]*)(.*)$", re.IGNORECASE)
_HOW_LONG_RE = re.compile(r"^how long have you been ([a-z][\w'-]*)(.*)$", re.IGNORECASE)
_HOW_OLD_RE = re.compile(r"^how old (?:is|are) your ([a-z][\w'-]*(?: [a-z][\w'-]*)?)$", re.IGNORECASE)


def _mine(words: str) -> str:
    return re.sub(r"\byour\b", "my", re.sub(r"\byourself\b", "myself", words, flags=re.IGNORECASE), flags=re.IGNORECASE)


def _plain(answer: str) -> str:
    """The answer without its filler, a hedge lower-cased: "Um, Probably Dune" -> "probably Dune"."""
    answer = _FILLER_RE.sub("", answer).strip()
    lead = answer.split(None, 1)[0] if answer else ""
    second = answer.split()[1] if len(answer.split()) > 1 else ""
    if lead.lower() in _HEDGES or (lead.lower() in STOPWORDS and lead != "I") or _COUNT_RE.fullmatch(lead) \
            or second[:1].islower() and lead[1:].islower():  # "Mixed feelings", not "New York"
        answer = answer[:1].lower() + answer[1:]
    return answer


def _when(answer: str) -> str | None:
    if not _WHEN_WORD_RE.search(answer):
        return None
    if _TIME_PREP_RE.match(answer):
        return answer
    return ("on " if _DAY_RE.search(answer) else "in ") + answer


def _complete(question: str, answer: str) -> str | None:
    """The question said as the answerer's statement, completed with ``answer``; None when
    the two are not of a shape above."""
    q = _LEAD_RE.sub("", question.rstrip("?").strip())
    if _BLOCKED_RE.search(idioms_out(q)) or not answer:
        return None
    if (m := _HOW_OLD_RE.match(q)) is not None:
        age = _AGE_RE.search(answer)
        if age is None or len(answer.split()) > 4:
            return None
        be = "are" if re.search(r"[^s]s$", m.group(1)) else "is"  # "my twins are"
        return f"my {m.group(1)} {be} {age.group(1).lower()} {age.group(2) or 'years'} old"
    if _SUBJECT_RE.match(answer):
        return None
    if (m := _HOW_MANY_RE.match(q)) is not None:
        noun, aux, verb, rest = m.groups()
        if not _ONLY_COUNT_RE.match(answer) or aux == "did" and verb.lower() not in PAST:
            return None
        said = {"do": f"I {verb}", "did": f"I {PAST.get(verb.lower(), verb)}", "have": f"I have {verb}",
                "will": f"I will {verb}"}[aux.lower()]
        return f"{said} {answer} {_mine(noun)}{_mine(rest)}"
    if (m := _WHERE_ARE_RE.match(q)) is not None:
        how, rest = m.groups()
        if how.lower() == "from":
            return f"I am from {_FROM_RE.sub('', answer)}{_mine(rest)}"
        if rest.lower().startswith(" to "):
            return None  # "Where are you going to stay?": not where they are going
        place = answer if _PLACE_PREP_RE.match(answer) else ("to " if how.lower() in ("going", "moving", "headed") else "in ") + answer
        return f"I am {how}{_mine(rest)} {place}"
    if (m := _WHERE_DO_RE.match(q)) is not None:
        aux, verb, rest = m.groups()
        if aux.lower() == "did" and verb.lower() not in PAST or rest.lower().startswith(" to "):
            return None
        done = PAST[verb.lower()] if aux.lower() == "did" else verb
        place = answer if _PLACE_PREP_RE.match(answer) else ("to " if verb.lower() in _MOTION else "in ") + answer
        return f"I {done}{_mine(rest)} {place}"
    if (m := _WHAT_IS_RE.match(q)) is not None:
        if len(answer.split()) > 5 or _VERB_RE.search(answer):
            return None  # "Paris is lovely" is a sentence of its own
        noun = re.sub(r"\s+again$", "", _mine(m.group(1)))  # "What's your name again?"
        return f"my {noun} {'was' if ' was ' in f' {q.lower()} ' else 'is'} {answer}"
    if (m := _WHEN_IS_RE.match(q)) is not None:
        when = _when(answer)
        verb = re.match(r"^when(?:'s| (is|was|are|were))", q, re.IGNORECASE)
        return None if when is None else f"{_mine(m.group(1))} {(verb.group(1) or 'is').lower() if verb else 'is'} {when}"
    if (m := _WHEN_DO_RE.match(q)) is not None:
        aux, verb, rest = m.groups()
        when = _when(answer)
        if when is None or aux.lower() == "did" and verb.lower() not in PAST:
            return None
        done = {"do": verb, "did": PAST.get(verb.lower(), verb), "will": f"will {verb}"}[aux.lower()]
        return f"I {done}{_mine(rest)} {when}"
    if (m := _HOW_LONG_RE.match(q)) is not None:
        if not _SPAN_RE.match(answer):
            return None
        span = answer if re.match(r"^(?:for|since)\b", answer, re.IGNORECASE) else f"for {answer}"
        return f"I have been {m.group(1)}{_mine(m.group(2))} {span}"
    return None


def answered(text: str, previous: str, previous_speaker: str, name: str) -> str:
    """``text`` (a turn by ``name``) with a short first sentence said as the fact it
    completes, when the turn before (by ``previous_speaker``) asked one question of a shape
    above; otherwise ``text`` as it is."""
    if not previous or not previous_speaker or previous_speaker == name:
        return text
    question = the_question(previous)
    if question is None:
        return text
    m = re.match(r"\s*([^.!?]*[^.!?\s])\s*([.!?]+|$)\s*", text)
    if m is None:
        return text
    first = re.sub(rf"^(?:{re.escape(previous_speaker)}[,!]?\s+)|(?:,\s*{re.escape(previous_speaker)})$", "",
                   m.group(1)).strip()
    if not first or len(first.split()) > MAX_ANSWER_WORDS:
        return text
    statement = _complete(question, _plain(first))
    if statement is None:
        return text
    rest = text[m.end():].strip()
    return f"{statement}." + (f" {rest}" if rest else "")
