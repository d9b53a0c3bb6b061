"""Who the memory is about: the people named as the subject of its facts.

A person is a name that opens at least two facts, one of them about people (under
memory/): "Priya lives in Leeds.", "Priya: The prototype is due ...". Anyone with a page
a person wrote or annotated under people/ is a person too.
Aliases come from the page's front-matter (`aliases: [Mel]`), so "Mel" and "Melanie"
are one person; a two-word name whose first word is a person ("Dana Whitfield") is an
alias of that person. A fact belongs to the person it names first (within its first
words); every other person it names sees it as a mention.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from memfs.core.categoryfile import parse_category
from memfs.entry.pagefile import digest, read_page, split_page
from memfs.entry.pool import EntryItem
from memfs.extract.lexicon import FILLER, PLAIN_VERBS, STOPWORDS
from memfs.fsutil import emptied_just_now
from memfs.workspace import Workspace, slugify

PEOPLE_DIR = "people"
GENERIC_USER = "the user"
#: A fact is about the first person it names only if the name comes this early.
SUBJECT_WITHIN_WORDS = 6
MIN_FACTS = 2

_LEAD_WORDS = re.compile(r"[^\W\d_][\w-]*")
_NOT_NAMES = frozenset(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday today yesterday tomorrow tonight "
    "big new first last next early late dear mr mrs ms dr sir madam stack decisions note notes "
    "update updates meeting agenda summary todo action week month year morning evening "
    # sentence openers that are no one's name
    "sometimes instead however anyway also still maybe perhaps meanwhile otherwise besides plus since "
    "though although while because whenever once finally eventually overall together again already "
    "thankfully unfortunately fortunately luckily sadly honestly actually basically hopefully recently "
    "lately currently usually definitely absolutely especially apparently obviously seriously really".split())


@dataclass(frozen=True)
class PageFront:
    """What a person page's front-matter says (the part of a page a person owns)."""

    rel: str
    title: str
    aliases: tuple[str, ...] = ()
    error: str | None = None
    owned: bool = True  # a person wrote in it (or it is not one memfs made): it makes its title a person


@dataclass
class Person:
    name: str
    aliases: tuple[str, ...] = ()
    subject: list[EntryItem] = field(default_factory=list)
    mentions: list[EntryItem] = field(default_factory=list)
    page: str | None = None
    #: Set by incremental.people_in from per-file parts (None: computed from the lists).
    subject_score: float | None = None
    superseded: list[EntryItem] | None = None
    current_count: int | None = None  # of `subject` (set by entry/peoplecache.py)

    @property
    def slug(self) -> str:
        return slugify(self.name)

    @property
    def rel(self) -> str:
        return self.page or f"{PEOPLE_DIR}/{self.slug}.md"

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    @property
    def score(self) -> float:
        subject = (self.subject_score if self.subject_score is not None
                   else sum(1 + math.log(it.seen) for it in self.subject if it.current))
        return subject + 0.3 * len(self.mentions)


def read_pages(ws: Workspace, texts: dict[str, str] | None = None) -> list[PageFront]:
    """The front-matter of every page under people/ (symlinks and hidden files skipped).
    `texts`, if given, receives each page's text by its path (people/name.md)."""
    folder = ws.root / PEOPLE_DIR
    if not folder.is_dir() or folder.is_symlink():
        return []
    out: list[PageFront] = []
    for path in sorted(folder.iterdir()):
        if not path.name.endswith(".md") or path.name.startswith(".") or path.is_symlink() or not path.is_file():
            continue
        rel = f"{PEOPLE_DIR}/{path.name}"
        out.append(read_page_front(path, rel, texts))
    return out


#: {page path: (its text, what its front-matter says)}: a page is read at every
#: regeneration, but parsed (YAML, the block's digest) only when its text changed.
_FRONTS: dict[str, tuple[str, PageFront]] = {}
_FRONTS_MAX = 4096


def read_page_front(path: Path, rel: str, texts: dict[str, str] | None = None) -> PageFront:
    stem = path.name[:-3]
    try:
        text = read_page(path)
    except (OSError, UnicodeDecodeError) as err:
        return PageFront(rel, stem, error=f"{rel}: cannot read ({err})")
    if not text and emptied_just_now(path):
        # Emptied a moment ago: an editor that truncates before it writes may be mid-save.
        # Read as unreadable, it stays this person's page, and no other is made meanwhile;
        # the writer leaves it alone this time (pages.PageWriter.write).
        return PageFront(rel, stem, error=f"{rel}: empty, perhaps being saved; left as it is")
    if texts is not None:
        texts[rel] = text
    key = f"{path}\0{rel}"
    hit = _FRONTS.get(key)
    if hit is not None and hit[0] == text:
        return hit[1]
    front = parse_page_front(text, stem, rel)
    if len(_FRONTS) >= _FRONTS_MAX:
        _FRONTS.clear()
    _FRONTS[key] = (text, front)
    return front


