"""The one exception readers raise, kept in its own module so every reader can import it."""

from __future__ import annotations

from memfs.errors import MemfsError


class ReadError(MemfsError):
    """An input that cannot be read; the message is one human-readable line.

    The daemon writes this message beside the file it moves to ``inbox/failed/``,
    so it must say what is wrong without a traceback.
    """

    def __init__(self, message: str) -> None:
        line = " ".join(str(message).split())  # always a single line
        super().__init__(line)
        self.message = line
