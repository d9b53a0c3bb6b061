"""Each fact's facet classification kept in the index, so a fresh process need not redo it.

memory.md and the person pages classify every fact of every person (entry/facetrank.Base:
its facets, whether it is a quoted remark, whether it is filler). A long-lived process
keeps the classifications; a fresh one (a one-shot `memfs ingest` or `memfs add`) redid
them all: ~3.5 s of a 9 s one-shot ingest into a 100,000-item store, for ~10 new facts.

A classification depends on the fact's text, category file, type and whether it is dated
after it was learned, which the row's key digests, and on two things kept beside the rows:

- the people's names (a quoted remark is "Name: ..."; a name is not a content word). The
  rows are served for other names too, except for a text whose lower-cased form holds a
  lower-cased name that is in one set and not the other (the rules compare lower-cased
  words; a substring test is wider, so it can only recompute more). Nothing this process
  computed under one set of names is served or saved under another. The first save under
  new names rewrites the table with what the regeneration used, so no row computed under
  the old names is left to be served later;
- the rules themselves (a digest of the patterns, the word lists, the functions' code and
  the rows' layout): another memfs version's rows are never served.

Rows are only added to a table whose names and rules are still the ones this process
read (a daemon and a one-shot `memfs ingest` both write it, one at a time under the
writer lock); otherwise the table is replaced by what this process can vouch for. A
process's first regeneration also drops rows nobody used (facts gone) once they are a
third of the table; a daemon adds rows and leaves the pruning to the next fresh process.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import lru_cache
from types import CodeType

from memfs.entry import facets as facet_rules
from memfs.entry import profile
from memfs.entry.facets import FACETS
from memfs.index import factclasses
from memfs.index.db import IndexDB

#: The rows' layout (`key_of`, `encode`): another one serves no row (with the code of the
#: functions, in `rules_digest`).
FORMAT = 1
_FACET_AT = {name: k for k, (name, _) in enumerate(FACETS)}
_FACET_NAMES = tuple(name for name, _ in FACETS)


@lru_cache(maxsize=1)
def rules_digest() -> str:
    """What the classification is computed by: rows made by other rules are not served."""
    h = hashlib.sha1()
    for name, rule in facet_rules._RULES:
        h.update(f"{name}\0{rule.pattern}\0{rule.flags}\n".encode())
    h.update(json.dumps([_module_rules(), _FACET_NAMES]).encode())
    h.update(f"{FORMAT}\n".encode())
    for fn in (facet_rules.facets_of.__wrapped__, facet_rules.is_filler.__wrapped__,  # type: ignore[attr-defined]
               facet_rules.content_words, profile.is_quoted, classes, encode, decode, key_of):
        _code_digest(h, fn.__code__)
    return h.hexdigest()


def _module_rules() -> list[list[object]]:
    """Every pattern (with its flags), word list and category map at the facet rules' module
    level, by name: one added there is digested without being listed here."""
    out: list[list[object]] = []
    for name, value in sorted(vars(facet_rules).items()):
        if name.startswith("__"):
            continue  # (the module's own: builtins, annotations)
        if isinstance(value, re.Pattern):
            out.append([name, value.pattern, int(value.flags)])
        elif isinstance(value, (set, frozenset)):
            out.append([name, sorted(map(str, value))])
        elif isinstance(value, dict):
            out.append([name, sorted((str(k), str(v)) for k, v in value.items())])
    return out


def _code_digest(h: "hashlib._Hash", code: CodeType) -> None:
    """A function's bytecode and constants, nested code included (a code object's repr
    holds its address, which differs from process to process)."""
    h.update(code.co_code)
    h.update(repr(code.co_names).encode())
    for const in code.co_consts:
        if isinstance(const, CodeType):
            _code_digest(h, const)
        else:
            h.update(repr(const).encode())


def key_of(text: str, category: str, type_: str, future: bool) -> bytes:
    # surrogatepass: any str encodes (a line read from a damaged file may hold lone surrogates)
    return hashlib.blake2b(f"{text}\x1f{category}\x1f{type_}\x1f{int(future)}".encode("utf-8", "surrogatepass"),
                           digest_size=12).digest()


def encode(facets: tuple[str, ...], quoted: bool, filler: bool, moved_filler: bool | None) -> int:
    """facets (at most two), quoted, filler and the filler of the line as an event (None:
    not computed) as one int: 4 bits a facet, then one bit each, then two for the last."""
    code = _FACET_AT[facets[0]] | ((_FACET_AT[facets[1]] + 1 if len(facets) > 1 else 0) << 4)
    moved = 0 if moved_filler is None else 2 if moved_filler else 1
    return code | (quoted << 8) | (filler << 9) | (moved << 10)


def decode(code: int) -> tuple[tuple[str, ...], bool, bool, bool | None] | None:
    """`encode`'s parts; None for a code it cannot have made (a damaged row: a miss)."""
    first, second, moved = code & 15, (code >> 4) & 15, (code >> 10) & 3
    if code >> 12 or first >= len(_FACET_NAMES) or second > len(_FACET_NAMES) or moved == 3 or second == first + 1:
        return None
    facets = (_FACET_NAMES[first], _FACET_NAMES[second - 1]) if second else (_FACET_NAMES[first],)
    return facets, bool(code & 256), bool(code & 512), None if moved == 0 else moved == 2


