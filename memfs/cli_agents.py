"""The agent commands of `memfs`: `mcp`, `proxy` and `hooks` (install, uninstall, run).

Registered on the main typer app by `memfs.cli`; kept apart so the CLI module stays small.
Like the rest of the CLI they call only `memfs.api.Memory` (and the agents' servers over it).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Optional

import typer

from memfs.errors import MemfsError


def register(app: typer.Typer, workspace_dir: Callable[[], Optional[str]]) -> None:
    """Add the agent commands to `app`; `workspace_dir()` is the global `--dir` (or None)."""

    def _memory():  # type: ignore[no-untyped-def]
        from memfs.api import Memory
        from memfs.workspace import find_workspace

        return Memory(find_workspace(explicit=workspace_dir()).root)

    def _agent_memory(dir: Optional[str]):  # type: ignore[no-untyped-def]
        """A Memory for the agent commands (`--dir` after the command wins over the global one)."""
        from memfs.agents.tools import AgentMemory
        from memfs.workspace import find_workspace

        return AgentMemory(find_workspace(explicit=dir or workspace_dir()).root)

    @app.command()
    def mcp(dir: Optional[str] = typer.Option(None, "--dir", "-C", help="Workspace folder."),
            http: Optional[int] = typer.Option(None, "--http", help="Serve streamable HTTP on 127.0.0.1:PORT "
                                               "(path /mcp) instead of stdio.")) -> None:
        """Serve the workspace to agents over MCP (stdio by default; needs the `mcp` extra of memfs)."""
        from memfs.agents.mcp_server import serve

        with _agent_memory(dir) as mem:
            serve(mem, http_port=http)

    @app.command()
    def proxy(upstream: str = typer.Option(..., "--upstream", help="The OpenAI-compatible server to forward to, "
                                           "e.g. http://127.0.0.1:11434/v1 or https://api.openai.com/v1."),
              port: int = typer.Option(8787, "--port", help="Port to listen on."),
              host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (keep it local)."),
              dir: Optional[str] = typer.Option(None, "--dir", "-C", help="Workspace folder.")) -> None:
        """OpenAI-compatible proxy: injects recalled memory into chat completions, files each exchange."""
        from memfs.agents.proxy import serve
        from memfs.agents.tools import AgentTools

        with _agent_memory(dir) as mem:
            serve(AgentTools(mem), upstream, host=host, port=port)

    hooks_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, help="Agent-host hooks: `memfs context` at session start, the "
                            "transcript into inbox/ at session end (Claude Code, Codex).")
    app.add_typer(hooks_app, name="hooks")

    def _hook_plan(host: str, scope: str, config: Optional[Path], dir: Optional[str], remove: bool):  # type: ignore[no-untyped-def]
        from memfs.agents.hooks import config_path, plan
        from memfs.workspace import find_workspace

        root = find_workspace(explicit=dir or workspace_dir()).root
        return plan(host, root, config or config_path(host, scope), remove=remove)

    def _show_plan(p, write: bool) -> None:  # type: ignore[no-untyped-def]
        from memfs.agents.hooks import apply

        if not p.changed:
            typer.echo(f"{p.path}: already up to date")
            return
        typer.echo(p.diff(), nl=False)
        if write:
            apply(p)
            typer.echo(f"wrote {p.path}")
        else:
            typer.echo(f"(dry run: nothing written; add --write to write {p.path})")

    @hooks_app.command("install")
    def hooks_install(host: str = typer.Argument(..., help="claude-code or codex"),
                      scope: str = typer.Option("user", "--scope", help="user (~/.claude, ~/.codex) or project (./)."),
                      config: Optional[Path] = typer.Option(None, "--config", help="The host's config file, if elsewhere."),
                      write: bool = typer.Option(False, "--write", help="Write it (default: show the diff only)."),
                      dir: Optional[str] = typer.Option(None, "--dir", "-C", help="Workspace folder.")) -> None:
        """Add memfs' session-start and session-end hooks to the host's config (dry run by default)."""
        _show_plan(_hook_plan(host, scope, config, dir, remove=False), write)

    @hooks_app.command("uninstall")
    def hooks_uninstall(host: str = typer.Argument(..., help="claude-code or codex"),
                        scope: str = typer.Option("user", "--scope"),
                        config: Optional[Path] = typer.Option(None, "--config"),
                        write: bool = typer.Option(False, "--write", help="Write it (default: show the diff only)."),
                        dir: Optional[str] = typer.Option(None, "--dir", "-C")) -> None:
        """Remove memfs' hooks from the host's config (dry run by default); other hooks stay."""
        _show_plan(_hook_plan(host, scope, config, dir, remove=True), write)

    @hooks_app.command("run")
    def hooks_run(event: str = typer.Argument(..., help="session-start or session-end"),
                  host: str = typer.Option("claude-code", "--host", help="claude-code or codex")) -> None:
        """What the host runs (payload JSON on stdin). Never fails the host: errors go to stderr, exit 0."""
        from memfs.agents import hooks

        try:
            payload = hooks.read_payload(sys.stdin)
            with _memory() as mem:
                if event == "session-start":
                    typer.echo(hooks.session_start(mem.context()))
                elif event == "session-end":
                    copied = hooks.session_end(mem.ws, host, payload, mem.config.ingest.max_file_bytes)
                    typer.echo(f"memfs: {'queued ' + mem.ws.rel(copied) if copied else 'transcript unchanged'}",
                               err=True)
                else:
                    raise MemfsError(f"unknown hook event {event!r}: expected session-start or session-end")
        except Exception as err:  # noqa: BLE001 - a hook must never break the agent's session
            typer.echo(f"memfs hooks: {err}", err=True)
