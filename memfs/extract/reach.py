"""The last word on a line that still opens on a pointer: quote what is in reach, or drop it.

Issue #19 item 4: a dangling "it"/"they"/"that" is resolved from the context, or the line
is not stored. ``dangle`` resolves a pointer from exactly one candidate and ``context``
quotes the question it answers under narrow rules; what both leave ("It was in London.",
"They're Melanie's biggest motivation.") used to be stored as said, since dropping it lost
the evidence questions are found by. Here such a line keeps, quoted verbatim, the nearest
sentence that names something -- the words the reader needs to know what "it" is -- and
is dropped when nothing in reach does:

1. the speaker's own last sentence before it in the turn (``Melanie, after saying "..."``);
2. else the other speaker's last sentence in the turn before, a question (``in reply to
   John's "..."``) or a statement (``after John said "..."``); a sentence that is filler
   ("Wow, that's great!"), thanks, praise or encouragement of the listener ("Your words
   mean a lot.", "Keep going!"),
   shorter than ``MIN_QUOTE_WORDS``, opening on a pointer itself, or pointing again without
   naming anything ("What inspired it?") is skipped for the one before it, at most
   ``MAX_BACK`` sentences back; a turn asking two questions gives none (which one the line
   answers is a guess);
3. else what the chat showed with the turn: ``Caroline, sharing a photo of a stained glass
   window: It was made for a local church.``, the speaker's own attachment first;
   A line opening on he/she/his/her takes only a sentence or photo holding someone it can
   be: a name, a person or a pet, or the same "he" said again ("people who use their
   platform" is no "her");
4. else the line is not stored; nor is a reaction to what the other said ("That's a great
   lesson to pass on.", "That's what Nate likes to hear."), which holds no fact.

A long quote is cut at a word boundary with an ellipsis: it is context, not a fact, and
the words that name the thing come first in an English sentence more often than last.

Dummy "it" lines that read as pointers get their holder instead (``framed``): "It seems
like John's post is having an effect." said by Tim -> "Tim thinks John's post is having an
effect."; "It's one thing to X, but on a couch Joanna feels at peace." -> the clause that
names its person.
"""

from __future__ import annotations

import re

from memfs.extract.dangle import pointer
from memfs.extract.rewrite import EVALUATIVE
from memfs.extract.sentences import has_content, split_sentences, strip_edges
from memfs.extract.talk import is_talk

#: The longest quote, in characters, before it is cut with an ellipsis.
MAX_QUOTE_CHARS = 100
#: How many sentences back a quote may come from, skipping filler and bare pointers.
MAX_BACK = 3
#: The shortest cut of a quote that still says something; a longer line is cut to leave it.
MIN_FIT_CHARS = 30
#: A quote this short names too little to say what a pointer means ("A few times.").
MIN_QUOTE_WORDS = 5
# Talk about the talk, no topic: thanks, praise of the listener, feelings about the chat.
_TALK_RE = re.compile(r"\b(?:thanks|thank you|thx|congrats|congratulations|appreciate|grateful|"
                      r"means? (?:a lot|so much|the world)|admire|proud of you|glad|happy for you|sorry)\b|"
                      r"^(?:\w+,\s+)?(?:you're|you are|you've|you have been|your (?:kind )?words)\b", re.IGNORECASE)
# A yes-no question with no pointer asks about something else than the line goes on about:
# "Is Spider-Man your favorite?" / "It was a real roller coaster".
_YES_NO_RE = re.compile(r"^(?:is|are|was|were|do|does|did|have|has|had|can|could|will|would|should|any)\b",
                        re.IGNORECASE)
# A reaction to what the other said: "That's a great lesson to pass on.", "That sounds great
# to have ...", "That's what Nate likes to hear.", "That's so cool of John's teammates.".
_REACTION_RE = re.compile(rf"^(?:that's|that is|that was|that sounds|that must be)\s+(?:(?:so|really|such|a|an|"
                          rf"just|pretty|very|super|totally)\s+)*(?:(?:{EVALUATIVE}|good|lovely|gorgeous|key|"
                          rf"sweet|cute|smart|brave|kind)\b|(?:just\s+)?what\b)", re.IGNORECASE)
