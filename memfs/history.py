"""Purging forgotten content from git history (`memfs forget --purge-history`).

Every commit reachable from any ref is rebuilt, oldest first, with git's own object
format (no filter-repo dependency, no work-tree checkouts): trees lose the forgotten
inputs' resource files (named by their sha256[:16]); Markdown blobs lose the lines of
forgotten items (`id=<id>`); and in every blob and commit or tag message, each word of
the forgotten content that appears nowhere in the current tree becomes `[forgotten]`
(old summaries and memory.md versions quote item texts, cut at any length, so removing
whole items alone would not be enough). Unchanged objects keep their ids, so commits
before the first mention keep theirs. Then refs move in one transaction, reflogs
expire and `git gc --prune=now` drops the old objects.

Signatures on rewritten commits and tags are dropped (they would no longer verify).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import zlib
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel

from memfs.errors import MemfsError

_WORD = re.compile(r"\w+", re.UNICODE)
#: Dates, versions, hosts and paths ("2025-03-02", "v1.2", "db.internal"): scrubbed whole,
#: since their parts ("03", "02") are usually found elsewhere.
_COMPOUND = re.compile(r"\w+(?:[-.:/@]\w+)+", re.UNICODE)
_DATE = re.compile(r"\d{4}-\d\d(?:-\d\d)?")


def words_of(text: str) -> set[str]:
    """Lower-cased words of `text`, and its compound tokens (dates, paths) whole."""
    return ({w.lower() for w in _WORD.findall(text)} | {w.lower() for w in _COMPOUND.findall(text)}
            | set(_DATE.findall(text)))


REPLACEMENT = "[forgotten]"
#: Objects read per `cat-file --batch` round trip.
BATCH = 64
_ENV = {"GIT_AUTHOR_NAME": "memfs", "GIT_AUTHOR_EMAIL": "memfs@localhost",
        "GIT_COMMITTER_NAME": "memfs", "GIT_COMMITTER_EMAIL": "memfs@localhost"}


class PurgeReport(BaseModel):
    commits: int = 0
    commits_rewritten: int = 0
    blobs_rewritten: int = 0
    files_dropped: int = 0
    refs_updated: int = 0
    words: int = 0


class _Git:
    """A repository: plumbing commands plus one long-lived `cat-file --batch` reader."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.env = {**os.environ, **_ENV}
        self.objects = Path(self.run("rev-parse", "--git-path", "objects").strip())
        if not self.objects.is_absolute():
            self.objects = root / self.objects
        fmt = self.run("rev-parse", "--show-object-format", check=False).strip() or "sha1"
        self.hash_name = "sha256" if fmt == "sha256" else "sha1"
        self.raw_len = 32 if fmt == "sha256" else 20
        self._reader = subprocess.Popen(["git", "-C", str(root), "cat-file", "--batch"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, env=self.env)

    def run(self, *args: str, check: bool = True, stdin: str | None = None) -> str:
        proc = subprocess.run(["git", "-C", str(self.root), *args], capture_output=True, text=True, env=self.env,
                              input=stdin, check=False)
        if check and proc.returncode != 0:
            raise MemfsError(f"git {args[0]} failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode}")
        return proc.stdout

    def read(self, oid: str) -> tuple[str, bytes]:
        assert self._reader.stdin and self._reader.stdout
        self._reader.stdin.write(oid.encode() + b"\n")
        self._reader.stdin.flush()
        header = self._reader.stdout.readline().split()
        if len(header) < 3:
            raise MemfsError(f"git object {oid} is missing")
        size = int(header[2])
        data = self._reader.stdout.read(size)
        self._reader.stdout.read(1)
        return header[1].decode(), data

    def read_many(self, oids: list[str]) -> dict[str, bytes]:
        """Many objects in one round trip: a thread feeds the ids while this one reads, so
        neither pipe can fill up and stall the other."""
        import threading

        assert self._reader.stdin and self._reader.stdout
        stdin = self._reader.stdin
        payload = b"".join(o.encode() + b"\n" for o in oids)
        feed = threading.Thread(target=lambda: (stdin.write(payload), stdin.flush()), daemon=True)
        if len(payload) < 16384:  # fits in the pipe's buffer: the write cannot block
            feed.run()
        else:
            feed.start()
        out: dict[str, bytes] = {}
        try:
            for oid in oids:
                header = self._reader.stdout.readline().split()
                if len(header) < 3:
                    raise MemfsError(f"git object {oid} is missing")
                out[oid] = self._reader.stdout.read(int(header[2]))
                self._reader.stdout.read(1)
        finally:
            if feed.ident is not None:
                feed.join()
        return out

    def write(self, kind: str, data: bytes) -> str:
        """Store a loose object exactly as git does (zlib of '<kind> <size>\\0<data>')."""
        import hashlib

        full = f"{kind} {len(data)}".encode() + b"\0" + data
        oid = hashlib.new(self.hash_name, full).hexdigest()
        path = self.objects / oid[:2] / oid[2:]
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-obj-")
            with os.fdopen(fd, "wb") as fh:
                fh.write(zlib.compress(full))
            os.chmod(tmp, 0o444)
            os.replace(tmp, path)
        return oid

    def close(self) -> None:
        if self._reader.stdin:
            self._reader.stdin.close()
        self._reader.wait(timeout=30)


#: Words never scrubbed: item metadata keys, front-matter keys and memfs's own commit and
#: file vocabulary (in a workspace left with no items they would be "unique").
PROTECTED = frozenset(
    "id type when src seen updated via supersedes title kind description summary items memfs ingest forget "
    "added reinforced resource resources changed memory index skill generated begin end md json txt "
    "forgotten".split())


_TOKEN = re.compile(r"\w+(?:[-.:/@]\w+)*")
_PART = re.compile(r"\w+")
_DATE = re.compile(r"(?<!\d)\d{4}-\d\d(?:-\d\d)?(?!\d)")


class _Scrubber:
    """Word replacement by set lookup, one pass over each text (linear in its size, whatever
    the number of words), rather than one regex alternation of thousands of words."""

    def __init__(self, words: set[str], item_ids: Iterable[str], digests: Iterable[str]) -> None:
        self.words = {w.lower() for w in words if w and w.lower() not in PROTECTED}
        ids = sorted(set(item_ids))
        self.id_rx = re.compile(r"id=(?:" + "|".join(re.escape(i) for i in ids) + r")(?![\w-])") if ids else None
        self.digests = [d[:16].encode() for d in digests if d]

    def drops_file(self, name: bytes) -> bool:
        return any(d in name for d in self.digests)

    def _token(self, m: re.Match[str]) -> str:
        tok = m.group(0)
        if tok.lower() in self.words:
            return REPLACEMENT
        if tok.isalnum():
            return tok
        return _PART.sub(lambda p: REPLACEMENT if p.group(0).lower() in self.words else p.group(0), tok)

    def text(self, data: bytes) -> bytes:
        """The blob or message without forgotten item lines and words (binary blobs untouched)."""
        if b"\0" in data[:8000]:
            return data
        text = data.decode("utf-8", "surrogateescape")
        if self.id_rx is not None and self.id_rx.search(text):
            text = "".join(line for line in text.splitlines(keepends=True) if not self.id_rx.search(line))
        if self.words:
            text = _DATE.sub(lambda d: REPLACEMENT if d.group(0) in self.words else d.group(0), text)
            text = _TOKEN.sub(self._token, text)
        return text.encode("utf-8", "surrogateescape")


def current_words(git: _Git, rev: str = "HEAD") -> set[str]:
    """Every word in every blob of `rev`'s tree (what stays: never scrubbed)."""
    words: set[str] = set()
    listing = git.run("ls-tree", "-r", "-z", rev, check=False)
    for entry in listing.split("\0"):
        if not entry:
            continue
        meta, _, _ = entry.partition("\t")
        mode, kind, oid = meta.split()
        if kind != "blob":
            continue
        _, data = git.read(oid)
        words |= words_of(data.decode("utf-8", "replace"))
    return words


def purge(root: Path, words: set[str], item_ids: list[str], resource_digests: list[str]) -> PurgeReport:
    """Rewrite all of history without the forgotten content; see the module docstring."""
    git = _Git(root)
    try:
        keep = current_words(git)
        unique = {w for w in words if w.lower() not in keep}
        scrubber = _Scrubber(unique, item_ids, resource_digests)
        report = PurgeReport(words=len(scrubber.words))
        return _rewrite(git, scrubber, report)
    finally:
        git.close()


def _rewrite(git: _Git, scrub: _Scrubber, report: PurgeReport) -> PurgeReport:
    blobs: dict[str, str] = {}
    trees: dict[str, str | None] = {}

    def blob(oid: str, data: bytes | None = None) -> str:
        if oid not in blobs:
            if data is None:
                _, data = git.read(oid)
            new = scrub.text(data)
            blobs[oid] = oid if new == data else git.write("blob", new)
            report.blobs_rewritten += new != data
        return blobs[oid]

    def tree(oid: str, data: bytes | None = None) -> str | None:
        if oid in trees:
            return trees[oid]
        if data is None:
            _, data = git.read(oid)
        entries = []
        pos = 0
        while pos < len(data):
            space = data.index(b" ", pos)
            nul = data.index(b"\0", space)
            entries.append((data[pos:space], data[space + 1 : nul], data[nul + 1 : nul + 1 + git.raw_len].hex()))
            pos = nul + 1 + git.raw_len
        # What this level holds that was not seen yet, a few dozen objects per round trip
        # (bounded, so a folder of large inputs is never all in memory at once).
        kinds = {c: m == b"40000" for m, n, c in entries if m != b"160000" and c not in trees and c not in blobs
                 and not (m != b"40000" and scrub.drops_file(n))}
        todo = list(kinds)
        for start in range(0, len(todo), BATCH):
            fetched = git.read_many(todo[start : start + BATCH])
            for child, payload in fetched.items():
                tree(child, payload) if kinds[child] else blob(child, payload)
            del fetched
        out = bytearray()
        changed = False
        for mode, name, child in entries:
            if mode == b"40000":
                new = tree(child)
            elif mode == b"160000":  # a submodule's commit: not ours
                new = child
            elif scrub.drops_file(name):
                new = None
                report.files_dropped += 1
            else:
                new = blob(child)
            if new is None:
                changed = True
                continue
            changed |= new != child
            out += mode + b" " + name + b"\0" + bytes.fromhex(new)
        if not changed:
            trees[oid] = oid
        elif not out:
            trees[oid] = None
        else:
            trees[oid] = git.write("tree", bytes(out))
        return trees[oid]

    commits: dict[str, str] = {}
    order = [c for c in git.run("rev-list", "--topo-order", "--reverse", "--all", check=False).split() if c]
    report.commits = len(order)
    raw_commits = git.read_many(order) if order else {}
    for oid in order:
        data = raw_commits.pop(oid)
        head, _, message = data.partition(b"\n\n")
        lines: list[bytes] = []
        skipping = False
        for line in head.split(b"\n"):
            if skipping and line.startswith(b" "):
                continue
            skipping = False
            if line.startswith(b"tree "):
                new_tree = tree(line[5:].decode()) or _empty_tree(git)
                line = b"tree " + new_tree.encode()
            elif line.startswith(b"parent "):
                parent = line[7:].decode()
                line = b"parent " + commits.get(parent, parent).encode()
            elif line.startswith((b"gpgsig ", b"gpgsig-sha256 ")):
                skipping = True
                continue
            lines.append(line)
        new_data = b"\n".join(lines) + b"\n\n" + scrub.text(message)
        commits[oid] = oid if new_data == data else git.write("commit", new_data)
        report.commits_rewritten += commits[oid] != oid
    _move_refs(git, commits, scrub, report)
    _expire_and_prune(git)
    return report


def _empty_tree(git: _Git) -> str:
    return git.write("tree", b"")


def _move_refs(git: _Git, commits: dict[str, str], scrub: _Scrubber, report: PurgeReport) -> None:
    updates = []
    for line in git.run("for-each-ref", "--format=%(objectname) %(objecttype) %(refname)").splitlines():
        oid, kind, ref = line.split(" ", 2)
        new = _map_object(git, oid, kind, commits, scrub)
        if new != oid:
            updates.append(f"update {ref} {new} {oid}")
    head = git.run("rev-parse", "--verify", "-q", "HEAD", check=False).strip()
    detached = git.run("symbolic-ref", "-q", "HEAD", check=False).strip() == ""
    if detached and head and commits.get(head, head) != head:
        updates.append(f"update HEAD {commits[head]} {head}")
    if updates:
        git.run("update-ref", "--no-deref", "--stdin", stdin="start\n" + "\n".join(updates) + "\ncommit\n")
    report.refs_updated = len(updates)


def _map_object(git: _Git, oid: str, kind: str, commits: dict[str, str], scrub: _Scrubber) -> str:
    if kind == "commit":
        return commits.get(oid, oid)
    if kind != "tag":
        return oid
    _, data = git.read(oid)
    head, _, message = data.partition(b"\n\n")
    fields = head.split(b"\n")
    target = fields[0][7:].decode() if fields and fields[0].startswith(b"object ") else ""
    target_kind = next((f[5:].decode() for f in fields if f.startswith(b"type ")), "commit")
    new_target = _map_object(git, target, target_kind, commits, scrub) if target else target
    body = message.split(b"-----BEGIN PGP SIGNATURE-----", 1)[0]
    new_data = b"\n".join([b"object " + new_target.encode(), *fields[1:]]) + b"\n\n" + scrub.text(body)
    return oid if new_data == data else git.write("tag", new_data)


def _expire_and_prune(git: _Git) -> None:
    """Drop every way back to the old objects, then the objects themselves."""
    gitdir = Path(git.run("rev-parse", "--git-dir").strip())
    if not gitdir.is_absolute():
        gitdir = git.root / gitdir
    for name in ("ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD"):
        (gitdir / name).unlink(missing_ok=True)
    git.run("reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all")
    git.run("-c", "gc.cruftPacks=false", "gc", "--prune=now", "--quiet")
    # Anything gc kept loose or packed but unreachable (none expected) is gone with prune.
    git.run("prune", "--expire=now")
