"""The `memfs` console script: a thin client for the one hot call, then the full CLI.

`memfs recall QUERY` answered by a running daemon costs a few milliseconds of work, but
importing typer, pydantic and numpy first costs ~0.2 s. So this module, which imports
nothing heavy, recognises the plain form `memfs [--dir D] recall QUERY [-k N] [--json]`,
asks the daemon's socket, and prints the answer exactly as the full CLI would. Anything
else — another verb, another option, no daemon, a daemon that fails — goes to
`memfs.cli.main`, which does the work itself; the answer is the same either way.
"""

from __future__ import annotations

import json
import os
import sys


def _parse(argv: list[str]) -> tuple[str | None, str, int | None, bool] | None:
    """(dir, query, k, as_json) for the plain recall form, else None (the full CLI decides)."""
    directory: str | None = None
    args = list(argv)
    if len(args) >= 2 and args[0] in ("--dir", "-C"):
        directory, args = args[1], args[2:]
    if not args or args[0] != "recall":
        return None
    query: str | None = None
    k: int | None = None
    as_json = False
    rest = args[1:]
    i = 0
    while i < len(rest):
        a = rest[i]
        if a == "--json":
            as_json = True
        elif a in ("-k", "--k") and i + 1 < len(rest):
            if not rest[i + 1].isdigit() or int(rest[i + 1]) < 1:
                return None  # the full CLI prints the usage error
            k = int(rest[i + 1])
            i += 1
        elif a.startswith("-") or query is not None:
            return None
        else:
            query = a
        i += 1
    if query is None or not query.strip():
        return None
    return directory, query, k, as_json


def _quick(argv: list[str]) -> bool:
    """True if a running daemon answered and the answer was printed."""
    if os.environ.get("MEMFS_NO_WARM"):
        return False
    parsed = _parse(argv)
    if parsed is None:
        return False
    directory, query, k, as_json = parsed
    from memfs.errors import MemfsError
    from memfs.warm_client import try_warm_recall
    from memfs.workspace import find_workspace

    try:
        ws = find_workspace(explicit=directory)
    except MemfsError:
        return False
    rows = try_warm_recall(ws.state, query, k, None, None)
    if rows is None:
        return False
    if as_json:
        out = json.dumps(rows, ensure_ascii=False, indent=2)
    else:
        from memfs.render import render_recall_markdown

        out = render_recall_markdown(query, rows)
    sys.stdout.write(out + "\n")
    sys.stdout.flush()
    return True


def main() -> None:
    if _quick(sys.argv[1:]):
        return
    from memfs.cli import main as full

    full()


if __name__ == "__main__":
    main()
