"""Small text helpers shared by readers: every string that leaves a reader goes through ``clean``."""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean(text: str) -> str:
    """Make text safe to store: LF line ends, no NUL, no lone surrogates, stripped.

    JSON escapes can smuggle ``\\u0000`` and unpaired surrogates into a str; both break
    writing the Markdown files later, so they are removed / replaced here once.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    text = _SURROGATE.sub("\ufffd", text)
    return text.strip()


def one_line(text: str, limit: int = 60) -> str:
    """Quote a value inside an error message: one line, shortened."""
    flat = " ".join(clean(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
