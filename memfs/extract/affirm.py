"""A "yes" that answers the other speaker's question, said back as the fact it affirms.

"Are you vegetarian?" / "Yes, and I'm allergic to peanuts." holds a fact of the answerer's
that no sentence of their turn says: read alone, the answer only names the allergy. The
opening "yes" is replaced by the question, turned into the answerer's own statement ("I am
vegetarian. I'm allergic to peanuts."), and the turn then goes through extraction like any
other (first person to name, dates, filing).

A wrong fact is worse than a missing one (two reviews found 29 ways this went wrong; each
is a test), so the turn stays as said unless all of these hold:

- the question (``the_question``) is the last sentence of the other speaker's turn just
  before, asked of the answerer: not reported, quoted or shouted, not part of a game or a
  role-play in the two turns before, not addressed to another name or by any short comma
  tail ("..., Ben?", "..., honey?"), and naming the answerer in a group of three or more;
- it is a yes-no question on "you" ("Are you ...", "Did you ...", "Have you ...", "Do
  you ...", "Will you ...") or on "your" something followed by a verb ("Is your sister
  coming ..."), and turned it says something of its own that lasts: no pointer ("Did you
  make it?"), no any/ever/yet, no "or", no negation, none of the asker's I/me/my, no plural
  "you" or "you and Tom", no verb of manners or the mind ("Do you mind ...?", "Did you
  know ...?"), one word after "Are you" only of status ("vegetarian", not "hungry");
- the answer opens on a bare affirmative ("Yes", "Yeah!", "Sure, Tess,", "Of course") and
  holds after it only an echo ("Yes, I did."), then at most one sentence, of the
  answerer's own ("I ...") or a short detail ("every Sunday with my band"); nothing in it
  takes the yes back, hedges, corrects, jokes or says the state changed ("Yeah, I didn't.",
  "Sure, maybe.", "Just kidding", "He passed away last year", "Retired now"), and no one
  else answers in it ("Yes, she is.", "Yes, you do.").

A "no" is left as said: negating a turned question is where a rule would most often be
wrong.
"""

from __future__ import annotations

import re
from functools import lru_cache

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
_YOU_Q_RE = re.compile(r"^(are|were|have|do|did|will)\s+you\s+(?!guys\b|all\b|two\b|both\b|and\b)(.+)$",
                       re.IGNORECASE)
# "Is your sister getting married?": the auxiliary, then "your" something.
_YOUR_Q_RE = re.compile(r"^(is|was|are|were|has|have|does|did|will)\s+your\s+(.+)$", re.IGNORECASE)
# "your (new) sister | getting married": one noun (an adjective before it at most), then the rest.
_OWNED_RE = re.compile(r"((?:(?:new|old|little|big|best|older|younger|own)\s+)?[a-z][\w-]*)\s+"
                       r"((?:[a-z]+ing|[a-z]+ed|still|really|very|so|ok|okay|fine|well|good|better|back|home|ready|"
                       r"done|over|a|an|the)\b.*)$")
#: A first sentence this short opening on a preposition or a frequency ("Every Sunday with
#: my band.") is a detail of the affirmed fact, not a sentence of its own.
_FRAGMENT_WORDS = 6
_DETAIL_RE = re.compile(r"(?:every|each|on|at|in|with|for|since|from|near|by|mostly|usually|always|sometimes|often|"
                        r"twice|once|daily|weekly|monthly)\b", re.IGNORECASE)
# Anywhere in the answer: a yes not meant ("Just kidding", "I wish", "Not.") or not current ("I used to").
_UNSURE_RE = re.compile(r"\b(?:kidding|joking|jk|pigs fly|as if|i wish|not really|used to|no longer|anymore|"
                        r"sort of|kind of|not exactly|not quite|yes and no|yes but no|yeah,? right|yeah,? sure|sure,? jan|"
                        r"in (?:my|your) dreams|in another life|one day|someday|some day|who knows|sarcas\w*|"
                        r"i think|i believe|i hope|i guess|i assume|i suppose|i reckon|i'd say|i'd guess|"
                        r"pretty sure|fairly sure|i'm sure|not sure|supposedly|apparently|temporarily|mostly)\b|"
                        r"(?:^|[.!?]\s+)(?:not|no|nope|nah)[.!]", re.IGNORECASE)
# Anywhere in the answer: the state the yes affirms has changed or is to come ("He passed
# away", "Got laid off yesterday", "Retired now", "Starting next month", "Acting manager").
_CHANGED_RE = re.compile(r"\b(?:passed away|passed|died|dead|lost|laid off|fired|quit|left|separated|divorced|"
                         r"broke up|split up|called it off|retired|former|ex|rescinded|cancel\w*|acting|starting|"
                         r"next (?:week|month|year)|soon|was|were|then|anymore|until|till)\b",
                         re.IGNORECASE)
