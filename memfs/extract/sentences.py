"""Sentence segmentation and the "is this worth remembering?" filter.

Segmentation: a fast regex split on sentence-final punctuation handles most chat text;
pysbd (rule-based sentence boundary detection) runs only on the lines where a period
is ambiguous (abbreviations like "Dr.", "e.g.", "U.S.", initials), because it costs
~1.5 ms per turn (measured: ~700 turns/s on LoCoMo alone) against ~20 us for the regex.
pysbd has known catastrophic-backtracking inputs (e.g. ``"..[111 111 ...]"``, long
digit runs), so text that looks like those, or that is very long, never reaches it.

Filter: a fact needs content. Leading interjections and vocatives ("Wow, Caroline!",
"Hey Mel!", "By the way,") are stripped; what is left must have enough words and at
least one content word (not a stopword, not a reaction word like "awesome"/"thanks").
Questions are dropped, except a statement carrying a tag or lead-in, which is turned
back into the statement: "I adopted a dog last week, can you believe it?" keeps
"I adopted a dog last week"; "Did I tell you I got a new job?" keeps "I got a new job".
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata
from collections.abc import Iterable

from memfs.extract.lexicon import FILLER, STOPWORDS
from memfs.extract.talk import (  # noqa: F401 (is_talk is public here)
    _CATCH_UP_LEAD_RE,
    _GRATITUDE_RE,
    _NEWS_LEAD_RE,
    _TRAIL_CHEER_RE,
    CHEER_LEFT_RE,
    cut_reaction_lead,
    _TRAIL_FEELING_RE,
    is_talk,
)

_WORD_RE = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*|\d+(?:[.,:]\d+)*", re.UNICODE)

# The end of a sentence: final punctuation, closing quotes/brackets, then whitespace.
_SENT_END_RE = re.compile(r"[.!?\u2026]+[\"'\u201d\u2019)\]]*(?=\s)")
# A period boundary whose preceding token might be an abbreviation or an initial.
_AMBIGUOUS_RE = re.compile(
    r"(?:^|[\s(])(?:[A-Za-z]|[A-Za-z]\.[A-Za-z]\.?(?:[A-Za-z]\.?)*|"
    r"mr|mrs|ms|dr|prof|sr|jr|st|mt|vs|etc|approx|inc|ltd|co|corp|no|nos|fig|vol|dept|"
    r"est|gen|gov|lt|col|sgt|capt|rev|ave|blvd|rd|hr|hrs|min|mins|sec|yr|yrs|cf|al|ca|"
    r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|ph\.d|p|pp|op|ed|eds|univ|"
    r"u\.s|u\.k|e\.g|i\.e|a\.m|p\.m)\.\s",
    re.IGNORECASE,
)
# Inputs known to send pysbd into catastrophic backtracking, or simply too long.
_PYSBD_UNSAFE_RE = re.compile(r"[\[\]<>]|\d{9,}|\.\.\.\.|\.\s?\.\s?\[")
_PYSBD_MAX_CHARS = 2000

_segmenter = None
_segmenter_lock = threading.Lock()


def _pysbd_segment(text: str) -> list[str]:
    """pysbd on one line; the Segmenter keeps per-call state, so calls are serialised."""
    global _segmenter
    with _segmenter_lock:
        if _segmenter is None:
            import pysbd  # imported lazily: most inputs never need it

            _segmenter = pysbd.Segmenter(language="en", clean=False)
        try:
            return [s.strip() for s in _segmenter.segment(text) if s.strip()]
        except Exception:  # pysbd is rule-based; never let an odd input stop extraction
            return _regex_split(text)


def _regex_split(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    for m in _SENT_END_RE.finditer(text):
        piece = text[pos:m.end()].strip()
        if piece:
            out.append(piece)
        pos = m.end()
    rest = text[pos:].strip()
    if rest:
        out.append(rest)
    return out


_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_SPACES_RE = re.compile(r"[ \t]+")


def normalize_text(text: str) -> str:
    """NFC, straight apostrophes/quotes, no control characters, single spaces per line."""
    text = unicodedata.normalize("NFC", text)
    text = (text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"')
            .replace("\u201d", '"').replace("\u00a0", " ").replace("\u2014", " - ")
            .replace("\u2013", " - ").replace("\r\n", "\n").replace("\r", "\n"))
    # Drop control/format characters except newlines and tabs.
    if _CONTROL_RE.search(text):
        text = _CONTROL_RE.sub("", text)
    if not text.isascii() and any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn")
                                  and ch not in "\n\t" for ch in text):
        text = "".join(ch for ch in text if ch in "\n\t"
                       or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Cn"))
    return "\n".join(_SPACES_RE.sub(" ", line).strip() for line in text.split("\n"))


def split_sentences(text: str) -> list[str]:
    """Split one block of text (a line or paragraph, no markup) into sentences."""
    text = text.strip()
    if not text:
        return []
    if (". " in text and _AMBIGUOUS_RE.search(text) and len(text) <= _PYSBD_MAX_CHARS
            and not _PYSBD_UNSAFE_RE.search(text)):
        return _pysbd_segment(text)
    return _regex_split(text)


def words(text: str) -> list[str]:
    return _WORD_RE.findall(text)


# --- cleaning the edges of a sentence ----------------------------------------------

_INTERJECTION = (
    r"(?:hey|hi|hello|heya|hiya|yo|oh|ooh|ah|oof|ouch|yikes|phew|aw+|wow+|whoa|woah|omg|oh my god|oh my gosh|"
    r"gosh|geez|jeez|yeah|yea|yep|yup|yes|no|nope|nah|ok|okay|alright|well|so|um+|uh+|hmm+|"
    r"lol|haha(?:ha)*|hehe|thanks|thank you|thx|sure|totally|absolutely|definitely|exactly|"
    r"indeed|true|right|cool|awesome|great|nice|sweet|good|amazing|wonderful|fantastic|"
    r"congrats|congratulations|by the way|btw|anyway|anyways|honestly|seriously|actually|"
    r"also|plus|and|but|man|dude|girl|guys|friend|buddy|dear|hun|babe|totally agree|agreed|"
    r"i agree|same here|me too|for sure|of course|no way|you know what|guess what|ya know|"
    r"you know|i mean|to be honest|tbh|here (?:you|ya|u) go|there (?:you|ya|u) go|"
    r"(?:you|ya|u)(?:'ve| have)? got this|haha yeah|aww+ thanks|that's awesome|that's great|"
    r"that's cool|that's amazing|that's so cool|that's wonderful|that's fantastic|"
    r"that's so awesome|that's really cool|that's great news|that's so sweet|good luck|"
    r"thank you so much|thanks so much|thanks a lot|remind me|reminder|note to self|note|"
    r"fyi|for the record|just so you know|quick update|update|please|yes please|no thanks|"
    r"big news|good news|great news|exciting news|some news|news|fun fact|quick note|heads up|"
    r"okay so|ok so|right so|noted|understood|got it|will do|sounds good|you too|same to you|rock on)"
)
# "Wow, ", "Hey Mel! ", "Thanks, Melanie! ", "Yeah - ", "Oh man, " at the start.
_LEAD_RE = re.compile(
    r"^(?:" + _INTERJECTION + r"(?:\s+(?:[A-Z][\w'-]*))?\s*(?:[,!.:;\u2026-]+|\s-\s)\s*)+",
    re.IGNORECASE,
)
# A lone leading interjection without punctuation: "Yeah I went ...", "Oh I love ...".
# "So cool you found ...", "Glad that you ...": a reaction wrapped around a statement.
_LEAD_REACTION_RE = re.compile(
    r"^(?:(?:it's|that's|so|how|really|very|super|i'm|im)\s+)*(?:cool|nice|great|awesome|"
    r"amazing|wonderful|glad|happy|good|sweet|lovely|fantastic|exciting|neat|impressive)"
    r"\s+(?:that\s+|to\s+(?:hear|see|know)\s+(?:that\s+)?)?(?=(?:you|your|you're|you've)\b)",
    re.IGNORECASE,
)
# "Keep in mind I'm vegetarian", "Just so you know, my flight ...": a lead-in to a fact
# about the speaker, not an instruction to the listener.
_LEAD_NOTE_RE = re.compile(
    r"^(?:(?:but|and|also|oh|just|please)\s+)*(?:keep in mind|bear in mind|note|remember|be aware|"
    r"just so you know|fyi|for the record|worth mentioning|i should mention|i should say|"
    r"i forgot to mention|i forgot to say|i should add|by the way|incidentally)(?:\s+that)?,?\s+"
    r"(?=(?:i|i'm|i've|i'd|i'll|im|my|we|we're|we've|our|(?-i:[A-Z][a-z]+)|[a-z]+ing)\b)",
    re.IGNORECASE,
)
_LEAD_BARE_RE = re.compile(
    r"^(?:yeah|yep|yup|oh|wow|haha|lol|well|so(?!\s+(?:far|much|many|long)\b)|ok|okay|hey|aw+|ah|omg|and|but|plus|also|"
    r"then|anyway|anyways|btw)\s+(?=[a-z])",  # not the "so" of "So far", "So much"
    re.IGNORECASE,
)
# A tag after a comma (", right?", ", you know", ", though") or a laugh at the end.
_TRAIL_TAG_RE = re.compile(
    r"(?:,\s*(?:you know|right|though|too|tbh|honestly|isn't it|don't you think|ain't it|huh|"
    r"eh)|[,\s]+(?:lol|haha(?:ha)*|hehe))\s*(?=[.!?\u2026]*$)",
    re.IGNORECASE,
)
_EMOJI_RE = re.compile(
    r"[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F\u200d]+|(?<!\w)(?::\)|:-\)|:\(|:D|;\)|<3|xD)(?!\w)"
)


def strip_edges(sentence: str, names: Iterable[str] = ()) -> str:
    """Remove leading interjections/vocatives, trailing vocatives and tags, emoji."""
    s = sentence.strip()
    if not s.isascii() or ":" in s or ";" in s or "<3" in s or "xD" in s:
        s = _EMOJI_RE.sub("", s).strip()
    prev = None
    while s and s != prev:
        prev = s
        s = cut_reaction_lead(_NEWS_LEAD_RE.sub("", s, count=1).strip())
        if s and _may_have_lead(s):
            s = _LEAD_RE.sub("", s).strip()
            s = _LEAD_BARE_RE.sub("", s).strip()
            s = _LEAD_NOTE_RE.sub("", s).strip()
            s = _CATCH_UP_LEAD_RE.sub("", s).strip()
            s = _LEAD_REACTION_RE.sub("", s).strip()
            s = _GRATITUDE_RE.sub("", s).strip()
        if "," in s or "!" in s or ":" in s:
            s = _strip_vocatives(s, names)
        if "," in s or " - " in s:
            cut = _TRAIL_FEELING_RE.sub("", s).strip()
            if not _GERUND_HEAD_RE.match(cut):  # "Helping others - so inspiring": the praise is the point
                s = cut
            cut = _TRAIL_CHEER_RE.sub("", s).strip()
            if cut != s and CHEER_LEFT_RE.match(cut):
                return ""  # "Even when it's tough, you got this!": nothing but the cheer
            s = cut
        last = s.rstrip(".!?\u2026 ").rsplit(None, 1)[-1].lower() if s.strip(".!?\u2026 ") else ""
        if last in _TAG_WORDS:
            cut = _TRAIL_TAG_RE.sub("", s).strip()
            if cut != s and cut.endswith("?") and not _ASKING_RE.match(cut):
                cut = cut.rstrip("?") + "."
            s = cut
    return s


_GERUND_HEAD_RE = re.compile(r"^[A-Z]?[a-z]+ing\b(?!\s+(?:to|on)\b)")


# First words that can open an interjection, a lead-in or a reaction (see _LEAD_*_RE).
_LEAD_WORDS = frozenset("""
hey hi hello heya hiya yo oh ooh ah omg gosh geez jeez yeah yea yep yup yes no nope nah ok okay
alright well so lol hehe thanks thank thx sure totally absolutely definitely exactly indeed
true right cool awesome great nice sweet good amazing wonderful fantastic congrats
congratulations by btw incidentally anyway anyways honestly seriously actually also plus and but man dude
girl guys friend buddy dear hun babe agreed same me for of you to tbh that's remind reminder
note fyi just quick update then it's how really very super im i'm glad happy neat impressive
lovely exciting please big some fun heads keep bear remember be worth noted understood got will
here there a since lots much tons loads your ur oof ouch yikes phew interesting crazy exciting wild things
rock
""".split())
_TAG_WORDS = frozenset("""know right lol haha hahaha hehe though too tbh honestly it think huh
eh""".split())


def _may_have_lead(s: str) -> bool:
    parts = s.split(None, 2)
    first = parts[0].lower().strip(",.!?:;-\u2026")
    if first in _LEAD_WORDS or first.startswith(("aw", "wo", "um", "uh", "hm", "haha")):
        return True
    return first == "i" and len(parts) > 1 and parts[1].lower().strip(",.!") in ("agree", "mean")


@functools.lru_cache(maxsize=256)
def _vocative_res(names: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]] | None:
    """Patterns for a participant's name or nickname used as a vocative.

    A nickname is any prefix of at least 3 letters of a first name ("Mel" for Melanie).
    """
    cands: list[str] = []
    for name in names:
        parts = name.split()
        if not parts:
            continue
        first = parts[0]
        for cand in (first, first[:5], first[:4], first[:3]):
            if len(cand) >= 3 and cand not in cands:
                cands.append(cand)
    if not cands:
        return None
    alt = "|".join(re.escape(c) for c in sorted(cands, key=len, reverse=True))
    end = re.compile(r",\s*(?:" + alt + r")[a-z]{0,6}\s*(?=[.!?\u2026]*$)")
    start = re.compile(r"^(?:" + alt + r")[a-z]{0,6}\s*[,!:]\s*")
    # "Your support, Gina, means a lot": between lower-case words, not in a list of names.
    middle = re.compile(r"(?<=[a-z]),\s*(?:" + alt + r")[a-z]{0,6}\s*,\s*(?!(?:and|or)\b)(?=[a-z])")
    return end, start, middle


def _strip_vocatives(s: str, names: Iterable[str]) -> str:
    pats = _vocative_res(tuple(n for n in names if n))
    if pats is None:
        return s
    end, start, middle = pats
    return start.sub("", end.sub("", middle.sub(" ", s))).strip()


# --- questions -------------------------------------------------------------------

_QUESTION_LEADIN_RE = re.compile(
    r"^(?:did i (?:ever )?(?:tell|mention(?: to)?) you(?: about)?|have i (?:ever )?"
    r"(?:told|mentioned(?: to)?) you(?: about)?|remember when|guess what|did you know|"
    r"you know what)\s*(?:that\s+)?,?\s*",
    re.IGNORECASE,
)
_FIRST_PERSON_START_RE = re.compile(r"^(?:i|i'm|i've|i'd|i'll|im|my|we|we're|we've|our)\b",
                                    re.IGNORECASE)
_CLAUSE_SPLIT_RE = re.compile(r",\s+|\s+-\s+")
# "Camping with pets can be so soul-nourishing, right?" asks for a nod, not an answer:
# without its tag it is a statement unless it opens like a question.
_ASKING_RE = re.compile(r"^(?:who|what|when|where|why|how|which|do|does|did|is|are|was|were|can|could|will|"
                        r"would|should|have|has|had|am|any|anything)\b", re.IGNORECASE)


def question_to_statement(sentence: str) -> str | None:
    """Return the statement a question carries, or None for a pure question."""
    s = sentence.rstrip()
    if not s.endswith("?"):
        return sentence
    body = s.rstrip("?!. ").strip()
    m = _QUESTION_LEADIN_RE.match(body)
    if m and len(words(body[m.end():])) >= 3:
        rest = body[m.end():].strip(" ,")
        if _FIRST_PERSON_START_RE.match(rest) or m.group(0).lower().startswith("remember"):
            return rest + "."
    # "I went to Paris last week, can you believe it?" -> keep the statement before the tag.
    if _FIRST_PERSON_START_RE.match(body):
        parts = _CLAUSE_SPLIT_RE.split(body, maxsplit=1)
        head = parts[0]
        if len(parts) > 1 and len(words(head)) >= 4 and not head.lower().startswith(
                ("i wonder", "i was wondering", "i'm wondering", "i'm curious")):
            return head + "."
    return None


# --- content test ---------------------------------------------------------------

_CLOSING_RE = re.compile(
    r"^(?:(?:it was |it's |so )?(?:good|great|nice|lovely) (?:to|talking to|chatting with|"
    r"catching up"
    r"|seeing|hearing from) |talk (?:to you )?(?:soon|later)|see you|take care|catch you|"
    r"have a (?:good|great|nice|lovely|wonderful)|bye|good (?:morning|night|evening|afternoon)"
    r"|how are you|how have you been|how's it going|what's up|thanks for|thank you for|"
    r"(?:i )?(?:hope|hoping) (?:you|your|all|everything)|(?:i'm |i am )?(?:so |really )?"
    r"(?:glad|happy) (?:to hear|you|for you|that you)|(?:i )?can't wait to (?:see|hear)|"
    r"keep (?:it|up)|let me know|(?:i'm )?here for you|you got this|you've got this|"
    r"(?:i'm )?(?:so )?proud of you|sounds like|looks like (?:you|a|an|so)|"
    r"that (?:sounds|looks|seems|must)|what an? |how (?:cool|nice|fun|great|awesome|amazing|sweet)|"
    r"gotta go|i have to go|i should go|take a look|check (?:this|it|that) out|"
    r"look at (?:this|that|these|those)|see (?:this|that|these)|congrats on|congratulations on|"
    r"(?:i'm |so |really )*sorry (?:to hear|about|for)|long time no see|"
    r"(?:that|this|those|these|it|your|the)\b[\w\s'&-]{0,40}\b(?:sounds?|looks?|seems?)\s+"
    r"(?:so\s+|really\s+|super\s+|very\s+|pretty\s+|totally\s+)?(?:great|awesome|amazing|"
    r"cool|nice|fun|fantastic|wonderful|lovely|beautiful|incredible|interesting|exciting|"
    r"delicious|good|sweet|perfect|stunning|gorgeous|adorable|cute|intense|tough|hard|rough|"
    r"scary|peaceful|relaxing|awful|terrible|challenging|like\s+(?:a|an|so|fun)\b)\W*$)",
    re.IGNORECASE,
)


# Encouragement and instructions to the listener: no fact about anyone.
_IMPERATIVE_RE = re.compile(
    r"^(?:check|look|chase|keep|enjoy|don't hesitate|feel free|"
    r"(?:it |that |this )?(?:sounds|looks|seems) like (?:a|an|so|such|fun|you|great|things)|"
    r"enjoy|stay|hang in|don't (?:give|stop|worry|forget|be)|never (?:give|stop)|good luck|"
    r"take care|take a|go for it|tell me|wish me|hold on|believe in|trust|remember to|"
    r"be proud|be kind|have fun|have a|(?:just |please |so |and )?(?:let|lemme) (?:me|us) know|"
    r"don't let (?:\w+\s+){1,4}?(?:stop|get|bring|hold|keep)|make (?:your|those|all your) dreams|"
    r"show (?:the world|them|everyone|me)|go (?:get|create|make|show|crush|rock|out there)|understand where|"
    r"take courage|have faith|follow your (?:heart|passion|dreams?))\b",
    re.IGNORECASE,
)


def content_words(text: str) -> list[str]:
    return [w for w in (w.lower() for w in words(text))
            if w not in STOPWORDS and w not in FILLER and not w.isdigit()
            and len(w) > 1]


def has_content(sentence: str, *, min_words: int = 4, names: Iterable[str] = ()) -> bool:
    """True if the sentence says something: enough words, one content word, not a closing."""
    ws = words(sentence)
    if len(ws) < min_words:
        return False
    if is_talk(sentence):
        return False
    if min_words >= 4 and _IMPERATIVE_RE.match(sentence):
        return False
    if _CLOSING_RE.match(sentence):
        # Closings may still carry a fact: "I'm off to go swimming with the kids."
        lowered = {n.lower() for name in names for n in name.split()}
        rest = [w for w in content_words(sentence) if w not in lowered]
        return len(rest) >= 3
    lowered = {n.lower() for name in names for n in name.split()}
    return any(w not in lowered for w in content_words(sentence))


# A short first-person statement can still be a fact worth a line: "I'm vegetarian.",
# "I smoke.", "I'm 31.", "I'm dating Alex." (not "I agree.", "I'm fine.", "I love it!").
_SHORT_FACT_RE = re.compile(r"^(?:i|i'm|im|i've|my\s+\w+(?:\s+is)?)\s+(?:(?:am|is|a|an|no|not|longer|now|just|"
                            r"also|still|never)\s+)*(?P<rest>[\w' -]+?)[.!]*$", re.IGNORECASE)
_DANGLING_END_RE = re.compile(r"\b(?:it|that|this|them|so|too|there|here|one)\W*$", re.IGNORECASE)


def short_fact(s: str, names: list[str]) -> bool:
    """ "I'm vegetarian.", "I'm 31.": a short first-person statement worth a line."""
    m = _SHORT_FACT_RE.match(s.strip())
    if not m or _DANGLING_END_RE.search(s) or len(s.split()) > 6 or is_talk(s):
        return False
    rest = m.group("rest")
    if re.fullmatch(r"\d{1,3}(?: years old)?", rest.strip()):
        return True  # an age
    return has_content(rest, min_words=1, names=names)
