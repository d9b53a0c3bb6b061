"""Regex pieces the slot readers share (supersede, jobs): a subject, adverbs, a name, a role.

A subject or a name is capitalised words, so "Priya" or "Priya Shah" and "Brightwave" or
"the Science Museum"; a role is up to four lower-case words ("senior product designer").
"""

from __future__ import annotations

SUBJ = r"(?P<s>[A-Z][a-zA-Z'\u2019-]+(?: [A-Z][a-zA-Z'\u2019-]+)?)"
POSS = r"(?P<s>[A-Z][a-zA-Z-]+(?: [A-Z][a-zA-Z-]+)?)['\u2019]s"
ADV = r"(?:(?:now|currently|still|also|recently|finally|just|officially|actually|has|have|had|already) )*"
# A name: capitalised words, "of"/"upon"/"de" inside, an optional leading "the".
NAME = r"(?P<v>(?:the )?[A-Z][\w.&'\u2019-]*(?: (?:of |upon |de |on )?[A-Z0-9][\w.&'\u2019-]*)*)"
ROLE = r"(?P<v>[a-z][a-z-]*(?: [a-z][a-z-]*){0,3})"
