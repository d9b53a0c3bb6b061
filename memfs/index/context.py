"""Search context for an item: the source turn it came from and the turn before it.

A reply like "It was Matt Patterson, he is so talented!" is a fine fact but shares no
word with "Who performed at the concert?" — the question's words are in the turn before.
The index stores that context in a low-weight BM25 column (never in the Markdown), and
dates as words ("10 July 2022"), so "in July" can match. It is rebuilt from resources/,
so `.memfs/` stays a cache (invariant 1, docs/architecture.md).
"""

from __future__ import annotations

from pathlib import Path

MONTHS = ("January February March April May June July August September October November December").split()
CONTEXT_CHARS = 400


def date_words(when: str | None) -> str:
    """'2022-07-10' → '10 July 2022'; '2022-07' → 'July 2022'; '2022' → '2022'."""
    if not when:
        return ""
    parts = when.split("-")
    try:
        if len(parts) == 3:
            return f"{int(parts[2])} {MONTHS[int(parts[1]) - 1]} {parts[0]}"
        if len(parts) == 2:
            return f"{MONTHS[int(parts[1]) - 1]} {parts[0]}"
    except (ValueError, IndexError):
        return ""
    return parts[0]


class ContextResolver:
    """Reads each resource at most once per instance (one sync) and answers by anchor."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._cache: dict[str, dict[str, tuple[str, str]]] = {}

    def _segments(self, rel: str) -> dict[str, tuple[str, str]]:
        """anchor → (the turn before + this turn, this turn alone)."""
        if rel not in self._cache:
            out: dict[str, tuple[str, str]] = {}
            path = (self.root / rel)
            from memfs.readers import ReadError, read_source  # before the try: its except names ReadError

            try:
                if not rel.startswith("resources/") or ".." in Path(rel).parts or path.is_symlink():
                    raise OSError("not a resource")
                source = read_source(path.read_bytes(), path.name)
                previous = ""
                for seg in source.segments:
                    full = f"{seg.speaker}: {seg.text}" if seg.speaker else seg.text
                    text = full[:CONTEXT_CHARS]
                    out[seg.anchor] = (f"{previous} {text}".strip(), full)
                    previous = text
            except (OSError, ValueError, ReadError):  # a missing or unreadable resource: no context
                pass
            self._cache[rel] = out
        return self._cache[rel]

    def context(self, src: str | None, when: str | None) -> str:
        words = date_words(when)
        if not src or "#" not in src:
            return words
        rel, _, anchor = src.partition("#")
        return f"{words} {self._segments(rel).get(anchor, ('', ''))[0]}".strip()

    def passage(self, src: str | None) -> str | None:
        """The source passage behind an item (resource recall), or None if unavailable."""
        if not src or "#" not in src:
            return None
        rel, _, anchor = src.partition("#")
        found = self._segments(rel).get(anchor)
        return found[1] if found else None
