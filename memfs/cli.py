"""The `memfs` command: a thin shell over memfs.api.Memory.

Usage mistakes (unknown command, missing argument, bad option value) are typer's: the usage
line and the problem, exit 2. Errors a user can fix print one line on stderr and exit 1;
anything unexpected prints one line too (set MEMFS_DEBUG=1 for the traceback) and exits 3.
"""

from __future__ import annotations

import os

# One query is one matrix-vector product: BLAS threads only add hand-over latency (and
# on 2 shared cores, 10-50x p99 spikes; bench/README.md). Set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Optional  # noqa: E402

import typer  # noqa: E402

from memfs.errors import MemfsError  # noqa: E402

# rich_markup_mode=None: help texts are plain, so "[llm]" and the like render as written.
app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None, help="memfs: a folder of Markdown as an LLM agent's long-term memory.")

_state: dict[str, Optional[str]] = {"dir": None}


def _print_version(value: bool) -> None:
    if value:
        from memfs import __version__

        typer.echo(f"memfs {__version__}")
        raise typer.Exit()


def _one_of(value: str, *choices: str) -> str:
    if value not in choices:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(choices)}")
    return value


def _check_when(value: Optional[str]) -> Optional[str]:
    """--when is a usage error (exit 2 with the usage line) unless it is a real date."""
    if value is None:
        return None
    from memfs.core.model import parse_when

    try:
        return parse_when(value)
    except ValueError as err:
        raise typer.BadParameter(str(err)) from None


@app.callback()
def _root(dir: Optional[str] = typer.Option(None, "--dir", "-C", help="Workspace folder (default: found "
                                             "from the current folder upward, or $MEMFS_DIR)."),
          version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    _state["dir"] = dir


def _memory():  # type: ignore[no-untyped-def]
    from memfs.api import Memory
    from memfs.workspace import find_workspace

    ws = find_workspace(explicit=_state["dir"])
    return Memory(ws.root)


def _echo_json(data: object) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2))


@app.command()
def init(path: Path = typer.Argument(Path("."), help="Folder to turn into a workspace."),
         no_git: bool = typer.Option(False, "--no-git", help="Do not run `git init`.")) -> None:
    """Lay down a new workspace (memfs.toml, category folders, inbox/, root files) and
    commit it as the first commit of a new git repository."""
    from memfs.api import Memory
    from memfs.workspace import init_workspace_report

    def build_index(ws) -> None:  # type: ignore[no-untyped-def]
        with Memory(ws.root) as mem:
            mem.sync()

    done = init_workspace_report(path, git=not no_git, prepare=build_index)
    typer.echo(f"initialised memfs workspace in {done.workspace.root}")
    typer.echo(done.git)


@app.command()
def add(text: str = typer.Argument(..., help="The fact, as it should read on its own."),
        category: Optional[str] = typer.Option(None, "--category", "-c", help="Category name (or kind/name)."),
        type: Optional[str] = typer.Option(None, "--type", "-t", help="profile|event|knowledge|behavior|skill|tool"),
        when: Optional[str] = typer.Option(None, "--when", callback=_check_when,
                                           help="When it happened: YYYY[-MM[-DD]]."),
        as_json: bool = typer.Option(False, "--json")) -> None:
    """Add one fact (an identical one is reinforced instead). With a daemon running, the
    daemon does the write (its entry files are warm); otherwise this process does."""
    from memfs.addwire import render_added, try_daemon_add, workspace_root

    root = None if os.environ.get("MEMFS_NO_WARM") else workspace_root(_state["dir"])
    reply = try_daemon_add(Path(root) / ".memfs", text, category, type, when, as_json) if root else None
    if reply is not None:
        typer.echo(reply["stdout"], nl=False)
        typer.echo(reply["stderr"], nl=False, err=True)
        raise typer.Exit(int(reply["exit"]))
    import gc

    from memfs.entry.heapfreeze import paused

    with paused(), _memory() as mem:
        gc.freeze()  # a one-shot add: what the imports built is never walked by the collector again
        mem.runtime.vectors_later = True  # a named category's vector: the next sync's or recall's
        item = mem.add(text, category=category, type=type, when=when)
        row = mem.items([item.id]).get(item.id)
    data = {"id": item.id, "text": item.text, "type": item.type, "path": row.path if row else "?", "seen": item.seen}
    typer.echo(render_added(data, as_json), nl=False)


