"""memory.md and skill.md: what an agent should know at the start of every conversation.

memory.md is a profile per person, most central first: who they are, where they live,
work and role, the people and animals around them, constraints, strong preferences;
then goals and plans with dates; then the most salient recent events. Then facts about
no one in particular and a little knowledge, while the token budget lasts. Lines are
admitted by tier across all people (everyone's profile before anyone's events), so a
small budget still covers every central person. Every line ends with `[path#id]`, the
item line it comes from. Superseded facts and filler never appear.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from memfs.core.rootfiles import approx_tokens
from collections.abc import Iterable, Iterator

from memfs.entry.facetcache import FacetCache
from memfs.entry.incremental import People, counts
from memfs.entry.people import Person
from memfs.entry.pool import EntryItem
from memfs.entry.poolrank import ranked, skyline
from memfs.entry.poolcache import RECOMPUTE, Pool
from memfs.entry.profile import Line, classify, salience
from memfs.entry.ranking import Classes

#: (facet, how many of its lines) per tier; a tier is offered to every person before the next.
TIERS: tuple[tuple[tuple[str, int], ...], ...] = (
    (("identity", 2), ("home", 2), ("work", 2), ("constraints", 6), ("health", 3), ("people", 4)),
    (("plans", 4), ("preferences", 3)),
    (("habits", 2), ("events", 3)),
    (("identity", 4), ("home", 3), ("work", 4), ("health", 5), ("people", 8), ("preferences", 6), ("plans", 8),
     ("habits", 4), ("events", 6), ("other", 4)),
)
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Profile", ("identity", "home", "work", "people", "constraints", "health", "preferences", "habits", "other")),
    ("Goals and plans", ("plans",)),
    ("Recent events", ("events",)),
)
KNOWLEDGE_LINES = 8


#: The short label a profile line starts with, so an agent scanning for "where" finds it.
LABELS: dict[str, str] = {"identity": "Who", "home": "Home", "work": "Work", "people": "People",
                          "constraints": "Constraint", "health": "Health", "preferences": "Likes", "habits": "Habit",
                          "other": "Note"}


def label_of(line: Line) -> str:
    return ", ".join(LABELS[f] for f in line.facets if f in LABELS)


def bullet(item: EntryItem, link: str, label: str = "") -> str:
    """`- Label: (when) fact [path#id]`; the date is left out when the text already says it."""
    when = f"({item.when}) " if item.when and item.when not in item.text else ""
    return f"- {label + ': ' if label else ''}{when}{item.text} [{link}]"


def item_ref(item: EntryItem) -> str:
    return f"{item.path}#{item.id}"


@dataclass
class _Budget:
    left: int
    shown: set[str] = field(default_factory=set)

    def take(self, text: str) -> bool:
        cost = approx_tokens(text) + 1
        if cost > self.left:
            return False
        self.left -= cost
        return True


def render_memory(pool: Pool, found: People, budget: int, today: date, half_life: float,
                  summary: str | None = None, cache: FacetCache | None = None) -> str:
    """The memory.md body. `summary` (LLM mode) is a short grounded paragraph put first."""
    people = found.people
    tallies = [counts(pool, p) for p in pool.files]
    current = sum(t[0] for t in tallies)
    history = sum(t[1] for t in tallies)
    head = ["# Memory", "",
            "What to know at the start of every conversation, most central person first: who they are, "
            "where they live and work, who is around them, constraints and preferences; then plans and "
            "recent events. Current facts only. `[path#id]` is the item's line in its category file; "
            "people/ has one page per person; index.md is the map.", ""]
    if summary:
        head += ["## In short", "", summary.strip(), ""]
    budget_left = _Budget(budget - approx_tokens("\n".join(head)) - 20)
    names = tuple(n for p in people for n in p.names)
    cache = cache if cache is not None else FacetCache()
    # Lazy per facet (entry/facetrank.py): a new day costs the lines read, not every fact.
    facets = {p.name: cache.facets(p, names, today, half_life, _line_cost) for p in people}
    chosen: dict[str, dict[str, list[Line]]] = {p.name: {} for p in people}
    headed: set[str] = set()
    for tier in TIERS:
        for p in people:
            for facet, cap in tier:
                have = chosen[p.name].setdefault(facet, [])
                lazy = facets[p.name][facet]
                for at, line in enumerate(lazy):
                    if len(have) >= cap or budget_left.left < lazy.floor(at):
                        break  # the cap is reached, or no line from here on fits the budget
                    if line.filler or line.item.id in budget_left.shown:
                        continue
                    text = bullet(line.item, item_ref(line.item), label_of(line))
                    extra = _person_heading(p) if p.name not in headed else ""
                    if not budget_left.take(text + extra):
                        continue
                    headed.add(p.name)
                    have.append(line)
                    budget_left.shown.add(line.item.id)
    body: list[str] = []
    for p in people:
        if p.name not in headed:
            continue
        body += [_person_heading(p), ""]
        for title, group in SECTIONS:
            lines = [ln for facet in group for ln in chosen[p.name].get(facet, [])]
            if lines:
                body += [f"**{title}**", ""] + [bullet(ln.item, item_ref(ln.item), label_of(ln))
                                                for ln in lines] + [""]
    shown = set(budget_left.shown)

    def room() -> int:
        return budget_left.left

    subjects: dict[str, set[str]] = {}  # per file, once: the walk passes ~2,000 items about someone at 100k

    def about_nobody() -> Iterator[EntryItem]:
        for it in ranked(pool, "memory", today, half_life, salience, _item_cost, room):
            if it.id in shown:
                continue
            about = subjects.get(it.path)
            if about is None:
                about = subjects[it.path] = found.subjects_in(pool, it.path)
            if it.id not in about:
                yield it

    body += _ranked_section("Other facts", about_nobody(), names, today, budget_left, 8)
    knowledge = (it for it in ranked(pool, "index", today, half_life, salience, _item_cost, room)
                 if it.id not in shown)
    body += _ranked_section("Knowledge (index/)", knowledge, names, today, budget_left, KNOWLEDGE_LINES)
    footer = f"{len(budget_left.shown)} of {current} current items shown"
    footer += f"; {history} superseded kept as history in their files." if history else "."
    return "\n".join(head + body + [footer])


def _line_cost(line: Line) -> int:
    """What a profile line costs at least (its heading, when it brings one, only adds)."""
    return approx_tokens(bullet(line.item, item_ref(line.item), label_of(line))) + 1


def _person_heading(p: Person) -> str:
    also = f"; also {', '.join(p.aliases)}" if p.aliases else ""
    return f"## {_title(p.name)} ([page]({p.rel}){also})"


def _title(name: str) -> str:
    return name[:1].upper() + name[1:]


def _item_cost(item: EntryItem) -> int:
    """What a ranked section's line costs at least (its section title, on the first, only adds)."""
    return approx_tokens(bullet(item, item_ref(item))) + 1