# A turn that opens on approval of what was just said, then points at it: "Great, that saves
# us a sprint.", "Nice, this helps a lot." -- an acknowledgement, not a fact (issue #19 item 5).
_ACK_RE = re.compile(r"^\W*(?:great|nice|cool|awesome|perfect|good|excellent|brilliant|fantastic|wonderful|"
                     r"amazing|lovely|sweet|super|okay|ok|right|wow)\b[\s,!.]+(?P<p>that|this|it)\b", re.IGNORECASE)
# A chat attachment: "Caroline shares a photo of a stained glass window."
_MEDIA = r"(?:photo|picture|pic|image|video|screenshot|drawing)"  # what a chat attachment is
_CAPTION_RE = re.compile(rf"^(?P<who>[A-Z][\w'-]*(?: [A-Z][\w'-]*)?) shares? (?P<what>(?:a|an|some|the) "
                         rf"{_MEDIA}s? of .+?)[.!]?$")
# A pronoun that points back, anywhere in a sentence.
_POINTS_RE = re.compile(r"\b(?:it|its|they|them|their|he|she|him|his|her|this|that|these|those)\b",
                        re.IGNORECASE)
# Something named: a capitalized word inside the sentence, a number, or a noun after a
# determiner ("those drawings are incredible" names the drawings).
_NAMED_RE = re.compile(r"(?<=[\w,] )(?!I\b)(?-i:[A-Z])[\w-]+|\d|\b(?:the|a|an|my|your|our|his|her|their)\s+"
                       r"(?!(?:one|ones|thing|things|stuff|way|lot|bit|same|other)\b)[a-z-]{3,}|"
                       r"\b(?:this|that|these|those)\s+(?!(?:is|was|are|were|has|had|will|would|can|could|must|"
                       r"sounds?|looks?|seems?|makes?|made|means?|really|one|ones|thing|things|stuff|way|so|too|"
                       r"all|just)\b)[a-z-]{3,}", re.IGNORECASE)
# Any word opening a line that points back; "there"/"here" are ``deixis``'s.
_OPENER_RE = re.compile(r"^[\"'\u201c*_ ]*(?:it|it's|its|they|they're|they've|they'll|they'd|them|their|theirs|"
                        r"he|he's|he'd|he'll|she|she's|she'd|she'll|him|his|her|hers|this|that|these|those|"
                        r"that's|this's)\b", re.IGNORECASE)
# "It seems like X" / "It feels like X": the speaker's impression of X.
_IMPRESSION_RE = re.compile(r"^it\s+(?:really\s+|just\s+)?(?P<v>seems|seemed|looks|looked|sounds|sounded|feels|felt)"
                            r"\s+(?:like|as if|as though)\s+(?P<rest>.+)$", re.IGNORECASE | re.DOTALL)
_IMPRESSION_VERB = {"seems": "thinks", "looks": "thinks", "sounds": "thinks", "feels": "feels",
                    "seemed": "thought", "looked": "thought", "sounded": "thought", "felt": "felt"}
# "It's great we both face the same challenges": a view of a clause with its own subject.
_VIEW_OF_CLAUSE_RE = re.compile(rf"^it(?P<v>'s|\s+is|\s+was)\s+"
                                rf"(?P<adj>(?:(?:so|really|very|just|such)\s+)*(?:{EVALUATIVE}))"
                                rf"\s+(?:that\s+)?(?P<rest>(?-i:[A-Z])\w+\s+(?:and\s+(?-i:[A-Z])\w+\s+)?"
                                rf"(?:\w+\s+)?\w+\b.*)$", re.IGNORECASE | re.DOTALL)
# "It's a blessing to have family ...": the speaker's view of what follows.
_BLESSING_RE = re.compile(r"^it(?P<v>'s|\s+is|\s+was)\s+(?P<a>(?:such\s+)?an?\s+(?:\w+\s+)?(?:blessing|relief|"
                          r"privilege|gift|treat|pleasure|honou?r|joy|comfort)\s+to\s+.+)$", re.IGNORECASE | re.DOTALL)
