"""The body of a category file -> its item entries (line spans, marker, text, metadata).

Two readers giving the same entries: a line-local regex fast path for what memfs writes
(flat `- text <!-- meta -->` lines, headings, blank lines, plain paragraphs), and mistune's
block AST for anything else, so item lines inside code fences, quotes or HTML blocks are
never mistaken for items (mistune is imported only when a body needs it). The fast path
is line-local: whether a line is accepted depends only on it and on whether the line
before it is an item line, which is what lets an edit re-check just the lines it changed
(core/categoryedit.py).
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from memfs.core.front import split_lines
from memfs.core.itemline import parse_meta, split_item_text

MARKER = re.compile(r"^( {0,3})([-+*]|\d{1,9}[.)])([ \t]+|$)")
_MARKER = MARKER


_BLOCK: list = []  # the span-tagging block parser, built on first use


def _block_parser() -> Any:
    """mistune's block parser tagging each top-level token with its source span."""
    if _BLOCK:
        return _BLOCK[0]
    from mistune.block_parser import BlockParser

    class _SpanBlockParser(BlockParser):
        def parse_method(self, m: re.Match[str], state: Any) -> int | None:  # type: ignore[override]
            before = len(state.tokens)
            end = super().parse_method(m, state)
            if state.parent is None:
                stop = end if end else state.cursor
                for tok in state.tokens[before:]:
                    tok.setdefault("_span", (m.start(), stop))
            return end

    _BLOCK.append(_SpanBlockParser())
    return _BLOCK[0]

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_FENCE_CLOSE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*$")


def open_fence(lines: list[str]) -> str | None:
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



def _line_starts(lines: list[str]) -> list[int]:
    starts, pos = [], 0
    for line in lines:
        starts.append(pos)
        pos += len(line)
    return starts



_Entry = tuple[int, int, int, str, str, "dict[str, str] | None"]

#: Lines the fast path understands without a Markdown parser (issue #10, item 11: a
#: 50k-item file cost 11-12 s per `add`, nearly all of it mistune). Anything else (code,
#: quotes, HTML, nesting, inline markup that could hide a comment) takes the full parser.
_FAST_BLANK = re.compile(r"[ \t]*\r?\n?\Z")
_FAST_HEADING = re.compile(r"#{1,6}(?:[ \t][^\r\n]*)?\r?\n?\Z")
_FAST_RISKY = re.compile(r"[`<>\\&\r\x00-\x08\x0b-\x1f\x7f\u0085\u2028\u2029]")
_FAST_META = re.compile(r"(.*?)[ \t]*(<!--(?:(?!--)[^<>])*-->)[ \t]*\r?\n?\Z")
_FAST_ORDERED = re.compile(r"\d{1,9}[.)](?:[ \t]|\Z)")


def fast_line(line: str, prev_item: bool) -> "_Entry | bool | None":
    """One line under the fast path: an entry for an item line, True for a line that holds
    no item (blank, heading, plain paragraph), None for a line the fast path cannot read.
    `prev_item`: the line before is an item line (a paragraph line would continue it)."""
    if _FAST_BLANK.match(line) or _FAST_HEADING.match(line):
        return True
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
        return (0, 1, 1, "- ", text.strip(), meta)
    # A plain paragraph line: only where it cannot continue an item or underline a heading.
    first = line[:1]
    if prev_item or not (first.isalnum() or (first > "\x7f" and not first.isspace())) \
            or _FAST_RISKY.search(line.rstrip("\r\n")) or _FAST_ORDERED.match(line):
        return None
    return True


#: The line memfs writes, `- text <!-- meta -->`, in one match: a line it matches is one
#: `fast_line` reads as an item with this text (stripped) and comment, since the text
#: starts with an ASCII letter or digit, is no ordered marker and holds none of
#: _FAST_RISKY's characters (so the first `<` opens the comment, which ends at its first
#: `--`; the blanks before it are stripped off the text, as fast_line strips them). A line it does not match, or whose comment is not metadata, takes `fast_line`.
_FAST_ITEM = re.compile(r"- ((?!\d{1,9}[.)](?:[ \t]|\Z))[A-Za-z0-9]"
                        r"[^`<>\\&\r\n\x00-\x08\x0b-\x1f\x7f\u0085\u2028\u2029]*)"
                        r"(<!--(?:(?!--)[^<>])*-->)[ \t]*\n?\Z").match