def parse_page_front(text: str, stem: str, rel: str) -> PageFront:
    """What a page's text says about its person (`stem`: the file name without .md)."""
    front_block = _front_block(text)
    doc = parse_category(front_block, rel)
    if doc.front_error:
        return PageFront(rel, stem, error=doc.front_error)
    title = str(doc.front.get("title") or stem).strip() or stem
    raw = doc.front.get("aliases") or []
    if isinstance(raw, str):
        raw = [raw]
    aliases = tuple(dict.fromkeys(str(a).strip() for a in raw if isinstance(a, (str, int)) and str(a).strip()))
    aliases = tuple(a for a in aliases if a != title)
    parts = split_page(text)
    untouched = (parts is not None and parts.body is not None and parts.recorded == digest(parts.body)
                 and not parts.before.strip() and not parts.after.strip() and set(doc.front) <= {"title"})
    return PageFront(rel, title, aliases, owned=bool(aliases) or not untouched)


def _front_block(text: str) -> str:
    if not text.startswith("---\n"):
        return ""
    end = text.find("\n---\n", 4)
    return text[: end + 5] if end >= 0 else ""


def _is_name(word: str) -> bool:
    """A capitalised word that is not a common one ("Priya", "Zoë", not "The", "Big")."""
    return (len(word) >= 2 and word[0].isupper() and word[1].islower() and word.replace("-", "").isalpha()
            and word.lower() not in STOPWORDS and word.lower() not in FILLER and word.lower() not in _NOT_NAMES)


def _lead_names(text: str) -> list[str]:
    """The name a fact opens with, and the two-word form if the next word is a name too."""
    if text[:9].lower() in (GENERIC_USER + " ", GENERIC_USER + "'"):
        return [GENERIC_USER]
    found = list(islice(_LEAD_WORDS.finditer(text.lstrip("\\")[:80]), 2))  # (not all ~12 words)
    words = [m.group() for m in found]
    if not words or not _is_name(words[0]) or _opens_a_clause(text.lstrip("\\"), found):
        return []
    names = [words[0]]
    if len(words) > 1 and _is_name(words[1]) and not text.lstrip("\\")[len(words[0]):].startswith(("'", ":")):
        names.append(f"{words[0]} {words[1]}")
    return names


#: Words after which a first word in -ing is a gerund, not someone: "Losing the job ...",
#: "Searching for a studio ...", "Living in Porto ...".
_AFTER_GERUND = frozenset("the a an my your his her its our their this that these those for of with in to at on "
                          "from about by up out into through around me you him it us them everyone people".split())


def _opens_a_clause(text: str, found: list[re.Match[str]]) -> bool:
    """An adverb in -ly set off by a comma ("Unfortunately, Gina lost ..."), or a word in -ing
    followed by a determiner, a preposition or someone's possessive ("Losing Jon's job ..."):
    it opens the sentence, it is no one. ("Caroline, a counselor, ..." and "Dana Whitfield's
    team ..." still lead their names.)"""
    first = found[0].group().lower()
    end = found[0].end()
    if first.endswith("ly") and text[end:end + 1] == ",":
        return True
    if not first.endswith("ing") or len(first) < 5 or len(found) < 2:
        return False
    second = found[1]
    return second.group().lower() in _AFTER_GERUND or text[second.end():second.end() + 2] in ("'s", "’s")


def find_people(items: list[EntryItem], pages: list[PageFront],
                case: Mapping[str, tuple[int, int]] | None = None) -> list[Person]:
    """The people, most central first (facts about them, weighted by reinforcement).
    `case`: each word's lower-case and capitalised uses across the store (`case_uses`)."""
    counts, in_memory = lead_counts(items)
    people, alias_of = people_of(counts, set(in_memory), pages, case)
    if not people:
        return []
    _assign(items, people, alias_of)
    return ordered(people)


def lead_counts(items: list[EntryItem], sign: int = 1, into: tuple[dict[str, int], dict[str, int]] | None = None
                ) -> tuple[dict[str, int], dict[str, int]]:
    """How many facts each name opens, and how many of them under memory/ (`sign` -1 and
    `into` take items back out of earlier counts; a name that reaches 0 is dropped)."""
    counts, in_memory = into if into is not None else ({}, {})
    for it in items:
        if it.is_skill:
            continue
        for name in _lead_names(it.text):
            if it.kind != "memory" and it.text[len(name):].startswith(":"):
                continue  # a knowledge line led by its heading ("Stack: ...")
            _bump(counts, name, sign)
            if it.kind == "memory":
                _bump(in_memory, name, sign)
    return counts, in_memory


def _bump(counts: dict[str, int], key: str, sign: int) -> None:
    n = counts.get(key, 0) + sign
    if n:
        counts[key] = n
    else:
        counts.pop(key, None)


