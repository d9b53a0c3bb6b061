"""index.md: the map an agent navigates by.

Every category file with its path, item count, a one-line summary of what it holds and
the day memfs last learned something there (never a future date); the people, each with
a link to their page; how much raw material is archived; how to search. Empty template
categories share one line instead of crowding the map.

Offline, a category's summary says who it is about, what it mentions most (words that
set it apart from the other files) and the span of dates; in LLM mode the model's
front-matter summary is shown instead.
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections import Counter
from itertools import chain
from dataclasses import dataclass

from memfs.core.model import KINDS
from memfs.core.rootfiles import link_path
from memfs.entry.facets import FILLER, STOPWORDS
from memfs.entry.incremental import FileStats, People, file_stats
from memfs.entry.keywords import Keywords
from memfs.entry.pool import EntryItem
from memfs.entry.poolcache import Pool
from memfs.extract.lexicon import NEGATION_STEMS, PLAIN_VERBS
from memfs.walk import group_of
from memfs.workspace import Workspace

KIND_HEADINGS: dict[str, str] = {
    "memory": "About people (memory/)",
    "index": "Knowledge (index/)",
    "skill": "Skills and tools (skill/)",
}
#: A split part of a big category is named `<parent>--<topic>.md` (see split.py).
PART_SEP = "--"
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9.+#-]*[A-Za-z0-9+#]|[A-Za-z]")
_NAME_SAFE = re.compile(r"[\x00-\x1f\x7f\[\]]")
#: Words that are never a keyword: stopwords, reaction words, plain verbs ("lives", "went"),
#: what "isn't" leaves before its apostrophe ("isn").
_NOT_KEYWORDS = STOPWORDS | FILLER | PLAIN_VERBS | NEGATION_STEMS


@dataclass(frozen=True)
class CategoryRow:
    path: str
    kind: str
    title: str
    description: str
    summary: str  # front-matter summary (the LLM's in LLM mode)
    passages: int = 0  # prose passages a person wrote there (indexed, never rewritten)


@dataclass(frozen=True)
class ResourceStats:
    files: int
    bytes: int
    newest: str | None


def resource_stats(ws: Workspace) -> ResourceStats:
    """Count the archive; its dated paths give the newest input's day."""
    files = total = 0
    newest: str | None = None
    top = ws.resources
    if not top.is_dir() or top.is_symlink():
        return ResourceStats(0, 0, None)
    for folder, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in names:
            if name.startswith(".") or name.endswith(".tmp"):
                continue
            try:
                total += os.stat(os.path.join(folder, name), follow_symlinks=False).st_size
            except OSError:
                continue
            files += 1
            rel = os.path.relpath(os.path.join(folder, name), top).replace(os.sep, "/")
            m = re.match(r"^(\d{4})/(\d{2})/(\d{2})-", rel)
            if m:
                day = "-".join(m.groups())
                newest = max(newest or day, day)
    return ResourceStats(files, total, newest)


def _safe(text: str) -> str:
    """A file title or name as one inert line (a newline in a file name must not inject lines)."""
    return " ".join(_NAME_SAFE.sub(" ", text).split())


def count_words(items: list[EntryItem], sign: int = 1,
                into: tuple[Counter[str], dict[str, Counter[str]], set[str]] | None = None
                ) -> tuple[Counter[str], dict[str, Counter[str]]]:
    """One file's part of keywords: in how many of its items each word occurs, and the
    surface forms it was written in (names are left in; the caller skips them). With
    `into` (counts copied by the caller, surface forms copied here on first change: the
    words already copied are its third part) and `sign` -1, items are taken back out; a
    count that reaches 0 is dropped, so the result equals counting the items afresh."""
    if into is None and sign == 1:  # a whole file (a fresh process counts every file): at C speed
        return _count_file(items)
    c, surface, owned = into if into is not None else (Counter(), {}, None)
    for it in items:
        for word in set(_WORD.findall(it.text)):
            low = word.lower()
            if len(low) < 3 or low in _NOT_KEYWORDS or low.isdigit():
                continue
            c[low] += sign
            if c[low] <= 0:
                del c[low]
            forms = surface.get(low)
            if forms is None:
                forms = surface[low] = Counter()
            elif owned is not None and low not in owned:
                forms = surface[low] = Counter(forms)  # the previous value stays as it was
            if owned is not None:
                owned.add(low)
            forms[word] += sign
            if forms[word] <= 0:
                del forms[word]
            if not forms:
                del surface[low]
    return c, surface


