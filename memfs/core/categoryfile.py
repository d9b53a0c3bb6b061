"""A category file (`memory/<cat>.md`, `index/<topic>.md`, `skill/<name>.md`) in memory.

Parsing keeps every byte it does not understand: the front-matter block and every body
line that is not an item are carried verbatim, and an item line memfs wrote is re-emitted
as it was unless the item changed. So rendering a file that was only read gives back the
same bytes, and a write touches only the lines whose meaning changed (invariant 5, docs/architecture.md).

The body's structure comes from mistune's block AST: a subclassed block parser records
where each top-level block starts and ends, so item lines inside code fences, quotes or
HTML blocks are never mistaken for items.
"""

from __future__ import annotations

import bisect
import copy
import dataclasses
import re
import sys
from dataclasses import dataclass, field
from typing import Any

import yaml
from frontmatter.default_handlers import YAMLHandler
from mistune.block_parser import BlockParser
from mistune.core import BlockState

from memfs.core.itemline import item_from_meta, parse_meta, render_item_line, split_item_text, text_id
from memfs.core.model import DEFAULT_TYPE_OF_KIND, Item

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_FM_HANDLER = YAMLHandler()
_MARKER = re.compile(r"^( {0,3})([-+*]|\d{1,9}[.)])([ \t]+|$)")
#: The most values a front-matter may expand to, aliases counted at every use. YAML
#: anchors let a few hundred bytes stand for billions of values ("billion laughs"); the
#: safe loader builds them by reference, but anything that walks or prints the result
#: (str(), ==, the index) would expand them. Hardening fix: refuse such front-matter.
FRONT_MAX_VALUES = 100_000
#: Front-matter keys memfs owns, in the order it writes them.
FRONT_KEYS: tuple[str, ...] = ("title", "kind", "description", "summary", "updated", "items")


class _SpanBlockParser(BlockParser):
    """A block parser that tags each top-level token with its source span."""

    def parse_method(self, m: re.Match[str], state: BlockState) -> int | None:  # type: ignore[override]
        before = len(state.tokens)
        end = super().parse_method(m, state)
        if state.parent is None:
            stop = end if end else state.cursor
            for tok in state.tokens[before:]:
                tok.setdefault("_span", (m.start(), stop))
        return end


_block = _SpanBlockParser()


@dataclass
class Slot:
    """Where an item sits in the body: lines [start, end), and the bytes it had."""

    item: Item
    start: int | None
    end: int | None
    raw: str = ""
    stamped: bool = False
    parsed: Item | None = None
    removed: bool = False
    #: How many lines the item's own text spans; the lines after them up to `end`
    #: (sub-bullets, continuation paragraphs, code) are a person's and kept verbatim.
    head: int = 1
    #: The marker as written (indent, `-`/`*`/`1.`, spacing), kept when the line is rewritten.
    prefix: str = "- "

    @property
    def changed(self) -> bool:
        return self.parsed is None or not self.stamped or self.item != self.parsed


