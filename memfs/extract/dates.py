"""Resolve date expressions against the time a sentence was said.

``resolve_dates(text, ref)`` rewrites relative expressions into absolute ones and returns
the date of the first expression found, as ISO text at its natural precision:

=====================  =============================  ===============
expression             text becomes                   ``when``
=====================  =============================  ===============
yesterday / today      on 2023-05-07                  2023-05-07
last night / tonight   on the night of 2023-05-07     2023-05-07
last Saturday          on 2023-05-06                  2023-05-06
this/on Friday         past tense: most recent, otherwise the coming one
3 days ago             on 2023-05-05                  2023-05-05
two weeks ago          around 2023-04-24              2023-04-24
last/next week         in the week of 2023-05-01      2023-05-01 (its Monday)
last weekend           on the weekend of 2023-05-06   2023-05-06 (its Saturday)
last month / 2 months  in April 2023                  2023-04
ago
last year / 2 years    in 2022                        2022
ago
last summer            in summer 2022                 2022
the other day          a few days before 2023-05-08   2023-05
a few weeks ago        a few weeks before 2023-05-08  2023-04
in 3 days / next month on 2023-05-11 / in June 2023   ...
=====================  =============================  ===============

"In 3 days" is a day only when the sentence looks forward: said of the past, after a
negation or "can"/"could" it is how long something takes ("Rome wasn't built in a day",
"I can read a book in a day", "we moved in a day") and stays as written.

Absolute dates ("May 7, 2023", "7 May 2023", "2023-05-07", "May 2023", "in 2020") stay
as written and set ``when``; a month or day without a year ("in May", "on June 5") gets
its year from the reference (the last one for past tense, the next one for future tense,
else the reference's own year) and the year is written in. A preposition already in
front ("since last week") is kept and no second one is added ("since the week of
2023-05-01"). Without a reference time only absolute dates are resolved. Week
expressions use ISO weeks (Monday first).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from memfs.extract.dateanchor import (  # noqa: F401 (sentence_tense is public here)
    _DAY,
    _DIGIT_RE,
    _LOWER_WORDS_RE,
    _MONTH,
    _Match,
    _NUM,
    _PART,
    _PREPS,
    _UNIT,
    _WEEKDAY_ANY,
    _WEEKDAY_FULL,
    _YEAR,
    _day_forms,
    _h_ago,
    _h_bare_month,
    _h_day_after,
    _h_day_before,
    _h_day_month_noyear,
    _h_full_date,
    _h_in_future,
    _h_iso,
    _h_last_night,
    _h_month_year,
    _h_numeric,
    _h_other_day,
    _h_over_weekend,
    _h_relative_unit,
    _h_today,
    _h_tomorrow,
    _h_weekday,
    _h_year,
    _h_yesterday,
    sentence_tense,
)
from memfs.extract.lexicon import MONTHS, WEEKDAYS


_I = re.IGNORECASE
_DIGIT = "<digit>"  # trigger: the text contains a digit
_MONTH_WORDS = frozenset(MONTHS)
_WEEKDAY_WORDS = frozenset(WEEKDAYS)
_SEASONS = frozenset("summer winter spring fall autumn".split())

# (trigger words (lower case; one must occur), pattern, handler). Rules whose trigger
# words are absent are not run: that keeps the common sentence with no date cheap.
_Rule = tuple[frozenset[str], re.Pattern[str], Callable[..., Any]]

# Rules that need a reference date.
_RELATIVE_RULES: list[_Rule] = [
    (frozenset({"yesterday"}), re.compile(r"\b(?:the\s+)?day\s+before\s+yesterday\b", _I),
     _h_day_before),
    (frozenset({"tomorrow"}), re.compile(r"\b(?:the\s+)?day\s+after\s+tomorrow\b", _I),
     _h_day_after),
    (frozenset({"yesterday"}), re.compile(r"\b(?:earlier\s+)?yesterday" + _PART + r"\b", _I),
     _h_yesterday),
    (frozenset({"night"}), re.compile(r"\blast\s+night\b", _I), _h_last_night),
    (frozenset({"today"}), re.compile(r"\b(?:earlier\s+|later\s+)?today\b", _I), _h_today),
    (frozenset({"tonight", "morning", "afternoon", "evening"}),
     re.compile(r"\b(?:this\s+(?P<part>morning|afternoon|evening)|(?P<part2>tonight))\b", _I),
     lambda m, ref, t: _day_forms(ref, "night" if m.group("part2") else m.group("part").lower())),
    (frozenset({"tomorrow"}), re.compile(r"\btomorrow" + _PART + r"\b", _I), _h_tomorrow),
    (_WEEKDAY_WORDS,
     re.compile(r"(?<!every )(?<!each )(?<!every other )(?<!every second )(?<!every third )(?<!alternate )"
                r"\b(?:(?P<mod>last|this\s+past|past|this\s+coming|coming|next|this)\s+"
                r"(?P<wd>" + _WEEKDAY_ANY + r")|(?:(?P<prep>on|by|until|till|since|before|after)"
                r"\s+)?(?P<wd2>" + _WEEKDAY_FULL + r"))\b(?!s\b|')", _I),
     _h_weekday),
    (frozenset({"ago"}), re.compile(r"\b" + _NUM + r"\s+" + _UNIT + r"\s+ago\b", _I), _h_ago),
    (frozenset({"later", "now", "in"}),
     re.compile(r"\b(?:in\s+" + _NUM + r"\s+" + _UNIT + r"|" + _NUM.replace("num", "num2")
                + r"\s+" + _UNIT.replace("unit", "unit2") + r"\s+(?:from\s+now|later))\b", _I),
     _h_in_future),
    (frozenset({"week", "weekend", "month", "year"}) | _SEASONS,
     re.compile(r"\b(?P<mod>last|this\s+past|past|this\s+coming|coming|next|this)\s+"
                r"(?P<unit>week|weekend|month|year|summer|winter|spring|fall|autumn)\b", _I),
     _h_relative_unit),
    (frozenset({"weekend"}), re.compile(r"\b(?:over|during)\s+the\s+weekend\b", _I),
     _h_over_weekend),
    (frozenset({"other"}), re.compile(r"\bthe\s+other\s+day\b", _I), _h_other_day),
    (_MONTH_WORDS,
     re.compile(r"\b(?:(?P<prep>on|by|until|till|since|before|after)\s+)?(?:" + _DAY
                + r"(?:\s+of)?\s+" + _MONTH + r"|" + _MONTH.replace("month", "month2") + r"\s+"
                + _DAY.replace("day", "day2") + r")\b(?!,?\s*(?:19|20)\d{2})(?!\s*:)"),
     _h_day_month_noyear),
    (_MONTH_WORDS,
     re.compile(r"\b(?P<prep>in|since|during|until|till|by|early|late|mid|mid-|since\s+early|"
                r"in\s+early|in\s+late|in\s+mid)\s+" + _MONTH
                + r"\b(?!\s*[0-3]?\d\b)(?!,?\s*(?:19|20)\d{2})(?!')"), _h_bare_month),
]
# Absolute dates: resolved even without a reference.
_ABSOLUTE_RULES: list[_Rule] = [
    (frozenset({_DIGIT}),
     re.compile(r"\b(?P<year>(?:19|20)\d{2})-(?P<mo>[01]?\d)-(?P<day>[0-3]?\d)\b"), _h_iso),
    (frozenset({_DIGIT}),
     re.compile(r"\b" + _DAY + r"(?:\s+of)?\s+" + _MONTH + r",?\s+" + _YEAR + r"\b"),
     _h_full_date),
    (frozenset({_DIGIT}), re.compile(r"\b" + _MONTH + r"\s+" + _DAY + r",?\s+" + _YEAR + r"\b"),
     _h_full_date),
    (frozenset({_DIGIT}),
     re.compile(r"\b(?P<a>[01]?\d|[0-3]\d)/(?P<b>[0-3]?\d)/" + _YEAR + r"\b"), _h_numeric),
    (frozenset({_DIGIT}), re.compile(r"\b" + _MONTH + r",?\s+" + _YEAR + r"\b"), _h_month_year),
    (frozenset({_DIGIT}),
     re.compile(r"\b(?:in|since|during|by|until|till|from|of|around|circa|early|late|mid|"
                r"back\s+in|year)\s+" + _YEAR + r"\b(?!-\d)", _I), _h_year),
]


_ALL_TRIGGERS: frozenset[str] = frozenset().union(
    *(t for t, _, _ in _RELATIVE_RULES + _ABSOLUTE_RULES))


def _to_date(ref: datetime | date | None) -> date | None:
    if ref is None:
        return None
    if isinstance(ref, datetime):
        return ref.date()
    return ref


_PERIOD_JOIN_RE = re.compile(r"^\s*(?:to|until|till|through|thru|and|-)\s*$", re.IGNORECASE)
_BORN_RE = re.compile(r"\b(?:born|birthday|bday|anniversary)\b", re.IGNORECASE)


def _period_ends_forward(text: str, chosen: list[_Match]) -> None:
    """'from December 21 to January 4': a period's end is never before its start, so an
    end whose year was inferred moves to the next year."""
    for a, b in zip(chosen, chosen[1:]):
        if not (b.inferred and a.when and b.when and b.when < a.when[: len(b.when)]):
            continue
        if not _PERIOD_JOIN_RE.match(text[a.end:b.start]):
            continue
        old_year = b.when[:4]
        new_year = str(int(old_year) + 1)
        b.when = new_year + b.when[4:]
        b.bare = b.bare.replace(old_year, new_year) if b.bare else b.bare
        b.with_prep = b.with_prep.replace(old_year, new_year) if b.with_prep else b.with_prep


_VERB_AFTER_RE = re.compile(r"\s+(?:was|is|were|has been|had been|will be|'s been|felt|seemed|went by)\b", re.IGNORECASE)


def resolve_dates(text: str, ref: datetime | date | None) -> tuple[str, str | None]:
    """Rewrite relative dates in ``text`` as absolute ones; return (text, when).

    ``when`` is the first resolved expression in reading order, None if there is none.
    """
    if not text:
        return text, None
    present = set(_LOWER_WORDS_RE.findall(text.lower()))
    if _DIGIT_RE.search(text):
        present.add(_DIGIT)
    ref_d = _to_date(ref)
    rules = _ABSOLUTE_RULES + (_RELATIVE_RULES if ref_d is not None else [])
    if _ALL_TRIGGERS.isdisjoint(present):
        return text, None
    active = [(p, h) for trig, p, h in rules if not trig.isdisjoint(present)]
    if not active:
        return text, None
    tense = sentence_tense(text)
    found: list[_Match] = []
    born = bool(_BORN_RE.search(text))
    for pattern, handler in active:
        if born and handler in (_h_day_month_noyear, _h_bare_month):
            continue  # "born on March 3": a birthday has no year to infer
        for m in pattern.finditer(text):
            try:
                res = handler(m, ref_d, tense)  # type: ignore[operator]
            except (ValueError, OverflowError, KeyError):
                res = None
            if res is None:
                continue
            with_prep, bare, when = res
            found.append(_Match(m.start(), m.end(), with_prep, bare, when,
                                inferred=handler in (_h_day_month_noyear, _h_bare_month)))
    if not found:
        return text, None
    # Longest match wins where expressions overlap; absolute rules come first on ties.
    found.sort(key=lambda x: (x.start, -(x.end - x.start)))
    chosen: list[_Match] = []
    last_end = -1
    for f in found:
        if f.start >= last_end:
            chosen.append(f)
            last_end = f.end
    _period_ends_forward(text, chosen)
    out: list[str] = []
    pos = 0
    when: str | None = None
    for c in chosen:
        if when is None and c.when:
            when = c.when
        if c.with_prep is None:  # absolute date: keep as written
            continue
        before = text[pos:c.start]
        prev_word = before.rstrip().rsplit(None, 1)[-1].lower() if before.strip() else ""
        if not before.strip() and out:
            prev_word = out[-1].rstrip().rsplit(None, 1)[-1].lower() if out[-1].strip() else ""
        # "took Friday off": the day is the object, so no "on" before it
        as_object = re.match(r"\s+off\b", text[c.end:]) is not None
        # "Last night was amazing": the day is the subject, so no "On" before it either
        as_subject = not text[:c.start].strip() and _VERB_AFTER_RE.match(text[c.end:]) is not None
        repl = c.bare if (prev_word in _PREPS or as_object or as_subject) and c.bare else c.with_prep
        out.append(before)
        out.append(repl)
        pos = c.end
    out.append(text[pos:])
    return "".join(out), when


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december")
_STATED_DATE_RE = re.compile(r"\b((?:19|20)\d\d)-(\d\d)-(\d\d)\b|\b(" + "|".join(_MONTHS) + r")\s+((?:19|20)\d\d)\b|"
                             r"(?<![\d-])((?:19|20)\d\d)(?![\d-])", re.IGNORECASE)


def _stated_dates(text: str) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    for m in _STATED_DATE_RE.finditer(text):
        if m.group(1):
            out.append((int(m.group(1)), int(m.group(2)), int(m.group(3))))
        elif m.group(4):
            out.append((int(m.group(5)), _MONTHS.index(m.group(4).lower()) + 1))
        else:
            out.append((int(m.group(6)),))
    return out


def dates_disagree(text_a: str, text_b: str) -> bool:
    """Both facts are dated and no date of one fits a date of the other ("in August 2023"
    against "in September 2023"): two events, or a plan that moved, not one fact said twice."""
    a, b = _stated_dates(text_a), _stated_dates(text_b)
    return bool(a and b) and not any(x[:len(y)] == y[:len(x)] for x in a for y in b)