# Right after the yes: a yes taken back or corrected ("Yeah, I didn't.", "Yes, a nurse actually.").
_TAKEN_BACK_RE = re.compile(r"\b(?:not|no|never|nope|nah|\w+n't|actually|rather|instead|technically|mean|wish|"
                            r"right|but|except|though|although|well|maybe|probably|perhaps|hopefully|possibly|if|unless|"
                            r"until|till|eventually|kinda|sorta|somewhat|partly|partially|a bit|a little|or|"
                            r"first one|second one|one of|some of|half)\b|\?", re.IGNORECASE)
# ... or a count that says otherwise ("Do you have a dog?" / "Yes, two.").
_COUNT_ONLY_RE = re.compile(r"^(?:about|around|like|maybe|just|only)?\s*(?:\d[\d,.]*|two|three|four|five|six|seven|"
                            r"eight|nine|ten|a few|a couple|several|many|lots)\b[^.!?]{0,12}[.!?]*$", re.IGNORECASE)
# Openers of such a detail that are no name, though not stopwords: lower-cased when joined.
_OPENERS = frozenset("twice mostly usually sometimes always often daily weekly monthly".split())
# What one word after "Are you" says that is worth a line; any other ("Are you hungry?",
# "Are you coming?", "Are you game?") passes with the day.
_STATUS = frozenset("""vegetarian vegan pescatarian married single engaged divorced widowed pregnant retired
employed unemployed allergic diabetic coeliac celiac religious catholic muslim jewish christian hindu buddhist
atheist left-handed right-handed deaf blind vaccinated adopted""".split())
# "Did you join in?": a verb and its particle alone are about what was said before.
_PARTICLES = frozenset("in out up on off over back along through around".split())
# Common verbs after "did you", in the past: "Did you get the job?" -> "I got the job".
PAST = {"end": "ended", "get": "got", "go": "went", "make": "made", "see": "saw", "have": "had", "take": "took",
         "find": "found", "buy": "bought", "meet": "met", "try": "tried", "decide": "decided", "finish": "finished",
         "start": "started", "move": "moved", "join": "joined", "win": "won", "visit": "visited", "manage": "managed",
         "pass": "passed", "learn": "learned", "sign": "signed", "book": "booked", "hear": "heard", "read": "read"}
_STATEMENT = {"are": "I am", "were": "I was", "have": "I have", "do": "I", "did": "I did", "will": "I will"}
# What a turned question may not hold: a pointer, a polarity word, a choice, the asker, a
# negation ("Did you not get it?" turned would say the opposite), a verb of the mind or of
# manners whose "yes" is no fact ("Do you mind ...?", "Did you know ...?"), an idiom, a
# need or a rule ("Do you need a permit to camp there?" is how the place works), a moment.
_BLOCKED_RE = re.compile(
    r"\b(?:it|its|that|this|these|those|them|they|there|he|him|she|her|one|ones|any|anyone|anything|anybody|"
    r"anywhere|anymore|anytime|ever|yet|at all|or|either|i|me|my|mine|we|us|our|i'm|i've|i'd|i'll|"
    r"not|no|never|nobody|nothing|nowhere|none|longer|\w+n't|"
    r"mind|believe|know|remember|think|suppose|reckon|guess|mean|realize|realise|recall|promise|swear|"
    r"kidding|joking|serious|sure|mad|crazy|insane|minute|second|sec|moment|for real|up for|down for|"
    r"having a laugh|need|needs|have to|has to|allowed|supposed|required|should|must|right now|at the moment)\b",
    re.IGNORECASE)
# A sentence: up to ".", "!" or "?" before a space or the end ("3.8", "ola@x.com" are no end).
_SENTENCE_RE = re.compile(r"\S.*?(?:[.!?]+(?=\s|$)|$)", re.DOTALL)
# A turn that reports someone else's question, or quotes one: "That's what my boss asked me".
_REPORTED_RE = re.compile(r"\b(?:ask|asks|asked|asking|say|says|said|saying|told|tells|wonder|wondered|wants to know|"
                          r"quote|quoting)\b|[\"\u201c\u201d]", re.IGNORECASE)
# "Ben, are you ...?" / "... coming, Ben?" / "..., honey?": whom the question is addressed to.
_LEAD_NAME_RE = re.compile(r"^([^\W\d_][\w'.-]*(?:\s+[^\W\d_][\w'.-]*)?),\s+")
_TAIL_NAME_RE = re.compile(r",\s+([^,?]{1,30}?)\s*\?$")
_OPENERS_Q = frozenset("so and oh hey well wow okay ok now also but anyway btw yeah yes right hmm um".split())
# A game, a quiz or a role the answerer plays: their answers are not about them.
GAME_RE = re.compile(r"\b(?:game|let's play|pretend|role-?play|roleplay|imagine (?:you|that)|quiz|riddle|"
                      r"20 questions|twenty questions|act as|acting as|i'm thinking of|play the role)\b", re.IGNORECASE)
_YOUR_RE = re.compile(r"\byour\b", re.IGNORECASE)
_YOURSELF_RE = re.compile(r"\byourself\b", re.IGNORECASE)
_IDIOM_RE = re.compile(r"\b(?:these days|this (?:week|weekend|month|year|summer|winter|spring|fall|autumn|time|morning|"
                       r"evening)|that time)\b", re.IGNORECASE)


