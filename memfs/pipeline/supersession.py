"""The dedupe step's offline supersession: which new facts replace which existing ones.

For each new fact that fills a slot (memfs.extract.supersede), the candidates are the
current items that name the same subject (an FTS query on the subject, then the same slot
parser) and the earlier new facts of the same input. The newer of a pair — by `when`,
then by arrival — is the current fact; the older line keeps its text and gains
`until=` (when the newer became true or was said, never later than that was said) and
`superseded_by=<id>`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Protocol

from memfs.core.segment import Fact
from memfs.extract.supersede import Slot, slot_of, supersedes
from memfs.index import repository
from memfs.index.db import IndexDB
from memfs.index.timefilter import stamp_range

CANDIDATES = 1000


@dataclass
class Retirement:
    """Mark `old_id` (in `old_rel`, or a new item of this batch when None) as history."""

    old_id: str
    new_id: str
    until: str
    old_rel: str | None = None


class _Decision(Protocol):
    fact: Fact
    action: str
    item_id: str


@lru_cache(maxsize=200_000)
def _slot(text: str) -> Slot | None:
    return slot_of(text)


def _strictly_before(a: str | None, b: str | None) -> bool:
    """Is stamp `a` wholly before stamp `b`? (Unknown or overlapping: no.)"""
    sa, sb = stamp_range(a), stamp_range(b)
    return sa is not None and sb is not None and sa[1] < sb[0]


def until_of(newer: Fact, today: date | None = None) -> str:
    """When the old fact stopped being true: the newer fact's date if it is not after the
    day it was said ("moved to Leeds in March"), else the day it was said."""
    said = newer.stated or (today or date.today()).isoformat()
    start, said_span = stamp_range(newer.when), stamp_range(said)
    if newer.when and start is not None and said_span is not None and start[0] <= said_span[0]:
        return newer.when
    return said


def _subject_query(subject: str) -> str:
    return "text : (" + " AND ".join('"' + w.replace('"', '""') + '"' for w in subject.split()) + ")"


def plan(decisions: list[_Decision], db: IndexDB, today: date | None = None) -> list[Retirement]:
    """Retirements implied by the new ("add") decisions, against the index and each other."""
    out: list[Retirement] = []
    earlier: list[tuple[_Decision, Slot]] = []
    retired: set[str] = set()
    for d in decisions:
        # A replayed fact (its input crashed half-way) is on disk already, but the line it
        # supersedes may not have been marked yet: plan it again (marking is idempotent).
        if d.action not in ("add", "replay"):
            continue
        slot = _slot(d.fact.text)
        if slot is None:
            continue
        rows = repository.current_matches(db, _subject_query(slot.subject), CANDIDATES)
        for item_id, text, when, path in rows:
            if item_id in retired or item_id == d.item_id:
                continue
            other = _slot(text)
            if other is None:
                continue
            if _strictly_before(d.fact.when, when):  # the new fact is the older one
                if supersedes(other, slot):
                    out.append(Retirement(d.item_id, item_id, when or d.fact.when or "", None))
                    retired.add(d.item_id)
                    break
            elif supersedes(slot, other):
                out.append(Retirement(item_id, d.item_id, until_of(d.fact, today), path))
                retired.add(item_id)
        for prev, pslot in earlier:
            if prev.item_id in retired or d.item_id in retired or "replay" in (prev.action, d.action):
                continue  # a replayed line is on disk: the index query above found it
            if _strictly_before(d.fact.when, prev.fact.when):
                if supersedes(pslot, slot):
                    out.append(Retirement(d.item_id, prev.item_id, until_of(prev.fact, today), None))
                    retired.add(d.item_id)
            elif supersedes(slot, pslot):
                out.append(Retirement(prev.item_id, d.item_id, until_of(d.fact, today), None))
                retired.add(prev.item_id)
        earlier.append((d, slot))
    return out
