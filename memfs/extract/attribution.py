"""Make a sentence read on its own: pronouns become names, verbs agree.

Rules (conservative; a wrong name is worse than a clumsy sentence):
- First person singular becomes the speaker: "I went" -> "Caroline went", "my kids" ->
  "Caroline's kids", "I'm" -> "Caroline is", "I've" -> "Caroline has", "me" ->
  "Caroline", "myself" -> "themself". The verb right after the subject (past a few
  adverbs) agrees: am->is, have->has, do->does, don't->doesn't, present "love"->"loves".
  Once named, a later mention reads "they"/"their" when nobody else could be meant (``later``).
- First person plural keeps a plural subject, so no verb changes: "we"/"us" ->
  "Caroline and Melanie" when the sentence is about the two of them talking or meeting
  ("since we last chatted"), "Caroline and family" when the turn mentions family (kids,
  husband, ...), otherwise "Caroline and others"; "our" -> "Caroline's" ("Caroline and
  Melanie's" for "our last chat", "our friendship"; the group's for what is between people,
  "our love", when the turn says who "we" is: "Melanie and family's love"); "Let's" ->
  "Caroline and Melanie should". Documents keep their "we" (it is the team).
- Second person becomes the addressee only in a conversation between exactly two named
  people ("you"/"your" -> the other participant, with agreement): between two people
  nearly every "you" is the listener. "you guys" / "you all" / "you two" is the listener
  and others, kept plural ("Tim and others", ``address``); a set phrase ("you never know")
  is left alone, "thank you" too, and a filler "you know" is cut, as is the listener's name
  used to address them ("Sorry about your job Tim, ...", ``vocative``).
- Speaker None or a generic role ("user", "human") -> "the user" ("The user" at the
  start of a sentence). Assistant/system/tool turns are skipped by ``offline``.
- Subject-less chat sentences get their "I" back first (``subject.restore_subject``):
  "Love that painting!" -> "I love that painting!".
"""

from __future__ import annotations

import re

from memfs.extract.lexicon import (
    AMBIGUOUS_PAST,
    ED_ADJECTIVES,
    MODALS,
    RELATION_WORDS,
    STOPWORDS,
    is_adverb,
)
from memfs.extract.address import plural_you
from memfs.extract.agree import AGREE as _AGREE, NON_VERBS as _NON_VERBS, agree_after_and, is_present_singular
from memfs.extract.agree import looks_like_base_verb as _looks_like_base_verb, third_person  # noqa: F401 (public here)
from memfs.extract.groups import (all_of_us, between_us, group_name, group_possessive,  # noqa: F401 (group_name public)
                                   one_each, owned_group, shared_owner)
from memfs.extract.later import nobody_since, speaker_last_named, they_before
from memfs.extract.listener import is_generic_you, is_impersonal_you, is_plural_you  # noqa: F401
from memfs.extract.vocative import drop_vocative
from memfs.extract.subject import normalize_slang, restore_subject  # noqa: F401 (public here)

USER_ROLES = frozenset({"user", "human", "me", "customer", "client", "person", "speaker",
                        "unknown", "anonymous", "guest", "you", "author", "owner"})
ASSISTANT_ROLES = frozenset({"assistant", "ai", "bot", "model", "system", "tool", "function",
                             "developer", "gpt", "chatgpt", "claude", "gemini", "agent",
                             "copilot", "llm", "ipython"})

GENERIC_USER = "the user"
GENERIC_AUTHOR = "the author"

_TOKEN_RE = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*|\s+|.", re.UNICODE | re.DOTALL)


_PERSONS = frozenset({"he", "she", "they", "you", "him", "her", "them", "we"})
# Words after which "you" is an object ("made you feel", "tell you"), not a subject.
_OBJECT_TAKERS = frozenset("""
to for with at about from of on in by into onto tell told give gave send sent show showed
ask asked let make made help helped see saw thank thanks love miss want wanted need get got
bring brought call called teach taught meet met hear heard remind reminds reminded
inspire inspires inspired wish guess have has had hug hugs bless texted text join joined
""".split())

_CLAUSE_PREPS = frozenset({"in", "at", "to", "from", "for", "with", "near", "by",
                           "of", "on", "into", "visited", "visit", "like", "love", "loved", "about"})
