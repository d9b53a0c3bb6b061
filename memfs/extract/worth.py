"""Lines that hold no fact an agent needs, though they read as statements (issue #19).

Each rule is one class of chat talk that survives the earlier filters because it is long
enough, or names the listener, to look like a fact once its speaker is put in front:

- well-wishing: congratulations, wishes, luck, sympathy ("Jon: Congrats on the new piece.",
  "Maria: Sorry that happened to John."): the news is the listener's, told in their turn;
- cheering: an imperative that only encourages ("Gina: Don't quit.", "Tim: Cherish those
  moments."); advice with a subject ("Make sure you back up the photos") is kept;
- a look at what was pointed at: "Nate: That ice cream looks yum." says how the speaker
  found something shown, not what it is; with a date, a number or a qualifier ("That hike
  to the glacier was brutal": the speaker's own news) it is kept;
- a feeling with no object: "Caroline is thankful.", "Jon is excited for the future.";
- a plan whose only object is a pointer: "Nate will check it out.", "Joanna would love to
  try it." -- what "it" is lives in the other turn, and the line cannot name it;
- a resolve with nothing resolved on: "Jon won't give up.", "John will keep pushing
  forward."; with a goal ("won't give up on the bakery") it is kept;
- empathy: "Maria understands how John feels.", "Nate understands.";
- awaiting with nothing awaited: "Joanna can't wait to see what happens next.";
- praise of a virtue: "Tim thinks John's resilience is inspiring."; praise that says what
  the listener does ("thinks Jon is talented and passionate about dance") is kept;
- a guess from what the other told or showed ("Sounds like all Gina's effort's paying off",
  "Mmm, that looks delicious") and how the listener's thing looks ("Gina's store looks
  great", "thinks Joanna's hikes sound like a blast"); kept with a date or another name;
- a teaser: "Something exciting happened recently for John.", "Nate: Something exciting
  happened on 2022-10-07." says there is news, not what; the next sentence says it;
- a suggestion to each other with no date, place, name or thing of theirs ("Maria and John
  should make some real change.", "Jon and Gina should go to a dance class."): the "Let's
  ..." of chat, no plan until it says when, where, with whom or about what of theirs.

Lines are judged in their stored form: "Speaker: ..." for a line that names no one but
the speaker's listener, "Speaker is ..." for one about the speaker.
"""

from __future__ import annotations

import re

_OPENER = r"(?:(?:wow|oh|aw+|whoa|woah|ooh|mm+|yum|yeah|yay|haha|ha ha|omg|so|and|hey|dang),?\s+)?"
# Congratulations, wishes, luck and sympathy: set phrases said to the listener.
_WELL_WISHING_RE = re.compile(
    _OPENER + r"(?:congrats|congratulations|kudos|well done|way to go|hats off|props|"
    r"(?:best of|good) luck|wishing\b|here's to\b|thank goodness|cheers for|"
    r"sorry (?:about|that|to hear|for your|for the)\b|bummer about\b|(?:always |so )?good to hear\b)", re.IGNORECASE)
# Encouragement as an imperative: what the listener should keep feeling or doing, no plan.
_CHEER_RE = re.compile(
    _OPENER + r"(?:just\s+)?(?:remember,?\s+(?:just\s+)?)?(?:"
    r"cherish\b|don't (?:quit|give up|stop|let\b)|never give up|push through\b|take it easy\b|"
    r"give it a (?:shot|go|try)\b|keep (?:going|at it|pushing|shining|believing|it up|fighting)\b|"
    r"believe in (?:yourself|themself|themselves|himself|herself)\b|just do it\b)", re.IGNORECASE)
# "That ice cream looks yum", "Those bowls are amazing": the thing pointed at, judged. The
# thing is named by the pointer alone (at most three words, no "to the canyon", "of 2019"):
# a qualified one is the speaker's own news ("That roadtrip to the canyon was insane").
_POINTED_RE = re.compile(
    _OPENER + r"(?:that|this|those|these)\s+(?!(?:is|was|'s|are|were)\b)"
    r"(?:(?!(?:to|in|at|on|of|from|with|for|by|about|near|during|last|we|i|you)\b)[\w'-]+\s+){1,3}?"
    r"(?:looks?|sounds?|seems?|is|are|was|were)\b", re.IGNORECASE)
