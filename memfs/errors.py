"""Errors a user can cause and fix; the CLI prints them as one line, never a traceback."""


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
