"""index.md, memory.md and skill.md: deterministic views of the category files.

Only the block between the two marker comments is memfs': whatever a person writes above
or below it is kept as is. Same categories in → same bytes out, so a regenerate that has
nothing new to say leaves git clean.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields
from datetime import date

from memfs.core.model import Item

BEGIN = "<!-- memfs:begin generated: edit outside this block; memfs rewrites what is inside -->"
END = "<!-- memfs:end generated -->"

KIND_HEADINGS: dict[str, str] = {
    "memory": "About people (memory/)",
    "index": "Knowledge (index/)",
    "skill": "Skills and tools (skill/)",
}


@dataclass(frozen=True)
class CategoryInfo:
    """What the root files say of one category."""

    path: str
    kind: str
    title: str
    description: str
    summary: str
    items: int
    updated: str | None

    def __post_init__(self) -> None:
        # A file name or title holding a newline must not inject lines into index.md (#10, item 11).
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, str):
                object.__setattr__(self, f.name, link_path(value) if f.name == "path" else one_line(value))


@dataclass(frozen=True)
class RankedItem:
    item: Item
    path: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", link_path(self.path))


_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]")


def one_line(text: str) -> str:
    """Text for one Markdown line: line breaks and control characters become spaces."""
    return _CONTROL.sub(" ", text) if _CONTROL.search(text) else text


def link_path(path: str) -> str:
    """A path for a link or a citation: control characters percent-encoded, so the link
    still names the real file and the line cannot be broken."""
    return _CONTROL.sub(lambda m: "".join(f"%{b:02X}" for b in m.group(0).encode()), path) \
        if _CONTROL.search(path) else path


def approx_tokens(text: str) -> int:
    """~4 characters a token: close enough for a budget, and needs no tokenizer."""
    return max(1, math.ceil(len(text) / 4))


def salience(item: Item, today: date, half_life_days: float = 365.0) -> float:
    """memU's shape: reinforcement (log seen) times recency decay; undated items decay least."""
    reinforcement = math.log(item.seen + 1)
    stamp = item.updated or item.when
    decay = 1.0
    if stamp:
        try:
            parts = [int(p) for p in stamp.split("-")] + [1, 1]
            age = (today - date(parts[0], parts[1], parts[2])).days
            decay = 0.5 ** (max(age, 0) / half_life_days)
        except ValueError:
            decay = 1.0
    type_weight = {"profile": 1.2, "behavior": 1.1, "event": 1.0, "knowledge": 0.9, "skill": 1.0, "tool": 1.0}
    return reinforcement * (0.5 + 0.5 * decay) * type_weight.get(item.type, 1.0)


def item_bullet(item: Item, path: str) -> str:
    when = f"({item.when}) " if item.when and item.when not in item.text else ""
    return f"- {when}{item.text} [{path}]"


def render_index(categories: list[CategoryInfo]) -> str:
    lines = ["# Index", "",
             "Start here. Each category is a Markdown file; `cat` the one you need. "
             "memory.md holds the most salient facts, skill.md the operating manual.", ""]
    for kind in ("memory", "index", "skill"):
        cats = [c for c in categories if c.kind == kind]
        if not cats:
            continue
        lines += [f"## {KIND_HEADINGS[kind]}", ""]
        for c in sorted(cats, key=lambda c: c.path):
            meta = f"{c.items} item{'s' if c.items != 1 else ''}"
            if c.updated:
                meta += f", updated {c.updated}"
            about = c.summary or c.description
            lines.append(f"- [{c.title}]({c.path}) ({meta})" + (f": {about}" if about else ""))
        lines.append("")
    total = sum(c.items for c in categories)
    lines.append(f"{total} items in {len(categories)} categories.")
    return "\n".join(lines)


def _select(ranked: list[tuple[float, RankedItem]], budget: int) -> list[RankedItem]:
    out: list[RankedItem] = []
    used = 0
    for _, r in ranked:
        cost = approx_tokens(item_bullet(r.item, r.path))
        if used + cost > budget:
            continue
        out.append(r)
        used += cost
    return out