def classes(seed: "ClassSeed | None", text: str, category: str, type_: str, future: bool, names: tuple[str, ...],
            dated_event: bool) -> tuple[tuple[str, ...], bool, bool]:
    """(facets, filler, filler once the fact is an event) of a fact, as entry/facetrank.Base
    needs them: from `seed` where it holds them, else computed (and offered to it). The
    last is only computed for a plan that can become an event (`dated_event`); else False."""
    key = key_of(text, category, type_, future) if seed is not None else b""
    got = seed.lookup(key, text, names) if seed is not None else None
    if got is not None:
        facets, quoted, filler, moved = got
    else:
        facets = facet_rules.facets_of(text, category, type_, future)
        quoted = profile.is_quoted(text, names)
        filler, moved = facet_rules.is_filler(text, facets[0], quoted, names), None
    movable = facets[0] == "plans" and dated_event
    if movable and moved is None:
        moved = facet_rules.is_filler(text, "events", quoted, names)
        got = None  # kept with the row from now on
    if seed is not None and got is None:
        seed.put(key, encode(facets, quoted, filler, moved))
    return facets, filler, bool(moved) and movable


class ClassSeed:
    """The persisted classifications (`base`, computed under `base_names`, as the table
    holds them) and what this process computed since its last save (`new`, under `_for`)."""

    def __init__(self) -> None:
        self.loaded = False
        self.base: dict[bytes, int] = {}
        self.base_names: tuple[str, ...] | None = None
        self._for: tuple[str, ...] | None = None  # the names lookups are made with (`new`'s)
        self._changed: tuple[str, ...] = ()  # lower-cased names in `_for` or `base_names`, not both
        self.used: dict[bytes, int] = {}  # rows served or computed while `track`
        self.new: dict[bytes, int] = {}  # computed since the last save
        self.track = True  # the first regeneration, or one under new names: record what it uses
        self._first = True  # no save yet: the first regeneration's use decides what is stale
        self.hits = 0

    def load(self, db: IndexDB) -> None:
        """Read the table once (call inside a read snapshot). A table made by other rules,
        or with names that cannot be read, is as good as none."""
        if self.loaded:
            return
        self.loaded = True
        rows, names, rules = factclasses.load(db)
        got = _names(names) if rules == rules_digest() else None
        if got is not None:
            self.base, self.base_names = rows, got

    def _switch(self, names: tuple[str, ...]) -> None:
        """Lookups under other names from now on: nothing computed under the names before is
        served or saved under these."""
        self._for, self.new, self.used = names, {}, {}
        changed = set(names).symmetric_difference(self.base_names or ())
        self._changed = tuple(sorted({n.lower() for n in changed}))
        self.track = self._first or names != self.base_names  # what a rewrite would hold

    def lookup(self, key: bytes, text: str, names: tuple[str, ...]
               ) -> tuple[tuple[str, ...], bool, bool, bool | None] | None:
        """The row's classification for this fact under `names`, or None (compute it)."""
        if names != self._for:
            self._switch(names)
        code = self.new.get(key)
        if code is None:
            code = self.base.get(key)
            if code is None or self.base_names is None:
                return None
            if self._changed:  # the rules compare lower-cased names: so does this guard
                low = text.lower()
                if any(n in low for n in self._changed):
                    return None
        got = decode(code)
        if got is None:
            return None
        self.hits += 1
        if self.track:
            self.used[key] = code
        return got

    def put(self, key: bytes, code: int) -> None:
        self.new[key] = code
        if self.track:
            self.used[key] = code

    def save(self, db: IndexDB) -> None:
        """Write what this process computed, in a transaction of its own (call under the
        writer lock, outside a transaction); this seed changes only once it is committed.

        Rows are added only to a table whose names and rules are the ones this seed holds
        (another process, a daemon of another memfs version, may have rewritten it since
        this one loaded it); otherwise, and under new names, the table is replaced by what
        this process used and computed."""
        names = self._for
        if names is None:
            return
        stale = self.track and len(self.base) > 1.5 * len(self.used) + 1000
        replace = self.track and (names != self.base_names or stale)
        if not replace and not self.new:
            self.track, self.used, self._first = False, {}, False
            return
        rows = dict(self.used) if replace else dict(self.new)
        rules = rules_digest()
        with db.transaction():
            names_on_disk, rules_on_disk = factclasses.meta(db)
            if not replace and (_names(names_on_disk) != self.base_names or rules_on_disk != rules):
                # another process wrote the table under other names or rules: what this one
                # holds for its names is all it can vouch for
                replace, rows = True, {**self.base, **self.new}  # (not replacing: the names are the same)
            factclasses.save(db, rows, json.dumps(list(names)), rules, replace=replace)
        if replace:
            self.base = rows
        else:
            self.base.update(rows)
        self.base_names = names
        self.new, self.used, self.track, self._for, self._changed, self._first = {}, {}, False, None, (), False


def _names(raw: str | None) -> tuple[str, ...] | None:
    try:
        got = json.loads(raw) if raw else None
    except ValueError:
        return None
    return tuple(got) if isinstance(got, list) and all(isinstance(n, str) for n in got) else None
