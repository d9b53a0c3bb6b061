"""Turn a segment's raw text into plain-text blocks (paragraphs, list items, table rows).

Document sections arrive as the reader leaves them (see readers/FORMATS.md): paragraphs
separated by blank lines, list items as "- item" / "1. item" lines (nested content
indented by two spaces), code blocks verbatim, table rows as "a | b" lines, markup
dropped. Hand-written Markdown (fences, "#" headings, links, emphasis) is accepted too.
The text of one section is small and already flattened, so it is read line by line:

- a paragraph is one block; each list item is a block of its own (flagged, ordered or
  not); each table row becomes "Header: cell; Header: cell";
- a short code block (fenced, or a paragraph that looks like a command) is attached to
  the block before it when that one ends with ":" ("To deploy, run: `make deploy`"),
  otherwise it is a block of its own; long code is dropped (code is not a fact);
- a "#" heading line becomes the heading of the blocks after it.

Chat turns are mostly one line of plain text: they are split on line breaks, with list
and quote markers removed, fenced code dropped and inline links reduced to their text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CODE_MAX_CHARS = 160
_CODE_MAX_LINES = 3


@dataclass
class Block:
    text: str
    list_item: bool = False
    ordered: bool = False
    heading: str | None = None
    code: bool = False


_HEADING_LINE_RE = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_ITEM_RE = re.compile(
    r"^(?P<indent>\s*)(?:(?P<bullet>[-*+\u2022])|(?P<num>\d{1,3})[.)])\s+(?P<body>.*)$")
_FENCE_LINE_RE = re.compile(r"^\s*(```|~~~)")
_SHELL_START_RE = re.compile(
    r"^(?:\$\s|>\s|sudo\s|pip3?\s|npm\s|npx\s|yarn\s|git\s|docker\s|kubectl\s|make\b|"
    r"cargo\s|brew\s|apt(?:-get)?\s|curl\s|wget\s|ssh\s|cd\s|ls\b|export\s|python3?\s|"
    r"node\s|uv\s|poetry\s|conda\s|systemctl\s|memfs\s|\./)")
_CODE_CHARS_RE = re.compile(r"[{}();=<>\\]|^\s{4}|::|->|=>")


def _looks_like_code(lines: list[str]) -> bool:
    if not lines:
        return False
    if any(_SHELL_START_RE.match(ln.strip()) for ln in lines):
        return all(not ln.rstrip().endswith((".", "!", "?")) or _SHELL_START_RE.match(ln.strip())
                   for ln in lines)
    codeish = sum(1 for ln in lines if _CODE_CHARS_RE.search(ln)
                  and not ln.rstrip().endswith((".", "!", "?")))
    return codeish * 2 > len(lines) and codeish >= 1 and all(
        len(ln.split()) <= 12 or _CODE_CHARS_RE.search(ln) for ln in lines)


def _short_code(lines: list[str]) -> str | None:
    lines = [ln.strip() for ln in lines if ln.strip()]
    if not lines or len(lines) > _CODE_MAX_LINES:
        return None
    code = " && ".join(lines) if len(lines) > 1 else lines[0]
    if code.startswith("$ "):
        code = code[2:]
    if len(code) > _CODE_MAX_CHARS or "`" in code:
        return None
    return code


def _table_rows(lines: list[str]) -> list[str] | None:
    """'a | b' lines (at least a header and a row) as 'Header: cell; ...' texts."""
    if len(lines) < 2 or not all("|" in ln for ln in lines):
        return None
    rows = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in lines]
    rows = [r for r in rows if not all(re.fullmatch(r":?-{2,}:?", c or "--") for c in r)]
    if len(rows) < 2:
        return None
    header, out = rows[0], []
    for cells in rows[1:]:
        if not any(cells):
            continue
        if len(header) == len(cells):
            out.append("; ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells) if c))
        else:
            out.append("; ".join(c for c in cells if c))
    return out


def _paragraphs(text: str) -> list[tuple[str, list[str]]]:
    """('text' | 'code', lines) groups: blank lines and fences separate them."""
    groups: list[tuple[str, list[str]]] = []
    cur: list[str] = []
    in_fence = False
    for line in text.split("\n"):
        if _FENCE_LINE_RE.match(line):
            if cur:
                groups.append(("code" if in_fence else "text", cur))
                cur = []
            in_fence = not in_fence
            continue
        if not in_fence and not line.strip():
            if cur:
                groups.append(("text", cur))
                cur = []
            continue
        cur.append(line)
    if cur:
        groups.append(("code" if in_fence else "text", cur))
    return groups


def _attach_code(blocks: list[Block], lines: list[str], heading: str | None) -> None:
    code = _short_code(lines)
    if code is None:
        return
    if blocks and blocks[-1].text.rstrip().endswith(":") and not blocks[-1].code:
        prev = blocks[-1]
        prev.text = prev.text.rstrip() + " `" + code + "`"
        prev.code = True
    else:
        blocks.append(Block("`" + code + "`", heading=heading, code=True))


def document_blocks(text: str, heading: str | None = None) -> list[Block]:
    blocks: list[Block] = []
    for kind, lines in _paragraphs(text):
        if kind == "code":
            _attach_code(blocks, lines, heading)
            continue
        # Headings inside the section re-title what follows.
        rest: list[str] = []
        for ln in lines:
            m = _HEADING_LINE_RE.match(ln)
            if m and m.group(1).strip():
                if rest:
                    _text_group(blocks, rest, heading)
                    rest = []
                heading = _clean_inline(m.group(1).strip())
            else:
                rest.append(ln)
        if rest:
            _text_group(blocks, rest, heading)
    return blocks


def _text_group(blocks: list[Block], lines: list[str], heading: str | None) -> None:
    rows = _table_rows(lines)
    if rows is not None:
        blocks.extend(Block(_clean_inline(r), list_item=True, heading=heading) for r in rows if r)
        return
    if any(_ITEM_RE.match(ln) for ln in lines):
        _list_group(blocks, lines, heading)
        return
    if _looks_like_code(lines):
        _attach_code(blocks, lines, heading)
        return
    body = _clean_inline(" ".join(ln.strip() for ln in lines))
    if body:
        blocks.append(Block(body, heading=heading))


def _list_group(blocks: list[Block], lines: list[str], heading: str | None) -> None:
    cur: Block | None = None
    for ln in lines:
        m = _ITEM_RE.match(ln)
        if m:
            cur = Block(_clean_inline(m.group("body").strip()), list_item=True,
                        ordered=bool(m.group("num")), heading=heading)
            blocks.append(cur)
        elif cur is not None and ln.strip():
            cur.text = (cur.text + " " + _clean_inline(ln.strip())).strip()
        elif ln.strip():
            blocks.append(Block(_clean_inline(ln.strip()), heading=heading))
    # Items emptied by cleaning are dropped.
    blocks[:] = [b for b in blocks if b.text]


_LINK_RE = re.compile(r"!\[[^\]]*\]\([^)]*\)|\[([^\]]+)\]\((?:[^)]*)\)")
_EMPH_WORD_RE = re.compile(r"(\*\*|__)(.+?)\1|(?<![\w*])\*(?!\s)([^*]+?)\*(?!\w)")


def _clean_inline(text: str) -> str:
    if "](" in text:
        text = _LINK_RE.sub(lambda mm: mm.group(1) or "", text)
    if "*" in text or "__" in text:
        text = _EMPH_WORD_RE.sub(lambda mm: mm.group(2) or mm.group(3) or "", text)
    return text.strip()


_FENCE_RE = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)", re.DOTALL)
_LINE_MARKER_RE = re.compile(r"^\s*(?:>+\s*)*(?:#{1,6}\s+|(?P<bullet>[-*+\u2022])\s+|"
                             r"(?P<num>\d{1,3})[.)]\s+)?")


def chat_blocks(text: str) -> list[Block]:
    if "```" in text or "~~~" in text:
        text = _FENCE_RE.sub(" ", text)
    blocks: list[Block] = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        m = _LINE_MARKER_RE.match(line)
        list_item = bool(m and (m.group("bullet") or m.group("num")))
        ordered = bool(m and m.group("num"))
        body = _clean_inline(line[m.end():] if m else line)
        if body:
            blocks.append(Block(body, list_item=list_item, ordered=ordered))
    return blocks