def _ranked(items: list[RankedItem], today: date, half_life: float) -> list[tuple[float, RankedItem]]:
    scored = [(salience(r.item, today, half_life), r) for r in items]
    scored.sort(key=lambda t: (-t[0], t[1].path, t[1].item.id))
    return scored


def select_salient(items: list[RankedItem], budget: int, today: date, half_life: float,
                   skills: bool = False) -> list[RankedItem]:
    """The items memory.md (or skill.md) shows: most salient first, within the budget."""
    pool = [r for r in items if (r.item.type in ("skill", "tool") or r.path.startswith("skill/")) == skills]
    return _select(_ranked(pool, today, half_life), budget)


def render_memory(items: list[RankedItem], budget: int, today: date, half_life: float = 365.0,
                  total: int | None = None) -> str:
    """The most salient items within `budget` tokens, grouped by category file."""
    header = ["# Memory", "",
              f"The most salient facts (within about {budget} tokens), most reinforced and recent first "
              "within each file. Full detail: index.md.", ""]
    budget_left = max(0, budget - approx_tokens("\n".join(header)))
    chosen = _select(_ranked([r for r in items if r.item.type not in ("skill", "tool")], today, half_life),
                     budget_left)
    shown_of = total if total is not None else len(items)
    return "\n".join(header + _grouped(chosen) + [f"{len(chosen)} of {shown_of} items shown."])


def render_skill(items: list[RankedItem], budget: int, today: date, half_life: float = 365.0,
                 total: int | None = None) -> str:
    header = ["# Skills", "", "How to do things here: procedures and tool habits, most used first.", ""]
    budget_left = max(0, budget - approx_tokens("\n".join(header)))
    skills = [r for r in items if r.item.type in ("skill", "tool") or r.path.startswith("skill/")]
    chosen = _select(_ranked(skills, today, half_life), budget_left)
    shown_of = total if total is not None else len(skills)
    return "\n".join(header + _grouped(chosen) + [f"{len(chosen)} of {shown_of} items shown."])


def _grouped(chosen: list[RankedItem]) -> list[str]:
    lines: list[str] = []
    by_path: dict[str, list[RankedItem]] = {}
    for r in chosen:
        by_path.setdefault(r.path, []).append(r)
    for path in sorted(by_path):
        lines += [f"## {path}", ""]
        lines += [item_bullet(r.item, r.path) for r in by_path[path]]
        lines.append("")
    return lines


class MarkerError(ValueError):
    """The root file's generated block cannot be located unambiguously."""


def merge_generated(existing: str | None, generated: str) -> str:
    """`existing` with its generated block replaced by `generated`; raises MarkerError.

    No markers at all: the block is appended (nothing of the person's is touched). One
    marker without the other, either one twice, or the end before the begin: refused,
    because any guess could delete what the person wrote after the begin marker."""
    newline = "\r\n" if existing and "\r\n" in existing.split("\n", 1)[0] + "\n" else "\n"
    block = f"{BEGIN}\n{generated.rstrip()}\n{END}\n".replace("\n", newline)
    if not existing:
        return block
    begins, ends = existing.count(BEGIN), existing.count(END)
    if begins == 0 and ends == 0:
        sep = "" if existing.endswith(newline * 2) else (newline if existing.endswith("\n") else newline * 2)
        return existing + sep + block
    start, end = existing.find(BEGIN), existing.find(END)
    if begins != 1 or ends != 1 or end < start:
        what = ("the begin marker is missing" if begins == 0 else "the end marker is missing" if ends == 0
                else "a marker appears twice" if begins > 1 or ends > 1 else "the end marker comes before the begin")
        raise MarkerError(what)
    tail = existing[end + len(END):]
    if tail.startswith("\r\n"):
        tail = tail[2:]
    elif tail.startswith("\n"):
        tail = tail[1:]
    return existing[:start] + block + tail
