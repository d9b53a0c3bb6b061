"""JSON loading with the two guards the stdlib lacks: a nesting limit and one-line errors."""

from __future__ import annotations

import json
from typing import Any

from memfs.readers.errors import ReadError

MAX_DEPTH = 100


class BrokenJSON(ReadError):
    """Text that is not valid JSON; ``reason`` is the decoder's message (e.g. "Extra data")."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason


def _check_depth(value: Any, where: str) -> None:
    """Reject nesting deeper than MAX_DEPTH, iteratively (no recursion to blow)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            if depth > MAX_DEPTH:
                raise ReadError(f"{where}JSON is nested more than {MAX_DEPTH} levels deep")
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children if isinstance(child, (list, dict)))


def load_json(text: str, where: str = "") -> Any:
    """Parse JSON text; ``where`` (e.g. "line 3: ") prefixes error messages."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ReadError(f"{where}JSON is nested more than {MAX_DEPTH} levels deep") from None
    except json.JSONDecodeError as exc:
        position = f"line {exc.lineno} column {exc.colno}" if not where else f"column {exc.colno}"
        raise BrokenJSON(f"{where}broken JSON at {position}: {exc.msg}", exc.msg) from None
    except ValueError as exc:  # e.g. an integer literal with too many digits
        raise BrokenJSON(f"{where}broken JSON: {exc}", str(exc)) from None
    _check_depth(value, where)
    return value
