"""A person's facets ranked from day-independent parts (entry/facetrank.py) are exactly
profile.person_facets (classify every fact, sort by the day's salience) on every day, and
after the person's facts change (issue #18 item 4)."""

from __future__ import annotations

import random
from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from memfs.entry.facetcache import FacetCache
from memfs.entry.facetrank import PersonRank
from memfs.entry.people import Person
from memfs.entry.pool import EntryItem
from memfs.entry.facets import FACETS
from memfs.entry.profile import Line, person_facets

TEXTS = ["Priya lives in Leeds with her partner Tom.", "Priya works as a nurse at the hospital.",
         "Priya is vegan.", "Priya loves jazz and prefers tea.", "Priya goes running every morning.",
         "Priya plans to visit Rome next spring.", "Priya: Great, that saves us a sprint.",
         "Priya went to the concert.", "Priya is a designer.", "Priya has a dog called Bo.",
         "Priya ok.", "Priya will present the launch.", "Priya bought a bike."]
TYPES = ["profile", "event", "knowledge", "preference", "plan", "behavior"]
NAMES = ("Priya", "Tom")
DAY0 = date(2024, 1, 1)


def _day(rng: random.Random) -> date | None:
    return None if rng.random() < 0.15 else DAY0 + timedelta(days=rng.choice([0, 0, 1, 3, 40, 400]))


def _items(rng: random.Random, n: int, start: int = 0) -> list[EntryItem]:
    out = []
    for k in range(n):
        learned = _day(rng)
        when = _day(rng) if rng.random() < 0.6 else None
        out.append(EntryItem(id=f"i{start + k:05d}", text=rng.choice(TEXTS), type=rng.choice(TYPES),
                             when=when.isoformat() if when else None, src=None, seen=rng.choice([1, 1, 2, 5]),
                             updated=None, path=rng.choice(["memory/a.md", "memory/b.md", "index/c.md"]),
                             line=start + k, learned=learned.isoformat() if learned else None,
                             superseded_by="x" if rng.random() < 0.1 else None))
    return out


def _cost(line: Line) -> int:
    return len(line.item.text) // 4 + len(line.also)


def _rows(lines: object) -> list[tuple[str, str, bool, bool, tuple[str, ...]]]:
    return [(ln.item.id, ln.facet, ln.filler, ln.upcoming, ln.also) for ln in lines]  # type: ignore[attr-defined]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 50), st.integers(0, 10**6), st.sampled_from([30.0, 365.0]))
def test_lazy_facets_are_the_full_sort_on_any_day_and_after_changes(n: int, seed: int, half_life: float) -> None:
    rng = random.Random(seed)
    items = _items(rng, n)
    cache = FacetCache()
    for step in range(4):
        person = Person("Priya", subject=list(items))
        for _ in range(3):
            today = DAY0 + timedelta(days=rng.choice([0, 2, 41, 500, 3000]))
            want = person_facets(person, NAMES, today, half_life)
            got = cache.facets(person, NAMES, today, half_life, _cost)
            for facet, lines in want.items():
                lazy = got[facet]
                assert _rows(lazy) == _rows(lines), facet
                for at in range(len(lines) + 1):
                    exact = min((_cost(ln) for ln in lines[at:]), default=1 << 62)
                    assert lazy.floor(at) <= exact  # a lower bound: memory.md stops only when nothing fits
                    if facet not in ("plans", "events"):
                        assert lazy.floor(at) == exact
            page = cache.rank(person, NAMES, half_life).page_facets(today)
            for facet, lines in want.items():  # the page shows the same lines, in its own order
                assert sorted(_rows(page[facet])) == sorted(_rows(lines)), facet
        kept = rng.sample(items, len(items) - min(len(items), rng.randrange(4)))
        items = sorted(kept + _items(rng, rng.randrange(4), start=1000 * (step + 1)), key=lambda it: it.line)


def test_unchanged_facts_are_classified_once() -> None:
    rng = random.Random(3)
    items = _items(rng, 40)
    cache = FacetCache()
    first = cache.rank(Person("Priya", subject=list(items)), NAMES, 365.0)
    assert cache.rank(Person("Priya", subject=list(items)), NAMES, 365.0) is first  # same facts: kept
    extra = _items(rng, 1, start=500)
    second = cache.rank(Person("Priya", subject=items + extra), NAMES, 365.0)
    assert second is not first
    for key, base in first.bases.items():
        assert second.bases[key] is base  # not classified again
    third = cache.rank(Person("Priya", subject=items + extra), ("Priya",), 365.0)
    assert all(third.bases[k] is not b for k, b in first.bases.items())  # other names: filler may differ


