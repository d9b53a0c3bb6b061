"""A short answer to the other speaker's question, said as the fact it completes.

"How many followers do you have now?" / "About 2,000." and "How old is your dog?" / "She's
three." hold facts of the answerer's that their turn alone does not say: "About 2,000."
names nothing, so it was not stored at all, and "In Leeds, near the university." was stored
as a line no reader could place. The answer's first sentence is replaced by the question
completed with it ("I have about 2,000 followers now.", "my dog is three years old.", "I
live these days in Leeds, near the university."), and the turn is then extracted like any
other (first person to name, dates, filing).

A wrong fact is worse than a missing one, so only a few questions are completed, each
asked of "you" (once) or "your" something, and only with an answer that is wholly of the
shape it asks for (the whole first sentence matches, or nothing changes):

- how many: "How many N do / have / will you V ...?" -- a count ("About 2,000", "three or
  so"; not 0, not "two brothers and a sister");
- where: "Where do you live / work / study ...?", "Where did you grow up?", "Where are you
  from / based ...?" -- a place by its name ("Leeds", "in New York", "St James's
  Hospital, near the park"), not "with my parents", "Okay. Leeds." or "don't ask";
- when: "When is / was X?", "When do / will you V ...?" -- a date or a day ("June 14th",
  "next Monday", "in 2019"), in the question's tense;
- how long: "How long have you been V-ing ...?" -- a span ("5 years already", "since I
  was twelve");
- how old: "How old is your N?" -- an age ("She's three.", "almost 2"; not a year);
- what: "What do you like / enjoy / eat ... (most)?" -- a thing, no sentence ("Pastel de
  nata with green tea every morning" -> "what I enjoy most is pastel de nata ...").

A name ("What's your sister's name?" / "Lily.") is not completed: any capitalised word
reads as one ("Sorry.", "Same!", "Guess."). The question is ``affirm.the_question``'s (the
other speaker's turn ends on it, asked of the answerer, not reported, shouted, put to
someone else or part of a game) and may hold no pointer ("Where did you buy it?"), none of
the asker's "I/me/my", no "or", no negation and no second "you" ("When do you think you'll
be back?"). A "yes" is ``affirm``'s.
"""

from __future__ import annotations

import logging
import re

from memfs.extract.affirm import GAME_RE, affirmed, hedged, idioms_out, mine, sentences, the_question

log = logging.getLogger(__name__)

#: The longest first sentence read as a short answer to complete.
MAX_ANSWER_WORDS = 8

_BLOCKED_RE = re.compile(r"\b(?:it|its|that|this|these|those|them|they|there|he|him|she|her|one|ones|or|i|me|my|"
                         r"mine|we|us|our|i'm|i've|i'd|i'll|else|not|never|no|\w+n't|and)\b", re.IGNORECASE)
_LEAD_RE = re.compile(r"^(?:(?:so|and|oh|hey|wow|nice|cool)[,!]?\s+)+", re.IGNORECASE)
# Dropped before the answer proper ("Um, Leeds"); a hedge is kept, lower-cased ("About 2,000").
_FILLER_RE = re.compile(r"^(?:(?:um+|uh+|hmm+|well|oh|ah|originally|currently|basically|honestly|actually)[,.]?\s+)+",
                        re.IGNORECASE)
_HEDGE = r"(?:(?:probably|maybe|about|around|almost|nearly|roughly|over|just|only|like)\s+)?"
# An answer's words that undo it: a doubt, a guess, a no ("Not sure, 5?", "Don't ask.").
_DOUBT_RE = re.compile(r"\b(?:not|no|never|none|nowhere|nobody|nothing|\w+n't|guess|sure|idea|depends|unemployed|"
                       r"cancel\w*|postponed|yet|ask|secret|whatever|hard to|tough to|too many|question|"
                       r"tough one|depends)\b|\?", re.IGNORECASE)
_COUNT = (r"(?:\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:k|m| thousand| million| billion)?|two|three|four|five|six|seven|"
          r"eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|a hundred|hundreds|thousands|"
          r"a dozen|dozens|a few|a couple|several")
_COUNT_RE = re.compile(rf"^{_HEDGE}(?P<n>{_COUNT})(?P<tail>\s+or so|ish|\+)?$", re.IGNORECASE)
_AGE_RE = re.compile(rf"^(?:(?:she|he|it|they)(?:'s| is| are)\s+)?(?P<n>{_HEDGE}(?:\d+(?:\.\d+)?|one|two|three|four|"
                     r"five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|"
                     r"eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety))"
                     r"(?:\s+(?P<unit>years?|months?|weeks?)(?:\s+old)?)?(?:\s+now)?$", re.IGNORECASE)
