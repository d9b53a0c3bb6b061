"""Document readers: Markdown (front-matter + sections from mistune's AST) and plain text
(paragraphs with line-range anchors).

Sections are cut at headings found in the AST, never by regexes over the file, so code
blocks that contain "# comment" lines and setext headings are handled like a renderer would.
"""

from __future__ import annotations

import html
import re
from datetime import datetime
from typing import Any

import mistune
import yaml
from frontmatter.default_handlers import YAMLHandler

from memfs.core.segment import ParsedSource, Segment
from memfs.readers.errors import ReadError
from memfs.readers.text import clean, one_line
from memfs.readers.timeparse import parse_time

NO_TEXT = "no text"

_markdown = mistune.create_markdown(renderer=None, plugins=["table", "strikethrough"])
_yaml_handler = YAMLHandler()
_TAG = re.compile(r"<!--.*?-->|<[^>]*>", re.DOTALL)
_SLUG_DROP = re.compile(r"[^\w]+")


# -- plain text ----------------------------------------------------------------------

def read_text(text: str) -> ParsedSource:
    """Paragraphs separated by blank lines; anchor "L<start>-<end>" (1-based lines)."""
    segments: list[Segment] = []
    start: int | None = None
    lines = text.split("\n")
    for number, line in enumerate(lines + [""], 1):
        if line.strip():
            start = number if start is None else start
        elif start is not None:
            body = clean("\n".join(lines[start - 1 : number - 1]))
            if body:
                segments.append(Segment(anchor=f"L{start}-{number - 1}", text=body))
            start = None
    if not segments:
        raise ReadError(NO_TEXT)
    return ParsedSource(kind="document", format="text", segments=segments)


# -- front-matter --------------------------------------------------------------------

def _split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """(metadata, body). Uses python-frontmatter's YAML handler (safe loader).

    A leading '---' block whose YAML is not a mapping is not front-matter (it is a
    thematic break and a setext heading), so the whole text stays Markdown.
    """
    match = _yaml_handler.FM_BOUNDARY.match(text)
    if match is None:
        return {}, text
    try:
        fm, body = _yaml_handler.split(text)
    except ValueError:  # no closing '---': not front-matter
        return {}, text
    first_line = text.count("\n", 0, match.end()) + 1  # 1-based line where fm starts
    try:
        data = _yaml_handler.load(fm)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f" at line {mark.line + first_line}" if mark is not None else ""
        problem = exc.problem or exc.context or "invalid YAML"
        raise ReadError(f"broken front-matter{line}: {problem}") from None
    except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:
        raise ReadError(f"broken front-matter: {one_line(str(exc), 120)}") from None
    if data is None:
        return {}, body
    if not isinstance(data, dict):
        return {}, text
    return data, body


def _meta_title(meta: dict[str, Any]) -> str | None:
    value = meta.get("title")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ReadError("front-matter title must be text")
    return clean(str(value)) or None


def _meta_date(meta: dict[str, Any]) -> datetime | None:
    """A YAML date/datetime or a date string; a bare number (``date: 2023``) is refused
    rather than read as unix seconds."""
    value = meta.get("date")
    if isinstance(value, (int, float)):
        raise ReadError(f"front-matter date {value!r} is not a date (use ISO 8601, e.g. 2023-05-08)")
    return parse_time(value, "front-matter date")


# -- Markdown AST to text ------------------------------------------------------------

def _inline(nodes: list[dict[str, Any]]) -> str:
    """Readable text of inline nodes: markup dropped, link/image text kept."""
    out: list[str] = []
    for node in nodes:
        kind = node.get("type")
        if kind in ("text", "codespan"):
            out.append(html.unescape(node.get("raw", "")) if kind == "text" else node.get("raw", ""))
        elif kind == "softbreak":
            out.append(" ")
        elif kind == "linebreak":
            out.append("\n")
        elif kind == "inline_html":
            continue
        elif "children" in node:
            out.append(_inline(node["children"]))
        elif isinstance(node.get("raw"), str):
            out.append(node["raw"])
    return "".join(out)


