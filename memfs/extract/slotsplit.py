"""Split a shared home into where and with whom: "Tom lives in Leeds with his sister" is
two facts, "Tom lives in Leeds." and "Tom lives with his sister.".

Why: a line that names more than its slot's value is never superseded (the people in it
would be hidden with the old town), so a move to York left "lives in Leeds with his
sister" current beside "moved to York". Split, the town can be replaced and the
household stays.

Only when the with-part is people or animals and nothing trails it: relation words ("his
sister", "her partner Tom", "two cats", "roommates"), capitalised first names ("Tom and
Ana"). "with no regrets", "with anxiety and Tom", "with Tom during the week", "with Tom
for now" and "with MS" stay one line, as said.
"""

from __future__ import annotations

import re

from memfs.core.segment import Fact
from memfs.extract.lexicon import RELATION_WORDS
from memfs.extract.slotre import NAME, SUBJ

_NOT_PEOPLE = frozenset("married marriage wedding divorce divorced dating date relationship relationships".split())
_KIN = sorted((RELATION_WORDS - _NOT_PEOPLE) | set("""roommates flatmate flatmates housemate housemates
twins fiance fiancee rabbit rabbits hamster hamsters parrot parrots horse horses kittens puppies""".split()),
              key=len, reverse=True)
_FIRST_NAME = r"[A-Z][a-z-]+"
_MEMBER = (r"(?:(?:(?:her|his|their|my|our|a|an|two|three|four|five) )?(?:[a-z-]+ )?(?:" + "|".join(_KIN)
           + r")(?: " + _FIRST_NAME + r")?|" + _FIRST_NAME + r"(?: " + _FIRST_NAME + r")?)")
_HOME = re.compile(r"^" + SUBJ + r" (?P<verb>(?:(?:now|currently|still|also) )?(?:lives|is living|has lived|"
                   r"has been living|lived|was living|used to live)) in " + NAME
                   + r" with (?P<who>" + _MEMBER + r"(?:(?:,| and|, and) " + _MEMBER + r")*)\.?$")


def split_home(fact: Fact) -> list[Fact]:
    """The fact as two lines when it names a home and a household, else as it is."""
    m = _HOME.match(fact.text)
    if m is None:
        return [fact]
    head = f"{m.group('s')} {m.group('verb')}"
    home = fact.model_copy(update={"text": f"{head} in {m.group('v')}."})
    hint = "relationships" if fact.category_hint in (None, "profile") else fact.category_hint
    household = fact.model_copy(update={"text": f"{head} with {m.group('who')}.", "category_hint": hint})
    return [home, household]
