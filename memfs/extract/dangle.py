"""A line that opens on "It"/"They"/"That"/"He" pointing at nothing: resolved, rewritten or kept as said.

The last gate before a conversation fact is stored. Earlier passes already join a
follow-up onto the fact before it in the same turn or spell out its antecedent
(``antecedent``); what reaches here opens a turn ("It taught me self-acceptance" after
"What did you take away from the book?") or follows a sentence that was no fact
("Oliver's hilarious! He hid his bone in my slipper"). Alone, such a line says nothing,
or something false once the reader guesses what "it" is. Precision first:

1. **Resolve** when the sentence just before it names exactly one candidate: the
   sentence before in the same turn, or, when the line opens the turn (or follows only a
   "Thanks!"), the last sentence of the previous turn. A question there names its topic
   ("What concert was it?" -> "the concert"; "How was the pottery class?"; "your son" is
   the speaker's son); a question that itself points ("What made you pick it?") asks
   about the sentence before it, or about the speaker's own turn before it when all of
   that turn names one thing; a question that names nothing ("How will you keep track?")
   asks about the sentence before it when that one opens on a definite subject ("Woah,
   that whiteboard's got good ideas!"). The other speaker's statement counts only with a definite
   phrase ("the roadways") or a bare noun opening it ("Running can boost your mood");
   the speaker's own sentence also with a name ("Definitely Star Wars!"). The pronoun
   must agree ("It" a singular or a name, "They"/"Their" a plural, "He"/"She" a name or
   a relative, "This" only an activity). Two candidates, or none, resolve nothing, and
   a view of the whole situation ("It's been tough", "It taught me") is never pinned on
   one thing.
2. **Rewrite** when the pointer only frames a fact that names its subject: "It's been
   tough, but John is staying positive" -> "John is staying positive"; "That's why Maria
   loves volunteering" -> "Maria loves volunteering"; "It's true, nature has a way ..."
   -> "Nature has a way ..."; of two sentences glued into one line, the second stays
   when it reads alone.
3. **Keep it as said** otherwise (the caller, ``offline``, joins it onto the line made
   from the sentence just before it in the same turn, when there is one): a reaction ("That's a great lesson to pass on"), a view
   of something unnamed ("It really conveys unity and strength"). A guess would write a
   false fact; what is still unresolved after that is quoted with the sentence it
   follows or not stored (``context``, ``reach``), which keeps most of the evidence a
   plain drop lost (LoCoMo hit@10 0.812 -> 0.783 dropped, 0.807 quoted).

"There" as a place is ``deixis``'s job; an existential "There is", a dummy "It's great
to ...", "It's been two years since ..." and weather point at nothing and stay.
"""

from __future__ import annotations

import re

from memfs.extract.antecedent import SITUATION_RE, antecedent_of, phrases_of, plural, title_topic
from memfs.extract.lexicon import RELATION_WORDS
from memfs.extract.rewrite import EVALUATIVE
from memfs.extract.sentences import split_sentences

