"""What a date expression means, anchored on the day it was said.

Each handler takes a regex match (patterns live in ``dates``), the reference day and the
sentence's tense, and returns ``(text with preposition, bare text, when)`` or None. The
tense decides the direction of a month or weekday without a year: a plan or the future
resolves forward ("training for the half marathon in April", said in October -> next
April), the past backward, the present to the reference's own year.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

from memfs.extract.lexicon import MONTHS, NUMBER_WORDS, WEEKDAYS, is_past_form

_MONTH_NAMES = [calendar.month_name[i] for i in range(13)]

_NUM = (r"(?P<num>\d{1,3}|a couple of|a couple|couple of|a few|few|several|an|a|one|two|three|"
        r"four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty)")
_UNIT = r"(?P<unit>day|week|weekend|fortnight|month|year)s?"
_WEEKDAY_FULL = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_WEEKDAY_ANY = _WEEKDAY_FULL + r"|mon|tues|tue|wed|thurs|thur|thu|fri|sat|sun"
_MONTH_FULL = (r"January|February|March|April|May|June|July|August|September|October|"
               r"November|December")
_MONTH_ABBR = r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec"
# Capitalised month names or abbreviations; lower case only for the names that are not
# also common words ("may", "march").
_MONTH = (r"(?P<month>(?:" + _MONTH_FULL + r")|(?:" + _MONTH_ABBR + r")\.?|(?i:january|february|"
          r"april|june|july|august|september|october|november|december))")
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d{2})"
_PREPS = frozenset({"since", "until", "till", "til", "by", "before", "after", "from", "to",
                    "on", "in", "of", "during", "around", "through", "between", "and", "than",
                    "at", "for"})
_PART = r"(?:\s+(?P<part>morning|afternoon|evening|night))?"

_FUTURE_RE = re.compile(
    r"\b(?:will|'ll|going to|gonna|plan|plans|planning|can't wait|cannot wait|looking forward|"
    r"tomorrow|next|upcoming|coming up|hope to|hoping to|intend|intends|shall|about to|"
    r"scheduled|is coming|are coming|soon|this coming|training for|preparing for|getting ready for|"
    r"signed up|registered|booked|starting|starts|begins|beginning|due|deadline|is on|are on|"
    r"will be|is due|expecting|aiming|aim to|goal is|is in|are in|ends|expires|renews|opens)\b",
    re.IGNORECASE,
)
_WORD_RE = re.compile(r"[A-Za-z']+")
_PROGRESSIVE_RE = re.compile(r"\b(?:am|is|are|i'm|we're|they're|he's|she's|you're)\s+(?:\w+ly\s+|also\s+|still\s+)?"
                             r"(?!living\b|working\b|feeling\b|loving\b|enjoying\b)[a-z]+ing\b", re.IGNORECASE)
_LOWER_WORDS_RE = re.compile(r"[a-z]+")
_DIGIT_RE = re.compile(r"\d")
_FUTURE_WORDS = frozenset("""will ll going gonna plan plans planning wait looking tomorrow next
upcoming coming hope hoping intend intends shall about scheduled soon training preparing getting
signed registered booked starting starts begins beginning due deadline on expecting aiming aim
goal in ends expires renews opens""".split())


def sentence_tense(text: str) -> str:
    """'future', 'past' or 'present' from cheap cues (auxiliaries, -ed, irregular past)."""
    if not _FUTURE_WORDS.isdisjoint(_LOWER_WORDS_RE.findall(text.lower())) and \
            _FUTURE_RE.search(text):
        return "future"
    for w in _WORD_RE.findall(text.lower()):
        if w in ("wasn't", "weren't", "didn't", "hadn't", "ago", "yesterday") or is_past_form(w):
            return "past"
    if _PROGRESSIVE_RE.search(text):
        return "future"  # "I'm running the marathon in September": a plan, said ahead of time
    return "present"


def _num(token: str) -> int | None:
    token = token.lower()
    if token.isdigit():
        return int(token)
    return NUMBER_WORDS.get(token)


def _add_months(d: date, months: int) -> date:
    y, m = divmod(d.month - 1 + months, 12)
    year = d.year + y
    return date(year, m + 1, min(d.day, calendar.monthrange(year, m + 1)[1]))


def _month_text(d: date) -> str:
    return f"{_MONTH_NAMES[d.month]} {d.year}"


def _monday(d: date) -> date:
    return d - timedelta(days=d.weekday())


class _Match:
    __slots__ = ("start", "end", "with_prep", "bare", "when", "inferred")

    def __init__(self, start: int, end: int, with_prep: str | None, bare: str | None,
                 when: str | None, inferred: bool = False):
        self.start, self.end = start, end
        self.with_prep, self.bare, self.when = with_prep, bare, when
        self.inferred = inferred  # the year was inferred (a day and month without one)


def _g(m: re.Match[str], *names: str) -> str:
    """The first of several alternative named groups that matched."""
    for name in names:
        v = m.group(name)
        if v is not None:
            return v
    raise KeyError(names[0])


def _day_forms(d: date, part: str | None = None) -> tuple[str, str, str]:
    iso = d.isoformat()
    if part:
        return f"on the {part} of {iso}", f"the {part} of {iso}", iso
    return f"on {iso}", iso, iso



def _h_yesterday(m: re.Match[str], ref: date, tense: str):
    return _day_forms(ref - timedelta(days=1), m.group("part"))


def _h_day_before(m, ref, tense):
    return _day_forms(ref - timedelta(days=2))


def _h_day_after(m, ref, tense):
    return _day_forms(ref + timedelta(days=2))


def _h_last_night(m, ref, tense):
    return _day_forms(ref - timedelta(days=1), "night")


def _h_today(m, ref, tense):
    return _day_forms(ref)



def _h_tomorrow(m, ref, tense):
    return _day_forms(ref + timedelta(days=1), m.group("part"))


def _h_weekday(m, ref, tense):
    mod = (m.group("mod") or "").lower()
    prep = m.group("prep")
    wd = WEEKDAYS[_g(m, "wd", "wd2").lower()]
    r = ref.weekday()
    if mod in ("last", "this past", "past"):
        delta = -((r - wd) % 7 or 7)
    elif mod in ("next", "this coming", "coming"):
        delta = (wd - r) % 7 or 7
    elif tense == "past":
        delta = -((r - wd) % 7)
    else:
        delta = (wd - r) % 7
    d = ref + timedelta(days=delta)
    with_prep, bare, when = _day_forms(d)
    if prep:
        with_prep = f"{prep} {bare}"
    return with_prep, bare, when


def _h_ago(m, ref, tense):
    unit = m.group("unit").lower()
    raw = m.group("num").lower()
    n = _num(raw)
    if n is None:  # a few / several: approximate, say so
        approx = {"day": (timedelta(days=3), "days"), "week": (timedelta(weeks=3), "weeks"),
                  "weekend": (timedelta(weeks=3), "weekends"),
                  "fortnight": (timedelta(weeks=4), "fortnights")}
        if unit in approx:
            delta, plural = approx[unit]
            text = f"a few {plural} before {ref.isoformat()}"
            return text, text, (ref - delta).isoformat()[:7]
        if unit == "month":
            text = f"a few months before {_month_text(ref)}"
            return text, text, str(_add_months(ref, -3).year)
        text = f"a few years before {ref.year}"
        return text, text, None
    if n > 500:
        return None
    if unit == "day":
        return _day_forms(ref - timedelta(days=n))
    if unit in ("week", "fortnight"):
        d = ref - timedelta(weeks=n * (2 if unit == "fortnight" else 1))
        return f"around {d.isoformat()}", f"around {d.isoformat()}", d.isoformat()
    if unit == "weekend":
        sat = ref - timedelta(days=(ref.weekday() - 5) % 7 or 7) - timedelta(weeks=n - 1)
        iso = sat.isoformat()
        return f"on the weekend of {iso}", f"the weekend of {iso}", iso
    if unit == "month":
        d = _add_months(ref, -n)
        return f"in {_month_text(d)}", _month_text(d), d.isoformat()[:7]
    year = ref.year - n
    return f"in {year}", str(year), str(year)


#: Before "in a day": the span is how long something takes, not when ("Rome wasn't built
#: in a day", "I can read a book in a day"); said of the past it is a duration too.
_DURATION_RE = re.compile(r"\b(?:can|can't|cannot|could|couldn't|able\s+to|isn't|aren't|wasn't|weren't|"
                          r"never|not)\b", re.IGNORECASE)


def _h_in_future(m, ref, tense):
    unit = _g(m, "unit", "unit2").lower()
    n = _num(_g(m, "num", "num2"))
    if n is None or n > 500:
        return None
    if not re.search(r"from\s+now", m.group(0), re.IGNORECASE) and (
            tense == "past" or _DURATION_RE.search(m.string, 0, m.start())):
        return None  # "We moved in a day", "two days later" in a story: no date of their own
    if unit == "day":
        return _day_forms(ref + timedelta(days=n))
    if unit in ("week", "fortnight", "weekend"):
        d = ref + timedelta(weeks=n * (2 if unit == "fortnight" else 1))
        return f"around {d.isoformat()}", f"around {d.isoformat()}", d.isoformat()
    if unit == "month":
        d = _add_months(ref, n)
        return f"in {_month_text(d)}", _month_text(d), d.isoformat()[:7]
    year = ref.year + n
    return f"in {year}", str(year), str(year)


_SEASON_START = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}


def _season(name: str, mod: str, ref: date):
    start_month = _SEASON_START[name]
    # Season occurrences as (year, month) of their first month; pick relative to ref.
    ref_idx = ref.year * 12 + ref.month - 1
    occ = [y * 12 + start_month - 1 for y in range(ref.year - 2, ref.year + 2)]
    current = [o for o in occ if o <= ref_idx < o + 3]
    if mod in ("last", "past", "this past"):
        idx = max(o for o in occ if o + 3 <= ref_idx)
    elif mod in ("next", "coming", "this coming"):
        idx = min(o for o in occ if o > ref_idx)
    else:  # "this summer": the current one, else the coming one
        idx = current[0] if current else min(o for o in occ if o > ref_idx)
    year = idx // 12
    label = "fall" if name == "autumn" else name
    if name == "winter":
        text = f"winter {year}-{year + 1}"
        return f"in {text}", text, str(year + 1)
    return f"in {label} {year}", f"{label} {year}", str(year)


def _h_relative_unit(m, ref, tense):
    mod = m.group("mod").lower()
    mod = " ".join(mod.split())
    unit = m.group("unit").lower()
    step = -1 if mod in ("last", "past", "this past") else (
        1 if mod in ("next", "coming", "this coming") else 0)
    if unit == "week":
        d = _monday(ref) + timedelta(weeks=step)
        iso = d.isoformat()
        return f"in the week of {iso}", f"the week of {iso}", iso
    if unit == "weekend":
        if mod in ("this past", "past"):  # the most recent Saturday, today included
            sat = ref - timedelta(days=(ref.weekday() - 5) % 7)
        else:  # last / this / next: the Saturday of the previous / this / next ISO week
            sat = _monday(ref) + timedelta(days=5) + timedelta(weeks=step)
        iso = sat.isoformat()
        return f"on the weekend of {iso}", f"the weekend of {iso}", iso
    if unit == "month":
        d = _add_months(ref.replace(day=1), step)
        return f"in {_month_text(d)}", _month_text(d), d.isoformat()[:7]
    if unit == "year":
        y = ref.year + step
        return f"in {y}", str(y), str(y)
    return _season(unit, mod, ref)


def _h_over_weekend(m, ref, tense):
    if tense == "future":
        sat = _monday(ref) + timedelta(days=5)
    else:
        sat = ref - timedelta(days=(ref.weekday() - 5) % 7)
    iso = sat.isoformat()
    return f"on the weekend of {iso}", f"the weekend of {iso}", iso


def _h_other_day(m, ref, tense):
    text = f"a few days before {ref.isoformat()}"
    return text, text, (ref - timedelta(days=3)).isoformat()[:7]


def _valid(y: int, mo: int, d: int) -> date | None:
    try:
        return date(y, mo, d)
    except ValueError:
        return None


def _month_num(name: str) -> int:
    return MONTHS[name.lower().rstrip(".")]


def _h_iso(m, ref, tense):
    d = _valid(int(m.group("year")), int(m.group("mo")), int(m.group("day")))
    return (None, None, d.isoformat()) if d else None


def _h_full_date(m, ref, tense):
    d = _valid(int(m.group("year")), _month_num(m.group("month")), int(m.group("day")))
    return (None, None, d.isoformat()) if d else None


def _h_numeric(m, ref, tense):
    a, b, y = int(m.group("a")), int(m.group("b")), int(m.group("year"))
    d = _valid(y, b, a) if a > 12 else _valid(y, a, b)
    return (None, None, d.isoformat()) if d else None


def _infer_year(month: int, day: int, ref: date, tense: str) -> int:
    y = ref.year
    cand = _valid(y, month, min(day, calendar.monthrange(y, month)[1]))
    assert cand is not None
    if tense == "past" and cand > ref:
        return y - 1
    if tense == "future" and cand < ref - timedelta(days=1):
        return y + 1
    return y


def _h_day_month_noyear(m, ref, tense):
    month = _month_num(_g(m, "month", "month2"))
    day = int(_g(m, "day", "day2"))
    if not 1 <= day <= 31:
        return None
    y = _infer_year(month, day, ref, tense)
    d = _valid(y, month, day)
    if d is None:
        return None
    prep = m.group("prep")
    bare = d.isoformat()
    return (f"{prep} {bare}" if prep else f"on {bare}"), bare, bare


def _h_month_year(m, ref, tense):
    month = _month_num(m.group("month"))
    return None, None, f"{m.group('year')}-{month:02d}"


def _h_bare_month(m, ref, tense):
    month = _month_num(m.group("month"))
    y = ref.year
    if tense == "past" and month > ref.month:
        y -= 1
    elif tense == "future" and month < ref.month:
        y += 1
    name = _MONTH_NAMES[month]
    prep = m.group("prep")
    return f"{prep} {name} {y}", f"{name} {y}", f"{y}-{month:02d}"


def _h_year(m, ref, tense):
    return None, None, m.group("year")