def mine(words: str) -> str:
    """The asker's "your"/"yourself" as the answerer says them: "my"/"myself"."""
    return _YOURSELF_RE.sub("myself", _YOUR_RE.sub("my", words))


def hedged(answer: str) -> bool:
    """The answer hedges, jokes or wishes somewhere in it ("I think so", "Just kidding")."""
    return _UNSURE_RE.search(answer) is not None


def idioms_out(question: str) -> str:
    """The question without phrases whose "this"/"these" point at no earlier thing ("these days")."""
    return _IDIOM_RE.sub(" ", question)


def sentences(text: str) -> list[str]:
    return [m.group(0).strip() for m in _SENTENCE_RE.finditer(text.strip())]


@lru_cache(maxsize=64)  # a yes turn asks it twice (``affirmed``, then ``answer.answered``)
def the_question(previous: str, answerer: str, group: bool = False) -> str | None:
    """The question the turn before ends on, asked of ``answerer``; None when the turn asks
    none or several, reports or quotes one, shouts it, or addresses it to anyone else by
    name. In a ``group`` (more than two people) it must name the answerer: "you" could be
    any of them."""
    said = sentences(previous)
    asked = [s for s in said if s.endswith("?")]
    if len(asked) != 1 or said[-1] != asked[0] or _REPORTED_RE.search(previous) or GAME_RE.search(previous):
        return None
    q = asked[0]
    words = q.split()
    if sum(c.isupper() for c in q) > len(q) / 2 or sum(w[:1].isupper() for w in words[1:]) > len(words) / 2:
        return None  # shouted, or Title Case: a headline or a joke, not a plain question
    addressed = False
    tail = _TAIL_NAME_RE.search(q)
    if tail is not None and len(tail.group(1).split()) <= 3:
        if tail.group(1) != answerer:
            return None  # "Where do you live, Ben?" is Ben's to answer; "..., honey?" leaves a tail
        q, addressed = q[:tail.start()] + "?", True
    lead = _LEAD_NAME_RE.match(q)
    if lead is not None and lead.group(1)[:1].isupper() and lead.group(1).lower() not in _OPENERS_Q:
        if lead.group(1) != answerer:
            return None
        q, addressed = q[lead.end():], True
    return q if addressed or not group else None


def _empty(aux: str, words: list[str]) -> bool:
    """ "Are you okay?", "Did you join in?": turned, it says nothing a reader can keep."""
    if aux in ("are", "were"):
        return not words or (len(words) == 1 and words[0] not in _STATUS)
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
        rest = mine(rest)
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


def affirmed(text: str, previous: str, previous_speaker: str, name: str, *, earlier: str = "",
             group: bool = False) -> str:
    """``text`` (a turn by ``name``) with its opening "yes" said as the fact it affirms,
    when the turn before (by ``previous_speaker``; ``earlier``: the one before that) asked
    one plain yes-no question of them; otherwise ``text`` as it is. The answer may hold
    nothing but the yes, an echo ("Yes, I did."), and one sentence of the answerer's own
    ("..., and I'm allergic to peanuts.") or a short detail ("..., every Sunday"): a later
    sentence may take the yes back ("Yes. He passed away last year.")."""
    if not previous or not previous_speaker or previous_speaker == name:
        return text
    m = _AFFIRM_RE.match(text)
    after = m and re.compile(_AFTER.format(name=re.escape(previous_speaker))).match(text, m.end())
    if not after or hedged(text) or _CHANGED_RE.search(text) or GAME_RE.search(earlier):
        return text  # "Yes! Just kidding.", "Yeah, I used to.", "Yes! Retired now.", a quiz
    question = the_question(previous, name, group)
    statement = _as_statement(question) if question else None
    if statement is None or re.search(rf"\b{re.escape(name)}\b", statement):
        return text
    rest = _ECHO_RE.sub("", text[after.end():].strip(), count=1).strip()
    if not rest:
        return statement + "."
    said = sentences(rest)
    first = said[0]
    if len(said) > 1 or _TAKEN_BACK_RE.search(first) or _COUNT_ONLY_RE.match(first) or re.search(r"\byou\b", first,
                                                                                               re.IGNORECASE):
        return text  # "Yes, you do." is anyone's; "Yes, two." says otherwise
    own = re.match(r"(?:and\s+)?(?=(?:I|I'm|I've|I'll|I'd)\b)", first)
    if own is not None:  # "Yes, and I'm allergic to peanuts." -> "I am vegetarian. I'm allergic ..."
        return f"{statement}. {first[own.end():]}"
    if len(first.split()) <= _FRAGMENT_WORDS and _DETAIL_RE.match(first) is not None:
        lead = first.split(None, 1)[0].strip(",.!").lower()
        plain = lead in STOPWORDS or lead in _OPENERS
        return f"{statement}, {first[:1].lower() if plain else first[:1]}{first[1:]}"
    return text  # "Yes, she is.", "Yeah, Tom and Sue are.", "Yes, my parents.": someone else's yes