_POINTER_RE = re.compile(
    r"^(?P<pro>it's|it is|it was|it has|it will|it|its|they're|they are|they were|they've|they have|they|"
    r"their|them|that's|that|this|these|those|he's|he|she's|she|his|her|him)\b(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL)
_COPULA = r"(?:'s|\s+is|\s+was|\s+will be|\s+would be|\s+can be|\s+could be|\s+has been|'s been|\s+had been|" \
          r"\s+must be|\s+must have been|\s+feels|\s+felt|\s+seems|\s+seemed|\s+gets|\s+got)"
# A pointer in a question (a determiner is none: "What's the backstory on that trophy?").
_Q_POINTER_RE = re.compile(r"\b(?:it|its|they|them|their|theirs)\b|\b(?:this|that|these|those)\s*(?:[?.!,]|$|"
                           r"(?:is|was|are|were|about|for|like)\b)", re.IGNORECASE)
# A dummy "it" points forward ("It's great to ...", "It's been two years since ..."), or at
# the weather or the time; none of them needs an antecedent.
_DUMMY_RE = re.compile(
    rf"^it{_COPULA}\s+(?:not\s+)?(?:(?:so|really|very|pretty|super|quite|too|always|never|also|just|such|"
    rf"a bit|kind of|incredibly|absolutely|totally)\s+)*(?!(?:so|really|very|pretty|super|such|a|an|the|like)\b)"
    rf"[a-z-]+\s+(?:(?:for|to)\s+\w+\s+)?"
    rf"(?:to\s+[a-z]|that\b|how\b|when\b|if\b|whether\b|what\b|(?!(?:{EVALUATIVE})\b)\w+ing\b|"
    rf"(?:i|we|you|he|she|they)\b|"
    rf"(?-i:[A-Z])\w*\s+(?:and|is|are|was|were|has|have|had|can|will|\w+s|\w+ed)\b)|"
    rf"^it{_COPULA}\s+(?:such\s+)?an?\s+(?:\w+\s+)?(?:blessing|relief|pleasure|honou?r|privilege|shame|pity|"
    rf"joy|treat|thrill|dream)\s+(?:to|that|being|having|seeing|knowing|working)\b|"
    rf"^it(?:'s|\s+has)?\s+been\s+(?:\w+\s+){{0,3}}(?:years?|months?|weeks?|days?|ages|a while|forever|"
    rf"a long time)\b.*\bsince\b|^it\s+(?:takes|took)\s+.*\bto\s+[a-z]|"
    rf"^it(?:'s|\s+is|\s+was)?\s+(?:rain|snow|pour|sunny|cold|hot|warm|freezing|\d)", re.IGNORECASE)
# "That/This + noun" is a determiner, not the pronoun: "That roadtrip was insane" names its thing.
_NOT_NOUN_NEXT = (r"(?:is|was|are|were|has|had|will|would|can|could|must|made|makes|means|meant|sounds|looks|"
                  r"really|one|ones|all|too|just|helps|helped|gives|gave|keeps|kept)\b")
_DETERMINER_RE = re.compile(rf"^(?:(?:that|this)\s+(?!{_NOT_NOUN_NEXT}|[a-z]+[^su]s\b)|"
                            rf"(?:these|those)\s+(?!{_NOT_NOUN_NEXT}))[a-z]", re.IGNORECASE)
_COURTESY_RE = re.compile(r"^(?:thanks|thank you|thx|yeah|yes|yep|yup|wow|aww?|absolutely|totally|agreed|"
                          r"haha|lol|oh|hey|hi|sure|right|definitely|exactly|true|same|ok|okay|omg|"
                          r"congrats|cool|great|awesome|nice|keep (?:it|going|at it|up)|good luck|take care|"
                          r"you(?:'ve)? got this|go for it)\b", re.IGNORECASE)
# "What concert was it?", "Which book is that?": the question names its thing.
_WH_NOUN_RE = re.compile(r"\b(?:what|which)\s+(?:kind of\s+|type of\s+|sort of\s+)?(?P<n>[a-z]{3,})\s+"
                         r"(?:was|is|are|were|did|do|does|have|has)\s+(?:it|that|they|those|this|these)\b",
                         re.IGNORECASE)
# "Pottery's such a good outlet, right?", "Nature sure seems to refresh us, huh?": a bare noun
# opening the question is its topic.
_BARE_SUBJECT_RE = re.compile(r"^(?P<n>(?-i:[A-Z])[a-z]{3,})(?:'s|\s+(?:is|are|was|were|can|must|seems?|"
                              r"sounds?|sure|really|has|have|always|must))\b", re.IGNORECASE)
# A phrase after a preposition is the setting, not the topic: "... to use in your life?".
_AFTER_PREP_RE = re.compile(r"\b(?:in|on|at|to|for|with|from|by|of|about|into|after|before|during|like|"
                            r"than|around|through|over|under|without)\s+$", re.IGNORECASE)
# A name inside a sentence: "Definitely Star Wars!", "I loved The Hobbit".
_NAME_RE = re.compile(r"(?<=[a-z,!] )(?-i:[A-Z][\w-]+(?:\s+(?:of\s+|the\s+)?[A-Z][\w-]+)*)(?='s\b|\b)")
_COPULAR_Q_RE = re.compile(r"^(?:is|are|was|were)\s+", re.IGNORECASE)
_NOT_NOUNS = frozenset("""what which when where who whom whose why how that this these those there here
it its they them their you your yours have has had does did can could would should will must
wow yeah yes well thanks thank hey aww love sounds seems looks glad hope sorry must sure
january february march april may june july august september october november december monday
tuesday wednesday thursday friday saturday sunday lgbtq mon tue tues wed thu thur thurs fri sat sun
jan feb mar apr jun jul aug sep sept oct nov dec mr mrs ms dr
""".split())
# A frame around a fact that names its subject: "It's been tough, but John ...".
_FRAME_RE = re.compile(
    r"^(?:(?:it|that|this)(?:'s|\s+is|\s+was|\s+has been|'s been|\s+can be|\s+could be|\s+hasn't been|"
    r"\s+wasn't|\s+isn't|\s+sure has been|\s+may be)\s+(?:still\s+|not\s+|a bit\s+|so\s+|really\s+|"
    r"super\s+|pretty\s+|very\s+)*(?:an?\s+)?(?:[a-z-]+\s+)?(?:[a-z-]+)(?:,\s*|\s+)(?:but|so|yet)\s+|"
    r"that's\s+(?:why|how|because)\s+|"
    r"(?:it|that|this)\s+(?:really\s+)?(?:means|meant)\s+(?:a lot|so much|the world|everything)"
    r"(?:\s+to\s+[A-Z][\w-]*)?\s+that\s+)(?P<rest>.+)$", re.IGNORECASE | re.DOTALL)
# Agreement before the point: "It's true, ...", "It really is, ...", "That's right - ...".
_AGREE_RE = re.compile(r"^(?:(?:it's|that's|it is|that is)\s+(?:so\s+|very\s+|totally\s+|definitely\s+)?"
                       r"(?:true|right|for sure|okay|ok|fine|alright|all right)|it\s+(?:really\s+|sure\s+|totally\s+|definitely\s+)?"
                       r"(?:is|does|was|did|has))\s*(?:[,;!.\u2026]+|\s-)\s*", re.IGNORECASE)
# A second pointer in what is left: it still does not read alone.
_ANY_POINTER_RE = re.compile(r"\b(?:it|its|they|them|this|that|these|those|he|she|him|there)\b", re.IGNORECASE)
# A view of the whole situation ("It's been tough", "It was so fun"): no one thing to name.
_VIEW_RE = re.compile(
    rf"^it(?:{_COPULA}|\s+can be)\s+(?:(?:so|really|very|pretty|super|quite|too|always|never|also|just|such|"
    rf"a bit|kind of|incredibly|absolutely|totally|still|not)\s+)*(?:an?\s+)?(?:(?:{EVALUATIVE}|tough|hard|easy|"
    rf"rough|busy|crazy|wild|long|good|bad|big|real|huge|fun)\b)", re.IGNORECASE)
_OPENS_POINTER_RE = re.compile(r"^(?:it|it's|its|they|they're|their|them|that|that's|this|these|those|he|"
                               r"he's|she|she's|his|her|there|here|what)\b", re.IGNORECASE)
_VERB_FOR = {"it's": "is", "it is": "is", "it was": "was", "it has": "has", "it will": "will",
             "they're": "are", "they are": "are", "they were": "were", "they've": "have",
             "they have": "have", "he's": "is", "she's": "is"}
_PARTICIPLE_RE = re.compile(r"^\s*(?:\w+ )?(?:\w+ed|been|got|gotten|made|done|taken|given|shown|taught|"
                            r"brought|become|grown|seen|had)\b", re.IGNORECASE)


def pointer(body: str) -> str | None:
    """The opening pronoun of `body` when it points back at something unnamed, else None."""
    m = _POINTER_RE.match(body.strip())
    if m is None or _DUMMY_RE.match(body.strip()) or _DETERMINER_RE.match(body.strip()):
        return None
    return " ".join(m.group("pro").lower().split())


def settle(text: str, name: str, people: tuple[str, ...], before: str | None, previous: str,
           listener: str = "", earlier: str = "") -> str:
    """`text` (a stored conversation line by `name`) when it reads alone; resolved or
    rewritten when it opens on a pointer that `before` (the speaker's words before it in
    the same turn) or `previous` (the turn before) resolves; as said when neither can."""
    prefix = f"{name}: "
    body = text[len(prefix):] if text.startswith(prefix) else text
    pro = pointer(body)
    if pro is None:
        return text
    agreed = _AGREE_RE.match(body)
    if agreed is not None and len(body) > agreed.end() + 12:
        # "It's true, nature has a way of bringing peace": the agreement goes, the view stays.
        rest = body[agreed.end():]
        return settle(_named(rest, name, people), name, people, None, "")
    situation = _VIEW_RE.match(body) is not None or SITUATION_RE.match(body) is not None
    found = None if before is None else _candidate(before, previous, name, listener, people, earlier,
                                                   titles_only=situation)
    if found is not None:
        resolved = _substitute(body, pro, found)
        if resolved is not None:
            return _named(resolved, name, people)
    m = _FRAME_RE.match(body)
    if m is not None:
        rest = m.group("rest").strip()
        first = _SENTENCE_END_RE.split(rest, 1)[0]
        if rest.startswith(f"{name} "):
            # After the speaker's name, "they"/"their" is the speaker (attribution's singular
            # they) and "give it their best", "taking it slow" point at nothing.
            first = _SPEAKER_THEY_RE.sub(" ", _IDIOM_IT_RE.sub(" ", first))
        if not _OPENS_POINTER_RE.match(rest) and not _ANY_POINTER_RE.search(first) \
                and any(p and rest.startswith(p) for p in people):
            return settle(rest[0].upper() + rest[1:], name, people, None, "")
    parts = _SENTENCE_END_RE.split(body, 1)
    if len(parts) == 2 and not _OPENS_POINTER_RE.match(parts[1]) \
            and not _ANY_POINTER_RE.search(_SENTENCE_END_RE.split(parts[1], 1)[0]) \
            and any(p and p in parts[1] for p in people):
        # "They play a crucial role. John wants to help.": keep the sentence that reads
        # alone, lose the one that points at nothing.
        return parts[1]
    # Nothing names exactly one thing: the line stays as said. Dropping these lines was
    # measured (bench/README.md, "Sixth pass"): it cost LoCoMo hit@10 0.812 -> 0.783, as
    # they are the evidence some questions retrieve; a guess would write a false fact.
    return text


_SPEAKER_THEY_RE = re.compile(r"\b(?:they|their|themself|they're|they've|they'll)\b", re.IGNORECASE)
_IDIOM_IT_RE = re.compile(r"\b(?:give|giving|gave|gives)\s+it\s+(?:their|his|her|my|one's)\s+(?:best|all)\b|"
                          r"\b(?:take|taking|took|takes)\s+it\s+(?:slow|easy|one day at a time)\b|"
                          r"\b(?:made|make|makes|making)\s+it\s*(?=[.!,]|$)|\bworth\s+it\b", re.IGNORECASE)
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def joined(before: str, text: str, name: str, limit: int, hollow: bool = False) -> str | None:
    """`before` + `text` when `text` (a settled line by `name`) still opens on a pointer, or
    its point is one further in (`hollow`, ``inner``), and `before` is the line of the
    sentence just before it in the turn: the pair reads on its own ("Maria got a puppy
    around 2023-07-28. Her name's Coco."); None otherwise."""
    body = text[len(name) + 2:] if text.startswith(f"{name}: ") else text
    if (pointer(body) is None and not hollow) or before.endswith("\u2026") or len(before) + len(body) + 1 > limit:
        return None
    return f"{before} {body}"


def _named(body: str, name: str, people: tuple[str, ...]) -> str:
    body = body[0].upper() + body[1:]
    return body if any(p and p in body for p in people) else f"{name}: {body}"


def _last_sentences(text: str) -> list[str]:
    """The sentences of `text`, last first, skipping a bare "Thanks, Mel!" at the end."""
    sentences = [s for s in split_sentences(" ".join(text.split())) if s.strip()]
    out = list(reversed(sentences))
    while out and _courtesy(out[0]):
        out.pop(0)
    return out


def _courtesy(sentence: str) -> bool:
    """ "Thanks, Mel!", "Nice!": names nothing "it" could be."""
    return bool(_COURTESY_RE.match(sentence)) and len(sentence.split()) <= 6 and not _NAME_RE.search(sentence)


def _candidate(before: str, previous: str, name: str, listener: str, people: tuple[str, ...],
               earlier: str = "", titles_only: bool = False) -> tuple[str, str] | None:
    """(spelled subject, number) of the one thing the sentence before names, or None.
    `titles_only`: only a title the speaker's turn before a pointing question is about."""
    own = _last_sentences(before)
    if titles_only and own:
        return None
    if own:
        return _of_statement(own[0], name, listener, people, before + " " + previous, own=True)
    other = _last_sentences(previous)
    if not other:
        return None
    if not other[0].rstrip().endswith("?"):
        return _of_statement(other[0], listener, name, people, previous, own=False)
    q = other[0].rsplit(". ", 1)[-1]
    if _WH_NOUN_RE.search(q) is None and _Q_POINTER_RE.search(q):
        # "Those drawings are incredible! What inspired you to create them?": the question
        # points at the sentence before it; "What did you take away from it?" with nothing
        # before it points further back, where a guess would start.
        said = [s for s in other[1:] if not _courtesy(s)]
        if said and not said[0].rstrip().endswith("?"):
            shown = _of_statement(said[0], listener, name, people, previous, own=False, shown=True)
            if shown is not None or len(said[0].split()) > 5:
                return None if titles_only else shown
            # "That sounds awesome! What did you take away from it?": a reaction names nothing
        if titles_only:
            return title_topic(earlier)
        # "I went to a poetry reading last Fri!" / "What was it about?": the speaker's own
        # turn before the question, when all of it names exactly one thing.
        own_before = [s for s in _last_sentences(earlier) if not s.rstrip().endswith("?")]
        found = [_of_statement(s, name, listener, people, earlier + " " + previous, own=True) for s in own_before]
        named = [f for f in found if f is not None]
        if len(named) == 1 and len({f[0].lower() for f in named}) == 1 and len(own_before) <= 3:
            return named[0]
        return title_topic(earlier)
    if titles_only:
        return None
    found = _of_question(q, listener, name, people)
    if found is None and _names_nothing(q):
        # "Woah, that whiteboard's got good ideas! How you gonna keep track?" / "It helps me
        # keep track ...": a question that names nothing asks about what its turn just said.
        said = [s for s in other[1:] if not _courtesy(s)]
        if said and not said[0].rstrip().endswith("?"):
            return _definite_subject(said[0])
    return found


# "Woah, that whiteboard's got good ideas!": the subject, a definite phrase, is the topic.
_DEFINITE_SUBJECT_RE = re.compile(
    r"^(?:(?:\w+|\w+ \w+),\s+){0,2}(?P<det>the|that|this|these|those)\s+(?P<n>(?:[a-z-]{3,}\s+){0,2}[a-z-]{3,}?)"
    r"(?='s\b|\s+(?:is|are|was|were|has|have|had|looks?|seems?|sounds?|got|really|must)\b)")


def _definite_subject(sentence: str) -> tuple[str, str] | None:
    m = _DEFINITE_SUBJECT_RE.match(sentence.strip())
    if m is None or any(w in _NOT_NOUNS or w in ("one", "ones", "thing", "things", "stuff") for w in m.group("n").split()):
        return None
    return _only([("the", m.group("n"))])


def _names_nothing(q: str) -> bool:
    """ "How you gonna keep track?": no phrase, no name, no pointer a candidate could come from."""
    return not phrases_of(q) and _WH_NOUN_RE.search(q) is None and _Q_POINTER_RE.search(q) is None \
        and not _NAME_RE.search(q) and _BARE_SUBJECT_RE.match(q) is None


def _possessives(sentence: str, speaker: str, addressee: str) -> str:
    """ "my"/"your" spelled as whose they are, so "your son" is a candidate like "Melanie's son"."""
    if speaker:
        sentence = re.sub(r"\bmy\b", f"{speaker}'s", sentence, flags=re.IGNORECASE)
    if addressee:
        sentence = re.sub(r"\byour\b", f"{addressee}'s", sentence, flags=re.IGNORECASE)
    return sentence


def _of_statement(sentence: str, speaker: str, addressee: str, people: tuple[str, ...], context: str,
                  own: bool, shown: bool = False) -> tuple[str, str] | None:
    """The one candidate a statement names: a noun phrase under ``antecedent``'s strict rule,
    a bare noun opening it ("Running can really boost your mood"), or, in the speaker's
    own turn, a name ("Definitely Star Wars!", "Oliver's hilarious!")."""
    s = _possessives(sentence.strip(), speaker, addressee)
    candidates: list[tuple[str, str]] = []
    found = antecedent_of(s)
    bare = _bare_subject(s, people, context)
    if bare and found is not None and re.match(rf"^\S+(?:'s|\s+\w+)\s+{re.escape(found[0])}\s", s):
        found = None  # "Biscuit's a menace!": the phrase after the copula says what the subject is
    if found is not None and (own or shown or found[0].lower() == "the" or found[0].endswith("'s")):
        candidates.append(found)  # the other's "have a blast", "that looks great": no topic
    candidates += bare
    if own:
        candidates += [("", m.group(0)) for m in _NAME_RE.finditer(s) if m.group(0).lower() not in _NOT_NOUNS
                       and not any(p.startswith(m.group(0)) for p in people)  # "Mel" is Melanie
                       and not (s[m.start() - 2:m.start()] == ", " and re.match(r"\s*[,.!?]", s[m.end():]))]
    return _only(candidates)


def _bare_subject(s: str, people: tuple[str, ...], context: str) -> list[tuple[str, str]]:
    bare = _BARE_SUBJECT_RE.match(s)
    if bare is None or bare.group("n").lower() in _NOT_NOUNS or bare.group("n") in people:
        return []
    word = bare.group("n")
    named = re.search(rf"(?<=[a-z,] ){re.escape(word)}\b", context) is not None  # "... Oliver's done?"
    return [("", word if named else word.lower())]


def _of_question(q: str, speaker: str, addressee: str, people: tuple[str, ...]) -> tuple[str, str] | None:
    """The one thing a question asks about: "What concert was it?", "How was the pottery class?"."""
    q = _possessives(q, speaker, addressee)
    wh = _WH_NOUN_RE.search(q)
    copular = _COPULAR_Q_RE.match(q)  # "Are Harry Potter and GoT still your favorites?"
    named = [(d, w, at) for d, w, at in phrases_of(q) if d]
    candidates: list[tuple[str, str]] = [(d, w) for d, w, at in named
                                         if not _AFTER_PREP_RE.search(q[:at])
                                         and (copular is None or at == copular.end())
                                         and w.split()[-1].lower() not in ("one", "ones", "thing", "things")]
    if len(named) > 1:
        return None  # "What's the backstory on that trophy?": which one "it" is, is a guess
    if wh is not None and wh.group("n").lower() not in _NOT_NOUNS:
        candidates.append(("the", wh.group("n")))
    candidates += _bare_subject(q, people, q)
    return _only(candidates)


def _only(candidates: list[tuple[str, str]]) -> tuple[str, str] | None:
    unique = {w.lower(): (d, w) for d, w in candidates}
    if len(unique) != 1:
        return None
    det, words = next(iter(unique.values()))
    if not det and words[:1].isupper():
        return words, "name"  # one person or title: "Oliver", "Star Wars"
    return _spell(det, words), _number(words)


def _spell(det: str, words: str) -> str:
    if det.endswith("'s"):
        return f"{det} {words}"
    return f"the {words}" if det else words


def _number(words: str) -> str:
    return "plural" if plural(words) else "singular"


def _substitute(body: str, pro: str, found: tuple[str, str]) -> str | None:
    """`body` with its opening `pro` replaced by the candidate, the verb agreeing; None
    when the pronoun does not fit the candidate or the line points elsewhere again."""
    subject, number = found
    m = _POINTER_RE.match(body.strip())
    assert m is not None
    rest = m.group("rest")
    if re.match(r"^\s*(?:it|they|them|that|this)\b", rest, re.IGNORECASE):
        return None
    head = pro.split()[0].split("'")[0]
    if head == "this" and number == "singular" and subject.endswith("ing") and " " not in subject:
        return f"{subject[0].upper()}{subject[1:]}{rest}"  # "Running can boost your mood." / "This has been great"
    if head in ("that", "this", "these", "those", "him", "them"):
        return None  # a demonstrative means what was said, not one thing
    if head in ("it", "its") and number not in ("singular", "name"):
        return None
    if head in ("they", "their") and number != "plural":
        return None
    if head in ("he", "she", "his", "her") and number != "name" and (
            number != "singular" or subject.split()[-1].lower() not in RELATION_WORDS):
        return None
    if head in ("its", "their", "his", "her"):
        owner = subject + ("'" if subject.endswith("s") else "'s")
        return f"{owner}{rest}"
    verb = _VERB_FOR.get(pro)
    if pro in ("it's", "he's", "she's") and _PARTICIPLE_RE.match(rest):
        verb = "has"
    return f"{subject} {verb}{rest}" if verb else f"{subject}{rest}"