def _count_file(items: list[EntryItem]) -> tuple[Counter[str], dict[str, Counter[str]]]:
    """count_words(items): each surface form's items counted at once (the filter then runs
    once per form, not once per item and form), the same counts in the same key order."""
    c: Counter[str] = Counter()
    surface: dict[str, Counter[str]] = {}
    for word, n in Counter(chain.from_iterable(set(_WORD.findall(it.text)) for it in items)).items():
        low = word.lower()
        if len(low) < 3 or low in _NOT_KEYWORDS or low.isdigit():
            continue
        c[low] += n
        forms = surface.get(low)
        if forms is None:
            forms = surface[low] = Counter()
        forms[word] += n
    return c, surface


def file_words(pool: Pool, path: str) -> tuple[Counter[str], dict[str, Counter[str]]]:
    """A file's keyword counts (its current items'), the memo index.md's keywords, the split
    planner and the people (which words the store writes in lower case) share."""
    return pool.memo(path, ("words",), lambda items: count_words([it for it in items if it.current]), words_delta)


def words_delta(old: tuple[Counter[str], dict[str, Counter[str]]], removed: list[EntryItem],
                added: list[EntryItem]) -> tuple[Counter[str], dict[str, Counter[str]]]:
    """count_words of a file from its previous counts and the items removed and added."""
    into = (Counter(old[0]), dict(old[1]), set())
    count_words([it for it in removed if it.current], -1, into)  # type: ignore[arg-type]
    return count_words([it for it in added if it.current], +1, into)  # type: ignore[arg-type]


def _best_surface(forms: Counter[str]) -> str:
    return sorted(forms.items(), key=lambda t: (-t[1], t[0]))[0][0]


def offline_summary(about: Counter[str], words: list[str], span: str) -> str:
    """'About Priya (6), Dana (1); mentions Leeds, onboarding; dated 2026-08 to 2027-04.'"""
    ranked = sorted(((n, name) for name, n in about.items()), key=lambda t: (-t[0], t[1]))
    parts = []
    if ranked:
        names = [f"{name[:1].upper()}{name[1:]} ({n})" for n, name in ranked[:4]]
        more = f" and {len(ranked) - 4} more" if len(ranked) > 4 else ""
        parts.append("about " + ", ".join(names) + more)
    if words:
        parts.append("mentions " + ", ".join(words))
    if span:
        parts.append(span)
    text = "; ".join(parts)
    return text[:1].upper() + text[1:] + "." if text else ""