def _block(node: dict[str, Any]) -> str:
    """Readable text of one block node (lists keep bullets, code stays verbatim)."""
    kind = node.get("type")
    children: list[dict[str, Any]] = node.get("children") or []
    if kind in ("paragraph", "block_text", "heading"):
        return _inline(children)
    if kind == "block_code":
        return str(node.get("raw", "")).rstrip("\n")
    if kind == "block_html":
        return html.unescape(_TAG.sub("", str(node.get("raw", "")))).strip()
    if kind == "list":
        return _list(node)
    if kind == "table":
        return _table(children)
    if kind in ("blank_line", "thematic_break"):
        return ""
    if children:
        return _blocks(children)
    raw = node.get("raw")
    return raw if isinstance(raw, str) else ""


def _blocks(nodes: list[dict[str, Any]], sep: str = "\n\n") -> str:
    return sep.join(text for text in (_block(node) for node in nodes) if text.strip())


def _list(node: dict[str, Any]) -> str:
    """One line per item, '- ' or 'N. ' bullets; nested content indented two spaces."""
    attrs = node.get("attrs") or {}
    ordered, start = bool(attrs.get("ordered")), attrs.get("start", 1)
    start = start if isinstance(start, int) else 1
    lines: list[str] = []
    for offset, item in enumerate(node.get("children") or []):
        body = _blocks(item.get("children") or [], sep="\n").strip()
        if body:
            bullet = f"{start + offset}. " if ordered else "- "
            lines.append(bullet + body.replace("\n", "\n  "))
    return "\n".join(lines)


def _table(parts: list[dict[str, Any]]) -> str:
    """Rows as 'a | b' lines (table_head holds cells directly, table_body holds rows)."""
    def cells(row: dict[str, Any]) -> str:
        return " | ".join(_inline(cell.get("children") or []).strip() for cell in row.get("children") or [])

    rows: list[str] = []
    for part in parts:
        if part.get("type") == "table_head":
            rows.append(cells(part))
        else:
            rows.extend(cells(row) for row in part.get("children") or [])
    return "\n".join(rows)


def _slug(text: str) -> str:
    return _SLUG_DROP.sub("-", text.lower()).strip("-_") or "section"


# -- Markdown ------------------------------------------------------------------------

def read_markdown(text: str) -> ParsedSource:
    """Front-matter (title, date) + one segment per heading section, anchored by slug path."""
    meta, body = _split_front_matter(text)
    title = _meta_title(meta)
    when = _meta_date(meta)
    tree = _markdown(body)
    assert isinstance(tree, list)

    segments: list[Segment] = []
    used: set[str] = set()
    path: list[tuple[int, str]] = []  # (level, slug) of the enclosing headings
    anchor, heading = "intro", None
    pending: list[dict[str, Any]] = []
    first_h1: str | None = None

    def flush() -> None:
        content = clean(_blocks(pending))
        if content:
            segments.append(Segment(anchor=anchor, text=content, heading=heading, time=when))
            used.add(anchor)
        pending.clear()

    for node in tree:
        if node.get("type") != "heading":
            pending.append(node)
            continue
        flush()
        level = int((node.get("attrs") or {}).get("level", 1))
        heading = clean(_inline(node.get("children") or [])) or None
        if level == 1 and first_h1 is None and heading:
            first_h1 = heading
        while path and path[-1][0] >= level:
            path.pop()
        prefix = "/".join(slug for _, slug in path)
        base = _slug(heading or "")
        slug, n = base, 1
        while (f"{prefix}/{slug}" if prefix else slug) in used:
            n += 1
            slug = f"{base}-{n}"
        path.append((level, slug))
        anchor = "/".join(s for _, s in path)
        used.add(anchor)
    flush()
    if not segments:
        raise ReadError(NO_TEXT)
    return ParsedSource(kind="document", format="markdown", title=title or first_h1,
                        time=when, segments=segments)