# Encouragement told to the listener: "don't let it get Jon down", "keep pushing on".
_CHEER_RE = re.compile(r"(?:^|[,;-]\s+(?:but|so|and)?\s*)(?:don't|do not|never)\s+(?:let\s+(?:it|that|this|anything|"
                       r"\w+)\s+(?:get|bring|hold|stop|slow)|give\s+up|stop\s+(?:believing|trying|dreaming))\b|"
                       r"(?:^(?:[^,.!?]*,\s+)?|^keep\s[^.!?]*\band\s+)(?:keep|stay)\s+(?:going|pushing|persevering|"
                       r"at it|it up|up the \w+ work|strong|positive|your head up|working hard|chasing)\b|"
                       r"^hang in there\b", re.IGNORECASE)
# "It's one thing to ..., but <a clause naming its person>".
_BUT_RE = re.compile(r"^it(?:'s|\s+is|\s+was)\b[^.!?]*?,\s+but\s+(?P<rest>.+)$", re.IGNORECASE | re.DOTALL)


def framed(text: str, name: str, people: tuple[str, ...]) -> str:
    """A line opening on a dummy "it" that frames the speaker's impression, with its holder:
    "It seems like nature calms John down." by Maria -> "Maria thinks nature calms John
    down."; "It's a bit scary, but Jon thinks about dance." -> "Jon thinks about dance."."""
    prefix = f"{name}: "
    body = text[len(prefix):] if text.startswith(prefix) else text
    m = _IMPRESSION_RE.match(body)
    if m is not None and not _OPENER_RE.match(m.group("rest")):
        return f"{name} {_IMPRESSION_VERB[m.group('v').lower()]} {m.group('rest')}"
    m = _VIEW_OF_CLAUSE_RE.match(body) or _BLESSING_RE.match(body)
    if m is not None and (m.re is _BLESSING_RE or any(p and m.group("rest").startswith(p) for p in people)):
        verb = "found" if m.group("v").strip() == "was" else "finds"
        view = m.group("a") if m.re is _BLESSING_RE else f"{m.group('adj')} that {m.group('rest')}"
        return f"{name} {verb} it {view}"
    m = _BUT_RE.match(body)
    if m is not None:
        rest = m.group("rest")
        first = re.split(r"(?<=[.!?])\s+", rest, maxsplit=1)[0]
        if any(p and p in first for p in people) and not _OPENER_RE.match(rest) \
                and not _POINTS_RE.search(re.sub(r"\b(?:make|makes|made|worth|get|got)\s+it\b", "", first)):
            rest = rest[0].upper() + rest[1:]
            return rest if any(p and p in rest for p in people) else f"{name}: {rest}"
    return text


def cheer(body: str) -> bool:
    """Encouragement told to the listener ("It's tough, but don't let it get Jon down.",
    "When things get rough, keep pushing on."): no fact about anyone; undated only."""
    return _CHEER_RE.search(body) is not None and not re.search(r"\d", body)


def opens_on_pointer(body: str) -> bool:
    """Whether `body` still opens on a word pointing back ("That roadtrip ..." names its thing)."""
    return pointer(body) is not None


def quoted(text: str, name: str, people: tuple[str, ...], before: str | None, previous: str,
           previous_speaker: str, own_turn: str, limit: int = 300) -> str | None:
    """`text` (a settled line by `name` still opening on a pointer) with the nearest
    sentence that names something quoted before it; None when nothing in reach does.
    `before`: the speaker's words before the line in this turn; `previous`: the turn
    before, said by `previous_speaker`; `own_turn`: the whole turn, for its attachment.
    The quote is cut to fit `limit` characters; a line too long for a quote of
    ``MIN_FIT_CHARS`` loses its end instead."""
    prefix = f"{name}: "
    body = text[len(prefix):] if text.startswith(prefix) else text
    if before is None or _REACTION_RE.match(body) or _acknowledges(body, before, own_turn):
        return None  # not where it was said, or a reaction to what the other said: no fact
    opener = body.split(None, 1)[0].lower().strip("\"'\u201c*_,.!") if body.split() else ""
    found = _context_of(name, people, before, previous, previous_speaker, own_turn, opener in _PLURAL_POINTERS,
                        opener in _PERSON_POINTERS)
    if found is None:
        return None
    lead, words, quote = found
    room = limit - len(lead) - len(body) - 5
    if room < min(MIN_FIT_CHARS, len(words)):  # a long line: its end goes, its opening and the context stay
        room = min(MIN_FIT_CHARS, len(words))
        body = _cut(body, limit - len(lead) - room - 5, most=limit)
    words = _cut(words, room)
    return f'{lead} "{words}": {body}' if quote else f"{lead} {words}: {body}"