@dataclass
class CategoryDoc:
    """A parsed category file. `path` is relative to the workspace, e.g. 'memory/preferences.md'."""

    path: str
    front: dict[str, Any]
    front_raw: str
    lines: list[str]
    slots: list[Slot]
    warnings: list[str] = field(default_factory=list)
    front_error: str | None = None
    _front_parsed: dict[str, Any] = field(default_factory=dict)
    #: A UTF-8 byte-order mark the file began with (kept on every write).
    bom: bool = False
    #: The file's line ending: lines memfs writes use the same one ("\r\n" for a CRLF file).
    newline: str = "\n"
    #: "yaml" (`---`), "toml" (`+++`, read but never edited) or "" (no front-matter).
    front_format: str = ""

    @property
    def kind(self) -> str:
        return self.path.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1][:-3]

    @property
    def items(self) -> list[Item]:
        return [s.item for s in self.slots if not s.removed]

    def find(self, item_id: str) -> Slot | None:
        for slot in self.slots:
            if not slot.removed and slot.item.id == item_id:
                return slot
        return None

    def add(self, item: Item) -> None:
        self.slots.append(Slot(item=item, start=None, end=None))

    def remove(self, item_id: str) -> bool:
        slot = self.find(item_id)
        if slot is None:
            return False
        slot.removed = True
        return True

    @property
    def dirty(self) -> bool:
        return self.front != self._front_parsed or any(
            s.removed or (s.start is None) or (s.changed and s.stamped) for s in self.slots
        )

    def render(self) -> str:
        """The file's text. Untouched parts come back byte for byte.

        A changed front-matter is edited line by line (only the keys whose value changed),
        so a person's comments, flow lists and key order survive (issue #10, item 11)."""
        if self.front == self._front_parsed:
            head = self.front_raw
        elif not self.front_raw:
            head = dump_front(self.front).replace("\n", self.newline)
        else:
            head = edit_front(self.front_raw, self._front_parsed, self.front, self.newline, self.path)
        return ("\ufeff" if self.bom else "") + head + self._render_body()

    def _line_of(self, slot: Slot) -> str:
        """A changed item's text line(s), with the marker the person used and the file's newline."""
        return slot.prefix + render_item_line(slot.item)[2:] + self.newline

    def _render_body(self) -> str:
        existing = [s for s in self.slots if s.start is not None]
        new = [s for s in self.slots if s.start is None and not s.removed]
        by_start = {s.start: s for s in existing}
        insert_at = max((s.end for s in existing if s.end is not None), default=None)
        out: list[str] = []
        i = 0
        n = len(self.lines)
        nl = self.newline
        while i < n:
            slot = by_start.get(i)
            if slot is not None:
                end = slot.end if slot.end is not None else i + 1
                if not slot.removed:
                    if not slot.changed:
                        out.append(slot.raw)
                    else:
                        # Only the item's own line(s) change; what a person nested under
                        # it (sub-bullets, paragraphs, code) is carried byte for byte.
                        out.append(self._line_of(slot))
                        out.extend(self.lines[i + slot.head:end])
                i = end
                if i == insert_at:
                    if out and not out[-1].endswith("\n"):
                        out[-1] += nl
                    out.extend(render_item_line(s.item) + nl for s in new)
                    new = []
                continue
            out.append(self.lines[i])
            i += 1
        if new:
            if out and not out[-1].endswith("\n"):
                out[-1] += nl
            fence = _open_fence(out)
            if fence:
                # Hardening fix: the body ends inside a code fence a person left open. An
                # unclosed fence runs to the end of the file, so appended items would be
                # swallowed as code (written, but never read back). Closing it keeps the
                # code block exactly as it was and puts the items after it.
                out.append(fence + nl)
            if out and out[-1].strip() and not _MARKER.match(out[-1]):
                out.append(nl)
            out.extend(render_item_line(s.item) + nl for s in new)
        return "".join(out)


_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_FENCE_CLOSE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*$")


def _open_fence(lines: list[str]) -> str | None:
    """The marker of a top-level code fence still open after `lines`, else None."""
    fence: str | None = None
    for line in lines:
        text = line.rstrip("\r\n")
        if fence is None:
            m = _FENCE_OPEN.match(text)
            if m and not (m.group(1)[0] == "`" and "`" in text[m.end():]):
                fence = m.group(1)
        else:
            m = _FENCE_CLOSE.match(text)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
    return fence


def dump_front(front: dict[str, Any]) -> str:
    """Front-matter in a fixed key order (memfs' keys first), so output is deterministic."""
    ordered = {k: front[k] for k in FRONT_KEYS if k in front}
    ordered.update({k: v for k, v in front.items() if k not in ordered})
    text = yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True, width=10**9, default_flow_style=False)
    return f"---\n{text}---\n"