# Verbs that, right after "you", can only be its present tense ("like" may be "like crazy").
_PRESENT_ONLY = frozenset({"love", "need", "want", "enjoy", "hate", "prefer", "adore", "deserve"})
_DETERMINERS = frozenset({"the", "a", "an", "all", "some", "those", "these", "any", "every",
                          "everything", "anything", "something", "what"})

_PRONOUNS = frozenset("""i i'm im i've ive i'll i'd me my mine myself we we're we've we'll we'd us
our ours ourselves let's lets you you're you've you'll you'd your yours yourself""".split())
_PLURAL_FIRST = frozenset({"we", "we're", "we've", "we'll", "we'd", "us", "our", "ours",
                           "ourselves", "let's", "lets"})

_LATER_MENTION = {"i": "they", "i'm": "they are", "im": "they are", "i've": "they have",
                  "ive": "they have", "i'll": "they will", "i'd": "they", "me": "them", "my": "their",
                  "mine": "theirs"}
_THEY_FOR_YOU = {"your": "their", "yours": "theirs", "you're": "they're", "you've": "they've",
                 "you'll": "they'll"}
_AGREE_THEY = {"am": "are", "was": "were", "wasn't": "weren't", "'m": "are"}
_THEY_RE = re.compile(r"\b(?:they|them|their|theirs|they're|they've|he|she|his|him|her|hers)\b",
                      re.IGNORECASE)
_PLURAL_THEY_RE = re.compile(r"\b(?:they|them|their|theirs|they're|they've)\b", re.IGNORECASE)
# Counted things ("looked at three schools ... and they chose"): a singular "they" would read as them.
_COUNTED_RE = re.compile(r"\b(?:two|three|four|five|six|seven|eight|nine|ten|\d+|several|many|few|both|"
                         r"multiple|couple of|lot of|lots of)\s+(?:[\w-]+\s+)?[\w-]+s\b", re.IGNORECASE)
_SUBJECTS = frozenset({"i", "i'm", "im", "i've", "ive", "i'll", "i'd"})
_CLAUSE_SUBJECTS = _SUBJECTS | {"we", "we're", "we've", "we'll", "we'd"}
_TELLS = frozenset("tell tells told telling remind reminds reminded reminding show shows showed showing teach teaches "
                   "taught teaching assure assured assures convince convinced promise promised warn warned".split())
_GROUP_LATER = {"we": "they", "we're": "they are", "we've": "they have", "we'll": "they will",
                "we'd": "they would", "us": "them", "our": "their", "ours": "theirs"}
_YOU_RE = re.compile(r"\b(?:you|your|you're|you've|you'll|you'd|yours|yourself)\b", re.IGNORECASE)

_PAST_CUE_RE = re.compile(r"\b(?:yesterday|ago|last|was|were|went|did|had|could|earlier|in (?:january|february|"
                          r"march|april|may|june|july|august|september|october|november|december|"
                          r"(?:19|20)\d\d))\b", re.IGNORECASE)
# "I quit my job", "I hurt my knee": news, so past -- unless the line says it recurs.
_PAST_AUX = frozenset("was wasn't were weren't had hadn't did didn't".split())
_EVENT_PAST = frozenset("quit hurt split upset burst".split())
_RECURS_RE = re.compile(r"\b(?:always|usually|often|never|sometimes|every|each|whenever|tends?|regularly|"
                        r"daily|weekly|keeps?)\b", re.IGNORECASE)
_YOU_KNOW_RE = re.compile(
    r"(?<!\blet)(?<!\blet\s)(?<!\blet's)(?<!\blet's\s)"
    r",?\s*\byou know\b,?(?!\s+(?:what|how|that|about|if|when|where|who|why)\b)",
    re.IGNORECASE)
_PARTICIPLE_HINT = frozenset("""
been had gone done seen taken given known got gotten made become heard come never already
better rather
""".split())

_WE_RE = re.compile(r"\b(?:we|we're|we've|we'll|we'd|us)\b")
_SHARED_NOUNS = frozenset({"friendship", "chat", "chats", "talk", "talks", "conversation",
                           "conversations", "meeting", "call", "catch-up"})


def _takes_object(word: str) -> bool:
    """ "give you love", "misses you love", "seeing you enjoy it": "you" is the object there;
    after an auxiliary ("do you want", "should you need") it is a question's subject, verb as said."""
    low = word.lower()
    return low in _OBJECT_TAKERS or low.endswith("ing") or low[:-1] in _OBJECT_TAKERS or low[:-2] in _OBJECT_TAKERS \
        or low in MODALS or low in ("do", "does", "did")  # "do you want tacos" typed without "?"


