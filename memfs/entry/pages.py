"""One page per person under people/: a generated view with room for a person's notes.

A page is a view of the category files, like index.md: its generated block lists the
current facts about the person (linked to its item line), what mentions them, and the
history of superseded facts at the end, at most SECTION_MAX lines a section, in an order
the day does not change (entry/facetrank.py), so a page is rewritten only when its
person's facts change. The category files stay the only truth, so a
page never contradicts them. What a person owns on a page:

- the front-matter (`aliases: [Mel]` makes "Mel" the same person; memfs never rewrites it),
- everything outside the generated block (kept byte for byte),
- an edit *inside* the block: the end marker carries a digest of what memfs wrote, so a
  changed block is noticed; the lines the person added or changed are moved, verbatim,
  into a "Kept from your edit" section below the block before it is regenerated. Nothing
  typed into a page is ever lost, and the block goes back to agreeing with the files.

A page memfs made for someone who no longer has facts is removed only if nobody touched
it; a page a person wrote or annotated stays.
"""

from __future__ import annotations

import operator
import os
from itertools import compress, islice
from collections.abc import Mapping
from datetime import date
from pathlib import Path

from memfs.entry.facets import FACETS
from memfs.entry.pagefile import PAGE_BEGIN, PAGE_END, PageParts, digest, read_page, split_page
from memfs.entry.people import PEOPLE_DIR, Person, read_page_front
from memfs.entry.pool import EntryItem
from memfs.entry.profile import Line, history, stamp
from memfs.entry.facetcache import FacetCache
from memfs.entry.facetrank import PersonRank
from memfs.entry.incremental import People
from memfs.errors import MemfsError
from memfs.fsutil import ChangedMeanwhile, atomic_write, emptied_just_now, fsync_dir
from memfs.workspace import Workspace

KEPT_HEADING = "## Kept from your edit of the generated block"
#: At most this many lines per section (a page of 10,000 facts is not worth an agent's
#: tokens): the first in the page's order (newest, or most seen) are kept, and the rest are
#: one `memfs recall` away.
SECTION_MAX = 50
_filler, _item, not_ = operator.attrgetter("filler"), operator.attrgetter("item"), operator.not_


def link(item: EntryItem) -> str:
    """A Markdown link from a page (in people/) to the item's line: `../path#id`."""
    return f"[{item.path}#{item.id}](../{item.path}#{item.id})"


def page_bullet(item: EntryItem) -> str:
    when = f"({item.when}) " if item.when and item.when not in item.text else ""
    return f"- {when}{item.text} {link(item)}"


#: id(item) -> (item, its page_bullet): an unchanged item is the same object from one
#: regeneration to the next (entry/poolcache.py), and a page whose person changed formats
#: ~400 bullets, most of them of unchanged facts. The item is held so its id stays its own.
_BULLETS: dict[int, tuple[EntryItem, str]] = {}
_BULLETS_MAX = 50_000  # ~25,000 are shown at 100,000 items; cleared when full (stale items go)


def _bullet(item: EntryItem) -> str:
    """page_bullet(item), kept per item object."""
    hit = _BULLETS.get(id(item))
    if hit is not None and hit[0] is item:
        return hit[1]
    if len(_BULLETS) >= _BULLETS_MAX:
        _BULLETS.clear()
    text = page_bullet(item)
    _BULLETS[id(item)] = (item, text)
    return text


