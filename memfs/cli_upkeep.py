"""The upkeep commands of `memfs`: `doctor` (check and repair) and `retry` (failed inputs back in).

Registered on the main typer app by `memfs.cli`; kept apart so the CLI module stays small.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Optional

import typer


def register(app: typer.Typer, workspace_dir: Callable[[], Optional[str]], echo_json: Callable[[object], None]
             ) -> None:
    """Add the upkeep commands to `app`; `workspace_dir()` is the global `--dir` (or None)."""

    def _memory():  # type: ignore[no-untyped-def]
        from memfs.api import Memory
        from memfs.workspace import find_workspace

        return Memory(find_workspace(explicit=workspace_dir()).root)

    @app.command()
    def doctor(fix: bool = typer.Option(False, "--fix", help="Repair what is safe to repair: rebuild a damaged or "
                                        "stale index, remove stale temp files and sockets."),
               as_json: bool = typer.Option(False, "--json")) -> None:
        """Check the workspace: config, category files, index, embedder, daemon, inbox, git.

        One line per check; exit 0 when healthy, 1 when a check failed."""
        from memfs.doctor import run_doctor
        from memfs.workspace import find_workspace

        report = run_doctor(find_workspace(explicit=workspace_dir()), fix=fix)
        if as_json:
            echo_json({"root": report.root, "healthy": report.healthy,
                       "checks": [c.model_dump() for c in report.checks]})
        else:
            for c in report.checks:
                if c.fixed:
                    typer.echo(f"fixed {c.name:<14} {c.fixed}")
                typer.echo(f"{c.level:<4}  {c.name:<14} {c.detail}")
            if not fix and any(c.fixable and c.level != "ok" for c in report.checks):
                typer.echo("`memfs doctor --fix` can repair what is marked fixable", err=True)
        raise typer.Exit(0 if report.healthy else 1)

    @app.command()
    def retry() -> None:
        """Move everything in inbox/failed/ back into inbox/."""
        with _memory() as mem:
            moved = mem.retry()
        typer.echo(f"re-queued {len(moved)} file(s)" + (": " + ", ".join(moved) if moved else ""))