def possessive(name: str) -> str:
    return name + "'s"


class _Rewriter:
    def __init__(self, sentence: str, name: str, addressee: str | None, group: str,
                 plural: bool = True, named: bool = False, shared: str | None = None):
        self.tokens: list[str] = _TOKEN_RE.findall(sentence)
        self.shared = shared  # who "our love" belongs to, when the turn says (``groups.shared_owner``)
        self.plural = plural
        self.name = name
        self.addressee = addressee
        self.group = group
        self.past_context = bool(_PAST_CUE_RE.search(sentence))
        self.recurs = bool(_RECURS_RE.search(sentence))
        # Once the line has named the speaker, later "I"/"my"/"me" read better as singular
        # "they" -- unless another person or a plural "they" could be meant.
        self.named = named  # the line already named the speaker (a continuation)
        self.own: list[int] = [-1]  # the tokens of the "they"/"their" that stand for the speaker
        self.group_pronoun_ok = _PLURAL_THEY_RE.search(sentence) is None
        self.pronoun_ok = _THEY_RE.search(sentence) is None and not _WE_RE.search(sentence.lower()) and (
            addressee is None or addressee not in sentence) and not _YOU_RE.search(sentence)

    def _next_word(self, i: int) -> int | None:
        """Index of the next word token if only whitespace separates it from token i."""
        j, toks = i + 1, self.tokens
        while j < len(toks) and toks[j].isspace():
            j += 1
        return j if j < len(toks) and toks[j][0].isalpha() else None

    def _prev_word(self, i: int) -> str:
        j, toks = i - 1, self.tokens
        while j >= 0 and toks[j].isspace():
            j -= 1
        return toks[j].lower() if j >= 0 else ""

    def _word_before(self, i: int, n: int) -> str:
        """The n-th non-space token before token i (1 = the previous one), as written."""
        j, toks = i - 1, self.tokens
        while j >= 0:
            if not toks[j].isspace():
                n -= 1
                if n == 0:
                    return toks[j]
            j -= 1
        return ""

    def _is_coordinated(self, i: int) -> bool:
        """"Tom and I go" (plural subject) as opposed to "painting and I go"."""
        if self._word_before(i, 1).lower() not in ("and", "or", "nor"):
            return False
        before = self._word_before(i, 2)
        low = before.lower()
        if low in _PERSONS or low in RELATION_WORDS:
            return True
        # "Tom and I" is a plural subject; "in Manchester and I work" is a new clause;
        # at the start of a sentence a capitalised word is a name unless it is a common word.
        third = self._word_before(i, 3)
        if owned_group(third, before, self._word_before(i, 4)):
            return True  # "my colleagues and I went": the owner was rewritten to "Jon's" already
        if third in ("", ".", "!", "?"):
            return before[:1].isupper() and low not in _NON_VERBS and low not in STOPWORDS \
                and not low.endswith(("ing", "ed", "ly"))
        return before[:1].isupper() and third.lower() not in _CLAUSE_PREPS

    def _is_clause_start(self, i: int) -> bool:
        prev = self._prev_word(i)
        return prev in ("", ",", ";", ":", "-", "and", "but", "so", "because", "that", "if",
                        "when", "since", "as", "though", "although", "while", "or", "(",
                        "\"", ".", "!", "?", "cause", "until", "before", "after", "sure",
                        "think", "thought", "know", "knew", "bet", "hope", "guess", "believe",
                        "glad", "happy", "proud", "heard", "wish", "noticed", "seems", "how",
                        "what", "why", "where", "whether", "like", "whenever", "once",
                        "unless", "then", "wherever", "whatever", "everywhere", "anywhere",
                        # the speaker's "I think you ..." is "Nate thinks you ..." by now; not
                        # "knows"/"hears": "knows you well", "hears you sing" ("_PRESENT_ONLY")
                        "thinks", "hopes", "bets", "anytime", "something", "anything", "everything",
                        "nothing")

    def _agree(self, i: int) -> None:
        """Make the verb after the subject at token i third person singular."""
        j = self._next_word(i)
        steps = 0
        while j is not None and is_adverb(self.tokens[j].lower()) and steps < 3:
            j = self._next_word(j)
            steps += 1
        if j is None:
            return
        verb = self.tokens[j]
        low = verb.lower()
        if low in _AGREE:
            out = _AGREE[low]
            self.tokens[j] = out[:1].upper() + out[1:] if verb[:1].isupper() else out
        elif not (low in AMBIGUOUS_PAST and (self.past_context or (low in _EVENT_PAST and not self.recurs))) \
                and _looks_like_base_verb(verb):
            self.tokens[j] = third_person(verb)
        if low not in MODALS or low in _PAST_AUX:  # "can paint and draw" keeps "draw"
            agree_after_and(self.tokens, j, is_present_singular(self.tokens[j]))

    def _agree_plural(self, i: int) -> None:
        """After "they" (the speaker, named earlier in the line): am -> are, was -> were."""
        j = self._next_word(i)
        if j is not None and self.tokens[j].lower() in _AGREE_THEY:
            self.tokens[j] = _AGREE_THEY[self.tokens[j].lower()]

    def _would_or_had(self, i: int) -> str:
        j = self._next_word(i)
        if j is not None:
            low = self.tokens[j].lower()
            if low in _PARTICIPLE_HINT or (low.endswith("ed") and low not in ED_ADJECTIVES):
                return "had"
        return "would"

    def run(self, *, second_person: bool) -> str:
        toks = self.tokens
        name, group = self.name, self.group
        for i, tok in enumerate(toks):
            if len(tok) > 10 or tok.lower() not in _PRONOUNS:
                continue
            if (i + 1 < len(toks) and toks[i + 1] == "-") or (i > 0 and toks[i - 1] == "-"):
                continue  # part of a compound: "me-time", "self-care"
            low = tok.lower()
            before = "".join(toks[:i])
            if self.plural and self.group_pronoun_ok and low in _GROUP_LATER and group in before:
                toks[i] = _GROUP_LATER[low]  # "Maria and others organized ... they served"
                continue
            if low in _LATER_MENTION and ((self.pronoun_ok and (self.named or name in before)) or not they_before(self.tokens, self.own, i) and (
                    speaker_last_named(before, name) or self.own[-1] >= 0 and nobody_since("".join(toks[self.own[-1] + 1:i])))) \
                    and not (low == "i" and self._is_coordinated(i)) \
                    and not (low in _SUBJECTS and _COUNTED_RE.search(before)) \
                    and (low != "i" or tok in ("I", "i")):
                toks[i] = _LATER_MENTION[low]  # "Caroline explored their transition"
                self.own.append(i)
                if low == "i":
                    self._agree_plural(i)
                elif low == "i'd":
                    toks[i] = "they " + self._would_or_had(i)
                continue
            if low == "i" and tok in ("I", "i"):
                coordinated = self._is_coordinated(i)
                toks[i] = name
                if not coordinated:
                    self._agree(i)
            elif low in ("i'm", "im", "i've", "ive") and tok in ("I'm", "i'm", "Im", "im", "I'M",
                                                             "I've", "i've", "Ive", "ive", "I'VE"):
                toks[i] = name + (" is" if "m" in low else " has")
                agree_after_and(toks, i, True)  # "Jon is tired and needs rest"
            elif low == "i'll":
                toks[i] = name + " will"
            elif low == "i'd":
                toks[i] = name + " " + self._would_or_had(i)
            elif low == "me":  # "reminding me I'm not alone": "reminding Maria that Maria is ..."
                toks[i] = name + (" that" if (j := self._next_word(i)) is not None and toks[j].lower() in _CLAUSE_SUBJECTS
                                  and self._prev_word(i) in _TELLS else "")
            elif low in ("my", "mine"):
                toks[i] = possessive(name)
            elif low == "myself":
                toks[i] = "themself"
            elif not self.plural and low in _PLURAL_FIRST:
                continue
            elif low == "we":
                toks[i] = group
            elif low == "we're":
                toks[i] = group + " are"
            elif low == "we've":
                toks[i] = group + " have"
            elif low == "we'll":
                toks[i] = group + " will"
            elif low == "we'd":
                toks[i] = group + " " + self._would_or_had(i)
            elif low == "us" and tok != "US":
                toks[i] = group
            elif low in ("our", "ours"):
                # "our last chat" / "our friendship" between two people is both of
                # theirs; "our kids" is the speaker's.
                nxt = self._next_word(i)
                if nxt is not None and toks[nxt].lower() == "last":
                    nxt = self._next_word(nxt)
                pair = self.addressee is not None and nxt is not None and \
                    toks[nxt].lower() in _SHARED_NOUNS
                shared = self.shared if nxt is not None and between_us(toks[nxt]) else None  # "our love"
                toks[i] = group_possessive(shared) if shared and not pair else \
                    possessive(f"{name} and {self.addressee}" if pair else name)
                if not pair and nxt is not None and one_each(toks[nxt]):
                    toks[nxt] = one_each(toks[nxt]) or toks[nxt]  # "our lives" -> "Maria's life"
            elif low == "ourselves":
                toks[i] = "themselves"
            elif low in ("let's", "lets") and tok[0] in "Ll" and (low == "let's" or i == 0):
                other = self.addressee or "others"
                toks[i] = f"{name} and {other} should"
            elif second_person and self.addressee:
                self._second_person(i, low)
        return "".join(toks)

    def _second_person(self, i: int, low: str) -> None:
        toks, other = self.tokens, self.addressee
        assert other is not None
        before = "".join(toks[:i])
        if low in _THEY_FOR_YOU and not they_before(self.tokens, self.own, i) and speaker_last_named(before, other):
            toks[i] = _THEY_FOR_YOU[low]  # "Tim thinks John has to keep pushing for their goals"
            return
        if low == "you":
            if self._prev_word(i) == "thank":
                return
            nxt = self._next_word(i)
            nxt_low = toks[nxt].lower() if nxt is not None else ""
            subject = self._is_clause_start(i) or nxt_low in _AGREE or (  # "the people you work with", "how much you care"
                (self._word_before(i, 2).lower() in _DETERMINERS or self._word_before(i, 2).lower() == "how")
                and self._prev_word(i) not in _OBJECT_TAKERS and nxt is not None
                and _looks_like_base_verb(toks[nxt])) or (  # "doing activities you love"
                nxt_low in _PRESENT_ONLY and not _takes_object(self._prev_word(i)))
            if (subject or self._prev_word(i) in _OBJECT_TAKERS) and speaker_last_named(before, other) \
                    and not they_before(toks, self.own, i):  # "John shows how much they care", verb as said
                toks[i] = "they" if subject else "them"
                return
            toks[i] = other
            if subject:
                self._agree(i)
        elif low == "you're":
            toks[i] = other + " is"
        elif low == "you've":
            toks[i] = other + " has"
        elif low == "you'll":
            toks[i] = other + " will"
        elif low == "you'd":
            toks[i] = other + " " + self._would_or_had(i)
        elif low in ("your", "yours"):
            toks[i] = possessive(other)
        elif low == "yourself":
            toks[i] = "themself"