# A place by its name: an optional preposition, capitalised words (with "of", "the", "upon"
# between), then optionally a comma and a short detail that takes nothing back.
_PLACE_RE = re.compile(r"^(?P<prep>(?i:in|at|near|outside|from)\s+)?(?P<name>(?:(?i:the)\s+)?[A-Z][\w'.-]*"
                       r"(?:\s+(?:(?:of|the|upon|on|de|la|le)\s+)?[A-Z][\w'.-]*)*(?:\s+(?:hospital|university|college|"
                       r"school|park|street|road|avenue|office|centre|center|library|station|airport|mall|clinic))?)"
                       r"(?P<more>,\s+[^,]{1,40})?$")
# A later sentence that corrects, doubts or dates the answer ("Three. Wait, four.", "Deloitte.
# Well, until Friday.", "Forty. Well, it was forty before the layoffs.").
_CORRECTED_RE = re.compile(r"\b(?:wait|actually|well|or|maybe|technically|kidding|joking|not|no|never|n't|\w+n't|"
                           r"until|till|was|were|used to|before|need to check|think|guess|not sure|probably)\b|\?",
                           re.IGNORECASE)
# Measures, not things one has: a count of them is a calculation's or a moment's.
_UNITS = frozenset("""degrees points percent calories minutes seconds hours km kilometres kilometers miles meters
metres dollars euros pounds steps reps grams kilos kg lbs pages words times years months weeks days""".split())
# A first word that is no answer: an interjection, a filler, a preposition of company.
_NOT_ANSWER = frozenset("""hmm hm okay ok well pardon same idk dunno sorry um uh haha lol go with beside still mostly
yes no nope yeah yep sure thanks what huh eh meh ugh wow oh ah nice cool great good fine whatever anyway
probably maybe perhaps hopefully somewhere everywhere nowhere depends""".split())
# Capitalised at the start, but no place: "Everywhere.", "Home, mostly.", "Remote."
_NO_PLACE = frozenset("""everywhere nowhere somewhere anywhere home remote remotely here there around abroad
overseas online work school downtown locally retired freelance freelancing self-employed unemployed upstairs
downstairs nearby inside outside independent contract contracting""".split())
_MONTHS = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|" \
          r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_DAYS = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_WHEN_RE = re.compile(
    rf"^(?P<prep>(?:on|in)\s+)?(?P<when>(?:(?:next|this|last)\s+(?:{_DAYS}|week|weekend|month|year|{_MONTHS}|"
    rf"spring|summer|autumn|fall|winter)|tomorrow|tonight|today|yesterday|"
    rf"(?:{_DAYS},?\s+)?(?:{_MONTHS}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS})"
    rf"(?:,?\s+\d{{4}})?|{_MONTHS}(?:\s+\d{{4}})?|\d{{4}}|{_DAYS}|\d+\s+(?:days?|weeks?|months?|years?)\s+ago))$",
    re.IGNORECASE)
_PAST_WHEN_RE = re.compile(r"\b(?:last|yesterday|ago)\b", re.IGNORECASE)
_FUTURE_WHEN_RE = re.compile(r"\b(?:next|tomorrow|tonight)\b", re.IGNORECASE)
_SPAN_RE = re.compile(rf"^(?:for\s+)?{_HEDGE}(?:{_COUNT}|a|an)\s+(?:years?|months?|weeks?|days?|decades?)"
                      r"(?:\s+(?:now|already))?$|^since\s+\S.*$", re.IGNORECASE)

_HOW_MANY_RE = re.compile(r"^how many ([a-z][\w-]*s(?: [a-z][\w-]*s)?) (do|have|will) you ([a-z][\w'-]*)(.*)$",
                          re.IGNORECASE)
_WHERE_DO_RE = re.compile(r"^where (do|did) you (live|work|study|stay|grow up|go to school|go to college)(.*)$",
                          re.IGNORECASE)
_WHERE_ARE_RE = re.compile(r"^where are you (from|based|living|working|studying)(.*)$", re.IGNORECASE)
_WHEN_IS_RE = re.compile(r"^when(?:'s| is| was| are| were) ((?:your|the|[A-Z][\w-]*'s) [\w' -]+)$", re.IGNORECASE)
_WHEN_DO_RE = re.compile(r"^when (do|will) you ([a-z][\w'-]*)(.*)$", re.IGNORECASE)
_HOW_LONG_RE = re.compile(r"^how long have you been ([a-z][\w'-]*)(.*)$", re.IGNORECASE)
# A verb in a short answer makes it a sentence of its own, not a thing ("Paris is lovely").
_VERB_RE = re.compile(r"\b(?:is|was|are|were|has|have|had|do|does|did|will|would|can|could)\b", re.IGNORECASE)
_WHAT_DO_RE = re.compile(r"^what do you (like|love|enjoy|prefer|miss|eat|drink|play|read|watch|listen to|study|use)"
                         r"( most| best| the most)?$", re.IGNORECASE)
