"""Extractors: turn the segments of a parsed source into candidate memory items (Facts).

``extract_offline`` is the default, rule-based extractor that needs no network. It is
imported on first use (PEP 562): the entry files import the package's word lists
(`memfs.extract.lexicon`), and loading the extractor with them cost a one-shot
`memfs add` ~0.17 s.
"""

from __future__ import annotations

from typing import Any

__all__ = ["extract_offline"]


def __getattr__(name: str) -> Any:
    if name == "extract_offline":
        from memfs.extract.offline import extract_offline

        return extract_offline
    raise AttributeError(f"module 'memfs.extract' has no attribute {name!r}")