def attribute(sentence: str, name: str, addressee: str | None = None, *,
              context: str | None = None, plural: bool = True, named: bool = False) -> str:
    """Rewrite pronouns in ``sentence`` as said by ``name`` (to ``addressee``, if known).

    ``context`` (the whole turn) decides whether "we" means family or others.
    ``plural=False`` leaves "we"/"our"/"us" as written (a document's "we" is its team).
    ``named=True``: the line this sentence joins already names the speaker, so first
    person reads as singular "they" throughout (when nobody else could be meant).
    """
    low = sentence.lower()
    needs_group = ("we" in low or "us" in low or "our" in low) \
        and _WE_RE.search(re.sub(r"\bour\b", "us", low)) is not None  # "our love" needs to know who "we" is
    group = group_name(name, context if context is not None else sentence, sentence,
                       addressee) if needs_group \
        else name + " and others"
    sentence = all_of_us(sentence, group) if plural else sentence  # "us all" -> "everyone"
    if addressee is not None and plural:  # "Sorry about your job Tim": "... your job"; "you guys": "Tim and others"
        sentence = plural_you(drop_vocative(sentence, addressee), addressee)
    second = addressee is not None and not is_plural_you(sentence) and not is_impersonal_you(sentence)
    if second and "you know" in low:
        sentence = _YOU_KNOW_RE.sub("", sentence)
    shared = shared_owner(group, name, addressee, context if context is not None else sentence, sentence) \
        if plural and needs_group else None
    out = _Rewriter(sentence, name, addressee, group, plural, named, shared).run(second_person=second)
    if out and out[0].islower():
        out = out[0].upper() + out[1:]
    return out