def render_page(person: Person, facets: dict[str, list[Line]] | None, by_id: Mapping[str, EntryItem],
                mentions: list[EntryItem] | None = None, block: list[str] | None = None) -> str:
    """The generated block of one person's page (deterministic for the same items).
    `mentions`: the person's current mentions in the page's order, if kept elsewhere
    (facetcache.mentions_order, which is this function's own sort); `block`: the facts'
    sections (`facts_block` of `facets`), if kept elsewhere."""
    title = person.name[:1].upper() + person.name[1:]
    also = f" (also {', '.join(person.aliases)})" if person.aliases else ""
    lines = [f"# {title}", "",
             f"What memfs knows about {title}{also} now, grouped; each line links to the item it "
             "comes from in its category file, which is the truth. This block is rebuilt from those files: "
             "to change a fact, edit its line there. Notes outside the block are yours and kept.", "",
             f"Newest first (plans: soonest first; people, constraints, health, likes, habits and other facts: "
             f"most often seen first, then newest), at most {SECTION_MAX} lines a section; the rest are one "
             "`memfs recall` away.",
             ""]
    if block is None:
        assert facets is not None
        block = facts_block(person.name, facets)
    lines += block
    if mentions is None:
        mentions = sorted((it for it in person.mentions if it.current), key=lambda it: (it.path, it.line))
        mentions.sort(key=stamp, reverse=True)  # newest first; a stable sort keeps file order among equals
    if mentions:
        lines += ["## Mentioned in", ""] + _capped(mentions, person.name, "mentions")
    old = history(person)
    if old:
        lines += ["## History (superseded)", ""]
        for it in old[:SECTION_MAX]:
            until = f"until {it.until}: " if it.until else ""
            newer = by_id.get(it.superseded_by or "")
            by = f"; superseded by {link(newer)}" if newer else f"; superseded by {it.superseded_by}"
            lines.append(f"- {until}{it.text} {link(it)}{by}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def facts_block(name: str, facets: dict[str, list[Line]]) -> list[str]:
    """A page's sections of the person's facts (by facet, then what they said): what the
    person's facets and their name decide, kept per PersonRank (facetcache.block)."""
    lines: list[str] = []
    said = list({ln.item.id: ln for lines_ in facets.values() for ln in lines_ if ln.filler}.values())
    any_fact = False
    for facet, heading in FACETS:
        rows = [ln for ln in facets[facet] if not ln.filler]
        if rows:
            any_fact = True
            lines += [f"## {heading}", ""] + _capped([ln.item for ln in rows], name, heading)
    if not any_fact:
        lines += [f"memfs has no current facts about {name[:1].upper() + name[1:]}.", ""]
    if said:
        lines += ["## Also said", ""] + _capped([ln.item for ln in said], name, "said")
    return lines


def page_block(name: str, rank: PersonRank, today: date) -> list[str]:
    """facts_block(name, rank.page_facets(today)), from the person's Bases in one pass:
    no Line is made and only the lines shown are kept. A person whose facts changed has
    their page's block rebuilt, and at 100,000 items that was a Line, a filter and a copy
    for each of their ~2,000 facts, for each of the ~15 people an input names (issue #18
    item 4). A Base's filler on `today` is its Line's (Base.line)."""
    lines: list[str] = []
    said: dict[str, EntryItem] = {}
    any_fact = False
    by_facet = rank.page_bases(today)
    moved = rank.moved_count(today)  # plans whose day passed: their filler is the event's
    for facet, heading in FACETS:
        rows: list[EntryItem] = []
        bases = by_facet[facet]
        if not moved and isinstance(bases, list):  # every fact's filler is its Base's: C-speed passes
            flags = list(map(_filler, bases))
            n = len(bases) - sum(flags)
            rows = list(map(_item, islice(compress(bases, map(not_, flags)), SECTION_MAX)))
            if n < len(bases):
                for b in compress(bases, flags):
                    said[b.item.id] = b.item  # (first place, last item: facts_block's dict)
        else:
            n = 0
            for b in bases:
                if b.filler_moved if b.movable and b.moved(today) else b.filler:
                    said[b.item.id] = b.item
                else:
                    n += 1
                    if n <= SECTION_MAX:
                        rows.append(b.item)
        if n:
            any_fact = True
            lines += [f"## {heading}", ""] + _capped_of(rows, n, name, heading)
    if not any_fact:
        lines += [f"memfs has no current facts about {name[:1].upper() + name[1:]}.", ""]
    if said:
        lines += ["## Also said", ""] + _capped(list(said.values()), name, "said")
    return lines


def _capped(items: list[EntryItem], name: str, what: str) -> list[str]:
    return _capped_of(items, len(items), name, what)


def _capped_of(items: list[EntryItem], total: int, name: str, what: str) -> list[str]:
    """The first SECTION_MAX of a section's `total` items (`items` starts with them)."""
    rows = [_bullet(it) for it in items[:SECTION_MAX]]  # only the lines shown are formatted
    if total <= SECTION_MAX:
        return rows + [""]
    more = total - SECTION_MAX
    return rows + [f"- … {more} more: `memfs recall \"{name} {what}\"`", ""]


def assemble(parts: PageParts, body: str) -> str:
    block = f"{PAGE_BEGIN}\n{body}{PAGE_END} {digest(body)} -->\n"
    before = parts.before
    if before and not before.endswith("\n\n"):
        before += "\n" if before.endswith("\n") else "\n\n"
    return parts.front + before + block + parts.after


def kept_edit(edited: str, generated_before: str | None) -> str:
    """The lines a person added or changed inside the block, as a section to keep."""
    old = set((generated_before or "").splitlines())
    mine = [ln for ln in edited.splitlines() if ln.strip() and ln not in old]
    removed = [ln for ln in (generated_before or "").splitlines()
               if ln.startswith("- ") and ln not in set(edited.splitlines())]
    if not mine and not removed:
        return ""
    out = [KEPT_HEADING, "",
           "memfs rebuilds the block above from the category files, so it moved your edit here. To change "
           "or remove a fact for good, edit or delete its line in the file it links to "
           "(or `memfs forget ID`).", ""]
    out += mine
    if removed:
        out += ["", f"You removed {len(removed)} generated line(s); they are back because their items still exist:"]
        out += ["    " + ln for ln in removed]
    return "\n".join(out) + "\n"


#: {page path: (the page's text, the body, what memfs last wrote, the page it becomes)}: a
#: page whose text, body and last write are unchanged is not split and assembled again.
_ASSEMBLED: dict[str, tuple[str, str, str | None, str]] = {}
_ASSEMBLED_MAX = 4096


def page_text(key: str, existing: str | None, name: str, body: str, written_before: str | None) -> str | None:
    """The page `existing` becomes with `body` as its generated block (a new page if None);
    None if its markers are broken. `written_before`: the body memfs last wrote there."""
    if existing is not None:
        hit = _ASSEMBLED.get(key)
        if hit is not None and hit[0] == existing and hit[1] == body and hit[2] == written_before:
            return hit[3]
    new = _page_text(existing, name, body, written_before)
    if existing is not None and new is not None:
        if len(_ASSEMBLED) >= _ASSEMBLED_MAX:
            _ASSEMBLED.clear()
        _ASSEMBLED[key] = (existing, body, written_before, new)
    return new


def _page_text(existing: str | None, name: str, body: str, written_before: str | None) -> str | None:
    parts = split_page(existing) if existing is not None else PageParts(
        f"---\ntitle: {_yaml_str(name)}\n---\n", "", None, None, "")
    if parts is None:
        return None
    if parts.body is not None and parts.recorded != digest(parts.body):
        # Compared with what memfs last wrote (cached in the index), else with what it
        # writes now: either way every line the person typed is kept.
        keep = kept_edit(parts.body, written_before or body)
        after = parts.after
        if keep:
            after = keep + ("\n" + after if after.strip() else "")
        parts = PageParts(parts.front, parts.before, parts.body, parts.recorded, after)
    return assemble(parts, body)


class PageWriter:
    """Writes the pages of one regeneration; returns what it wrote and why it did not."""

    def __init__(self, ws: Workspace, texts: dict[str, str] | None = None) -> None:
        self.ws = ws
        # Pages as read_pages read them earlier in this regeneration (people/name.md -> text):
        # each page's first read here, not a second read of every page (~75 KB each at
        # 100,000 items). An edit since is caught as an edit after this read would be: by
        # atomic_write's precondition, which reads the page again before replacing it.
        self._texts = dict(texts) if texts else {}
        self.written: list[str] = []
        self.warnings: list[str] = []
        self._unsynced: set[Path] = set()  # folders with renames or unlinks not synced yet

    def write(self, person: Person, body: str, previous: dict[str, str]) -> None:
        rel = person.rel
        try:
            path = self.ws.safe_target(rel)
        except MemfsError as err:  # a symlinked people/ folder: never write through it
            self.warnings.append(str(err))
            return
        for _ in range(5):
            existing = self._texts.pop(rel, None)
            if existing is None:
                existing = _read(path)
            if existing is None and path.exists():
                self.warnings.append(f"{rel}: not readable as UTF-8; memfs leaves it alone")
                return
            if existing == "" and emptied_just_now(path):
                # Emptied a moment ago: an editor that truncates before it writes may be mid-save
                # (found by review: the page memfs wrote over the empty file took the place of
                # the one the editor then wrote into). The next regeneration writes it.
                self.warnings.append(f"{rel}: empty, perhaps being saved; memfs leaves it alone this time")
                return
            new = page_text(str(path), existing, person.name, body, previous.get(rel))
            if new is None:
                self.warnings.append(f"{rel}: the generated block's markers are broken; fix or remove them "
                                     "and memfs will rebuild the page (nothing was written)")
                return
            if new == existing:
                return
            try:  # the folder is synced once, after every page (sync_folder)
                atomic_write(path, new, precondition=lambda: _read(path) == existing, sync_dir=False)
            except ChangedMeanwhile:
                continue
            self.written.append(rel)
            self._unsynced.add(path.parent)
            return
        self.warnings.append(f"{rel} kept changing while memfs rebuilt it; try again")

    def sync_folder(self) -> None:
        """One fsync of people/ for every page written or removed in this regeneration (a
        100k-item store rewrites ~10 pages an input: one folder sync each was ~2 ms of
        wall time apiece). Done before the index records the regeneration, so what it
        records is on disk as durably as before."""
        for folder in sorted(self._unsynced):
            fsync_dir(folder)
        self._unsynced.clear()

    def remove_stale(self, keep: set[str]) -> None:
        """Remove pages memfs made for people who are gone, if nobody touched them."""
        folder = self.ws.root / PEOPLE_DIR
        if not folder.is_dir() or folder.is_symlink():
            return
        for path in sorted(folder.iterdir()):
            rel = f"{PEOPLE_DIR}/{path.name}"
            if rel in keep or not path.name.endswith(".md") or path.is_symlink():
                continue
            front = read_page_front(path, rel)
            if front.owned or front.error:
                continue
            try:
                os.unlink(path)
                self.written.append(rel)
                self._unsynced.add(folder)
            except OSError as err:
                self.warnings.append(f"{rel}: cannot remove ({err.strerror})")


def _read(path: os.PathLike[str]) -> str | None:
    try:
        return read_page(path)
    except (OSError, UnicodeDecodeError):
        return None


def _yaml_str(name: str) -> str:
    import yaml

    return yaml.safe_dump(name, default_style=None, allow_unicode=True).strip().removesuffix("...").strip()


def render_and_write(ws: Workspace, found: People, by_id: Mapping[str, EntryItem], today: date,
                     half_life: float, previous: dict[str, str], cache: FacetCache,
                     bodies_cache: dict[str, tuple[tuple, str]],  # type: ignore[type-arg]
                     texts: dict[str, str] | None = None) -> tuple[PageWriter, dict[str, str]]:
    """Render every person's page, write those that change, remove stale ones. `by_id`
    holds (at least) the items superseding a person's history; `bodies_cache` keeps each
    page's body while what it is built from stays the same; `texts` the pages' text as
    read_pages read them in this regeneration."""
    writer = PageWriter(ws, texts)
    people = found.people
    names = tuple(n for p in people for n in p.names)
    name_set = tuple(sorted(set(names)))  # the same for every page: made once
    bodies: dict[str, str] = {}
    for person in people:
        newer = tuple((it.superseded_by, by_id[it.superseded_by].path if it.superseded_by in by_id else None)
                      for it in history(person))
        rank = cache.rank(person, names, half_life)
        # The page's order does not depend on the day: only a plan whose day passed changes it.
        # The facts and mentions are the lists the cache keeps (person.subject and
        # person.mentions themselves), not copies: ~3,000 items a person at 100k that the
        # collector would walk again for every page that changed.
        key = (person.name, person.aliases, person.rel, rank.key[0], cache.mentions_key(person),
               name_set, rank.moved_count(today), half_life, newer)
        hit = bodies_cache.get(person.rel)
        if hit is None or hit[0] != key:
            block = cache.block(person.name, rank, today, lambda: page_block(person.name, rank, today))
            hit = (key, render_page(person, None, by_id, cache.mentions(person), block))
            bodies_cache[person.rel] = hit
        bodies[person.rel] = hit[1]
        writer.write(person, hit[1], previous)
    for rel in set(bodies_cache) - set(bodies):
        del bodies_cache[rel]
    writer.remove_stale(set(bodies))
    writer.sync_folder()
    return writer, bodies
