"""`memfs forget --source X --purge-history --yes` on a real git repository with several
commits, a branch and an annotated tag: afterwards no file of the workspace, no SQLite
file and no git object (`git cat-file --batch-all-objects --batch`) holds any word of X
that no other input contains — while the other inputs' words are all still there."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from memfs.workspace import init_workspace
from tests.support.cli import env, run
from tests.support.workspace import hashing_memory

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")

X = {"messages": [
    {"role": "user", "name": "Zorblat", "content": "I adopted a tortoise named Quixotrix last week."},
    {"role": "user", "name": "Zorblat", "content": "I work as a glassblower in Vimmerby, near the old mill."},
    {"role": "user", "name": "Zorblat", "content": "My favourite dessert is cloudberry parfait with cardamom."}],
    "time": "2025-03-02T09:00:00", "title": "Zorblat catch-up"}
OTHERS = {
    "alice.json": {"messages": [
        {"role": "user", "name": "Alice", "content": "I moved to Lisbon in March and I love painting."},
        {"role": "user", "name": "Alice", "content": "My friend Zorblat taught me to bake sourdough bread."}],
        "time": "2025-01-02T09:00:00"},
    "bob.json": {"messages": [
        {"role": "user", "name": "Bob", "content": "I play the cello in a quartet on Thursdays."}],
        "time": "2025-05-02T09:00:00"},
}
HAND = "Dana keeps a greenhouse full of orchids."
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def _words(text: str) -> set[str]:
    """Words (letters only, 3 or more: "03" of a date is no word, and two letters turn up by
    chance in binary files such as .git/index) and the dates of the input."""
    return ({w.lower() for w in re.findall(r"[^\W\d_]{3,}", text)}
            | set(re.findall(r"\d{4}-\d\d-\d\d", text)))


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True,
                          env={**env(), **GIT_ENV}).stdout


def _all_objects(root: Path) -> str:
    out = subprocess.run(["git", "-C", str(root), "cat-file", "--batch-all-objects", "--batch"],
                         capture_output=True, check=True).stdout
    return out.decode("utf-8", "replace").lower()


def _workspace_files(root: Path) -> str:
    """Every file of the workspace, .memfs/ (SQLite, WAL) and .git/ refs and logs included;
    git's own templates (hooks, info/, description) are git's words, not the workspace's."""
    skip = {"hooks", "info", "objects"}
    parts = []
    for p in root.rglob("*"):
        rel = p.relative_to(root).parts
        if not p.is_file() or (rel[0] == ".git" and (len(rel) > 1 and rel[1] in skip or rel[-1] == "description")):
            continue
        parts.append(p.read_bytes().decode("utf-8", "replace"))
    return "\n".join(parts).lower()


def _found(words: set[str], text: str) -> list[str]:
    return sorted(w for w in words if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text))


def _build(tmp_path: Path) -> tuple[Path, Path, set[str]]:
    root = init_workspace(tmp_path / "w", git=True).root
    with hashing_memory(root) as mem:
        mem.config.git.autocommit = True
        mem.sync()
        for name, chat in OTHERS.items():
            (tmp_path / name).write_text(json.dumps(chat))
        (tmp_path / "zorb-chat.json").write_text(json.dumps(X))
        assert mem.ingest_file(tmp_path / "alice.json").status == "processed"
        mem.add(HAND)
        _git(root, "add", "-A", "memory", "index", "skill", "index.md", "memory.md", "skill.md")
        _git(root, "commit", "-qm", "by hand: Dana")
        assert mem.ingest_file(tmp_path / "zorb-chat.json").status == "processed"
        _git(root, "tag", "-a", "v1", "-m", "after the Quixotrix talk")
        _git(root, "branch", "before-bob")
        assert mem.ingest_file(tmp_path / "bob.json").status == "processed"
    other = set().union(*(_words(json.dumps(c)) for c in OTHERS.values()), _words(HAND))
    # A workspace's own words (its template, the SQLite schema, the entry files' labels such
    # as "last learned", shown once a category holds an item) are nobody's input.
    fresh = init_workspace(tmp_path / "fresh", git=True).root
    with hashing_memory(fresh) as mem:
        mem.add("Zed flies kites.")
        mem.sync()
    unique = _words(json.dumps(X)) - other - _words(_workspace_files(fresh))
    assert {"quixotrix", "tortoise", "glassblower", "vimmerby", "cloudberry", "cardamom"} <= unique
    return root, tmp_path / "zorb-chat.json", unique


