"""Jobs and endings, read as slots: "a designer at Brightwave" is a role and an employer
at once, "left Brightwave" ends the employer, "broke up with Tom" ends the partner.

Precision first (a wrong supersession hides a true fact):
- a role that is no job ("a volunteer at Oxfam", "joined Brightwave as a mentor", "a
  patient at St Luke") is no slot at all, so it never replaces the job a person has;
- "left" ends a job only when the name ends the clause or only a date follows ("left
  Acme in March"), never "left Tom a note", "left Google Docs open", "left Acme Park at
  noon"; a partner ends only by a break-up verb ("left Tom" may be a room);
- an end names the value it ends, and ends only a line with exactly that value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memfs.extract.slotre import ADV, NAME, ROLE, SUBJ

#: Words that make a role no job: helping, learning, belonging, buying, being cared for,
#: taking part, being good at something ("an expert at Excel", "the youngest at Acme").
NOT_JOBS = frozenset("""volunteer volunteers volunteering mentor mentee member members student
intern guest customer fan patient client regular visitor supporter subscriber donor resident
tenant alumnus alumna graduate parent friend neighbour neighbor ambassador trustee user
speaker attendee panelist panellist participant delegate contestant finalist winner
competitor spectator bridesmaid groomsman beginner novice expert natural pro first last
only one""".split())

_EMPLOYER = NAME.replace("<v>", "<e>")
_A = r"(?:a|an|the) "
_ROLE_AT: tuple[re.Pattern[str], ...] = tuple(re.compile(r"^" + SUBJ + r" " + ADV + rx) for rx in (
    r"(?:works|is working|worked|was working) (?:full-time |part-time )?as " + _A + ROLE
    + r" (?:at|for|with) " + _EMPLOYER,
    r"(?:started|starts|began|has started) (?:work |working )?as (?:a |an |the )?" + ROLE + r" (?:at|for|with) " + _EMPLOYER,
    r"(?:is|has been|became|has become) (?:now )?" + _A + ROLE + r" (?:at|for) " + _EMPLOYER,
    r"(?:joined|has joined) " + _EMPLOYER + r" as (?:a |an |the )?" + ROLE + r"(?=[,.;!]|$| (?:in|on|last|this)\b)",
    r"(?:got|took|accepted|landed) (?:a|the) (?:new )?(?:job|role|position) as " + _A + ROLE
    + r" (?:at|with|for) " + _EMPLOYER,
    r"(?:was|got|has been|is) (?:just |recently )?(?:promoted|hired) (?:to|as) (?:a |an |the )?" + ROLE
    + r" (?:at|for|by) " + _EMPLOYER,
))
# "works at Oxfam as a volunteer": an employer pattern with a role that is no job.
_AS_NOT_JOB = re.compile(r"\bas (?:an? |the )?(?:[a-z-]+ ){0,2}?(?:" + "|".join(sorted(NOT_JOBS)) + r")\b")

_POSSESSIVE = r"(?:her|his|their|my|our) "
_END_EMPLOYER = re.compile(r"^" + SUBJ + r" " + ADV + r"(?:left|quit " + _POSSESSIVE + r"job (?:at|with)|left "
                           + _POSSESSIVE + r"job (?:at|with)|resigned from|(?:was|got|has been) (?:laid off|"
                           r"let go|made redundant|fired) (?:from|by|at)|stopped working (?:at|for)|"
                           r"retired from) " + _EMPLOYER)
_END_PARTNER = re.compile(r"^" + SUBJ + r" " + ADV + r"(?:broke up with|broken up with|split up with|split from|"
                          r"separated from|divorced|got divorced from|is divorced from|dumped) " + _EMPLOYER)
_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
_NUM = r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|several|many|\d+)"
_WHEN = (r"(?:(?:in|on|around|since|during|by|earlier in|early in|late in|at the (?:end|start|beginning) of) "
         r"(?:the )?(?:early |late )?(?:\d{4}(?:-\d{2}(?:-\d{2})?)?|" + _MONTH + r"(?: \d{4})?|"
         r"(?:spring|summer|autumn|fall|winter)(?: (?:of )?\d{4})?|(?:year|month|week))|yesterday|today|"
         r"recently|last (?:week|month|year|spring|summer|autumn|fall|winter|" + _MONTH + r")|"
         r"this (?:week|month|year|spring|summer|autumn|fall|winter)|" + _NUM
         + r" (?:days?|weeks?|months?|years?) ago|after " + _NUM + r" (?:weeks?|months?|years?))")
# What may follow the ended name: nothing, dates, then the clause's end.
_CLAUSE_END = re.compile(r"^(?: " + _WHEN + r")*(?:[.,;!]|$| (?:and|but|because|so)\b)", re.IGNORECASE)


@dataclass(frozen=True)
class Job:
    """A role at an employer ("designer", "Brightwave"); role "" for a role that is no job."""

    subject: str
    role: str
    employer: str
    rest: str  # what follows the employer or the role


def job_of(text: str) -> Job | None:
    """The role and employer a fact names together, if it does."""
    for pat in _ROLE_AT:
        m = pat.match(text)
        if m:
            role = m.group("v")
            if not_a_job(role):
                role = ""
            end = max(m.end("v"), m.end("e"))
            return Job(m.group("s"), role, m.group("e"), text[end:])
    return None


def not_a_job(role: str) -> bool:
    """"volunteer", "board member", "big fan", "student nurse": no job to replace one with."""
    return any(w in NOT_JOBS or (w.endswith("est") and w != "priest") for w in role.lower().split())


def says_not_a_job(text: str) -> bool:
    """"Sam works at Oxfam as a volunteer": the employer pattern would read a job."""
    return _AS_NOT_JOB.search(text) is not None


#: "Ken and Priya split up": a couple's end, said of both (the value is the other one).
_END_PAIR = re.compile(r"^" + SUBJ + r" and " + _EMPLOYER + r" (?:have |had |finally |just )*(?:split up|broke up|"
                       r"separated|divorced|got divorced|called it quits)(?P<t>)")


def ending_of(text: str) -> tuple[str, str, str] | None:
    """(subject, attribute, value) a fact ends: "left Brightwave" -> employer Brightwave;
    "Ken and Priya split up" -> Ken's partner Priya (`supersede.supersedes` reads it both ways)."""
    for attr, pat in (("employer", _END_EMPLOYER), ("partner", _END_PARTNER)):
        m = pat.match(text)
        if m and _CLAUSE_END.match(text[m.end("e"):]):
            return m.group("s"), attr, m.group("e")
    m = _END_PAIR.match(text)
    if m and _CLAUSE_END.match(text[m.end("t"):]):
        return m.group("s"), "partner", m.group("e")
    return None
