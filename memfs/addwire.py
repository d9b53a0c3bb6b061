"""`memfs add` (and `memfs ingest`) performed by a running daemon: the client side and the shared output.

A fresh process adding into a 50,000-item file parses the whole file and builds its entry
files from nothing (~11 s); the daemon keeps both warm (~0.3 s). So the CLI asks the
daemon over `.memfs/daemon.sock` first. The one rule that matters: never do a write twice.
- No socket, nobody listening, or an answer that says the daemon did not take the request
  (an older daemon, a busy one, a stopping one): `None`, the caller adds in-process.
- The request was sent and no complete answer came back (the daemon died, a timeout): the
  outcome is unknown, `AddOutcomeUnknown`, and the caller must not retry.
- The daemon adds with the config it loaded at its start. The request carries the key of the
  client's config (memfs.toml, the config-relevant environment); a daemon whose key differs
  refuses, and the client adds in-process with its own config.
Standard library only (socket, json): nothing heavy is imported before the socket is tried.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from memfs.configsnap import snapshot_key
from memfs.errors import MemfsError
from memfs.rootfind import workspace_root
from memfs.sockconnect import connect

VERB = "add"
#: The longest request line the daemon reads (memfs.warm_client.MAX_REQUEST, not imported:
#: this module stays light for the thin path).
MAX_REQUEST = 1 << 20
INGEST_VERB = "ingest"  # `memfs ingest PATHS`, the same way (try_daemon_ingest)
SOCKET_NAME = "daemon.sock"  # memfs.warm_client.SOCKET_NAME
MAX_REPLY = 1 << 20
#: How long the client waits for the answer once the request is sent. The daemon answers
#: "not taken" within its own pick-up limit (memfs.warm_write.PICKUP_SECONDS) if it is busy,
#: so this is only reached by a daemon that hangs mid-write.
ANSWER_TIMEOUT = 300.0
#: An ingest runs as long as its inputs need (an LLM mode call per chunk); a daemon that dies
#: meanwhile closes the socket, which ends the wait at once.
INGEST_TIMEOUT = 3600.0
CONNECT_TIMEOUT = 2.0
#: MEMFS_* variables that do not change the config (where, whether, how loudly), so a CLI and
#: a daemon that differ only in them still agree; so do MEMFS_DAEMON_* (when a daemon starts
#: and stops, not what a write does).
_NOT_CONFIG = ("MEMFS_DIR", "MEMFS_NO_WARM", "MEMFS_DEBUG", "MEMFS_PROGRESS_DELAY")


def config_key(root: str | Path) -> str:
    """The key of the config this process would add with in `root` (memfs.configsnap's,
    over the environment without the variables that are not config)."""
    env = {k: v for k, v in os.environ.items() if k not in _NOT_CONFIG and not k.startswith(("MEMFS_TEST_",
                                                                                           "MEMFS_DAEMON_"))}
    return snapshot_key(str(root), env)


class AddOutcomeUnknown(MemfsError):
    """The daemon took the add and no answer came back: it may or may not have been written."""


def parse_plain(argv: list[str]) -> tuple[str | None, str, str | None, str | None, bool] | None:
    """(dir, text, category, type, as_json) for `memfs [--dir D] add TEXT [-c C] [-t T]
    [--json]`; anything else (--when, --help, `--opt=value`, a second text) is None: the full
    CLI parses it, so usage errors stay typer's."""
    args = list(argv)
    directory = None
    if len(args) >= 2 and args[0] in ("--dir", "-C"):
        directory, args = args[1], args[2:]
    if not args or args[0] != "add":
        return None
    text: str | None = None
    opts: dict[str, str] = {}
    as_json = False
    rest, i = args[1:], 0
    while i < len(rest):
        a = rest[i]
        if a == "--json":
            as_json = True
        elif a in ("-c", "--category", "-t", "--type") and i + 1 < len(rest) and not rest[i + 1].startswith("-"):
            opts[a.lstrip("-")[0]] = rest[i + 1]
            i += 1
        elif a.startswith("-") or text is not None:
            return None
        else:
            text = a
        i += 1
    if text is None:
        return None
    return directory, text, opts.get("c"), opts.get("t"), as_json


TYPE_CHECKING = False  # (not `typing`: the thin path imports only what it needs)
if TYPE_CHECKING:
    from collections.abc import Callable

    #: (root, text, category, type, as_json) -> the reply of an add done by this process, or
    #: None (the full CLI does it): `memfs.console.add_here`, handed in (this module is tier 0).
    LocalAdd = Callable[[str, str, str | None, str | None, bool], dict | None]


def quick_add(argv: list[str], here: "LocalAdd | None" = None) -> bool:
    """The `memfs` console script's thin path for the plain form: True if the add was done —
    by a running daemon, else by `here` (this process, without the full CLI) — and its
    output and exit code given; False: the full CLI does it (told not to ask the daemon
    again when it refused). An unknown outcome prints its one line and exits 1 here, never
    retried."""
    import sys

    parsed = parse_plain(argv)
    if parsed is None:
        return False
    directory, text, category, type, as_json = parsed
    root = workspace_root(directory)
    if root is None:
        return False
    reply = None
    if not os.environ.get("MEMFS_NO_WARM"):
        try:
            reply = try_daemon_add(Path(root) / ".memfs", text, category, type, None, as_json)
        except AddOutcomeUnknown as err:
            sys.stderr.write(f"memfs: error: {err}\n")
            sys.exit(1)
    if reply is None:
        reply = here(root, text, category, type, as_json) if here is not None else None
        if reply is None:
            os.environ["MEMFS_NO_WARM"] = "1"  # this process only: the full CLI adds in-process
            return False
    sys.exit(emit(reply))