@pytest.mark.slow
def test_purge_history_leaves_no_unique_word_anywhere(tmp_path: Path) -> None:
    root, _, unique = _build(tmp_path)
    commits_before = len(_git(root, "rev-list", "--all").split())
    assert _found(unique, _all_objects(root)), "the setup must put X's words into git first"
    e = {**env(), **GIT_ENV}
    proc = run(["forget", "--source", "zorb-chat.json", "--purge-history", "--yes"], root, e)
    assert "WARNING: --purge-history rewrites" in proc.stdout and "git push --force" in proc.stdout
    assert "history:" in proc.stdout
    assert _found(unique, _all_objects(root)) == []
    assert _found(unique, _workspace_files(root)) == []
    # What other inputs said is all still there, in the files and in history.
    kept = {"lisbon", "sourdough", "cello", "quartet", "greenhouse", "orchids"}
    assert set(_found(kept, _all_objects(root))) == kept
    assert set(_found(kept, _workspace_files(root))) == kept
    # The repository is whole: same number of commits plus the forget, refs moved, tag kept.
    _git(root, "fsck", "--full", "--strict")
    assert len(_git(root, "rev-list", "--all").split()) == commits_before + 1
    assert _git(root, "log", "-1", "--format=%s").startswith("memfs: forget (source) [F1]")
    assert _git(root, "cat-file", "-t", "v1").strip() == "tag"
    assert "after the [forgotten] talk" in _git(root, "cat-file", "-p", "v1")
    assert "before-bob" in _git(root, "branch")
    assert _git(root, "status", "--porcelain", "--untracked-files=no") == ""
    assert _git(root, "reflog", "--all") == ""
    # Dropping the input again is refused.
    proc = run(["ingest", str(tmp_path / "zorb-chat.json")], root, e, check=False)
    assert proc.returncode == 1 and "forgotten (F1" in proc.stderr


def test_without_purge_the_forget_is_a_normal_commit(tmp_path: Path) -> None:
    root, _, unique = _build(tmp_path)
    head = _git(root, "rev-parse", "HEAD").strip()
    with hashing_memory(root) as mem:
        report = mem.apply_forget(mem.plan_forget(source="zorb-chat.json"))
    assert report.committed and report.history is None
    assert _git(root, "rev-parse", "HEAD~1").strip() == head  # history untouched
    message = _git(root, "log", "-1", "--format=%B")
    assert message.startswith("memfs: forget (source) [F1]") and not _found(unique, message.lower())
    assert _git(root, "ls-tree", "-r", "--name-only", "HEAD").count("zorb-chat") == 0
    assert subprocess.run(["git", "-C", str(root), "grep", "-qi", "quixotrix", "HEAD"]).returncode == 1
    assert "quixotrix" in _all_objects(root)  # still in the old commits, as documented
    assert not any("quixotrix" in p.read_text().lower() for p in (root / "memory").glob("*.md"))


def test_scrubber_replaces_whole_words_dates_and_parts_of_compounds() -> None:
    from memfs.history import _Scrubber

    s = _Scrubber({"quixotrix", "vimmerby", "2025-03-02", "id", "tortoise"}, ["ab12cd34"], ["f5c7a799377ef3a0"])
    text = ("Quixotrix's home: vimmerby.se, QUIXOTRIX-2 on 2025-03-02T09:00:00 (not 2025-03-021)\n"
            "- kept <!-- id=zz type=event -->\n- gone <!-- id=ab12cd34 type=event -->\ntortoises stay\n")
    out = s.text(text.encode()).decode()
    assert out == ("[forgotten]'s home: [forgotten].se, [forgotten]-2 on [forgotten]T09:00:00 (not 2025-03-021)\n"
                   "- kept <!-- id=zz type=event -->\ntortoises stay\n")
    assert s.drops_file(b"02-zorb-chat-f5c7a799377ef3a0.json") and not s.drops_file(b"02-alice-e2ea9ad314c8864c.json")
    binary = b"\x00\x01quixotrix"
    assert s.text(binary) == binary
