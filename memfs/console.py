"""The `memfs` console script: a thin client for the one hot call, then the full CLI.

`memfs recall QUERY` answered by a running daemon costs a few milliseconds of work, but
importing typer, pydantic and numpy first costs ~0.2 s. So this module recognises the
plain form `memfs [--dir D] recall QUERY [-k N] [--json]`, asks the daemon's socket for
the finished output (the daemon renders it exactly as the full CLI would) and prints it.
With no daemon it answers cold through memfs.coldrecall, which imports only what a read
needs (not typer, not memfs.api). Anything else — another verb, another option, an index
that needs a sync, any failure — goes to `memfs.cli.main`, which does the work itself; the
answer is the same either way. The plain `memfs add` is the daemon's when one runs
(memfs.addwire), else done here by `add_here` without loading the full CLI.

Every import here is paid on each warm recall, so this module imports only `os` and `sys`
(already loaded by the interpreter) and `_socket` (the C module: `socket.py` builds enums
at import). No json, pathlib or memfs.workspace: the request is encoded by hand, the reply
is the text to print, and the workspace is found with `os.path` the way
`memfs.workspace.find_workspace` finds it.
"""

from __future__ import annotations

import os
import sys

from memfs.rootfind import workspace_root
from memfs.sockconnect import connect

SOCKET = os.path.join(".memfs", "daemon.sock")  # memfs.warm.socket_path
TIMEOUT = 5.0
#: numpy's BLAS thread pools, started at its import (one thread per core) unless told:
#: a one-shot add does no matrix work worth them, and starting them is paid at every add.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
#: The verb the daemon answers with the rendered output (memfs.warm.RENDER_VERB).
RENDER_VERB = "recall-rendered"
#: What an add done by this process built (the Memory, and through it the parsed file and
#: the entry files' state), kept alive until the process ends: see `_end_now`.
_KEPT: list[object] = []


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


def json_string(text: str) -> str:
    """`text` as a JSON string literal (what json.dumps(text, ensure_ascii=False) gives,
    without importing json)."""
    out = text.replace("\\", "\\\\").replace('"', '\\"')
    if any(c < " " for c in out):
        out = "".join(f"\\u{ord(c):04x}" if c < " " else c for c in out)
    return f'"{out}"'


def request_line(query: str, k: int | None, as_json: bool) -> bytes:
    """The one request line for the rendered recall (UnicodeEncodeError for a query with
    lone surrogates, which the full CLI then handles)."""
    line = (f'{{"verb": "{RENDER_VERB}", "query": {json_string(query)}, '
            f'"k": {"null" if k is None else int(k)}, "format": "{"json" if as_json else "markdown"}"}}\n')
    return line.encode("utf-8")