def emit(reply: dict) -> int:
    """Print a reply's output and return its exit code, as the full CLI would: no stdout at
    all (`memfs add x >&-`) prints nothing; one that cannot be written (a full disk, a pipe
    its reader closed) is one line and exit 3 (memfs.cli.main), never a traceback — the add
    itself is done either way."""
    import sys

    code = int(reply["exit"])
    stderr = reply["stderr"]
    try:
        if sys.stdout is not None:
            sys.stdout.write(reply["stdout"])
            sys.stdout.flush()
    except (OSError, ValueError) as err:
        sys.stdout = None  # (the interpreter's own flush at exit would fail again, with a traceback)
        stderr += (f"memfs: internal error: {err.__class__.__name__}: {err} "
                   "(MEMFS_DEBUG=1 shows the traceback)\n")
        code = 3
    try:
        if sys.stderr is not None:
            sys.stderr.write(stderr)
            sys.stderr.flush()
    except (OSError, ValueError):
        pass
    return code


def render_added(data: dict, as_json: bool) -> str:
    """What `memfs add` prints for an added or reinforced item (newline included); `data`
    has id, text, type, path, seen. One function for both paths, so the output is the same."""
    if as_json:
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    verb = "reinforced" if data["seen"] > 1 else "added"
    return f"{verb} {data['id']} → {data['path']}\n"


def request_line(text: str, category: str | None, type: str | None, when: str | None, as_json: bool,
                 config: str | None = None) -> bytes:
    return json.dumps({"verb": VERB, "text": text, "category": category, "type": type, "when": when,
                       "json": as_json, "config": config}).encode("utf-8") + b"\n"


def try_daemon_add(state_dir: Path, text: str, category: str | None = None, type: str | None = None,
                   when: str | None = None, as_json: bool = False) -> dict | None:
    """The daemon's answer `{"status": "done"|"error", "stdout", "stderr", "exit"}`, or None
    when it did not take the request (do it in-process). Raises AddOutcomeUnknown once the
    request may have reached the daemon and no whole answer came back."""
    if not (state_dir / SOCKET_NAME).exists():
        return None
    try:
        payload = request_line(text, category, type, when, as_json, config_key(state_dir.parent))
    except (UnicodeEncodeError, ValueError):
        return None  # lone surrogates and the like: the in-process path reports them
    return _ask(state_dir, payload, ANSWER_TIMEOUT, "add")


def try_daemon_ingest(state_dir: Path, paths: list[str], allow_relearn: bool, as_json: bool) -> dict | None:
    """`memfs ingest PATHS` done by a running daemon (its entry files are warm: a fresh
    process regenerates them from nothing, seconds at 100,000 items): the answer as for
    `try_daemon_add`, None when it did not take the request, AddOutcomeUnknown when it took
    it and no answer came. `paths` are absolute: the daemon runs elsewhere."""
    if not (state_dir / SOCKET_NAME).exists():
        return None
    payload = json.dumps({"verb": INGEST_VERB, "paths": paths, "allow_relearn": allow_relearn, "json": as_json,
                          "config": config_key(state_dir.parent)}).encode("ascii") + b"\n"
    if len(payload) >= MAX_REQUEST:  # the daemon reads one line of at most this: do it here
        return None
    return _ask(state_dir, payload, INGEST_TIMEOUT, "ingest", limit=1 << 28)  # (--json of many inputs)


def _ask(state_dir: Path, payload: bytes, timeout: float, what: str, limit: int = MAX_REPLY) -> dict | None:
    """Send one request line and read the whole answer (module docstring: the one rule)."""
    path = state_dir / SOCKET_NAME
    import socket  # only when a daemon's socket file is there (an add without one never needs it)

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        try:
            sock.settimeout(CONNECT_TIMEOUT)
            connect(sock, str(path), CONNECT_TIMEOUT)
        except OSError:
            return None  # a stale socket, nobody listening: nothing was sent
        try:
            sock.settimeout(timeout)
            sock.sendall(payload)
            buf = b""
            while not buf.endswith(b"\n") and len(buf) < limit:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                buf += chunk
        except OSError as err:
            raise _unknown(f"{type_name(err)}", what) from None
    finally:
        sock.close()
    if not buf.endswith(b"\n"):
        raise _unknown("the daemon closed the connection before answering", what)
    try:
        reply = json.loads(buf)
    except ValueError:
        raise _unknown("the daemon's answer was unreadable", what) from None
    if not isinstance(reply, dict) or reply.get("status") not in ("done", "error"):
        return None  # "refused", or an older daemon's "only recall and ping are served": not done
    return reply


def type_name(err: BaseException) -> str:
    return f"{err.__class__.__name__}: {err}" if str(err) else err.__class__.__name__


def _unknown(why: str, what: str = "add") -> AddOutcomeUnknown:
    if what == "ingest":
        return AddOutcomeUnknown(f"the daemon took the ingest but gave no answer ({why}); it may or may not have "
                                 "been memorized: ingesting the files again reports those already memorized")
    return AddOutcomeUnknown(f"the daemon took the add but gave no answer ({why}); it may or may not "
                             "have been written: check with `memfs recall` or `memfs status` before adding again")