def _split_front(text: str) -> tuple[str, str, str, str]:
    """(whole front-matter block incl. delimiters, its inner text, body, format) — exact substrings.

    `---` opens YAML front-matter, `+++` TOML (Hugo, Zola); the format is "" without one."""
    for delim, fmt in (("---", "yaml"), ("+++", "toml")):
        if text.startswith(delim + "\n") or text.startswith(delim + "\r\n"):
            break
    else:
        return "", "", text, ""
    first_nl = text.index("\n") + 1
    if fmt == "yaml":
        m = _FM_HANDLER.FM_BOUNDARY.search(text, first_nl)  # type: ignore[union-attr]
    else:
        m = _TOML_BOUNDARY.search(text, first_nl)
    if m is None:
        return "", "", text, ""
    end = m.end()
    if end < len(text) and text[end] == "\r":
        end += 1
    if end < len(text) and text[end] == "\n":
        end += 1
    return text[:end], text[first_nl : m.start()], text[end:], fmt


_TOML_BOUNDARY = re.compile(r"^\+{3}\s*$", re.MULTILINE)


def edit_front(front_raw: str, old: dict[str, Any], new: dict[str, Any], newline: str, path: str) -> str:
    """Apply the changed top-level keys to YAML front-matter as line edits.

    Only a changed key's own lines are replaced, removed or (for a new key) appended, so
    comments, flow lists, quoting and order of everything else stay as the person wrote
    them. The result must load back to exactly `new`, or nothing is written."""
    first_nl = front_raw.index("\n") + 1
    m = _FM_HANDLER.FM_BOUNDARY.search(front_raw, first_nl)  # type: ignore[union-attr]
    assert m is not None
    opening, inner, closing = front_raw[:first_nl], front_raw[first_nl:m.start()], front_raw[m.start():]
    lines = split_lines(inner)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += newline
    blocks = _top_level_blocks(lines)
    changed = [k for k in list(old) + [k for k in new if k not in old] if old.get(k, _MISSING) != new.get(k, _MISSING)]
    replace: dict[int, list[str]] = {}
    drop: set[int] = set()
    appended: list[str] = []
    for key in changed:
        span = blocks.get(key) if isinstance(key, str) else None
        text = _dump_key(key, new[key], newline) if key in new else []
        if span is None and key in old:
            raise_front(path, key)
        if span is None:
            appended.extend(text)
            continue
        a, b = span
        replace[a] = text
        drop.update(range(a + 1, b))
    out: list[str] = []
    for i, line in enumerate(lines):
        if i in replace:
            out.extend(replace[i])
        elif i not in drop:
            out.append(line)
    out.extend(appended)
    result = opening + "".join(out) + closing
    try:
        loaded = _FM_HANDLER.load("".join(out)) or {}
    except yaml.YAMLError:
        loaded = None
    if loaded != new:
        raise_front(path, changed[0] if changed else "?")
    return result


_MISSING = object()
_TOP_KEY = re.compile(r"""^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"?:{}\[\]!&*|>%@`-][^:#\r\n]*?)[ \t]*:(?:[ \t]|\r?\n|$)""")


def _top_level_blocks(lines: list[str]) -> dict[str, tuple[int, int]]:
    """Top-level key -> its lines [a, b): the key line plus its indented (or `- `) continuation."""
    out: dict[str, tuple[int, int]] = {}
    i = 0
    while i < len(lines):
        m = _TOP_KEY.match(lines[i])
        if not m:
            i += 1
            continue
        key = m.group(1)
        if key[:1] in "'\"":
            try:
                key = str(yaml.safe_load(key))
            except yaml.YAMLError:
                i += 1
                continue
        j = i + 1
        while j < len(lines) and (lines[j][:1] in (" ", "\t") or lines[j].startswith("- ")
                                  or lines[j].rstrip("\r\n") in ("-", "")):
            j += 1
        while j > i + 1 and not lines[j - 1].strip():
            j -= 1
        out.setdefault(key, (i, j))
        i = j
    return out