_FEELING = (r"(?:excited|thankful|grateful|happy|glad|lucky|blessed|stoked|thrilled|pumped|"
            r"proud|nervous|relieved)")
# A feeling that names nothing felt about: "Caroline is so excited and thankful."
_BARE_FEELING_RE = re.compile(
    rf"is\s+(?:so\s+|really\s+|super\s+|very\s+|just\s+|truly\s+)?{_FEELING}"
    rf"(?:,?\s+and\s+(?:so\s+|really\s+)?{_FEELING})?"
    r"(?:\s+for\s+(?:the future|this new chapter|what's (?:next|to come)|what's ahead))?\s*[.!]*$",
    re.IGNORECASE)
# The same wish with its speaker restored: "Ravi is wishing Lena's grandmother a quick recovery".
_WISHING_RE = re.compile(r"is wishing\b|wishes (?:them|him|her|[A-Z][\w'-]+) (?:luck|the best|well)\b")
_POINTER_PLAN_RE = re.compile(
    r"(?:will|is going to|is gonna|would (?:love|like) to|has to|might|wants to|should|can't wait to)\s+"
    r"(?:(?:definitely|totally|really|also|probably|just|have to|give|try|check|look|read|watch|see|"
    r"think about|get|look into|try out|try making|add)\s+){1,3}(?:it|that|that one|this|them|those|'em)"
    r"(?:\s+(?:out|sometime|some time|soon|later|for themself|too|next time|a go|a try|a shot|again))*\s*[.!]*$",
    re.IGNORECASE)
_RESOLVE_RE = re.compile(
    r"(?:will|won't|is going to|isn't going to|is gonna)\s+(?:(?:definitely|totally|really|also|always|just)\s+)?"
    r"(?:keep (?:going|trying|pushing(?: forward| through| on)?|working hard|doing (?:their|his|her) best|at it|"
    r"fighting|moving forward)|give up|quit|stop|do (?:their|his|her) best|let (?:this|it|that) (?:bring|get) "
    r"(?:them|him|her) down)(?:,?\s+(?:no matter what|they promise|whatever comes (?:their|his|her) way))?\s*[.!]*$",
    re.IGNORECASE)
# Understanding of the listener, not of a subject: "understands Spanish" is kept.
_EMPATHY_RE = re.compile(r"(?:understands(?:\s*[.!]*$|\s+how\s+(?:[A-Z][\w'-]+\s+feels|(?:frustrating|hard|tough|"
                         r"stressful|scary|difficult|overwhelming|painful)\b)|\s+why\b)|hears (?:that|them|him|her)\b)")
# Looking forward to what is to come, with nothing named: "Joanna can't wait to see what
# happens next", "Gina is excited to see where it takes them", "Nate is hoping for the best".
_AWAITING_RE = re.compile(
    r"(?:(?:can't wait|is (?:so |really |super )?(?:excited|curious|eager|stoked)) to see (?:it all come together|"
    r"how (?:it|this|things) (?:all )?(?:plays|play|turns|turn|works|work) out|what(?:'s| is| happens| comes)(?: \w+)? next|"
    r"what the future (?:holds|brings)|where (?:[\w'-]+\s+){1,3}(?:takes|leads|goes)(?: them| him| her| it)?)|"
    r"is (?:so |really )?(?:excited|hopeful|optimistic) (?:for|about) what the future (?:holds|brings)|"
    r"is (?:just )?hoping for the best)\s*[.!]*$", re.IGNORECASE)
_PRAISE = (r"(?:awesome|inspiring|amazing|incredible|great|cool|impressive|admirable|wonderful|fantastic|"
           r"inspirational|an inspiration|remarkable|brave|courageous|strong|motivating)")
# Praise of the listener, naming only a virtue: "Tim thinks John's resilience is inspiring",
# "Caroline thinks Melanie is an inspiration to everyone". What they did is in their turn.
_PRAISE_RE = re.compile(
    r"(?:thinks|believes) (?P<whom>[A-Z][\w-]+)(?:'s(?: [\w-]+){1,5})? (?:is|are)(?: (?:so|really|truly|super|just|totally|"
    rf"incredibly|such))? (?:an? )?{_PRAISE}(?: and (?:so )?{_PRAISE})?(?: too| as well| to (?:everyone|others))?\s*[.!]*$")
_NUMBER_RE = re.compile(r"\d")


