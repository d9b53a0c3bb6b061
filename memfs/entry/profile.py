"""A person's current facts, grouped by facet and ordered the way an agent reads them.

The reference for memory.md (a budgeted digest) and the person pages (bounded sections),
which never disagree: both show current items of the category files, grouped the same way
(memory.md by the day's salience, a page in a day-independent order). entry/facetrank.py
computes the same lines without classifying and sorting every fact on every day; this
module's person_facets is what it is tested against. Superseded items are history; filler
is left out of memory.md only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from memfs.core.salience import ENTRY_RECENCY_WEIGHT, ENTRY_REINFORCEMENT_WEIGHT, ENTRY_TYPE_WEIGHT
from memfs.core.salience import salience as core_salience
from memfs.entry.facets import FACETS, facets_of, is_filler
from memfs.entry.people import Person
from memfs.entry.pool import EntryItem, parse_day


@dataclass(frozen=True)
class Line:
    item: EntryItem
    facet: str
    filler: bool
    upcoming: bool
    also: tuple[str, ...] = ()  # further facets it belongs to ("lives in Leeds with Tom": people)

    @property
    def facets(self) -> tuple[str, ...]:
        return (self.facet, *self.also)


def is_quoted(text: str, names: tuple[str, ...]) -> bool:
    """'Dana: Great, that saves us a sprint.' — a remark kept with its speaker."""
    head, sep, _ = text.partition(": ")
    return bool(sep) and any(head.lower() == n.lower() for n in names)


def stamp(item: EntryItem) -> str:
    return item.when or item.learned or ""


def salience(item: EntryItem, today: date, half_life_days: float = 365.0) -> float:
    """core.salience with memory.md's weights, aged from when memfs learned the fact."""
    day = parse_day(item.learned or item.when)
    return core_salience(item.seen, None if day is None else float((today - day).days), half_life_days,
                         ENTRY_REINFORCEMENT_WEIGHT, ENTRY_RECENCY_WEIGHT, ENTRY_TYPE_WEIGHT.get(item.type, 1.0))


def classify(item: EntryItem, names: tuple[str, ...], today: date) -> Line:
    when, learned = parse_day(item.when), parse_day(item.learned)
    future = when is not None and learned is not None and when > learned
    upcoming = future and when is not None and when >= today
    facet, *also = facets_of(item.text, item.category, item.type, future)
    if facet == "plans" and when is not None and when < today and item.type == "event":
        facet = "events"  # a plan whose day has passed is an event now
    return Line(item, facet, is_filler(item.text, facet, is_quoted(item.text, names), names), upcoming,
                tuple(f for f in also if f != facet))


def order(lines: list[Line], facet: str, today: date, half_life: float) -> list[Line]:
    """Home and work newest first; plans soonest first (undated goals last); events newest
    first; the rest most salient first. File order breaks every tie (deterministic)."""
    if facet in ("home", "work", "identity", "events"):
        return sorted(lines, key=lambda ln: (_neg(stamp(ln.item)), -salience(ln.item, today, half_life),
                                             ln.item.path, ln.item.line))
    if facet == "plans":
        return sorted(lines, key=lambda ln: (ln.item.when is None, ln.item.when or "", ln.item.path, ln.item.line))
    return sorted(lines, key=lambda ln: (-salience(ln.item, today, half_life), ln.item.path, ln.item.line))


def _neg(s: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in s)


def person_facets(person: Person, all_names: tuple[str, ...], today: date,
                  half_life: float, cache: dict[str, Line] | None = None) -> dict[str, list[Line]]:
    """{facet: ordered lines} of a person's current facts (filler flagged, not dropped); a
    line with two facets is listed under both. `cache` shares classifications between
    memory.md and the pages of one regeneration."""
    by: dict[str, list[Line]] = {name: [] for name, _ in FACETS}
    for it in person.subject:
        if it.current:
            line = cache.get(it.id) if cache is not None else None
            if line is None:
                line = classify(it, all_names, today)
                if cache is not None:
                    cache[it.id] = line
            for facet in line.facets:
                by[facet].append(line)
    return {name: order(lines, name, today, half_life) for name, lines in by.items()}


def history(person: Person) -> list[EntryItem]:
    """Superseded facts about (or mentioning) a person, most recently ended first."""
    old = person.superseded if person.superseded is not None else [
        it for it in person.subject + person.mentions if not it.current]
    return sorted(old, key=lambda it: (_neg(it.until or ""), it.path, it.line))