def _ranked_section(title: str, ranked_items: Iterable[EntryItem], names: tuple[str, ...], today: date,
                    budget: _Budget, cap: int) -> list[str]:
    """Up to `cap` lines from `ranked_items` (most salient first) while the budget lasts."""
    lines: list[str] = []
    for it in ranked_items:
        if len(lines) >= cap:
            break
        if classify(it, names, today).filler:
            continue
        text = bullet(it, item_ref(it))
        if budget.take(text + (title if not lines else "")):
            lines.append(text)
            budget.shown.add(it.id)
    return [f"## {title}", "", *lines, ""] if lines else []


def skill_groups(items: list[EntryItem], half_life: float) -> list[SkillParts]:
    """One file's part of skill.md, whatever the day: its current skill items grouped by
    (path, heading), each with the token cost of its bullet, and the few items whose
    salience can be the group's best on some day (the skyline of entry/poolrank.py)."""
    groups: dict[tuple[str, str], list[EntryItem]] = {}
    for it in items:
        if it.current and it.is_skill:
            topic, sep, _ = it.text.partition(": ")
            groups.setdefault((it.path, topic if sep and len(topic) <= 60 else ""), []).append(it)
    out = []
    for key, members in groups.items():
        steps = sorted(members, key=lambda it: it.line)
        costs = [approx_tokens(bullet(it, item_ref(it)) + key[1]) + 1 for it in steps]
        cls = Classes.of(members, salience, half_life)
        out.append(SkillParts(key, steps, costs, min(costs), tuple(cls.members[k][0] for k in skyline(cls))))
    return out