def fast_entry(line: str, prev_item: bool) -> tuple[str, "dict[str, str] | None"] | bool | None:
    """One line under the fast path, as `_fast_entries` reads it: (text, metadata) for an
    item line, True for a line that holds no item, None for a line it cannot read."""
    m = _FAST_ITEM(line)
    if m is not None:
        meta = parse_meta(m.group(2))
        if meta is not None:
            return m.group(1).strip(), meta
    got = fast_line(line, prev_item)
    return got if got is None or got is True else (got[4], got[5])  # type: ignore[index]


def _fast_entries(lines: list[str]) -> list[_Entry] | None:
    """Items of a body made only of blank lines, ATX headings, plain paragraphs and flat
    `- text <!-- meta -->` lines — what memfs writes; None for anything else."""
    out: list[_Entry] = []
    prev_item = False
    for i, line in enumerate(lines):
        got = fast_entry(line, prev_item)
        if got is None:
            return None
        if got is True:
            prev_item = False
            continue
        out.append((i, i + 1, 1, "- ", got[0], got[1]))  # type: ignore[index]
        prev_item = True
    return out


#: The line memfs writes with metadata a lazy slot can keep unread (core/slot.py), in one
#: match: `_FAST_ITEM` matches it with the same text and comment, and `parse_meta` of that
#: comment gives exactly this id (no later `id=`), every key starts with a letter, no value
#: needs decoding (no `%`, `=`, `<`, `>`, blank or non-ASCII), `seen`, if given, is ASCII
#: digits (`slot.lazy_ok`), and the comment holds no `--` before its end (what `_FAST_ITEM`'s
#: comment forbids: its body has no `>` and ends in a blank, so a `--` in it is a second one
#: before the first `>`). Groups: the text (unstripped), the comment, the id. A line it does
#: not match is read by `fast_entry`, as before (tests/test_store_lazy.py compares them).
_LAZY_VALUE = r"[!-$&-;?-~]*"
LAZY_ITEM = re.compile(r"- ((?!\d{1,9}[.)](?:[ \t]|\Z))[A-Za-z0-9]"
                       r"[^`<>\\&\r\n\x00-\x08\x0b-\x1f\x7f\u0085\u2028\u2029]*)"
                       r"(<!--(?![^>]*--[^>]*--) id=([A-Za-z0-9_-]{1,64})"
                       r"(?: (?!id=|seen=)[A-Za-z][A-Za-z0-9_]*=" + _LAZY_VALUE + r"| seen=[0-9]+)* -->)"
                       r"[ \t]*\n?\Z").match


def _mistune_entries(body: str, lines: list[str], path: str, warnings: list[str]) -> list[_Entry]:
    # mistune sees LF-only text; spans map back to our lines through line numbers,
    # which CRLF→LF does not change.
    from mistune.core import BlockState

    lf_body = body.replace("\r\n", "\n")
    state = BlockState()
    state.process(lf_body)
    try:
        _block_parser().parse(state)
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
            if marker and not lines[start][marker.end():].strip():
                # A bare marker ("-" alone): the text mistune folds into it from the next
                # lines is not the item's own line; nothing to stamp, the lines stay as text.
                text, meta = "", None
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
    """The raw Markdown of a list item's own text (its first block), continuation lines folded.

    An item whose first block holds no text (`- >` opens a quote, `- ```` a code block) has
    no text of its own: a paragraph further down is not its line (taking it stamped the
    marker line with text from another line, which then read back differently)."""
    children = list_item.get("children", [])
    if children and "text" in children[0]:
        return " ".join(part.strip() for part in children[0]["text"].splitlines())
    return ""
