"""memfs: a folder of Markdown as an LLM agent's long-term memory."""

from __future__ import annotations

# Not `from typing import ...`: typing costs the thin recall client (memfs.console) ~4 ms.
TYPE_CHECKING = False

__version__ = "0.1.0"
__all__ = ["Memory", "MemfsError", "__version__", "wrap_openai"]

if TYPE_CHECKING:
    from typing import Any

    from memfs.api import Memory
    from memfs.agents.wrap import wrap_openai
    from memfs.errors import MemfsError


def __getattr__(name: str) -> Any:
    # Lazy so that `import memfs` (and the CLI's start-up) stays cheap.
    if name == "Memory":
        from memfs.api import Memory

        return Memory
    if name == "MemfsError":
        from memfs.errors import MemfsError

        return MemfsError
    if name == "wrap_openai":
        from memfs.agents.wrap import wrap_openai

        return wrap_openai
    raise AttributeError(name)