def _dump_key(key: str, value: Any, newline: str) -> list[str]:
    text = yaml.safe_dump({key: value}, sort_keys=False, allow_unicode=True, width=10**9, default_flow_style=False)
    return [line.replace("\n", newline) for line in split_lines(text)]


def raise_front(path: str, key: object) -> None:
    from memfs.errors import MemfsError

    raise MemfsError(f"{path}: cannot update front-matter key {key!r} without reformatting the person's YAML "
                     "(its layout is not one memfs edits line by line); nothing was written")


def _yaml_error_line(err: yaml.YAMLError) -> int | None:
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    return mark.line + 2 if mark is not None else None  # +1 for 1-based, +1 for the '---' line


#: One parsed document, handed to the next parse of exactly the same (path, text). The
#: store parses what it is about to write (to check it reads back); the index then reads
#: that very file: the second parse of a 50k-item file is skipped (issue #10, item 11).
#: Taken, not shared: whoever receives it owns it, so a mutation can never leak.
_HANDOFF: dict[tuple[str, str], CategoryDoc] = {}


def clone(doc: CategoryDoc) -> CategoryDoc:
    """An independent copy to apply a change to. Items are shared: a change replaces
    `slot.item` (model_copy) and never mutates an Item in place."""
    return CategoryDoc(
        path=doc.path, front=copy.deepcopy(doc.front), front_raw=doc.front_raw, lines=list(doc.lines),
        slots=[dataclasses.replace(s) for s in doc.slots], warnings=list(doc.warnings), front_error=doc.front_error,
        _front_parsed=copy.deepcopy(doc._front_parsed), bom=doc.bom, newline=doc.newline,
        front_format=doc.front_format)


def hand_off(doc: CategoryDoc, text: str) -> None:
    """Offer `doc` (parsed from `text`, not mutated since) to the next parse of `text`."""
    _HANDOFF.clear()
    _HANDOFF[(doc.path, text)] = doc


def parse_category(text: str, path: str) -> CategoryDoc:
    """Parse a category file's text. Never raises for bad content: problems become warnings."""
    if _HANDOFF:
        ready = _HANDOFF.pop((path, text), None)
        if ready is not None:
            return ready
    warnings: list[str] = []
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    front_raw, yaml_text, body, front_format = _split_front(text)
    front: dict[str, Any] = {}
    front_error: str | None = None
    if front_format == "toml":
        try:
            loaded_toml = tomllib.loads(yaml_text)
            _check_expansion(loaded_toml)
            front = loaded_toml
        except (tomllib.TOMLDecodeError, ValueError) as err:
            front_error = f"{path}: broken TOML front-matter ({err}); file indexed without it, never rewritten"
            warnings.append(front_error)
    elif front_raw:
        try:
            loaded = _FM_HANDLER.load(yaml_text)
            if loaded is None:
                loaded = {}
            if not isinstance(loaded, dict):
                raise yaml.YAMLError("front-matter is not a mapping")
            _check_expansion(loaded)
            front = loaded
        except (yaml.YAMLError, ValueError, TypeError, RecursionError) as err:
            line = _yaml_error_line(err) if isinstance(err, yaml.YAMLError) else None
            where = f"{path}:{line}" if line else path
            first = str(err).splitlines()[0] if str(err) else type(err).__name__
            front_error = f"{where}: broken front-matter ({first}); file indexed without it, never rewritten"
            warnings.append(front_error)
    kind = path.split("/", 1)[0]
    default_type = DEFAULT_TYPE_OF_KIND.get(kind, "profile")
    lines = split_lines(body)
    slots = _parse_slots(body, lines, path, default_type, warnings)
    first_end = text.find("\n")
    doc = CategoryDoc(
        path=path, front=front, front_raw=front_raw, lines=lines, slots=slots,
        warnings=warnings, front_error=front_error, bom=bom,
        newline="\r\n" if first_end > 0 and text[first_end - 1] == "\r" else "\n", front_format=front_format,
    )
    doc._front_parsed = copy.deepcopy(front)
    return doc