def _acknowledges(body: str, before: str, own_turn: str) -> bool:
    """The line is the pointer of a turn that opened on approval ("Great, that saves us a
    sprint."): it reacts to what the other said, with nothing of the speaker's before it."""
    m = _ACK_RE.match(own_turn)
    return m is not None and not _sentences(before) and body.split(None, 1)[0].lower() == m.group("p").lower()


def _context_of(name: str, people: tuple[str, ...], before: str, previous: str, previous_speaker: str,
                own_turn: str, plural: bool = False, person: bool = False) -> tuple[str, str, bool] | None:
    """(lead, words, whether they are a quote) of the nearest context: ("Maria, after John
    said", "We went to ...", True), ("Maria, sharing", "a photo of a dog", False).
    A photo of one thing is no context for a line opening on a plural pointer (`plural`),
    nor a photo of no one for a line opening on he/she (`person`)."""
    q = _nearest(_sentences(before), people, plural, person)
    if q is not None:
        return f"{name}, after saying", q, True
    other = bool(previous_speaker) and previous_speaker != name
    if other:
        said = _sentences(previous)
        # Two questions asked at once: which one the line answers is a guess.
        q = _nearest(said, people, plural, person) if sum(x.endswith("?") for x in said) < 2 else None
        if q is not None:
            return (f"{name}, in reply to {previous_speaker}'s" if q.endswith("?")
                    else f"{name}, after {previous_speaker} said"), q, True
    for turn, who in ((own_turn, name), (previous if other else "", previous_speaker)):
        shown = _caption(turn, who)
        if shown is not None and not (plural and _one_thing(shown)) \
                and not (person and not _SOMEONE_RE.search(shown)):
            return f"{name}, {'sharing' if who == name else f'after {who} shared'}", shown, False
    return None


def _sentences(turn: str) -> list[str]:
    out = []
    for s in split_sentences(" ".join(turn.split())):
        s = s.strip()
        if s and not _CAPTION_RE.match(s):
            out.append(s)
    return out


def _nearest(sentences: list[str], people: tuple[str, ...], plural: bool = False,
             person: bool = False) -> str | None:
    """The last of `sentences` that names something and is no filler, within ``MAX_BACK``;
    for a line opening on a plural pointer (`plural`), something that can be more than one;
    on he/she (`person`), someone who can be "he" or "she"."""
    names = {n for p in people for n in p.split()}
    for s in reversed(sentences[-MAX_BACK:]):
        core = strip_edges(s, people) or s
        named = [m.group(0) for m in _NAMED_RE.finditer(core) if m.group(0) not in names]
        if _TALK_RE.search(core) or len(core.split()) < MIN_QUOTE_WORDS or cheer(core) \
                or ((is_talk(core) or not has_content(core, min_words=3, names=people)) and not named):
            continue  # thanks, praise of the listener, "Wow, so cool!" -- unless it names a thing
        if pointer(core) is not None:
            continue  # "It's a great way to honor him.": points again itself
        if _YES_NO_RE.match(core) and core.endswith("?") and not _POINTS_RE.search(core):
            continue
        if _POINTS_RE.search(core) and not named:
            continue  # "What inspired it?"
        if plural and not any(m.group(0) not in names for m in _MANY_WORDS_RE.finditer(core)):
            continue  # "They make me think of strength" after "Keep pushing yourself with your writing."
        if person and not _SOMEONE_RE.search(core) \
                and not any(m.group(0) not in names for m in _NAME_RE.finditer(core)):
            continue  # "Her advocacy inspires Tim" after "people who use their platform ..."
        return s.replace('"', "'")
    return None