def test_the_page_order_does_not_move_with_the_day() -> None:
    rng = random.Random(5)
    items = [it for it in _items(rng, 80)]
    rank = PersonRank(tuple(items), NAMES, 365.0)
    days = [DAY0 + timedelta(days=d) for d in (500, 900, 4000)]  # past every plan: none moves between them
    assert len({rank.moved_count(d) for d in days}) == 1
    pages = [_rows(ln for lines in rank.page_facets(d).values() for ln in lines if not ln.upcoming) for d in days]
    assert pages[0] == pages[1] == pages[2]


def _page_reference(person: Person, today: date, half_life: float) -> dict[str, list[tuple]]:  # type: ignore[type-arg]
    """The page's order as flat3 defined it: every fact classified and each facet sorted."""
    from memfs.entry.facetrank import Base, plan_key

    bases = [Base.of(it, NAMES, half_life) for it in person.subject if it.current]
    moved = sorted((b for b in bases if b.facet == "plans" and b.moved(today)), key=lambda b: (b.when, b.item.path,
                                                                                                b.item.line))
    out = {}
    for f, _ in FACETS:
        lst = [b for b in bases if f in b.facets and not (f == "plans" and b in moved)]
        if f == "events":
            lst += moved
        if f == "plans":
            lst.sort(key=lambda b: plan_key(b.item))
        elif f in ("home", "work", "identity", "events"):
            lst.sort(key=lambda b: (b.stamp_key, -b.peak, b.item.path, b.item.line))
        else:
            lst.sort(key=lambda b: (-b.peak, -b.day_ord, b.item.path, b.item.line))
        out[f] = _rows(b.line(today) for b in lst)
    return out


def _structure(rank: PersonRank) -> tuple:  # type: ignore[type-arg]
    """Everything a PersonRank keeps, by item ids (a delta-updated one must equal a rebuilt one)."""
    def ids(items: object) -> list[str]:
        return [it.id for it in items]  # type: ignore[attr-defined]

    def cls(c: object) -> tuple:  # type: ignore[type-arg]
        return None if c is None else ({k: ids(v) for k, v in c.members.items()}, c.peak, c.by_peak,  # type: ignore
                                       c.by_day)  # type: ignore[attr-defined]

    return (sorted(b.item.id for b in rank.bases.values()),
            {f: [b.item.id for b in lst] for f, lst in rank.members.items()},
            {f: [(k, cls(c)) for k, _, c in lst] for f, lst in rank.stamped.items()},
            {f: sorted((k, sorted(ids(v))) for k, v in g.items()) for f, g in rank.by_stamp.items()},
            {f: cls(c) for f, c in rank.classes.items()},
            [b.item.id for b in rank.movable], rank._moves_on,
            None if rank._costs is None else {f: [(c, p) for c, p, _ in lst] for f, lst in rank._costs.items()})


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 60), st.integers(0, 10**6), st.sampled_from([30.0, 365.0]))
def test_a_rank_changed_by_delta_is_the_rebuilt_one(n: int, seed: int, half_life: float) -> None:
    """PersonRank.changed (flat5) keeps exactly what a rebuild from the facts keeps, and the
    page's order is flat3's full sort; the kept mentions' order is the page's own sort."""
    from memfs.entry.facetcache import mentions_order
    from memfs.entry.pages import facts_block

    rng = random.Random(seed)
    items = _items(rng, n)
    cache = FacetCache()
    deltas = []
    real = PersonRank.changed

    def counted(self: PersonRank, *args: object) -> PersonRank | None:
        out = real(self, *args)  # type: ignore[arg-type]
        deltas.append(out is not None)
        return out

    for step in range(6):
        person = Person("Priya", subject=list(items), mentions=list(reversed(items)))
        today = DAY0 + timedelta(days=rng.choice([0, 2, 41, 500, 3000]))
        PersonRank.changed = counted  # type: ignore[method-assign]
        try:
            got = cache.rank(person, NAMES, half_life)
        finally:
            PersonRank.changed = real  # type: ignore[method-assign]
        got.facets(today, _cost)  # costs are then kept and carried over by the next delta
        fresh = PersonRank(tuple(items), tuple(sorted(set(NAMES))), half_life)
        fresh.facets(today, _cost)
        assert _structure(got) == _structure(fresh)
        assert {f: _rows(v) for f, v in got.page_facets(today).items()} == _page_reference(person, today, half_life)
        assert [it.id for it in cache.mentions(person)] == [it.id for it in mentions_order(person.mentions)]
        for day in (today, today + timedelta(days=1), DAY0 + timedelta(days=rng.choice([3, 600, 5000]))):
            kept_block = cache.block("Priya", got, day, lambda: facts_block("Priya", got.page_facets(day)))
            assert kept_block == facts_block("Priya", fresh.page_facets(day))  # kept across days: the same
        want = person_facets(person, NAMES, today, half_life)
        lazy = cache.facets(person, NAMES, today, half_life, _cost)
        assert {f: _rows(lazy[f]) for f in want} == {f: _rows(v) for f, v in want.items()}
        kept = rng.sample(items, len(items) - min(len(items), rng.randrange(3)))
        if kept and rng.random() < 0.3:  # a fact re-made (reinforced, superseded): removed and added
            old = rng.choice(kept)
            kept[kept.index(old)] = EntryItem(**{**old.__dict__, "seen": old.seen + 1})
        items = sorted(kept + _items(rng, rng.randrange(3), start=1000 * (step + 1)), key=lambda it: it.line)
    assert n < 8 or any(deltas)  # a big enough person is changed by delta, not rebuilt