def _check_expansion(value: Any) -> None:
    """Raise ValueError if `value` expands to more than FRONT_MAX_VALUES values (or is recursive)."""
    stack = [value]
    count = 0
    while stack:
        item = stack.pop()
        count += 1
        if count > FRONT_MAX_VALUES:
            raise ValueError(f"front-matter expands to more than {FRONT_MAX_VALUES} values "
                             "(YAML aliases or recursion)")
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)


def split_lines(text: str) -> list[str]:
    """Split on '\n' only (str.splitlines also splits on \x0c, \u2028 … which Markdown does not)."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def _line_starts(lines: list[str]) -> list[int]:
    starts, pos = [], 0
    for line in lines:
        starts.append(pos)
        pos += len(line)
    return starts


def _parse_slots(body: str, lines: list[str], path: str, default_type: str, warnings: list[str]) -> list[Slot]:
    entries = _fast_entries(lines)
    if entries is None:
        entries = _mistune_entries(body, lines, path, warnings)
    slots: list[Slot] = []
    seen_ids: set[str] = set()
    for start, end, head, prefix, text, meta in entries:
        raw = "".join(lines[start:end])
        item: Item | None = None
        stamped = False
        if meta is not None:
            try:
                item = item_from_meta(text, meta, default_type)
                stamped = True
            except ValueError as err:
                warnings.append(f"{path}:{start + 1}: bad item metadata ({err}); read as a new line")
        if item is None:
            if not text.strip():
                continue
            # Unique by file and text: the same line in two notes is an item in both (issue #18).
            salt = path
            item = Item(id=text_id(text, salt), text=text, type=default_type)  # type: ignore[arg-type]
            while item.id in seen_ids:
                salt += "+"
                item = item.model_copy(update={"id": text_id(text, salt)})
        if item.id in seen_ids:
            warnings.append(f"{path}:{start + 1}: item id {item.id} appears twice in the file; second copy ignored")
            continue
        seen_ids.add(item.id)
        # A shallow copy is enough to tell a changed item: changes replace `slot.item`
        # (and its `extra` dict) rather than mutate them. (A deep copy cost ~20% of a parse.)
        slots.append(Slot(item=item, start=start, end=end, raw=raw, stamped=stamped, parsed=item.model_copy(),
                          head=head, prefix=prefix))
    return slots


_Entry = tuple[int, int, int, str, str, "dict[str, str] | None"]

#: Lines the fast path understands without a Markdown parser (issue #10, item 11: a
#: 50k-item file cost 11-12 s per `add`, nearly all of it mistune). Anything else (code,
#: quotes, HTML, nesting, inline markup that could hide a comment) takes the full parser.
_FAST_BLANK = re.compile(r"[ \t]*\r?\n?\Z")
_FAST_HEADING = re.compile(r"#{1,6}(?:[ \t][^\r\n]*)?\r?\n?\Z")
_FAST_RISKY = re.compile(r"[`<>\\&\r\x00-\x08\x0b-\x1f\x7f\u0085\u2028\u2029]")
_FAST_META = re.compile(r"(.*?)[ \t]*(<!--(?:(?!--)[^<>])*-->)[ \t]*\r?\n?\Z")
_FAST_ORDERED = re.compile(r"\d{1,9}[.)](?:[ \t]|\Z)")


def _fast_entries(lines: list[str]) -> list[_Entry] | None:
    """Items of a body made only of blank lines, ATX headings, plain paragraphs and flat
    `- text <!-- meta -->` lines — what memfs writes; None for anything else."""
    out: list[_Entry] = []
    prev_item = False
    for i, line in enumerate(lines):
        if _FAST_BLANK.match(line):
            prev_item = False
            continue
        if _FAST_HEADING.match(line):
            prev_item = False
            continue
        if line.startswith("- "):
            content = line[2:]
            first = content[:1]
            if not (first.isalnum() or first in "\"'(" or (first > "\x7f" and not first.isspace())):
                return None
            if _FAST_ORDERED.match(content):
                return None
            m = _FAST_META.match(content)
            if m is not None:
                text, comment = m.group(1), m.group(2)
                meta = parse_meta(comment)
                if meta is None or _FAST_RISKY.search(text):
                    return None
            else:
                if _FAST_RISKY.search(content.rstrip("\r\n")):
                    return None
                text, meta = content, None
            out.append((i, i + 1, 1, "- ", text.strip(), meta))
            prev_item = True
            continue
        # A plain paragraph line: only where it cannot continue an item or underline a heading.
        first = line[:1]
        if prev_item or not (first.isalnum() or (first > "\x7f" and not first.isspace())) \
                or _FAST_RISKY.search(line.rstrip("\r\n")) or _FAST_ORDERED.match(line):
            return None
    return out


def _mistune_entries(body: str, lines: list[str], path: str, warnings: list[str]) -> list[_Entry]:
    # mistune sees LF-only text; spans map back to our lines through line numbers,
    # which CRLF→LF does not change.
    lf_body = body.replace("\r\n", "\n")
    state = BlockState()
    state.process(lf_body)
    try:
        _block.parse(state)
    except RecursionError:
        warnings.append(f"{path}: Markdown nested too deeply to read; no items taken from it")
        return []
    starts = _line_starts(split_lines(lf_body))
    # A list's parse can swallow the blocks after it (they get their own spans, nested
    # inside): a token ends where the next spanned token begins.
    spanned = [t for t in state.tokens if "_span" in t]
    for tok, nxt in zip(spanned, spanned[1:]):
        a, b = tok["_span"]
        tok["_span"] = (a, min(b, max(a, nxt["_span"][0])))
    out: list[_Entry] = []
    for tok in state.tokens:
        if tok["type"] != "list" or "_span" not in tok:
            continue
        a, b = tok["_span"]
        first = bisect.bisect_right(starts, a) - 1
        last = bisect.bisect_left(starts, b)
        item_toks = [c for c in tok.get("children", []) if c["type"] == "list_item"]
        marker_lines = [
            i for i in range(first, min(last, len(lines)))
            if _MARKER.match(lines[i]) and _indent(lines[i]) <= _indent(lines[first])
        ]
        if len(marker_lines) != len(item_toks):
            warnings.append(f"{path}:{first + 1}: list layout not understood; its lines are kept as text")
            continue
        bounds = marker_lines + [min(last, len(lines))]
        for k, itok in enumerate(item_toks):
            start, end = bounds[k], bounds[k + 1]
            while end > start + 1 and not lines[end - 1].strip():
                end -= 1
            text, meta = split_item_text(_item_markdown(itok))
            marker = _MARKER.match(lines[start])
            out.append((start, end, min(_head_lines(itok), end - start),
                        _prefix(marker.group(0) if marker else "- "), text, meta))
    return out


def _head_lines(list_item: dict[str, Any]) -> int:
    """How many source lines the item's own text (its first paragraph) spans."""
    children = list_item.get("children", [])
    if children and "text" in children[0]:
        return max(1, children[0]["text"].rstrip("\n").count("\n") + 1)
    return 1


def _prefix(marker: str) -> str:
    """The marker as written, with a single space after it if it had none (`-` alone)."""
    marker = marker.rstrip("\r\n")
    return marker if marker.endswith((" ", "\t")) else marker + " "


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _item_markdown(list_item: dict[str, Any]) -> str:
    """The raw Markdown of a list item's first text block, continuation lines folded."""
    for child in list_item.get("children", []):
        if "text" in child:
            return " ".join(part.strip() for part in child["text"].splitlines())
    return ""