_HOW_OLD_RE = re.compile(r"^how old (is|are) your ([a-z][\w'-]*(?: [a-z][\w'-]*)?)$", re.IGNORECASE)
_PAST_DO = {"live": "lived", "work": "worked", "study": "studied", "stay": "stayed", "grow up": "grew up",
            "go to school": "went to school", "go to college": "went to college"}


def _lower_hedge(answer: str) -> str:
    """ "Probably Dune" -> "probably Dune", "About 2,000" -> "about 2,000"; names keep their capitals."""
    lead = answer.split(None, 1)[0] if answer else ""
    hedge = re.fullmatch(r"probably|maybe|about|around|almost|nearly|roughly|over|just|only|like|since|for|in|on|"
                         r"at|near|outside|from|next|this|last|tomorrow|tonight|today|yesterday|the|a|an|"
                         r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
                         r"forty|fifty|hundreds|thousands|dozens|several", lead, re.IGNORECASE)
    words = answer.split()
    common = len(words) > 1 and words[1][:1].islower() and lead[1:].islower()  # "Pastel de nata", not "New York"
    return answer[:1].lower() + answer[1:] if hedge or common else answer


def _complete(q: str, answer: str) -> str | None:
    """The question ``q`` said as the answerer's statement, completed with ``answer``; None
    when the answer is not wholly of the shape the question asks for."""
    if (m := _HOW_OLD_RE.match(q)) is not None:
        age = _AGE_RE.match(answer)
        digits = re.sub(r"\D", "", age.group("n")) if age else ""
        if age is None or digits and (len(digits.split(".")[0]) >= 4 or float(re.sub(r"[^\d.]", "", age.group("n"))) > 130):
            return None  # "2015." is a year, not an age
        unit = age.group("unit") or "years"
        be = "are" if m.group(1).lower() == "are" else "is"
        whose = re.sub(r"\s+now$", "", m.group(2))  # "How old is your dog now?"
        return f"my {whose} {be} {_lower_hedge(age.group('n'))} {unit.lower()} old"
    if (m := _HOW_MANY_RE.match(q)) is not None:
        count = _COUNT_RE.match(answer)
        if count is None or re.fullmatch(r"0+(?:\.0+)?", count.group("n")) or m.group(1).lower() in _UNITS:
            return None  # "How many degrees do you have?" after a sum is no possession
        noun, aux, verb, rest = m.groups()
        said = {"do": f"I {verb}", "have": f"I have {verb}", "will": f"I will {verb}"}[aux.lower()]
        return f"{said} {_lower_hedge(answer)} {noun}{mine(rest)}"
    if (m := _WHERE_ARE_RE.match(q) or _WHERE_DO_RE.match(q)) is not None:
        place = _PLACE_RE.match(answer)
        if place is None or place.group("name").lower() in _NO_PLACE or any(
                w.lower() in _NOT_ANSWER for w in place.group("name").split()):
            return None
        more = place.group("more") or ""
        if m.re is _WHERE_ARE_RE:
            how, rest = m.groups()
            if how.lower() == "from":  # "Where are you from originally?" -> "I am from Manchester originally"
                return f"I am from {place.group('name')}{more}{mine(rest)}"
            return f"I am {how}{mine(rest)} {(place.group('prep') or 'in ').lower()}{place.group('name')}{more}"
        aux, verb, rest = m.groups()
        done = _PAST_DO[verb.lower()] if aux.lower() == "did" else verb.lower()
        prep = (place.group("prep") or "in ").lower()
        return f"I {done}{mine(rest)} {prep}{place.group('name')}{more}"
    if (m := _WHEN_IS_RE.match(q) or _WHEN_DO_RE.match(q)) is not None:
        when = _WHEN_RE.match(answer)
        if when is None or m.re is _WHEN_IS_RE and re.search(r"\s(?:up|over|due|out|off|back)$", m.group(1)):
            return None  # "When is your lease up?" is no "lease up is in August"
        words = when.group("when")
        past = bool(re.match(r"^when(?: was| were)", q, re.IGNORECASE))
        if re.fullmatch(r"\d{4}", words) and not past:
            return None  # "When do you start?" / "2019.": started then, or starts then?
        future = m.re is _WHEN_DO_RE and m.group(1).lower() == "will"
        if _PAST_WHEN_RE.search(words) and not past or _FUTURE_WHEN_RE.search(words) and past:
            return None  # "When is the wedding?" / "Last Saturday.": which is it?
        prep = (when.group("prep") or "").lower()
        if not prep and not re.match(r"(?:next|this|last|tomorrow|tonight|today|yesterday|\d+\s+\w+\s+ago)\b",
                                     words, re.IGNORECASE):
            prep = "on " if re.search(rf"(?<!\d)\d{{1,2}}(?:st|nd|rd|th)?(?!\d)|^{_DAYS}", words, re.IGNORECASE) \
                and not re.fullmatch(r"\d{4}", words) else "in "
        when_said = _lower_hedge(words) if re.match(r"(?:next|this|last|tomorrow|tonight|today|yesterday)\b", words,
                                                    re.IGNORECASE) else words
        if m.re is _WHEN_IS_RE:
            verb = re.match(r"^when(?:'s| (is|was|are|were))", q, re.IGNORECASE)
            be = (verb.group(1) or "is").lower() if verb else "is"
            return f"{mine(m.group(1))} {be} {prep}{when_said}"
        aux, verb, rest = m.groups()
        return f"I {'will ' if future else ''}{verb}{mine(rest)} {prep}{when_said}"
    if (m := _WHAT_DO_RE.match(q)) is not None:
        if _VERB_RE.search(answer) or re.match(r"(?:i|i'm|i've|my|we|our)\b", answer, re.IGNORECASE):
            return None  # "I love the food here." says it already; "Tom is great" is a sentence
        thing = _lower_hedge(answer)
        verb, most = m.group(1).lower(), (m.group(2) or "").lower()
        return f"what I {verb}{most} is {thing}" if most else f"I {verb} {thing}"
    if (m := _HOW_LONG_RE.match(q)) is not None:
        if _SPAN_RE.match(answer) is None:
            return None
        span = answer if re.match(r"^(?:for|since)\b", answer, re.IGNORECASE) else f"for {_lower_hedge(answer)}"
        return f"I have been {m.group(1)}{mine(m.group(2))} {span[:1].lower()}{span[1:]}"
    return None


