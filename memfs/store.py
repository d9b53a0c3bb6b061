"""Writing category files without ever overwriting a person's edit (DESIGN invariant 4).

Every change is a function applied to a freshly parsed file. Just before the atomic
rename the file is read again: if a person saved in between, the change is re-applied
to *their* version instead (up to a few times), so both edits survive.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

from memfs.config import Config
from memfs.core.categoryfile import CategoryDoc, dump_front, parse_category
from memfs.core.model import Item
from memfs.errors import ConflictError, MemfsError
from memfs.fsutil import ChangedMeanwhile, atomic_write
from memfs.index.sync import file_digest, read_category
from memfs.workspace import Workspace

SUMMARY_CHARS = 240


def title_of(name: str) -> str:
    return name.replace("-", " ").strip().capitalize() or "Untitled"


def extractive_summary(items: list[Item], max_chars: int = SUMMARY_CHARS) -> str:
    """The most reinforced items first (file order breaks ties), joined until the budget.

    Deliberately free of today's date, so the same items always give the same summary."""
    ranked = sorted(enumerate(items), key=lambda t: (-t[1].seen, t[0]))
    out: list[str] = []
    used = 0
    for _, item in ranked:
        text = item.text.rstrip(".")
        if used + len(text) + 2 > max_chars and out:
            break
        out.append(text[: max_chars - used])
        used += len(text) + 2
    return "; ".join(out) + ("." if out else "")


Summarizer = Callable[[str, list[Item]], str]


def refresh_front(doc: CategoryDoc, config: Config, summarizer: Summarizer | None = None) -> None:
    """Update the front-matter keys memfs owns; keep every key a person added.

    `summarizer(title, items)` writes the summary (the LLM in LLM mode); extractive otherwise."""
    cat = config.categories.get(doc.name)
    front = doc.front
    front.setdefault("title", (cat.title if cat and cat.title else None) or title_of(doc.name))
    front["kind"] = doc.kind
    if not front.get("description") and cat and cat.description:
        front["description"] = cat.description
    items = doc.items
    current = [it for it in items if not it.extra.get("superseded_by")]  # history is not summarised
    front["summary"] = summarizer(str(front["title"]), current) if summarizer and current \
        else extractive_summary(current)
    # `updated` is when memfs learned something, never a future date (a plan's `when` may be).
    dates = [d for it in items for d in (it.updated, it.when) if d and d <= today_iso()]
    if dates:
        front["updated"] = max(dates)
    front["items"] = len(items)


def new_category_doc(rel: str, config: Config) -> CategoryDoc:
    name = rel.rsplit("/", 1)[-1][:-3]
    cat = config.categories.get(name)
    title = (cat.title if cat and cat.title else None) or title_of(name)
    return parse_category(dump_front({"title": title}) + f"# {title}\n", rel)


class CategoryStore:
    """Applies edits to category files; the caller holds the workspace writer lock."""

    def __init__(self, ws: Workspace, config: Config, summarizer: Summarizer | None = None) -> None:
        self.ws = ws
        self.config = config
        self.summarizer = summarizer

    def edit(self, rel: str, change: Callable[[CategoryDoc], None], attempts: int = 5) -> CategoryDoc:
        path = self.ws.root / rel
        for _ in range(attempts):
            doc, before = self._load(path, rel)
            change(doc)
            if not doc.dirty:
                return doc
            refresh_front(doc, self.config, self.summarizer)
            text = doc.render()
            _check_reads_back(doc, text, rel)
            if self._current_digest(path) != before:
                continue  # someone saved meanwhile: re-apply our change to their version
            try:
                # Checked again after the temp file is flushed, right before the rename: a
                # save during the (slow) fsync must not be replaced (hardening fix).
                atomic_write(path, text, precondition=lambda: self._current_digest(path) == before)
            except ChangedMeanwhile:
                continue
            return doc
        raise ConflictError(f"{rel} kept changing while memfs tried to write it; nothing was written, try again")

    def _load(self, path: Path, rel: str) -> tuple[CategoryDoc, str | None]:
        # A symlinked file or folder (memory/ -> elsewhere) would put the write outside
        # the workspace, where the index (which never follows links) would not see it.
        self.ws.safe_target(rel)
        if not path.exists():
            return new_category_doc(rel, self.config), None
        doc, data = read_category(path, rel)
        if doc.front_error:
            raise MemfsError(f"refusing to rewrite {doc.front_error}")
        return doc, file_digest(data)

    @staticmethod
    def _current_digest(path: Path) -> str | None:
        try:
            return file_digest(path.read_bytes())
        except FileNotFoundError:
            return None


def _check_reads_back(doc: CategoryDoc, text: str, rel: str) -> None:
    """Never write a file that does not parse back to the items memfs meant to write.

    Hardening fix: a person's file can end inside a structure (an HTML block, a
    construct the parser reads differently) that would swallow an appended item: written,
    but never read back, so silently lost. Refusing leaves the file as the person left it
    and gives a clear reason (the input goes to inbox/failed/, `memfs add` fails)."""
    want = [(it.id, it.text) for it in doc.items]
    got = [(it.id, it.text) for it in parse_category(text, rel).items]
    if sorted(want) != sorted(got):
        lost = sorted(set(want) - set(got))
        what = f"item {lost[0][0]} would not read back" if lost else "its items would not read back unchanged"
        raise MemfsError(f"{rel}: cannot write it safely ({what}: check the end of the file for an unclosed "
                         "block); nothing was written")


def today_iso() -> str:
    return date.today().isoformat()


