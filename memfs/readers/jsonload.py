"""JSON loading with the two guards the stdlib lacks: a nesting limit and one-line errors."""

from __future__ import annotations

import json
import threading
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


# One parsed text, handed from export detection to the reader. A large JSON file that is
# not an export is parsed by ``unpack`` (to look at its shape), then read by
# ``read_source``: without this it is parsed twice. One slot, taken by the next read
# whatever it is, so it holds at most one value and a miss only costs a parse.
_handoff: tuple[str, Any] | None = None
_handoff_lock = threading.Lock()


def hand_over(text: str, value: Any) -> None:
    """Offer ``value`` (``load_json(text)``, already depth-checked) to the next ``load_json_once``."""
    global _handoff
    with _handoff_lock:
        _handoff = (text, value)


def load_json_once(text: str, where: str = "") -> Any:
    """``load_json``, except that a text just parsed by detection is not parsed again."""
    global _handoff
    with _handoff_lock:
        slot, _handoff = _handoff, None
    if slot is not None and (slot[0] is text or slot[0] == text):
        return slot[1]
    return load_json(text, where)