def completed(text: str, previous: str, previous_speaker: str, name: str, *, earlier: str = "",
              group: bool = False) -> str:
    """``text`` with a yes (``affirm``) or a short answer (below) said as the fact it
    completes; the arguments are ``answered``'s."""
    try:
        said = affirmed(text, previous, previous_speaker, name, earlier=earlier, group=group)
        return answered(said, previous, previous_speaker, name, earlier=earlier, group=group)
    except Exception:  # noqa: BLE001 - a rewrite that fails must not cost the turn its facts
        log.warning("answer completion skipped for a turn by %s", name, exc_info=True)
        return text


def answered(text: str, previous: str, previous_speaker: str, name: str, *, earlier: str = "",
             group: bool = False) -> str:
    """``text`` (a turn by ``name``) with a short first sentence said as the fact it
    completes, when the turn before (by ``previous_speaker``; ``earlier``: the one before
    that; ``group``: more than two people talk) ends on one question of a shape above asked
    of them; otherwise ``text`` as it is."""
    if not previous or not previous_speaker or previous_speaker == name or not text.strip() \
            or GAME_RE.search(earlier):
        return text
    question = the_question(previous, name, group)
    if question is None:
        return text
    q = _LEAD_RE.sub("", question.rstrip("?").strip())
    if _BLOCKED_RE.search(idioms_out(q)) or len(re.findall(r"\byou\b", q, re.IGNORECASE)) > 1 \
            or re.search(r"\byou (?:guys|two|all|both|lot)\b|\btogether\b|\b(?:right now|at the moment|so far|today|"
                         r"tonight|awake|had)\b", q, re.IGNORECASE):
        return text  # "When do you think you'll be back?": whose answer is it?
    said = sentences(text)
    first = said[0]
    if first.endswith("?") or len(first.split()) > MAX_ANSWER_WORDS:
        return text  # "Leeds? No, York.": a question back is no answer
    answer = re.sub(rf"^{re.escape(previous_speaker)}[,!]?\s+|,\s*{re.escape(previous_speaker)}(?=[.!]*$)", "",
                    first).rstrip(".!").strip()
    answer = _FILLER_RE.sub("", answer).strip()
    words = [w.strip(",.!").lower() for w in answer.split()]
    if not answer or _DOUBT_RE.search(answer) or words[0] in _NOT_ANSWER or hedged(text) \
            or _CORRECTED_RE.search(" ".join(said[1:])):
        return text  # "Hmm.", "Okay. Leeds.", "With Tom.", "Three. Wait, four.", "Boston. Well, Cambridge."
    statement = _complete(q, answer)
    if statement is None or re.search(rf"\b{re.escape(name)}\b", statement):
        return text
    rest = " ".join(said[1:])
    return f"{statement}." + (f" {rest}" if rest else "")
