"""The items the entry files are built from, as the entry files need to see them.

The index holds every item but not its extra metadata; supersession (`superseded_by=`,
`until=`) lives in the item's comment in the Markdown. Only lines that carry it are
read back, and per file only when the file's indexed hash changed (cached in the index's
meta table), so regenerating stays cheap at 10^5 items.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from datetime import date

from memfs.core.itemline import split_item_text
from memfs.core.stamps import first_day
from memfs.index import repository
from memfs.index.db import IndexDB
from memfs.workspace import Workspace

SUPERSEDED_KEY = "superseded_by"
UNTIL_KEY = "until"
_HISTORY_META = "entry_history"
_RESOURCE_DATE = re.compile(r"^resources/(\d{4})/(\d{2})/(\d{2})-")


@dataclass(frozen=True)
class EntryItem:
    """One item, with what the entry files need beyond the index row."""

    id: str
    text: str
    type: str
    when: str | None
    src: str | None
    seen: int
    updated: str | None
    path: str
    line: int
    learned: str | None = None
    until: str | None = None
    superseded_by: str | None = None

    @property
    def current(self) -> bool:
        return self.superseded_by is None

    @property
    def kind(self) -> str:
        return self.path.split("/", 1)[0]

    @property
    def category(self) -> str:
        return self.path.rsplit("/", 1)[-1][:-3]

    @property
    def is_skill(self) -> bool:
        return self.type in ("skill", "tool") or self.path.startswith("skill/")


#: '2026', '2026-09' or '2026-09-14' as the first day it can mean; None if not a date.
parse_day = first_day


def learned_date(src: str | None, updated: str | None) -> str | None:
    """The earliest day memfs can have learned an item: the day of the input it came from
    (archive paths are dated by the input's own time), else the day it was added by hand."""
    m = _RESOURCE_DATE.match(src or "")
    stamp = f"{m.group(1)}-{m.group(2)}-{m.group(3)}" if m else updated
    return stamp if parse_day(stamp) is not None else None


def learned_dates(rows: list[tuple[str | None, str | None, str | None]], today: date) -> list[str | None]:
    """When memfs learned each (src, updated, when) item — never the date a fact is *about*
    when that lies ahead: a plan for next April was learned when it was said.

    An input can span months (a multi-session chat is archived under its first session's
    day), so a fact dated after its input's day but no later than the newest input memfs
    has (`horizon`) was learned no earlier than its own date: "moved to Leeds in August",
    said in September's session, is not a plan. A fact dated past the horizon is a plan
    or a deadline and keeps its input's day. Everything is clamped to `today`: an entry
    file never says memfs learned something in the future."""
    base = [learned_date(src, updated) for src, updated, _ in rows]
    days = [d for b in base if (d := parse_day(b)) is not None]
    horizon = min(max(days), today) if days else today
    out: list[str | None] = []
    for (_, _, when), b in zip(rows, base):
        day = parse_day(b)
        if day is None:
            out.append(None)
            continue
        said = parse_day(when)
        if said is not None and day < said <= horizon:
            day = said
        out.append(min(day, horizon).isoformat())
    return out


def load_items(ws: Workspace, db: IndexDB, today: date | None = None) -> tuple[list[EntryItem], str | None]:
    """Every indexed item in (path, line) order, with supersession metadata attached.

    Reads only (call it inside a snapshot); returns the refreshed history cache to store
    with `save_history` afterwards, or None when it did not change."""
    today = today or date.today()
    rows = repository.entry_rows(db)
    history, cache = history_marks(ws, db)
    learned = learned_dates([(r[4], r[6], r[3]) for r in rows], today)
    out: list[EntryItem] = []
    for r, day in zip(rows, learned):
        item = EntryItem(id=r[0], text=r[1], type=r[2], when=r[3], src=r[4], seen=int(r[5]), updated=r[6],
                         path=r[7], line=int(r[8]), learned=day)
        mark = history.get(r[7], {}).get(r[0])
        if mark:
            item = replace(item, until=mark[0] or None, superseded_by=mark[1] or None)
        out.append(item)
    return out, cache


def save_history(db: IndexDB, cache: str | None) -> None:
    if cache is not None:
        with db.transaction():
            db.set_meta(_HISTORY_META, cache)


def history_marks(ws: Workspace, db: IndexDB) -> tuple[dict[str, dict[str, list[str]]], str | None]:
    """{path: {id: [until, superseded_by]}} for every superseded line, cached by file hash."""
    files = repository.file_hashes(db)
    raw = db.get_meta(_HISTORY_META) or "{}"
    try:
        cache = json.loads(raw)
    except ValueError:
        cache = {}
    fresh: dict[str, list] = {}  # type: ignore[type-arg]
    for path, file_hash in sorted(files.items()):
        hit = cache.get(path) if isinstance(cache, dict) else None
        if isinstance(hit, list) and len(hit) == 2 and hit[0] == file_hash and isinstance(hit[1], dict):
            fresh[path] = hit
            continue
        fresh[path] = [file_hash, _scan(ws, path)]
    encoded = json.dumps(fresh, sort_keys=True, separators=(",", ":"))
    marks = {path: entry[1] for path, entry in fresh.items() if entry[1]}
    return marks, (encoded if encoded != raw else None)


def _scan(ws: Workspace, rel: str) -> dict[str, list[str]]:
    """The superseded item lines of one file (only lines that mention the key are parsed)."""
    try:
        data = (ws.root / rel).read_bytes()
    except OSError:
        return {}
    if SUPERSEDED_KEY.encode() not in data:
        return {}
    marks: dict[str, list[str]] = {}
    for line in data.decode("utf-8", errors="replace").splitlines():
        stripped = line.lstrip()
        if SUPERSEDED_KEY not in line or not stripped[:2] in ("- ", "* ", "+ "):
            continue
        _, meta = split_item_text(stripped[2:])
        if meta and meta.get(SUPERSEDED_KEY):
            marks[meta["id"]] = [meta.get(UNTIL_KEY, ""), meta[SUPERSEDED_KEY]]
    return marks