def case_uses(words: tuple[Mapping[str, int], Mapping[str, Mapping[str, int]]], surface: str) -> tuple[int, int]:
    """(items writing the word in lower case, items writing it as `surface`) in one file,
    from its keyword counts (indexfile.count_words: each word's surface forms, by items)."""
    forms = words[1].get(surface.lower())
    return (forms.get(surface.lower(), 0), forms.get(surface, 0)) if forms else (0, 0)


def common_word(name: str, counts: dict[str, int], case: Mapping[str, tuple[int, int]] | None) -> bool:
    """A capitalised word that opens facts only as the first word of a sentence ("Nature",
    "Seeing", and "Seeing Nate"): the store writes its first word in lower case at least as
    often as the facts it opens, and capitalised elsewhere (items beyond those facts) less
    often than in lower case; or it is a word in -ing the store also writes in lower case (a
    gerund). A name is written capitalised, and mostly so: "with Rose", "told Max", and a
    "hey dana" now and then does not make Dana a word. A listed plain verb is no one."""
    first = name.split()[0]
    if first.lower() in PLAIN_VERBS:
        return True  # "Makes Melanie feel ...": a verb whose subject the line lost
    if case is None:
        return False
    lower, capital = case[first]
    if not lower:
        return False
    if len(first) >= 6 and first.endswith("ing"):
        return True
    return lower >= counts[name] and capital - counts[name] < lower


def people_of(counts: dict[str, int], in_memory: set[str], pages: list[PageFront],
              case: Mapping[str, tuple[int, int]] | None = None) -> tuple[dict[str, Person], dict[str, str]]:
    """The people (no facts assigned yet) and {name or alias: person}. With `case` (each
    word's lower-case and capitalised uses across the store, `case_uses`), a common word is
    no one (`common_word`)."""
    people: dict[str, Person] = {}
    alias_of: dict[str, str] = {}
    for page in pages:
        if page.error or not page.owned or page.title in alias_of:
            continue
        people[page.title] = Person(page.title, page.aliases, page=page.rel)
        alias_of[page.title] = page.title
        for a in page.aliases:
            alias_of.setdefault(a, page.title)
    for name in sorted(counts, key=lambda n: (len(n.split()), n)):
        # A person opens at least two facts, one of them under memory/ ("Python" opening two
        # knowledge lines is not a person).
        if counts[name] < MIN_FACTS or name not in in_memory or name in alias_of or common_word(name, counts, case):
            continue
        first = name.split()[0]
        if " " in name and first in alias_of:  # "Dana Whitfield" is Dana
            owner = people[alias_of[first]]
            owner.aliases = (*owner.aliases, name)
            alias_of[name] = owner.name
            continue
        people[name] = Person(name)
        alias_of[name] = name
    return people, alias_of


def ordered(people: dict[str, Person]) -> list[Person]:
    """Most central first; a page name two people would share goes to the more central."""
    out = sorted(people.values(), key=lambda p: (-p.score, p.name.lower()))
    used: set[str] = {p.page for p in out if p.page}
    for p in out:  # "Zoë" and "Zoe" would share people/zoe.md: the less central gets zoe-2.md
        if p.page is None:
            rel, n = p.rel, 2
            while rel in used:
                rel, n = f"{PEOPLE_DIR}/{p.slug}-{n}.md", n + 1
            p.page = rel
            used.add(rel)
    return out


def assignments(items: list[EntryItem],
                alias_of: dict[str, str]) -> dict[str, tuple[list[EntryItem], list[EntryItem]]]:
    """{person: (facts about them, facts that mention them)} among `items`, in their order."""
    people = {owner: Person(owner) for owner in set(alias_of.values())}
    _assign(items, people, alias_of)
    return {name: (p.subject, p.mentions) for name, p in people.items() if p.subject or p.mentions}


def _assign(items: list[EntryItem], people: dict[str, Person], alias_of: dict[str, str]) -> None:
    names = sorted(alias_of, key=lambda n: (-len(n), n))
    alts = ["(?i:the user)" if n == GENERIC_USER else re.escape(n) for n in names]
    rx = re.compile(r"(?<![\w'])(" + "|".join(alts) + r")(?![\w-])")
    for it in items:
        if it.is_skill:
            continue
        seen: list[str] = []
        first_at = 0
        for m in rx.finditer(it.text):
            hit = m.group(1)
            owner = alias_of.get(hit) or (GENERIC_USER if hit.lower() == GENERIC_USER else None)
            if owner is None:
                continue
            if not seen:
                first_at = m.start()
            if owner not in seen:
                seen.append(owner)
        if not seen:
            continue
        words_before = len(it.text[:first_at].split())
        rest = seen
        if words_before <= SUBJECT_WITHIN_WORDS:
            people[seen[0]].subject.append(it)
            rest = seen[1:]
        for owner in rest:
            people[owner].mentions.append(it)
