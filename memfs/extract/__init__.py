"""Extractors: turn the segments of a parsed source into candidate memory items (Facts).

``extract_offline`` is the default, rule-based extractor that needs no network.
"""

from memfs.extract.offline import extract_offline

__all__ = ["extract_offline"]
