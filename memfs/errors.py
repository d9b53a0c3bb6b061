"""Errors a user can cause and fix; the CLI prints them as one line, never a traceback.

`MemfsError` is the one root: the LLM errors (`memfs.llm.errors`), the readers'
`ReadError`, `fsutil.ChangedMeanwhile` and `pipeline.engine.PipelineError` all derive from
it, so a caller that catches `MemfsError` catches every failure memfs means to report.
Not derived from it, on purpose: control-flow signals that never leave memfs
(`pipeline.engine.Stop`, `fsutil.Unsettled`, `index.heal.IndexDamaged`, the LLM client's
private `_FormatRejected`/`_Deadline`); `tests/test_architecture.py` keeps that list closed.
"""


class MemfsError(Exception):
    """Base of every error meant for a person: the message is the whole explanation."""


class ConfigError(MemfsError):
    """memfs.toml or a MEMFS_* variable is invalid."""


class WorkspaceNotFound(MemfsError):
    """No memfs workspace at or above the directory asked for."""


class LockedError(MemfsError):
    """Another process holds the workspace's writer lock."""


class NotFoundError(MemfsError):
    """An item id or category that does not exist."""


class ConflictError(MemfsError):
    """A file changed under us more often than we were willing to retry."""