# "In the meantime, Maria and John should work together": an optional lead clause, the two.
_LEAD = r"^(?:[^,]{0,40},\s+)?"
_OTHER_NAME_RE = re.compile(r"(?<=\w )[A-Z][\w'-]*")


# "... - something awesome happened to Joanna": news announced, not told (a clause of its own).
_TEASER_RE = re.compile(
    r"(?:^|:\s+|\s-\s|,\s+(?:but|and)\s+)(?:guess what,?\s+)?something\s+(?:(?:so|pretty|really|super)\s+)?"
    r"(?:exciting|new|crazy|big|awesome|cool|incredible|amazing|interesting|wild|great|huge)\s+"
    r"(?:has\s+|just\s+)?happened(?:\s+(?:to|for)\s+[A-Z][\w-]*|\s+(?:recently|lately|today|this week)|"
    r"\s+on\s+\S+?|\s+in the week of\s+\S+?|\s+too|\s+as well)*\s*[.!]*$", re.IGNORECASE)
# "Sounds like all Gina's effort's paying off", "Looks like Gina's store is growing": a guess
# from what the other told or showed; their own turn says it. "Mmm, that looks delicious":
# the pointer alone, one word of judgement.
_GUESS_RE = re.compile(_OPENER + r"(?:(?:it\s+|that\s+)?(?:sounds|looks|seems)\s+like\b|(?:that|this|it|those|these)\s+"
                       r"(?:looks?|sounds?|seems?)\s+(?:so\s+|really\s+|super\s+)?[\w-]+\s*[.!]*$)", re.IGNORECASE)


def _listeners_look(said: str, listener: str) -> bool:
    """ "Gina's store looks great", "Joanna's hikes sound like a blast": how the listener's
    thing looks or sounds to the speaker, not what it is."""
    return bool(listener) and re.match(
        _OPENER + rf"(?:all\s+)?{re.escape(listener)}'s(?:\s+[\w-]+){{1,3}}?\s+(?:looks?|sounds?|seems?)\b", said,
        re.IGNORECASE) is not None


def _names_only(text: str, speaker: str, listener: str) -> bool:
    """No name but the two's ("That sounds like a plan for Rosie's" names a place)."""
    return all(re.sub(r"'s$", "", m.group(0)) in (speaker, listener) for m in _OTHER_NAME_RE.finditer(text))


def _suggestion(line: str, speaker: str, listener: str) -> bool:
    """ "Jon and Gina should explore some new dance moves": both of them, no date or name."""
    if not listener or _NUMBER_RE.search(line):
        return False
    pair = rf"(?:{re.escape(speaker)} and {re.escape(listener)}|{re.escape(listener)} and {re.escape(speaker)})"
    if re.match(rf"{_LEAD}{pair} should\b", line) is None:
        return False
    # "Let's make our collaboration awesome" -> "... make Jon's collaboration awesome": about
    # a thing of theirs, which a question may ask after; kept.
    return all(m.group(0) in (speaker, listener) for m in _OTHER_NAME_RE.finditer(line))


def no_fact(line: str, speaker: str, listener: str = "") -> bool:
    """True when the stored ``line`` of ``speaker`` (to ``listener``, if one) is talk of a
    class above: no fact about anyone."""
    if not speaker:
        return False
    if _suggestion(line, speaker, listener) or _TEASER_RE.search(line):
        return True
    said = _after(line, f"{speaker}: ")
    if said is not None:
        if _WELL_WISHING_RE.match(said) and ", but " not in said:
            return True
        if _CHEER_RE.match(said):
            return True
        if (_GUESS_RE.match(said) and not _NUMBER_RE.search(said) and _names_only(said, speaker, listener)) \
                or _listeners_look(said, listener):
            return True
        return _POINTED_RE.match(said) is not None and not _NUMBER_RE.search(said)
    about = _after(line, f"{speaker} ")
    if about is None:
        return False
    if about.startswith("thinks ") and _listeners_look(about[len("thinks "):], listener):
        return True
    praise = _PRAISE_RE.match(about)
    if praise is not None and praise.group("whom") == listener:
        return True
    return any(rule.match(about) is not None for rule in (
        _BARE_FEELING_RE, _WISHING_RE, _POINTER_PLAN_RE, _RESOLVE_RE, _EMPATHY_RE, _AWAITING_RE))


def _after(line: str, head: str) -> str | None:
    return line[len(head):] if line.startswith(head) else None