@dataclass(frozen=True)
class SkillParts:
    key: tuple[str, str]
    steps: list[EntryItem]
    costs: list[int]
    cheapest: int
    best: tuple[EntryItem, ...]  # one item per skyline class: the group's best score is one of theirs


@dataclass(frozen=True)
class SkillGroup:
    weight: tuple[float, str, str]  # most salient group first (its best step's salience today)
    parts: SkillParts


def _day_groups(parts: list[SkillParts], today: date, half_life: float) -> list[SkillGroup]:
    return [SkillGroup((-max(salience(it, today, half_life) for it in g.best), g.key[0], g.key[1]), g)
            for g in parts]


def render_skill(pool: Pool, budget: int, today: date, half_life: float) -> str:
    """skill.md: procedures and tool habits, grouped by file and by the heading a step came
    under ("Running it locally"), steps in file order, most used groups first."""
    total = sum(counts(pool, p)[2] for p in pool.files)
    head = ["# Skills", "",
            "How things are done here: procedures (steps in order) and tool habits — what to run, where, "
            "when. `[path#id]` is the item's line in its category file.", ""]
    left = _Budget(budget - approx_tokens("\n".join(head)) - 10)
    def same(old: list[SkillGroup], removed: list[EntryItem], added: list[EntryItem]) -> object:
        return RECOMPUTE if any(it.is_skill for it in removed) or any(it.is_skill for it in added) else old

    # Only files with current skill items (counted per file, whatever the day): a new day
    # re-weighs their groups, not every file of the store; and a group is weighed by its few
    # skyline items, not by every step.
    groups = sorted((g for p in pool.files if counts(pool, p)[2] for g in pool.memo(
        p, ("skill", today, half_life), lambda items, p=p: _day_groups(pool.memo(
            p, ("skill-parts", half_life), lambda items: skill_groups(items, half_life), same), today, half_life),
        same)), key=lambda g: g.weight)
    # The cheapest step of this group or any after it: once the budget is below it, nothing
    # later fits, so the walk can stop (it takes exactly what a walk over every step takes).
    floor = [0] * len(groups)
    low = None
    for i in range(len(groups) - 1, -1, -1):
        low = groups[i].parts.cheapest if low is None else min(low, groups[i].parts.cheapest)
        floor[i] = low
    chosen: dict[tuple[str, str], list[EntryItem]] = {}
    weight: dict[tuple[str, str], tuple[float, str, str]] = {}
    for i, g in enumerate(groups):
        if left.left < floor[i]:
            break
        for it, cost in zip(g.parts.steps, g.parts.costs):
            if cost <= left.left:
                left.left -= cost
                chosen.setdefault(g.parts.key, []).append(it)
                weight[g.parts.key] = g.weight
                left.shown.add(it.id)
    body: list[str] = []
    for path in sorted({k[0] for k in chosen}):
        body += [f"## {path}", ""]
        for key in sorted((k for k in chosen if k[0] == path), key=lambda k: weight[k]):
            if key[1]:
                body += [f"**{key[1]}**", ""]
            body += [bullet(it, item_ref(it)) for it in chosen[key]] + [""]
    return "\n".join(head + body + [f"{len(left.shown)} of {total} current skill items shown."])