@app.command()
def recall(query: str = typer.Argument(...),
           k: Optional[int] = typer.Option(None, "--k", "-k", min=1, help="How many items (default from memfs.toml)."),
           type: Optional[list[str]] = typer.Option(None, "--type", "-t", help="Only these types."),
           category: Optional[list[str]] = typer.Option(None, "--category", "-c", help="Only these categories."),
           mode: str = typer.Option("fast", "--mode", callback=lambda v: _one_of(v, "fast", "llm"), help="fast (offline hybrid) or llm (rewrite, re-rank, "
                                    "sufficiency check; needs [llm])."),
           sources: bool = typer.Option(False, "--sources", help="Attach the source passage behind each item."),
           since: Optional[str] = typer.Option(None, "--since", help="Only items dated on/after DATE (YYYY[-MM[-DD]])."),
           until: Optional[str] = typer.Option(None, "--until", help="Only items dated on/before DATE."),
           as_of: Optional[str] = typer.Option(None, "--as-of", help="What was true on DATE (history included)."),
           history: bool = typer.Option(False, "--history", help="Include superseded items (until=, superseded_by=)."),
           as_json: bool = typer.Option(False, "--json", help="A JSON list instead of Markdown.")) -> None:
    """Hybrid recall (BM25 + vectors + salience): Markdown with citations, or --json.

    With a daemon running, the query is answered by it over `.memfs/daemon.sock` (warm
    model and index); otherwise this process does the work."""
    from memfs.api import Memory
    from memfs.render import render_recall_markdown

    rows = Memory.recall_rows(_state["dir"], query, k=k, types=type, categories=category, mode=mode,
                              sources=sources, since=since, until=until, as_of=as_of, history=history)
    if as_json:
        _echo_json(rows)
    else:
        typer.echo(render_recall_markdown(query, rows))


@app.command()
def forget(item_ids: Optional[list[str]] = typer.Argument(None, help="Item ids (see `recall --json`)."),
           source: Optional[str] = typer.Option(None, "--source", help="Everything learned from one input, and the "
                                                "input itself: a resources/ path, the name it was ingested under, "
                                                "or its sha256."),
           about: Optional[str] = typer.Option(None, "--about", help="Every item naming this person or entity."),
           query: Optional[str] = typer.Option(None, "--query", help="Items matching this search (shown first)."),
           k: int = typer.Option(10, "--k", "-k", help="With --query: at most this many items."),
           yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask; remove what the preview lists."),
           purge_history: bool = typer.Option(False, "--purge-history", help="Also rewrite git history so the "
                                              "removed content is gone from every commit (see the warning)."),
           as_json: bool = typer.Option(False, "--json")) -> None:
    """Forget items, an input, a person or a search's matches: preview, confirm, remove everywhere."""
    from memfs.forget import render_plan

    with _memory() as mem:
        plan = mem.plan_forget(ids=item_ids or None, source=source, about=about, query=query, k=k)
        if plan.empty:
            if plan.mentions:
                typer.echo(render_plan(plan))
            typer.echo("nothing to forget")
            return
        if not as_json or not yes:
            typer.echo(render_plan(plan, purge_history), err=as_json)
        if not yes:
            try:
                confirmed = typer.confirm("remove all of this?", default=False, err=True)
            except typer.Abort:  # no answer (stdin closed): the same as no
                typer.echo("", err=True)
                confirmed = False
            if not confirmed:
                typer.echo("nothing was changed (answer y, or pass --yes)", err=True)
                raise typer.Exit(1)
        report = mem.apply_forget(plan, purge_history=purge_history)
    if as_json:
        _echo_json({"plan": plan.model_dump(), "report": report.model_dump()})
        return
    typer.echo(f"forgot {report.items_removed} items and {report.resources_removed} inputs"
               + (f" ({report.entry}: dropping them again is refused unless --allow-relearn)" if report.entry else "")
               + (f"; took back {report.unreinforced} reinforcements" if report.unreinforced else "")
               + ("; committed" if report.committed else ""))
    if report.history:
        h = report.history
        typer.echo(f"history: {h['commits_rewritten']} of {h['commits']} commits rewritten, {h['files_dropped']} "
                   f"files dropped, {h['words']} words scrubbed; reflogs expired, objects pruned")