def render_index(cats: list[CategoryRow], pool: Pool, people: People, res: ResourceStats, kw: Keywords,
                 llm_summaries: bool = False,
                 row_cache: dict[str, tuple] | None = None) -> str:  # type: ignore[type-arg]
    """index.md's body. `row_cache` keeps each file's row with what it was made from (the very
    objects: a file's stats, people and words are kept while it does not change), so a
    regeneration formats only the rows of changed files (flat5)."""
    paths = sorted({c.path for c in cats} | set(pool.files))
    names = {part.lower() for p in people.people for name in p.names for part in name.split()}
    words = kw.words(pool, paths, names, count_words, _best_surface, words_delta)
    stats = {p: file_stats(pool, p) for p in pool.files}
    empty_stats = FileStats(0, 0, None, "", None)
    kept = row_cache if row_cache is not None else {}
    made: dict[str, tuple] = {}  # type: ignore[type-arg]

    def row(c: CategoryRow) -> str:
        about = people.about_counts(pool, c.path) if c.path in pool.files else Counter()
        st, shown = stats.get(c.path, empty_stats), words.get(c.path, [])
        hit = kept.get(c.path)
        if hit is None or not (hit[1] is st and hit[2] is about and hit[3] is shown and hit[0] == c
                               and hit[4] == llm_summaries):
            hit = (c, st, about, shown, llm_summaries, _row(c, st, about, shown, llm_summaries))
        made[c.path] = hit
        return hit[5]

    lines = ["# Index", "",
             "The map of this memory. Read memory.md next (what to know at the start of every conversation), "
             "then `cat` a person's page or a category file below; skill.md is the operating manual. "
             "The Markdown is the truth: every fact is one line, its id in a trailing HTML comment.", ""]
    if people.people:
        lines += ["## People", ""]
        for p in people.people:
            current = p.current_count if p.current_count is not None else sum(1 for it in p.subject if it.current)
            also = f", also {', '.join(_safe(a) for a in p.aliases)}" if p.aliases else ""
            mentioned = f", mentioned in {len(p.mentions)} more" if p.mentions else ""
            lines.append(f"- [{_safe(p.name[:1].upper() + p.name[1:])}]({p.rel}) ({current} "
                         f"fact{'s' if current != 1 else ''}{mentioned}{also})")
        lines.append("")
    empty: list[str] = []
    cat_paths = {c.path for c in cats}
    parts_of: dict[str, list[CategoryRow]] = {}
    for c in cats:
        parent = _parent(c.path)
        if parent in cat_paths:
            parts_of.setdefault(parent, []).append(c)
    for kind in KINDS:
        rows = [c for c in cats if c.kind == kind and _parent(c.path) not in cat_paths]
        shown = []
        groups: dict[str, list[str]] = {}
        for c in sorted(rows, key=lambda c: c.path):
            parts = parts_of.get(c.path, [])
            if not stats.get(c.path, empty_stats).items and not parts and not c.passages:
                if group_of(c.path) is None:
                    empty.append(link_path(c.path))
                continue
            block = [row(c)]
            for part in sorted(parts, key=lambda p: p.path):
                block.append("  " + row(part))
            group = group_of(c.path)
            if group is None:
                shown.extend(block)
            else:
                groups.setdefault(group, []).extend(block)
        shown.extend(group_lines(groups))
        if shown:
            lines += [f"## {KIND_HEADINGS[kind]}", "", *shown, ""]
    if empty:
        lines += ["Empty for now (filled as facts arrive): " + ", ".join(_safe(e) for e in empty) + ".", ""]
    current = sum(st.current for st in stats.values())
    old = sum(st.items for st in stats.values()) - current
    lines.append(f"{current} current facts in {len(cats) - len(empty)} files"
                 + (f", {old} superseded kept as history." if old else "."))
    lines += ["", "## Raw material", ""]
    if res.files:
        lines.append(f"- {res.files} input{'s' if res.files != 1 else ''} archived in resources/ "
                     f"({_size(res.bytes)}), newest from {res.newest or 'an undated input'}; each fact's "
                     "`src=` points at the turn or section it came from.")
    else:
        lines.append("- Nothing archived yet: drop chats, transcripts and notes into inbox/.")
    if row_cache is not None:
        row_cache.clear()
        row_cache.update(made)
    lines += ["", "## Searching", "",
              '- `memfs recall "where does Priya live now"`: hybrid search (BM25 + vectors), current facts, '
              "each with its file and id; `--json` for programs, `--sources` for the passage behind each."]
    if _has_module("memfs.agents.mcp_server"):
        lines.append("- MCP clients: `memfs mcp` serves the same search as the `recall` tool (plus `remember`, "
                     "`read`, `why`, ...) and these files as `memfs://` resources.")
    else:
        lines.append("- Without a shell: `grep -r` the folders; every fact is one line.")
    return "\n".join(lines)


def _has_module(name: str) -> bool:
    """Whether this install has a module (the MCP server ships with memfs' agents package)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:
        return False


def _parent(path: str) -> str | None:
    folder, _, name = path.rpartition("/")
    stem, sep, _ = name[:-3].partition(PART_SEP)
    return f"{folder}/{stem}.md" if sep and stem else None


#: Files listed per group in index.md; the rest are counted (the folder is one `ls` away).
GROUP_SHOWN = 30


def group_lines(groups: dict[str, list[str]]) -> list[str]:
    """Each subfolder as a category group: its path, how many notes, then its files indented."""
    out: list[str] = []
    for group in sorted(groups):
        rows = groups[group]
        files = sum(1 for r in rows if r.startswith("- "))
        out.append(f"- {_safe(group)}/ (group of {files} note{'s' if files != 1 else ''})")
        kept = rows[:GROUP_SHOWN]
        out.extend("  " + r for r in kept)
        if len(rows) > len(kept):
            out.append(f"  - … and {len(rows) - len(kept)} more in {_safe(group)}/")
    return out


def _row(c: CategoryRow, st: FileStats, about: Counter[str], words: list[str], llm: bool) -> str:
    meta = f"{st.current} fact{'s' if st.current != 1 else ''}"
    if st.items > st.current:
        meta += f" + {st.items - st.current} superseded"
    if st.learned:
        meta += f", last learned {st.learned}"
    if c.passages:
        meta += f", {c.passages} passage{'s' if c.passages != 1 else ''}"
    about_text = (c.summary if llm and c.summary else "") or offline_summary(about, words, st.span) or c.description
    return f"- [{_safe(c.title)}]({link_path(c.path)}) ({meta})" + (f": {_safe(about_text)}" if about_text else "")


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} bytes"