def test_mentions_order_is_the_pages_two_sorts() -> None:
    from memfs.entry.facetcache import mentions_order
    from memfs.entry.profile import stamp

    rng = random.Random(9)
    items = _items(rng, 200)
    items += [EntryItem(**{**it.__dict__, "id": it.id + "x", "when": (it.when or "2024")[:7]}) for it in items[:50]]
    ref = sorted((it for it in items if it.current), key=lambda it: (it.path, it.line))
    ref.sort(key=stamp, reverse=True)
    assert [it.id for it in mentions_order(items)] == [it.id for it in ref]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**6))
def test_diff_by_identity_skips_the_common_head_and_tail(seed: int) -> None:
    """ranking.diff: (removed, added) by identity, for lists holding no item twice."""
    from memfs.entry.ranking import diff

    rng = random.Random(seed)
    old = _items(rng, rng.randint(0, 30))
    new = list(old)
    for _ in range(rng.randint(0, 5)):
        r = rng.random()
        if r < 0.4 and new:
            new.pop(rng.randrange(len(new)))
        elif r < 0.8:
            new.insert(rng.randint(0, len(new)), _items(rng, 1, start=5000 + rng.randrange(10**6))[0])
        elif new:  # an item re-made with the same values: removed and added by identity
            k = rng.randrange(len(new))
            new[k] = EntryItem(**new[k].__dict__)
    removed, added = diff(tuple(old), tuple(new))
    was, now = {id(it) for it in old}, {id(it) for it in new}
    assert sorted(map(id, removed)) == sorted(was - now) and sorted(map(id, added)) == sorted(now - was)


def test_a_trade_is_work_only_when_said_of_the_person() -> None:
    from memfs.entry.facets import facets_of

    assert "work" in facets_of("Priya is a designer.", "profile", "profile", False)
    assert "work" in facets_of("Priya is now a lead engineer at Northwind.", "profile", "profile", False)
    assert "work" in facets_of("Priya works as a nurse at the hospital.", "profile", "profile", False)
    for text in ("Priya's sister is a nurse.", "Priya met a doctor at the party.", "Priya is dating a lawyer.",
                 "Priya watched a film about an architect.", "Her sister is a teacher."):
        assert "work" not in facets_of(text, "profile", "profile", False), text


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 130), st.integers(0, 10**6), st.sampled_from([30.0, 365.0]))
def test_a_page_block_from_the_bases_is_the_block_of_the_page_facets(n: int, seed: int, half_life: float) -> None:
    """pages.page_block (one pass over the Bases, only the shown lines kept) writes exactly
    facts_block of page_facets, on any day (plans moved to events, fillers, sections over
    SECTION_MAX) and after the person's facts change."""
    from memfs.entry import pages
    from memfs.entry.pages import facts_block, page_block

    rng = random.Random(seed)
    items = _items(rng, n)
    cache = FacetCache()
    real_max = pages.SECTION_MAX
    pages.SECTION_MAX = rng.choice([3, 10, real_max])  # sections over the cap with few facts
    try:
        for step in range(4):
            person = Person("Priya", subject=list(items))
            rank = cache.rank(person, NAMES, half_life)
            for _ in range(3):
                today = DAY0 + timedelta(days=rng.choice([0, 2, 41, 500, 3000]))
                assert page_block("Priya", rank, today) == facts_block("Priya", rank.page_facets(today))
            kept = rng.sample(items, len(items) - min(len(items), rng.randrange(4)))
            items = sorted(kept + _items(rng, rng.randrange(4), start=1000 * (step + 1)), key=lambda it: it.line)
    finally:
        pages.SECTION_MAX = real_max