@app.command()
def export(about: str = typer.Option(..., "--about", help="The person or entity (a data-subject request)."),
           out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write here instead of stdout."),
           as_json: bool = typer.Option(False, "--json")) -> None:
    """Write every item and source passage about a person or entity."""
    with _memory() as mem:
        found = mem.export_about(about)
    text = found.model_dump_json(indent=2) + "\n" if as_json else found.markdown()
    if out is None:
        typer.echo(text, nl=False)
        return
    from memfs.fsutil import atomic_write

    atomic_write(out, text)
    typer.echo(f"wrote {len(found.items)} items and {len(found.passages)} passages about {about} to {out}", err=True)


@app.command()
def why(item_id: str = typer.Argument(..., help="The item's id."),
        as_json: bool = typer.Option(False, "--json")) -> None:
    """Show where a fact came from: file and line, source passage, input, commits."""
    with _memory() as mem:
        prov = mem.why(item_id)
    if as_json:
        _echo_json(prov.model_dump())
    else:
        typer.echo(prov.text())


@app.command()
def sync(rebuild: bool = typer.Option(False, "--rebuild", help="Throw .memfs/ away and rebuild from Markdown."),
         as_json: bool = typer.Option(False, "--json")) -> None:
    """Bring the index in line with the Markdown (only what changed)."""
    from memfs.progress import Progress

    with _memory() as mem, Progress("rebuilding" if rebuild else "syncing") as bar:
        report = mem.sync(rebuild=rebuild, progress=bar.update)
    if as_json:
        _echo_json(report.model_dump())
        return
    for w in report.warnings:
        typer.echo(f"warning: {w}", err=True)
    typer.echo(f"synced: {report.files_parsed} files read, +{report.items_added} ~{report.items_updated} "
               f"-{report.items_removed} items, {report.embedded} embedded ({report.seconds:.2f}s)")


@app.command()
def status(as_json: bool = typer.Option(False, "--json")) -> None:
    """Counts, queue and failures."""
    with _memory() as mem:
        st = mem.status()
    if as_json:
        _echo_json(st.model_dump())
        return
    typer.echo(f"workspace  {st.root}\nitems      {st.items} in {st.categories} categories\n"
               f"passages   {st.passages} (prose in your notes)\n"
               f"resources  {st.resources}\ninbox      {st.inbox_pending} pending, {st.failed} failed\n"
               f"embedder   {st.embedder}\nllm        {st.llm}\nindex      {st.index_bytes / 1e6:.1f} MB")
    if st.vectors_pending or st.checks_pending:  # vectors after the write, not added yet
        typer.echo(f"pending    {st.vectors_pending} vectors, {st.checks_pending} near-duplicate checks "
                   "(the daemon adds them; or run memfs sync)")
    if st.llm_usage:
        from memfs.llm.usage import Usage

        for line in Usage.model_validate(st.llm_usage).summary_lines():
            typer.echo(f"llm usage  {line}")
    for line in st.llm_state:
        typer.echo(f"llm state  {line}")
    if st.redactions:
        kinds = ", ".join(f"{k} {n}" for k, n in st.redaction_kinds.items())
        typer.echo(f"redacted   {st.redactions} secrets ({kinds})")
    for name, reason in st.failures:
        typer.echo(f"failed     {name}: {reason}")
    for w in st.warnings:
        typer.echo(f"warning: {w}")


