"""Splitting a category file that grew past what an agent wants to read in one go.

A file with more than `memory.split_items` items (200 by default) is split by topic into
parts beside it, `<name>--<topic>.md` (index.md lists the parts under their parent):

- under memory/, the topic is the person a fact is about ("events--priya.md"), or the
  year when the file is about one person only ("events--2026.md");
- under index/ and skill/, the heading a fact was filed under ("Stack: ..."), else the
  document it came from; when the items left without such a topic are still more than
  the limit (notes with no headings, each from its own document: issue #18 item 4 saw one
  index/knowledge.md reach 11,874 lines), a keyword the content shares
  ("knowledge--postgres.md"): the word most of them hold, picked greedily (`keyword_topics`).

A part past the limit splits again, into siblings ("knowledge--postgres-replica.md",
`part_path`): one keyword many notes share must not grow one part without bound.

Only topics with at least `MIN_PART` items get a part; the rest stay in the parent. A
move is the same as a person moving lines between files: the item keeps its id, text
and metadata (a category change). An item with content nested under it (sub-bullets,
code) stays where it is, so nothing a person wrote under a line is lost. Parts are
written first, then the items are removed from the parent, each write with
CategoryStore's read-verify-write. A crash in between leaves an item in both files;
sync reports the duplicate and indexes one copy, and the next split of that file removes
the parent's copy. Splitting runs under the writer lock, after the index is current.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path

from memfs.config import Config
from memfs.core.categoryfile import CategoryDoc, Slot, parse_category
from memfs.entry.indexfile import PART_SEP, count_words, file_words
from memfs.entry.incremental import People, people_in
from memfs.entry.people import assignments, read_pages
from memfs.entry.pool import EntryItem
from memfs.entry.poolcache import Pool
from memfs.fsutil import read_regular
from memfs.index import repository
from memfs.index.db import IndexDB
from memfs.index.sync import read_category
from memfs.store import CategoryStore, title_of
from memfs.workspace import Workspace, slugify

MIN_PART = 20
_YEAR_SUFFIX = re.compile(r"-\d{4}$")
_HEADING = re.compile(r"^([^:]{2,40}): ")
_RESOURCE = re.compile(r"^resources/\d{4}/\d{2}/\d{2}-(.+)-[0-9a-f]{16}\.\w+")


def topic_of(item: EntryItem, person: str | None) -> str | None:
    """The topic an item would be filed under in a split (None: it stays in the parent)."""
    if item.kind == "memory":
        return person
    m = _HEADING.match(item.text)
    if m and not m.group(1).strip().startswith(("http", "`")):
        return m.group(1).strip()
    src = _RESOURCE.match(item.src or "")
    return src.group(1) if src else None


def plan_split(items: list[EntryItem], subject_of: dict[str, str], min_part: int = MIN_PART,
               limit: int = 0, own: str | None = None) -> dict[str, list[str]]:
    """{part slug: item ids} for one oversized file; empty when no topic is big enough.
    A memory file about one person only (a personal memory) is split by year instead; under
    index/ and skill/, the items no topic took are split by shared keywords when they are
    still more than `limit` (> 0). `own`: the topic a part already is ("priya" for
    events--priya.md): never a part of itself, so its items stay or split further."""
    plan = _plan(items, {it.id: topic_of(it, subject_of.get(it.id)) for it in items}, min_part)
    plan.pop(own or "", None)
    if not plan and items and items[0].kind == "memory":
        plan = _plan(items, {it.id: (it.when or it.learned or "")[:4] or None for it in items}, min_part)
    if limit > 0 and items and items[0].kind != "memory":
        taken = {i for ids in plan.values() for i in ids}
        left = [it for it in items if it.id not in taken]
        if len(left) > limit:
            for slug, ids in keyword_topics(left, min_part).items():
                plan.setdefault(slug, []).extend(ids)
    return plan


def _words_of(item: EntryItem) -> set[str]:
    """The words index.md's keywords count for one item (count_words' filter)."""
    return set(count_words([item])[0])


def keyword_topics(items: list[EntryItem], min_part: int = MIN_PART) -> dict[str, list[str]]:
    """{word slug: item ids}: repeatedly the word held by the most items not yet taken (at
    least `min_part`, never a word more than half of `items` hold: it says nothing about
    any of them), ties to the longer word, then the first in alphabetical order;
    its items are taken. Deterministic, and only items' own words: no model, no corpus."""
    words = {it.id: _words_of(it) for it in items}
    df: Counter[str] = Counter(w for ws in words.values() for w in ws)
    common = {w for w, n in df.items() if n > len(items) // 2}  # the file's own vocabulary, not a topic
    out: dict[str, list[str]] = {}
    left = [it for it in items if words[it.id]]
    while True:
        fit = [(n, w) for w, n in df.items() if n >= min_part and w not in common and slugify(w)
               and slugify(w) not in out]
        if not fit:
            return out
        n, word = min(fit, key=lambda t: (-t[0], -len(t[1]), t[1]))
        taken = [it for it in left if word in words[it.id]]
        out[slugify(word)] = [it.id for it in taken]
        for it in taken:
            df.subtract(words[it.id])
        left = [it for it in left if word not in words[it.id]]
        df = +df


def _plan(items: list[EntryItem], topics: dict[str, str | None], min_part: int) -> dict[str, list[str]]:
    sizes = Counter(slugify(t) for t in topics.values() if t)
    keep = {slug for slug, n in sizes.items() if n >= min_part}
    if not keep or (len(keep) == 1 and sizes[next(iter(keep))] == len(items)):
        return {}  # one topic holds everything: a split would only rename the file
    out: dict[str, list[str]] = {}
    for it in items:
        t = topics[it.id]
        if t and slugify(t) in keep:
            out.setdefault(slugify(t), []).append(it.id)
    return out


def split_large(ws: Workspace, db: IndexDB, config: Config, pool: Pool) -> list[str]:
    """Split every file past the limit; return the files written (to re-index). A file's
    plan is kept with its content (`Pool.memo`): a big file with no topic to split by costs
    nothing at the next write unless it, or who its facts are about, changed."""
    limit = config.memory.split_items
    if limit <= 0:
        return []
    # Top-level files only: a note in a subfolder is a person's, never split (issue #18). A
    # part past the limit is split again, into siblings (`part_path`).
    big = sorted(p for p, fv in pool.files.items() if fv.count > limit and p.count("/") == 1)
    store = CategoryStore(ws, config)
    touched = drop_held_twice(ws, config, list(parents_to_check(db)), store)
    # Who facts are about, a pass over every file's items: needed by memory/ files only (a
    # part of index/ past the limit with no keyword to split by would pay it every input).
    found: People | None = None
    for rel in big:
        if found is None and rel.startswith("memory/"):
            found = people_in(pool, read_pages(ws), lambda path: file_words(pool, path))
        plan = _plan_of(pool, found, rel, limit)
        if plan:
            touched += _move(ws, store, rel, plan)
    return sorted(set(touched))


def _plan_of(pool: Pool, found: People | None, rel: str, limit: int = 0) -> dict[str, list[str]]:
    """plan_split of one file, planned in full only when a topic is big enough: the topic
    sizes are kept with the file's content and updated from the items a write changed, so a
    big file with nothing to split by costs its changed items, not a pass over all of them.
    `found`: the people (needed under memory/ only)."""
    memory = rel.startswith("memory/")
    own = rel.rsplit("/", 1)[-1][:-3].partition(PART_SEP)[2] or None  # a part's own topic: under
    if own and memory:  # memory/ its person, also in their year's part ("priya" of events--priya-2024.md)
        own = _YEAR_SUFFIX.sub("", own)
    # Under index/ and skill/ a topic does not depend on the people (topic_of).
    assert found is not None or not memory
    signature = found.signature if found is not None and memory else None

    def subjects(items: list[EntryItem]) -> dict[str, str]:
        """Who each of `items` is about (an item's person depends only on it and the alias map)."""
        if not (memory and found is not None and found.people):
            return {}
        return {it.id: name for name, (subject, _) in assignments(items, found.alias_of).items() for it in subject}

    def sizes(items: list[EntryItem], sign: int = 1, into: tuple | None = None) -> tuple:  # type: ignore[type-arg]
        by_topic, by_year, n = into if into is not None else (Counter(), Counter(), 0)
        subject_of = subjects(items)
        for it in items:
            n += sign
            t = topic_of(it, subject_of.get(it.id))
            if t:
                by_topic[slugify(t)] += sign
            year = (it.when or it.learned or "")[:4]
            if memory and year:
                by_year[slugify(year)] += sign
        return +by_topic, +by_year, n

    def delta(old: tuple, removed: list[EntryItem], added: list[EntryItem]) -> tuple:  # type: ignore[type-arg]
        return sizes(added, +1, sizes(removed, -1, (Counter(old[0]), Counter(old[1]), old[2])))

    by_topic, by_year, n = pool.memo(rel, ("split-sizes", signature), sizes, delta)
    if own in by_topic:  # never a part of itself (plan_split): its items are left for the fallbacks
        by_topic = Counter({t: k for t, k in by_topic.items() if t != own})
    by_words = False
    if not memory and limit > 0:  # the keyword fallback: are the items no topic takes still too many?
        left = n - (sum(k for k in by_topic.values() if k >= MIN_PART) if _could_split(by_topic, n) else 0)
        if left > limit:  # the words of current items (index.md's own counts, kept per file)
            counts = file_words(pool, rel)[0]
            by_words = any(MIN_PART <= k <= left // 2 for k in counts.values())
    if not (by_words or _could_split(by_topic, n) or (memory and _could_split(by_year, n))):
        return {}
    return pool.memo(rel, ("split-plan", signature, limit),
                     lambda items: plan_split(items, subjects(items), limit=limit, own=own))


def _could_split(sizes: Counter[str], n: int) -> bool:
    """_plan's test that some topic is big enough and not the whole file."""
    keep = [slug for slug, k in sizes.items() if k >= MIN_PART]
    return bool(keep) and not (len(keep) == 1 and sizes[keep[0]] == n)


_CHECKED = "split_checked"


def parents_to_check(db: IndexDB) -> dict[str, str]:
    """{parent: signature} of files with parts whose bytes changed since they were last
    checked for items held twice (a split interrupted between writing a part and rewriting
    its parent leaves a copy in both; sync indexes one and warns)."""
    hashes = repository.file_hashes(db)
    groups: dict[str, list[str]] = {}
    for path in sorted(hashes):
        folder, _, name = path.rpartition("/")
        stem, sep, _ = name[:-3].partition(PART_SEP)
        if sep and stem and f"{folder}/{stem}.md" in hashes:
            groups.setdefault(f"{folder}/{stem}.md", []).append(path)
    try:
        checked = json.loads(db.get_meta(_CHECKED) or "{}")
    except ValueError:
        checked = {}
    out = {}
    for parent, parts in groups.items():
        signature = ",".join(hashes[p] for p in [parent, *parts])
        if checked.get(parent) != signature:
            out[parent] = signature
    return out


def mark_checked(db: IndexDB, parents: list[str]) -> None:
    """Record the current signature of these parents (call after re-indexing them)."""
    if not parents:
        return
    fresh = parents_to_check(db)
    try:
        checked = json.loads(db.get_meta(_CHECKED) or "{}")
    except ValueError:
        checked = {}
    checked.update({p: fresh[p] for p in parents if p in fresh})
    with db.transaction():
        db.set_meta(_CHECKED, json.dumps(checked, sort_keys=True))


def drop_held_twice(ws: Workspace, config: Config, parents: list[str],
                    store: CategoryStore | None = None) -> list[str]:
    """Remove from each parent the single-line items one of its parts holds; the files written."""
    store = store or CategoryStore(ws, config)
    touched: list[str] = []
    for rel in parents:
        touched += _drop_moved(ws, store, rel)
    return touched


def _drop_moved(ws: Workspace, store: CategoryStore, rel: str) -> list[str]:
    """Remove from a parent the single-line items one of its parts already holds, and from a
    part those a part split from it holds (`<name>--<topic>-...`: a split of the part).

    Asked after every write into the parent or a part, so it reads ids without building
    items (a lazy parse: each stamped line's id from its comment) and edits a file only
    when it holds one of them: a full parse of every part and an edit of the parent each
    time was 0.16 s an input once 3,000 notes had filled a file's parts (issue #18 item 4).
    A crash between writing a part and rewriting its source leaves a line in both; an
    index rebuild then indexes the copy in the file that sorts first, so the source's own
    next split may never come: this check finishes the move either way."""
    folder, name = rel.rsplit("/", 1)
    parts: dict[str, frozenset[str]] = {}
    for part in sorted((ws.root / folder).glob(f"{name[:-3]}{PART_SEP}*.md")):
        if part.is_file() and not part.is_symlink():
            parts[f"{folder}/{part.name}"] = _ids_in(part, f"{folder}/{part.name}")
    touched: list[str] = []
    for source in [rel, *parts]:
        moved = frozenset().union(*(ids for p, ids in parts.items()
                                    if p.startswith(source[:-3] + ("-" if source in parts else PART_SEP))))
        if source in parts:  # a part read as empty holds nothing to drop (its next check will see)
            if moved.isdisjoint(parts[source]):
                continue
        else:  # the parent read as empty may be mid-save: the store's edit waits for it
            held = _ids_in(ws.root / rel, rel)
            if not moved or (held and moved.isdisjoint(held)):
                continue

        def drop(doc: CategoryDoc, moved: frozenset[str] = moved) -> None:
            for slot in list(doc.slots):  # item_id(): a LazySlot's Item is built only if it moves
                if not slot.removed and slot.item_id() in moved and _movable(slot):
                    doc.remove(slot.item_id())

        store.edit(source, drop)
        touched.append(source)
    return touched


#: rel -> (digest of the bytes, the ids they hold): a part unchanged since the last check
#: costs a read and a digest, not a parse (keyed by content, never by stat: a stale answer
#: here would drop a parent's line).
_IDS: dict[str, tuple[bytes, frozenset[str]]] = {}
_IDS_MAX = 4096


def _ids_in(path: Path, rel: str) -> frozenset[str]:
    """The ids of the items a category file holds, as a full parse reads them."""
    try:
        data = read_regular(path)
    except OSError:
        return frozenset()
    digest = hashlib.blake2b(data, digest_size=16).digest()
    hit = _IDS.get(rel)
    if hit is not None and hit[0] == digest:
        return hit[1]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:  # with replacement characters, as sync reads it (these bytes, not a re-read)
        text = data.decode("utf-8", errors="replace")
    doc = parse_category(text, rel, lazy=True)
    ids = frozenset(slot.item_id() for slot in doc.slots if not slot.removed)
    if len(_IDS) >= _IDS_MAX:
        _IDS.clear()
    _IDS[rel] = (digest, ids)
    return ids


def _movable(slot: Slot) -> bool:
    """Single-line items only: whatever a person nested under a line stays with it."""
    return slot.start is not None and slot.end is not None and slot.end - slot.start == 1


def part_path(rel: str, slug: str) -> str:
    """Where a split of `rel` puts the topic `slug`: `<name>--<slug>.md` beside a parent, and
    beside a part a sibling, so a family stays one parent and its parts (index.md's grouping,
    the check for items held twice) however often a part splits again: `<name>--<topic>-<slug>.md`
    for a keyword, heading or year within the part's topic, the family's own part for a
    person (a person's facts in another person's part of memory/ go to `<name>--<person>.md`)."""
    folder, name = rel.rsplit("/", 1)
    stem = name[:-3]
    family, sep, _ = stem.partition(PART_SEP)
    if sep and rel.startswith("memory/") and not slug.isdigit():
        return f"{folder}/{family}{PART_SEP}{slug}.md"
    return f"{folder}/{stem}{'-' if sep else PART_SEP}{slug}.md"


def _move(ws: Workspace, store: CategoryStore, rel: str, plan: dict[str, list[str]]) -> list[str]:
    doc, _ = read_category(ws.root / rel, rel)
    if doc.front_error:
        return []
    slots = {s.item.id: s for s in doc.slots if not s.removed}
    parent_title = str(doc.front.get("title") or title_of(rel.rsplit("/", 1)[-1][:-3]))
    is_part = PART_SEP in rel.rsplit("/", 1)[-1]
    touched: list[str] = []
    moved: set[str] = set()
    for slug, ids in sorted(plan.items()):
        items = [slots[i].item for i in ids if i in slots and _movable(slots[i])]
        part = part_path(rel, slug)
        if not items or part == rel:  # (a person's part: their own facts stay where they are)
            continue
        topic = slug.replace("-", " ")
        nested = is_part and part.startswith(rel[:-3] + "-")  # within the part's topic: "Knowledge: design api"
        base = parent_title.split(": ")[0] if is_part and not nested else parent_title  # else "Events: tom"
        front = {"title": f"{base} {topic}" if nested else f"{base}: {topic}",
                 "description": f"{base} about {topic} (split from {rel})."}

        def add(part_doc: CategoryDoc, items=items, front=front, part=part) -> None:  # type: ignore[no-untyped-def]
            if part_doc.front.get("title") == title_of(part.rsplit("/", 1)[-1][:-3]):
                del part_doc.front["title"]  # a new file's default ("Knowledge  postgres"): the topic's title
            for key, value in front.items():
                part_doc.front.setdefault(key, value)
            for item in items:
                if part_doc.find(item.id) is None:
                    part_doc.add(item)

        store.edit(part, add)
        touched.append(part)
        moved.update(it.id for it in items)
    if moved:
        def remove(parent: CategoryDoc) -> None:
            for item_id in sorted(moved):
                slot = parent.find(item_id)
                if slot is not None and _movable(slot):
                    parent.remove(item_id)

        store.edit(rel, remove)
        touched.append(rel)
    return touched
