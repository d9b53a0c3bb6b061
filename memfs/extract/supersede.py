"""Offline supersession: does a newer fact replace an older one?

A fact is read as (subject, attribute, value) only when it matches one of a few narrow
patterns; everything else has no slot and never supersedes or is superseded. Two kinds:

- single-valued attributes — where someone lives, who they work for, their role, their
  partner, their age, "X's favourite book is …", the date of a named plan ("Priya's
  wedding is on …"): the same subject with a *different* value replaces the old one. A
  job is a role and an employer at once ("a designer at Brightwave", `Slot.also`), and an
  end ("left Brightwave", "broke up with Tom", `Slot.ended`) replaces the line with its
  value; what is no job ("a volunteer at Oxfam") fills no slot (memfs.extract.jobs);
- polarity — "Priya drinks coffee" vs "Priya stopped drinking coffee" / "no longer eats
  meat" / "is no longer vegetarian": the same subject, verb and object with the opposite
  polarity replaces it. Likes are many-valued: "likes jazz" never replaces "likes blues".

Precision over recall (a wrong supersession hides a true fact): values are short
capitalised names or dates, a value contained in the other ("Leeds" / "Leeds city centre")
is the same value, and a fact in the past tense ("lived in Manchester") is history that
never replaces a present one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memfs.extract.dates import dates_disagree, resolve_dates
from memfs.extract.jobs import ending_of, job_of, not_a_job, says_not_a_job
from memfs.extract.slotre import ADV, NAME, POSS, ROLE, SUBJ

_DATE = r"(?P<v>\d{4}-\d{2}(?:-\d{2})?|(?:January|February|March|April|May|June|July|August|September|" \
        r"October|November|December) \d{4})"
_NOT_SUBJECTS = frozenset("""the a an it this that there they he she we you i his her their our my
its these those what when where who why how if then so but and or yes no also after before""".split())
_GROUPS = re.compile(r"\b(?:club|group|society|choir|band|team|league|class|gym|community|church|"
                     r"chapter|circle|course|program|programme)\b", re.IGNORECASE)
_PLAN_NOUNS = (r"wedding|birthday party|party|trip|flight|move|interview|appointment|surgery|operation|"
               r"exam|race|marathon|half marathon|concert|launch|deadline|holiday|vacation|visit|"
               r"graduation|ceremony|show|recital|tournament|conference|start date|first day|last day|"
               r"due date|check-up|checkup|hearing|exhibition|performance|gig|match")
_PLAN_CUE = re.compile(r"\b(?:is|was|has been|will be|got|now) (?:now )?(?:on|in|set for|scheduled for|"
                       r"planned for|booked for|moved to|rescheduled to|rescheduled for|postponed to|"
                       r"postponed until|pushed back to|pushed to|brought forward to|changed to)\b|"
                       r"\b(?:moved|rescheduled|postponed|pushed back|pushed|brought forward) "
                       r"(?:\w+ ){0,4}?(?:to|until|for)\b", re.IGNORECASE)
_PAST_ONLY = re.compile(r"\b(?:lived|used to|worked|was working|was living|grew up|previously|formerly|"
                        r"back then|once)\b", re.IGNORECASE)


# "These days Lucas lives in Utrecht": a leading time word is not the subject.
_LEAD = re.compile(r"^(?:these days|nowadays|now|currently|at the moment|at present|lately|recently|"
                   r"since \S+|as of \S+|big news|good news|update|so|and|but|also)[,:]?\s+(?=[A-Z])",
                   re.IGNORECASE)


@dataclass(frozen=True)
class Slot:
    """What a fact asserts: `attribute` of `subject` is `value` (or, polar, is/isn't)."""

    subject: str
    attribute: str
    value: str
    polar: bool = False  # value is "+" / "-": a habit, a preference, a state
    past: bool = False   # said in the past tense: history, never replaces a present fact
    also: str = ""       # a role's employer ("a designer at Brightwave"): the fact fills both
    ended: bool = False  # "left Brightwave": the value stops being true, nothing replaces it


def _norm_value(v: str) -> str:
    v = v.strip().rstrip(".,;:!").lower()
    v = re.sub(r"^(?:the|a|an|his|her|their|my) ", "", v)
    return " ".join(v.replace("\u2019", "'").split())


def _norm_subject(s: str) -> str:
    return " ".join(s.replace("\u2019", "'").split()).lower()


def _stem(word: str) -> str:
    w = word.lower()
    for suf, rep in (("ying", "y"), ("ing", ""), ("ies", "y"), ("es", ""), ("s", ""), ("ed", "")):
        if len(w) > len(suf) + 2 and w.endswith(suf):
            w = w[: -len(suf)] + rep
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "ls":  # "stopp", "runn"
        w = w[:-1]
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


_SINGLE: list[tuple[str, re.Pattern[str]]] = [
    ("residence", re.compile(r"^" + SUBJ + r" " + ADV + r"(?:lives|is living|resides|is based|has lived|"
                             r"is now living|now lives|lived|was living) in " + NAME)),
    ("residence", re.compile(r"^" + SUBJ + r" " + ADV + r"(?:moved|relocated|has moved|is moving|moves|"
                             r"will move|will be moving) (?:back |house |home )?"
                             r"(?:from (?:the )?[A-Z][\w.'\u2019-]*(?: [A-Z][\w.'\u2019-]*)* )?to " + NAME)),
    ("employer", re.compile(r"^" + SUBJ + r" " + ADV + r"(?:works|is working|has worked|worked|was working)"
                            r" (?:full-time |part-time |remotely )?(?:at|for) " + NAME)),
    ("employer", re.compile(r"^" + SUBJ + r" " + ADV + r"(?:joined|started (?:a new job |a job |working )?at|"
                            r"got a job (?:at|with)|took a job (?:at|with)|accepted a job (?:at|with)|"
                            r"accepted an offer from|is starting (?:a new job )?at|starts (?:a new job )?at|"
                            r"is employed by|is employed at) " + NAME)),
    ("role", re.compile(r"^" + SUBJ + r" " + ADV + r"(?:works|is working|worked) as (?:a|an|the) " + ROLE
                        + r"(?= at\b| for\b| in\b|[,.]|$)")),
    ("role", re.compile(r"^" + SUBJ + r" " + ADV + r"(?:was|got|has been|is) (?:just |recently )?promoted to "
                        r"(?:a |an |the )?" + ROLE + r"(?= at\b| for\b| in\b|[,.]|$)")),
    ("role", re.compile(r"^" + SUBJ + r" is " + ADV + r"(?:a|an|the) " + ROLE + r"(?= at [A-Z]| for [A-Z])")),
    ("role", re.compile(r"^" + POSS + r" (?:new |current )?(?:role|job title|title|position) is (?:now )?"
                        r"(?:a |an |the )?" + ROLE + r"(?= at\b| for\b| in\b|[,.]|$)")),
    ("partner", re.compile(r"^" + SUBJ + r" (?:is|has been|got) " + ADV + r"(?:married to|engaged to|dating|"
                           r"seeing|in a relationship with|going out with) " + NAME)),
    ("partner", re.compile(r"^" + POSS + r" (?:new |current )?(?:partner|boyfriend|girlfriend|husband|wife|"
                           r"fianc[eé]e?|spouse) is (?:now |called |named )?" + NAME)),
    ("age", re.compile(r"^" + SUBJ + r" (?:is|just turned|turned|has turned) (?:now )?(?P<v>\d{1,3})"
                       r"(?: years old| years of age)?(?=[ ,.]|$)")),
]
_FAVOURITE = re.compile(r"^" + POSS + r" (?:current |new |all-time )?fav(?:ou?)?rite (?P<a>[a-z]+(?: [a-z]+){0,2})"
                        r" is (?:now |currently )?(?P<v>[^,;]{2,60}?)(?:,|\.|$)")
_PLAN = re.compile(r"^" + POSS + r" (?:\w+ ){0,2}?(?P<a>" + _PLAN_NOUNS + r")\b(?P<rest>.*)$", re.IGNORECASE)
_PLAN_DATE = re.compile(_DATE)

# Polarity: habits, preferences and states that can be reversed.
_POS_VERBS = (r"likes|loves|enjoys|drinks|eats|smokes|plays|prefers|uses|drives|owns|has|keeps|takes|"
              r"goes|runs|swims|cycles|rides|vapes|watches|reads|practices|practises|attends|"
              r"follows|supports|wears|cooks|bakes|meditates|works out")
_STOP_VERBS = r"stopped|quit|gave up|has given up|has stopped|has quit|quits|stops|gives up"
_NOT_VERBS = r"no longer|doesn't|does not|don't|do not|never"
_W = r"(?!(?:after|because|since|when|in|last|on|due|for|following|at|to|with|every|and|anymore)\b)[A-Za-z][\w'-]*"
_OBJ = r"(?P<o>" + _W + r"(?: " + _W + r"){0,2})"
_TAIL = r"(?: (?:anymore|any more|now|these days|again|every day|daily|regularly|at all))*(?:[,.!]|$)"
_POS = re.compile(r"^" + SUBJ + r" (?:now |still |really |usually |often |always |regularly |also |"
                  r"started |has started |began |is back to |went back to )*(?P<verb>" + _POS_VERBS
                  + r"|(?:\w+ing))(?: (?P<o2>" + r"(?:[A-Za-z][\w'-]*)(?: [A-Za-z][\w'-]*){0,2}" + r"))?" + _TAIL)
# A reversal may give its reason or time: "stopped playing tennis after a knee injury".
_WHY = r"(?: (?:after|because|since|when|in|last|on|due to|for|following)\b[^,;]*)?"
_NEG = re.compile(r"^" + SUBJ + r" (?:has |have )?(?:(?:" + _STOP_VERBS + r") (?:(?P<verb>\w+ing) )?" + _OBJ
                  + r"|(?:" + _NOT_VERBS + r") (?P<verb2>\w+)(?: " + _OBJ.replace("<o>", "<o3>") + r")?)" + _WHY + _TAIL)
_NEG_BARE = re.compile(r"^" + SUBJ + r" (?:has |have )?(?:stopped|quit|gave up|has given up) "
                       r"(?P<verb>\w+ing)" + _WHY + _TAIL)
_STATE = re.compile(r"^" + SUBJ + r" (?:is|has been|became|has become) (?P<neg>no longer |not |now |"
                    r"still |again )?(?P<a>vegetarian|vegan|pescatarian|single|married|sober|pregnant|"
                    r"retired|employed|unemployed|self-employed|divorced|engaged|widowed|separated|teetotal|gluten-free|a smoker|a vegetarian|"
                    r"a vegan|dairy-free)\b" + _TAIL)
_DETERMINERS = frozenset("a an the his her their my some any".split())
_STATUSES = frozenset("single married divorced engaged widowed separated".split())


def _subject_ok(s: str) -> bool:
    return s.split()[0].lower() not in _NOT_SUBJECTS


def _clean_obj(obj: str | None) -> str | None:
    if not obj:
        return None
    words = [w for w in obj.lower().split() if w not in _DETERMINERS]
    words = [w for w in words if w not in ("anymore", "now", "again", "regularly", "daily")]
    return " ".join(_stem(w) for w in words) or None


#: A fact that goes on past its slot's value names other things (people, pets, reasons) that
#: a newer value for the slot does not make untrue; superseding it would hide them.
_COMPOUND = re.compile(r"\b(?:with|and|who|whose|where|while|but|because|since)\b|'s\b", re.IGNORECASE)


def _says_more(value: str, rest: str) -> bool:
    """Does the fact go on past its value? A name's own "'s" ending the fact ("St Mary's.") does not."""
    if rest.strip(" .,;!") == "":
        value = value.replace("'s", "")
    return bool(_COMPOUND.search(value + rest))


def slot_of(text: str) -> Slot | None:
    """The slot a fact fills, or None (most facts: no supersession is attempted)."""
    t = _LEAD.sub("", " ".join(text.replace("\u2019", "'").split()))
    if not t or ":" in t.split(" ", 1)[0]:  # "Melanie: That roadtrip…" names no subject
        return None
    past = bool(_PAST_ONLY.search(t))
    end = ending_of(t)
    if end and _subject_ok(end[0]):
        return Slot(_norm_subject(end[0]), end[1], _norm_value(end[2]), ended=True)
    job = job_of(t)
    if job and _subject_ok(job.subject):
        if not job.role or _GROUPS.search(job.employer) or _says_more(job.employer, job.rest):
            return None  # no job ("a volunteer at Oxfam"), a club, or more than the job: keep it
        return Slot(_norm_subject(job.subject), "role", _norm_value(job.role), past=past,
                    also=_norm_value(job.employer))
    for attr, pat in _SINGLE:
        m = pat.match(t)
        if m and _subject_ok(m.group("s")):
            v = m.group("v")
            if attr == "employer" and _GROUPS.search(v):
                continue
            if attr in ("employer", "role") and (says_not_a_job(t) or (attr == "role" and not_a_job(v))):
                return None  # "works at Oxfam as a volunteer", "is a member at the Lido"
            if _says_more(v, t[m.end("v"):]):
                return None  # it says more than this one slot ("... with her partner Tom"): keep it

            value = _norm_value(v)
            if not value:
                continue
            if attr == "residence" and re.match(r"^" + SUBJ + r" (?:\w+ )*?(?:is moving|will move|will be moving)", t):
                return None  # a plan, not yet true
            return Slot(_norm_subject(m.group("s")), attr, value, past=past)
    m = _FAVOURITE.match(t)
    if m and _subject_ok(m.group("s")):
        return Slot(_norm_subject(m.group("s")), "favourite " + m.group("a").lower(), _norm_value(m.group("v")))
    m = _PLAN.match(t)
    if m and _subject_ok(m.group("s")) and _PLAN_CUE.search(m.group("rest")):
        d = _PLAN_DATE.search(m.group("rest"))
        when = d.group("v").lower() if d else resolve_dates(m.group("rest"), None)[1]
        if when:
            return Slot(_norm_subject(m.group("s")), "date of " + m.group("a").lower(), when)
    m = _STATE.match(t)
    if m and _subject_ok(m.group("s")):
        neg = (m.group("neg") or "").strip()
        adj = re.sub(r"^an? ", "", m.group("a").lower())
        if adj in _STATUSES and neg not in ("no longer", "not"):  # single -> married: one slot
            return Slot(_norm_subject(m.group("s")), "relationship status", adj, past=past)
        return Slot(_norm_subject(m.group("s")), "is " + adj, "-" if neg in ("no longer", "not") else "+",
                    polar=True, past=past)
    for pat, sign in ((_NEG_BARE, "-"), (_NEG, "-"), (_POS, "+")):
        m = pat.match(t)
        if not m or not _subject_ok(m.group("s")):
            continue
        verb = m.group("verb") or m.groupdict().get("verb2") or ""
        obj = m.groupdict().get("o") or m.groupdict().get("o2") or m.groupdict().get("o3")
        if verb.lower() in ("is", "was", "were", "are"):
            return None
        verb_s = _stem(verb) if verb else ""
        obj_s = _clean_obj(obj)
        if not verb_s and not obj_s:
            return None
        key = f"{verb_s}|{obj_s or ''}"
        return Slot(_norm_subject(m.group("s")), "does " + key, sign, polar=True, past=past)
    return None


def _same_value(a: str, b: str) -> bool:
    if a == b:
        return True
    ta, tb = set(a.split()), set(b.split())
    return bool(ta) and bool(tb) and (ta <= tb or tb <= ta)


_TIME_WORDS = frozenset("every each morn morning night day week weekend evening time lot bit much".split())


def _verb_obj(attribute: str) -> tuple[str, set[str]]:
    verb, _, obj = attribute[len("does "):].partition("|")
    return verb, {w for w in obj.split() if w not in _TIME_WORDS}


def _polar_match(a: str, b: str) -> bool:
    """'does drink|coffee' vs 'does drink|coffee morn': the same verb (or one side without
    one: "gave up coffee") and a shared object word; without objects, the same verb."""
    va, oa = _verb_obj(a)
    vb, ob = _verb_obj(b)
    if oa and ob:
        return bool(oa & ob) and (not va or not vb or va == vb)
    return bool(va) and va == vb


def supersedes(newer: Slot | None, older: Slot | None) -> bool:
    """Does the newer fact replace the older one? (The caller orders them by date.)"""
    if newer is None or older is None:
        return False
    if newer.ended and newer.attribute == older.attribute == "partner" and not older.ended \
            and (newer.value, newer.subject) == (older.subject, older.value):
        return True  # "Ken and Priya split up" ends "Priya is dating Ken" too
    if newer.subject != older.subject:
        return False
    if newer.past and not older.past:
        return False  # "lived in Manchester" is history; it replaces nothing current
    if newer.polar != older.polar:
        return False
    if newer.polar:
        if newer.value == older.value:
            return False
        if newer.attribute == older.attribute:
            return True
        return newer.attribute.startswith("does ") and older.attribute.startswith("does ") and \
            _polar_match(newer.attribute, older.attribute)
    if newer.ended or older.ended:  # an end replaces only the same value; a past end stays true
        return newer.ended and not older.ended and _claims(older).get(newer.attribute) == newer.value
    mine, theirs = _claims(newer), _claims(older)
    return any(not _same_value(mine[k], theirs[k]) for k in mine.keys() & theirs.keys())


def _claims(slot: Slot) -> dict[str, str]:
    """attribute -> value, a role's employer included ("designer at Brightwave")."""
    return {slot.attribute: slot.value, **({"employer": slot.also} if slot.also else {})}


def conflicts(text_a: str, text_b: str) -> bool:
    """Do two facts give different values for the same slot, or different dates? Then neither
    is a near duplicate of the other, however similar they read ("lives in Leeds" / "in York")."""
    if dates_disagree(text_a, text_b):
        return True
    a, b = slot_of(text_a), slot_of(text_b)
    return supersedes(a, b) or supersedes(b, a)