@app.command()
def ingest(paths: list[Path] = typer.Argument(..., help="Files to memorize (any folder; inbox files are "
                                              "removed once archived)."),
           allow_relearn: bool = typer.Option(False, "--allow-relearn", help="Learn an input again even though "
                                              "`memfs forget` removed it."),
           as_json: bool = typer.Option(False, "--json")) -> None:
    """Run files through the memorize pipeline now: by a running daemon (warm), else here."""
    from memfs.addwire import try_daemon_ingest, workspace_root
    from memfs.pipeline.summary import render_results

    root = None if os.environ.get("MEMFS_NO_WARM") else workspace_root(_state["dir"])
    reply = try_daemon_ingest(Path(root) / ".memfs", [os.path.abspath(p) for p in paths], allow_relearn,
                              as_json) if root else None
    if reply is not None and "lines" not in reply:  # an error line of the daemon's (no results)
        typer.echo(reply["stdout"], nl=False)
        typer.echo(reply["stderr"], nl=False, err=True)
        raise typer.Exit(int(reply["exit"]))
    rest = [Path(p) for p in reply["rest"]] if reply is not None else paths  # (what it did not take)
    results = []
    if rest:
        from memfs.progress import Progress

        with _memory() as mem, Progress("memorizing") as bar:
            results = mem.ingest(rest, progress=lambda n, total, added: bar.update(n, total, items=added),
                                 allow_relearn=allow_relearn)
            try:
                warm = mem.keep_warm() if results else None  # a big store: a daemon for the next ones
            except OSError as err:  # the input is memorized all the same
                typer.echo(f"memfs: warning: could not start a daemon for this store: {err}", err=True)
                warm = None
        if warm is not None:
            from memfs.services.autodaemon import started_line

            typer.echo(started_line(warm, mem.config), err=True)
    lines, code = render_results(results, as_json)
    if reply is not None:
        code = max(code, int(reply["exit"]))
        if as_json:
            lines = [(False, json.dumps(reply["results"] + [r.model_dump(mode="json") for r in results],
                                        ensure_ascii=False, indent=2))]
        else:
            lines = [(bool(err), str(line)) for err, line in reply["lines"]] + lines
    for err, line in lines:
        typer.echo(line, err=err)
    if code:
        raise typer.Exit(code)


@app.command()
def daemon(commit: bool = typer.Option(False, "--commit", help="git commit each processed input."),
           auto: bool = typer.Option(False, "--auto-started", hidden=True)) -> None:
    """Process inbox/, then watch it (and the store) until SIGINT/SIGTERM."""
    from memfs.daemon import Daemon

    with _memory() as mem:
        code = Daemon(mem, commit=True if commit else None, auto_started=auto).run()
    raise typer.Exit(code)


@app.command()
def context() -> None:
    """Print what an agent should read first (index.md and memory.md)."""
    with _memory() as mem:
        typer.echo(mem.context(), nl=False)


from memfs.cli_agents import register as _register_agent_commands  # noqa: E402
from memfs.cli_upkeep import register as _register_upkeep_commands  # noqa: E402

_register_agent_commands(app, lambda: _state["dir"])
_register_upkeep_commands(app, lambda: _state["dir"], _echo_json)


def main() -> None:
    """Console entry point. Usage mistakes are typer's (usage line, exit 2); errors a person
    can fix are one line and exit 1; anything unexpected is one line and exit 3."""
    try:
        app()
    except MemfsError as err:
        typer.echo(f"memfs: error: {err}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        typer.echo("memfs: interrupted", err=True)
        sys.exit(130)
    except Exception as err:  # noqa: BLE001 - the one place that turns bugs into one line
        if os.environ.get("MEMFS_DEBUG"):
            raise
        typer.echo(f"memfs: internal error: {type(err).__name__}: {err} (MEMFS_DEBUG=1 shows the traceback)",
                   err=True)
        sys.exit(3)
    finally:
        # The process ends now. Its last full garbage collection walks every object still
        # tracked (~100,000 after an add into a 50,000-item file: 50-80 ms of a one-shot
        # add) to find cycles the OS reclaims anyway; frozen objects are skipped. Nothing
        # is lost: files and the index are closed by then, and reference counting still
        # frees (and finalizes) whatever is not in a cycle.
        import gc

        gc.freeze()


if __name__ == "__main__":
    main()
