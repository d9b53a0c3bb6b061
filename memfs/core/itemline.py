"""One item as one Markdown list line: `- text <!-- id=… type=… … -->`.

The metadata rides in a trailing HTML comment so a rendered page shows only the fact.
Values are percent-encoded where they would break the comment or the `key=value` form,
so any value survives; keys outside the known set are kept verbatim in `Item.extra`.
"""

from __future__ import annotations

import hashlib
import re
from urllib.parse import quote, unquote

from memfs.core.model import _WHEN, MEMORY_TYPES, Item, normalize_text

META_KEYS: tuple[str, ...] = ("id", "type", "when", "src", "seen", "updated")
_SAFE = "/:#.,@+_~()[]!*$&;"
#: `\Z`, not `$`: a value may be percent-decoded to end in a newline, which `$` lets through
#: (and the model's own pattern, matched by pydantic, does not: the build raised later).
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")

_INLINE: list = []  # mistune's inline parser, built on first use (a one-shot add never needs it)


def _inline(raw: str, env: dict) -> list:
    if not _INLINE:
        import mistune

        _INLINE.append(mistune.create_markdown(renderer=None).inline)
    return _INLINE[0](raw, env)


def encode_value(value: str) -> str:
    """Percent-encode a metadata value so it has no space, quote, '<', '>', '=' or '--'."""
    out = quote(value, safe=_SAFE)
    while "--" in out:
        out = out.replace("--", "-%2D")
    return out


def render_meta(item: Item) -> str:
    parts = [f"id={item.id}", f"type={item.type}"]
    if item.when:
        parts.append(f"when={item.when}")
    if item.src:
        parts.append(f"src={encode_value(item.src)}")
    if item.seen != 1:
        parts.append(f"seen={item.seen}")
    if item.updated:
        parts.append(f"updated={item.updated}")
    # A person's invalid value is kept in `extra` under its own key; once memfs sets that
    # field, the later duplicate would win on the next read and undo memfs' value. `id` and
    # `type` are always set (an invalid `type=` reads as the file's default type already).
    written = {"id", "type"} | {k for k, v in (("when", item.when), ("src", item.src), ("seen", item.seen != 1),
                                               ("updated", item.updated)) if v}
    for key in sorted(item.extra):
        if key not in written:
            parts.append(f"{key}={encode_value(item.extra[key])}")
    return "<!-- " + " ".join(parts) + " -->"


def render_item_line(item: Item) -> str:
    """The canonical line for an item, without the trailing newline."""
    text = item.text
    return f"- {text} {render_meta(item)}" if text else f"- {render_meta(item)}"


def parse_meta(comment: str) -> dict[str, str] | None:
    """`<!-- id=x type=y -->` → {'id': 'x', 'type': 'y'}; None if it is not item metadata."""
    if not (comment.startswith("<!--") and comment.endswith("-->")):
        return None
    body = comment[4:-3].strip()
    fields: dict[str, str] = {}
    for part in body.split():
        key, sep, value = part.partition("=")
        if not sep or not key or not key.replace("_", "").replace("-", "").isalnum():
            return None
        fields[key] = unquote(value) if "%" in value else value
    return fields if "id" in fields else None


def split_item_text(raw: str) -> tuple[str, dict[str, str] | None]:
    """Split a list item's raw Markdown into (text, metadata) using mistune's inline AST.

    Only a *trailing* inline HTML comment that parses as metadata counts: a comment in a
    code span, or one in the middle of the text, is part of the fact.
    """
    raw = raw.strip()
    tokens = _inline(raw, {})
    if tokens and tokens[-1]["type"] == "inline_html":
        comment = tokens[-1]["raw"]
        meta = parse_meta(comment)
        if meta is not None and raw.endswith(comment):
            return raw[: len(raw) - len(comment)].rstrip(), meta
    return raw, None


def when_ok(value: str) -> bool:
    """A `when`/`updated` value read from a file is a date: all of it (`%0A` decodes to a
    newline that `_WHEN`'s `$` accepts; written back unencoded it split the item line)."""
    return _WHEN.fullmatch(value) is not None


def text_id(text: str, salt: str = "") -> str:
    """A deterministic 8-hex id for a line that has none yet (derived from its text)."""
    digest = hashlib.sha1(f"{salt}\x00{normalize_text(text).casefold()}".encode()).hexdigest()
    return digest[:8]


def item_from_meta(text: str, meta: dict[str, str], default_type: str) -> Item:
    """Build an Item from parsed metadata; unknown or invalid fields are kept as `extra`."""
    if not _ID.match(meta["id"]):
        raise ValueError(f"invalid item id {meta['id']!r}")
    extra = {k: v for k, v in meta.items() if k not in META_KEYS}
    fields: dict[str, object] = {"id": meta["id"], "text": text, "type": default_type, "extra": extra}
    if meta.get("type") in MEMORY_TYPES:
        fields["type"] = meta["type"]
    elif "type" in meta:
        extra["type"] = meta["type"]
    for key in ("when", "updated"):
        if key in meta:
            value = meta[key]
            if when_ok(value):
                fields[key] = value
            else:
                extra[key] = value
    if "src" in meta:
        fields["src"] = meta["src"] or None
    if "seen" in meta:
        if meta["seen"].isdigit() and int(meta["seen"]) >= 1:
            fields["seen"] = int(meta["seen"])
        else:
            extra["seen"] = meta["seen"]
    return Item.model_validate(fields)