def _caption(turn: str, who: str) -> str | None:
    if not turn or not who:
        return None
    for s in reversed(split_sentences(" ".join(turn.split()))):
        m = _CAPTION_RE.match(s.strip())
        if m is not None and m.group("who") == who:
            return m.group("what")
    return None


# Pointers that can only mean more than one thing ("they" may be one person: see _PERSON_RE).
_PLURAL_POINTERS = frozenset({"they", "they're", "they've", "they'll", "they'd", "them", "these", "those"})
# Words that can be more than one: a plural (or a verb, leniently), a group, a name.
_MANY_WORDS_RE = re.compile(r"\b[a-z]{2,}[^\W\dsu']s\b|\b(?:people|family|folks|children|men|women|team|crew|group|"
                            r"class|staff|crowd|band)\b|(?<=[\w,] )(?-i:[A-Z])[\w-]+", re.IGNORECASE)
# "a photo of a car that has been damaged": one thing, named by its first noun phrase.
_ONE_SHOWN_RE = re.compile(rf"^(?:a|an|the|some)\s+(?:[\w-]+\s+){{0,2}}?{_MEDIA}\s+of\s+(?:a|an)\s+"
                           r"(?P<np>[^,]+?)(?=\s+(?:with|that|on|in|at|of|is|and|"
                           r"sitting|standing|next|near|under|over|by|from|holding|doing)\b|$)", re.IGNORECASE)
_MANY_RE = re.compile(r"\b(?:group|couple|pair|bunch|crowd|team|family|set|pile|stack|collection|lot|few|"
                      r"dozen|row|herd|flock|pack|litter)\b", re.IGNORECASE)
# Singular "they" can be a person shown: "a photo of a woman" / "They're doing great".
_PERSON_WORDS = ("person|man|woman|boy|girl|child|kid|baby|guy|lady|student|teacher|player|friend|dancer|artist|"
                 "teen|toddler")
_PERSON_RE = re.compile(rf"\b(?:{_PERSON_WORDS})\b", re.IGNORECASE)


# Pointers at one person (or pet); the quote must hold someone they can be.
_PERSON_POINTERS = frozenset({"he", "he's", "he'd", "he'll", "she", "she's", "she'd", "she'll", "him", "his",
                              "her", "hers"})
# Someone "he"/"she" can be: a person or a pet, or the same he/she said again (not a participant).
_SOMEONE_RE = re.compile(r"\b(?:he|she|him|his|her|hers|himself|herself|little one|" + _PERSON_WORDS + r"|"
                         r"son|daughter|mom|mum|mother|dad|father|brother|sister|husband|wife|boyfriend|girlfriend|"
                         r"partner|uncle|aunt|cousin|nephew|niece|grandma|grandpa|grandmother|grandfather|neighbou?r|"
                         r"boss|coach|doctor|author|singer|actor|actress|hero|dog|cat|puppy|kitten|pet|horse|"
                         r"turtle|bird|bunny|rabbit|hamster)s?\b", re.IGNORECASE)
_NAME_RE = re.compile(r"(?<=[\w,] )(?!I\b)[A-Z][\w-]+")  # a capitalised word inside the sentence


def _one_thing(shown: str) -> bool:
    """A photo of one thing, not a person: no context for a line opening on a plural pointer
    ("They were great" beside "a photo of a damaged car" -- quoting it would name the car)."""
    m = _ONE_SHOWN_RE.match(shown)
    return m is not None and not _MANY_RE.search(m.group("np")) and not _PERSON_RE.search(shown)


def _cut(s: str, room: int, most: int = MAX_QUOTE_CHARS) -> str:
    """`s` within `room` (and `most`) characters, cut at a word boundary with an ellipsis."""
    most = min(room, most)
    if len(s) <= most:
        return s
    cut = s[: most - 1]
    return cut[: cut.rfind(" ")].rstrip(" ,;:-") + "\u2026"
