"""The shape of a person page: front-matter, the person's text, memfs' generated block.

The block's end marker carries a digest of what memfs wrote, so an edit inside the block
is noticed (and kept, see pages.py) instead of silently replaced.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from memfs.core.hashing import short_digest

PAGE_BEGIN = ("<!-- memfs:begin generated page: rebuilt from the category files; edit the lines it links to, "
              "or write outside this block -->")
PAGE_END = "<!-- memfs:end generated"


def read_page(path: str | os.PathLike[str]) -> str:
    """The file's text exactly as `open(path, encoding="utf-8").read()` gives it (universal
    newlines; OSError, UnicodeDecodeError as it raises them), read as bytes and decoded in
    one call: text mode's chunked decoding took ~4× as long for a 75 KB page (100k items),
    and every page is read twice a regeneration."""
    with open(path, "rb") as fh:
        text = fh.read().decode("utf-8")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def digest(body: str) -> str:
    return short_digest(body)


@dataclass(frozen=True)
class PageParts:
    """A page split around its generated block; `body` is None if it has no block."""

    front: str
    before: str
    body: str | None
    recorded: str | None
    after: str


def split_page(text: str) -> PageParts | None:
    """None when the markers are broken (a begin without an end, or two blocks): memfs
    will not guess where a person's text ends and its own begins."""
    front = ""
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end >= 0:
            front, text = text[: end + 5], text[end + 5:]
    start = text.find(PAGE_BEGIN)
    if start < 0:
        return None if PAGE_END in text else PageParts(front, text, None, None, "")
    if text.find(PAGE_BEGIN, start + 1) >= 0:
        return None
    stop = text.find(PAGE_END, start)
    close = text.find("-->", stop) if stop >= 0 else -1
    if stop < 0 or close < 0 or text.find(PAGE_END, close) >= 0:
        return None
    body = text[start + len(PAGE_BEGIN):stop].lstrip("\n")
    recorded = text[stop + len(PAGE_END):close].strip() or None
    after = text[close + 3:]
    return PageParts(front, text[:start], body, recorded, after[1:] if after.startswith("\n") else after)