def ask(path: str, payload: bytes, timeout: float = TIMEOUT) -> str | None:
    """The daemon's rendered answer, or None (no daemon, an error, a timeout)."""
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        connect(sock, path, timeout)
        sock.sendall(payload)
        chunks = []
        while True:
            chunk = sock.recv(1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        sock.close()
    reply = b"".join(chunks)
    if not reply.startswith(b"ok\n"):
        return None  # an error line: the full CLI does the work and reports it
    try:
        return reply[3:].decode("utf-8")
    except UnicodeDecodeError:
        return None


def _warm(root: str, query: str, k: int | None, as_json: bool) -> str | None:
    """The daemon's answer, or None (none runs, MEMFS_NO_WARM, or it failed)."""
    path = os.path.join(root, SOCKET)
    if os.environ.get("MEMFS_NO_WARM") or not os.path.exists(path):
        return None
    try:
        payload = request_line(query, k, as_json)
    except UnicodeEncodeError:
        return None
    return ask(path, payload)


def _quick(argv: list[str]) -> bool:
    """True if the plain recall was answered (by a daemon, else by the lean cold path of
    memfs.coldrecall) and printed; False sends the command to the full CLI."""
    parsed = _parse(argv)
    if parsed is None:
        return False
    directory, query, k, as_json = parsed
    root = workspace_root(directory)
    if root is None:
        return False
    out = _warm(root, query, k, as_json)
    if out is None:
        from memfs.coldrecall import answer

        out = answer(root, query, k, as_json)
    if out is None:
        return False
    sys.stdout.write(out)
    sys.stdout.flush()
    return True


def add_here(root: str, text: str, category: str | None, type: str | None, as_json: bool,
             keep: bool = False) -> dict | None:
    """The plain `memfs add` done by this process as the full CLI does it, without loading
    the CLI (typer, click and memfs.cli: ~30-60 ms of a one-shot add into a big file): the
    daemon's own `warm_write.perform`, so the output and the one-line errors are the CLI's
    (tests/test_console_add.py compares them). None — the full CLI does it — under MEMFS_DEBUG
    (only it prints tracebacks) or if `perform` refuses. The heap is frozen after the
    imports (they live as long as the process) and again before the collector, off during
    the add (`heapfreeze.paused`), is back on. `keep` (the `memfs` command's own process
    only, `entry`): what the add built is kept alive for `_end_now`."""
    if os.environ.get("MEMFS_DEBUG"):
        return None
    for name in BLAS_THREADS:  # before numpy loads: one add multiplies no matrix worth a thread pool
        os.environ.setdefault(name, "1")
    import gc

    from memfs.api import Memory
    from memfs.entry.heapfreeze import paused
    from memfs.errors import MemfsError
    from memfs.warm_write import perform

    gc.freeze()  # what the imports built lives as long as this process: no collection walks it again
    try:
        with paused():
            with Memory(root) as mem:
                if keep:
                    _KEPT.append(mem)  # freed by the process's end, not object by object (`_end_now`)
                mem.runtime.vectors_later = True  # a named category's vector: the next sync's or recall's
                reply = perform(mem, {"text": text, "category": category, "type": type, "when": None,
                                      "json": as_json})
            # Before the collector is back on: else its first collection walks every object
            # the add allocated meanwhile (~150,000 for a 50,000-item file, ~12 ms) for cycles.
            gc.freeze()
    except MemfsError as err:
        reply = {"status": "error", "stdout": "", "stderr": f"memfs: error: {err}\n", "exit": 1}
    except KeyboardInterrupt:
        reply = {"status": "error", "stdout": "", "stderr": "memfs: interrupted\n", "exit": 130}
    except Exception as err:  # noqa: BLE001 - one line, as the CLI's main prints it
        reply = {"status": "error", "stdout": "", "stderr": f"memfs: internal error: {err.__class__.__name__}: {err} "
                 "(MEMFS_DEBUG=1 shows the traceback)\n", "exit": 3}
    gc.freeze()
    return reply if reply.get("status") in ("done", "error") else None


def _end_now(code: int) -> None:
    """End the `memfs` command's process after an add it did itself, without the
    interpreter's teardown.

    Everything that matters is done by then: the file was written atomically and fsynced,
    the index committed and closed, the writer lock released (Memory's `close`), the output
    written (`addwire.emit`). What is left is freeing the heap the add built (the 50,000
    slots of a big file, the entry files' state, the modules) object by object, and
    interpreter finalization: ~25-35 ms of a one-shot add into a 50,000-item file (issue
    #17 item 3), for memory the kernel takes back at once. memfs registers no atexit hook.
    Only `entry` (the installed script) calls this, never `main`, and not under a profiler,
    a tracer or coverage, which write their results at exit."""
    if sys.getprofile() is not None or sys.gettrace() is not None or "coverage" in sys.modules:
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def main(keep: bool = False) -> None:
    """`memfs ARGS`: the warm recall, the plain add (by a daemon, else here), else the full
    CLI. Ends with SystemExit like any console script, so a program may call it in-process."""
    if _quick(sys.argv[1:]):
        return
    from memfs.addwire import quick_add  # `memfs add` done by a running daemon (memfs.addwire), else here

    kept = len(_KEPT)

    def here(root: str, text: str, category: str | None, type: str | None, as_json: bool) -> dict | None:
        return add_here(root, text, category, type, as_json, keep=keep)

    try:
        if quick_add(sys.argv[1:], here):
            return
    except SystemExit as end:
        if keep and len(_KEPT) > kept and isinstance(end.code, int):
            _end_now(end.code)  # this process did the add: nothing is left but the teardown
        raise
    from memfs.cli import main as full

    full()


def entry() -> None:
    """The installed `memfs` script: `main`, and after an add done here, no teardown."""
    main(keep=True)


if __name__ == "__main__":
    entry()
