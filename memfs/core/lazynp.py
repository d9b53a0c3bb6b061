"""numpy on first use, for the modules a one-shot `memfs add` imports but need not run.

A `memfs add` with its category named writes the line and leaves its vector for later
(docs/decisions.md, "A one-shot `memfs add` that leaves its vector for later"), so it
never multiplies a matrix; yet the index, the embedders and the categorizer import numpy
at the top (~60 ms of the add, more than its parse). `np = lazy_numpy(globals())` stands
for numpy in such a module until an attribute is first asked of it: numpy is imported
then (the import system's own locks make that safe from any thread) and put in the
module's globals, so every later `np.` there is numpy itself, at no cost.
"""

from __future__ import annotations

import sys
from typing import Any


class LazyNumpy:
    """numpy's stand-in in one module's globals until first used."""

    __slots__ = ("_owner",)

    def __init__(self, owner: dict[str, Any]) -> None:
        self._owner = owner

    def __getattr__(self, name: str) -> Any:
        import numpy

        self._owner["np"] = numpy
        return getattr(numpy, name)


def lazy_numpy(owner: dict[str, Any]) -> Any:
    """numpy if it is loaded already, else its stand-in for the module whose globals these are."""
    return sys.modules.get("numpy") or LazyNumpy(owner)
