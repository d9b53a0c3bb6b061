"""The real daemon as a subprocess: drop files, edit the store, one daemon per workspace,
clean shutdown, and a kill -9 loop that must end with every input processed exactly once."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.cli import MEMFS
from tests.support.cli import env as cli_env
from tests.support.daemon import wait
from tests.support.factories import conversation
from tests.support.workspace import indexed_files, indexed_items, settled, status, waiting


def _env(**extra: str) -> dict[str, str]:
    return cli_env(embedder=None, **extra)  # the default (MiniLM) embedder


def _start(ws: Path, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(MEMFS + ["daemon"], cwd=ws, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_daemon_processes_watches_and_follows_edits(tmp_path: Path) -> None:
    env = _env()
    subprocess.run(MEMFS + ["init", str(tmp_path / "w"), "--no-git"], check=True, env=env, capture_output=True)
    ws = tmp_path / "w"
    (ws / "inbox" / "early.json").write_text(json.dumps(conversation(1)))  # there before start
    proc = _start(ws, env)
    try:
        wait(lambda: status(ws, env)["items"] > 0 and status(ws, env)["inbox_pending"] == 0)
        # Written under a temporary name, then renamed in: taken at once.
        tmp = ws / "inbox" / ".late.json.tmp"
        tmp.write_text(json.dumps(conversation(2)))
        os.rename(tmp, ws / "inbox" / "late.json")
        wait(lambda: "Rex2" in (ws / "memory.md").read_text() + "".join(
            p.read_text() for p in (ws / "memory").glob("*.md")))
        # Junk goes to failed/ with a reason; the daemon lives on.
        (ws / "inbox" / "junk.bin").write_bytes(b"\x00\xff" * 10)
        wait(lambda: status(ws, env)["failed"] == 1)
        assert (ws / "inbox" / "failed" / "junk.bin.error.txt").exists()
        # A second daemon refuses to start.
        second = subprocess.run(MEMFS + ["daemon"], cwd=ws, env=env, capture_output=True, text=True, timeout=60)
        assert second.returncode == 1 and "already running" in second.stderr
        # A person edits a category file: the index follows, the edit is kept.
        target = next(p for p in (ws / "memory").glob("*.md") if "Rex1" in p.read_text())
        target.write_text(target.read_text().replace("Rex1", "Rexford"))
        hits = lambda: json.loads(subprocess.run(MEMFS + ["recall", "Rexford dog", "--json"], cwd=ws, env=env,
                                                 capture_output=True, text=True).stdout)
        wait(lambda: any("Rexford" in h["text"] for h in hits()))
        assert "Rexford" in target.read_text()
        # The CLI's recall was answered warm, by the daemon over its socket.
        from memfs.warm import try_warm_recall

        warm = try_warm_recall(ws / ".memfs", "Rexford dog", 3, None, None)
        assert warm is not None and any("Rexford" in h["text"] for h in warm)
        # A CLI write while the daemon runs is serialised, not lost.
        subprocess.run(MEMFS + ["add", "Sam keeps bees on the roof."], cwd=ws, env=env, check=True,
                       capture_output=True, timeout=60)
        assert any("bees" in h["text"] for h in json.loads(subprocess.run(
            MEMFS + ["recall", "bees", "--json"], cwd=ws, env=env, capture_output=True, text=True).stdout))
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "stopped" in err


def _item_set(ws: Path) -> set[tuple[str, str, int, str]]:
    from memfs.core.categoryfile import parse_category

    out = set()
    for path in sorted((ws / "memory").glob("*.md")) + sorted((ws / "index").glob("*.md")):
        for item in parse_category(path.read_text(), f"{path.parent.name}/{path.name}").items:
            out.add((item.id, item.text, item.seen, f"{path.parent.name}/{path.name}"))
    return out


@pytest.mark.slow
def test_kill_minus_nine_loop_processes_every_input_exactly_once(tmp_path: Path) -> None:
    env = _env(MEMFS_EMBEDDER_PROVIDER="hashing", MEMFS_INGEST_SETTLE_SECONDS="0")
    inputs = {f"c{n:02d}.json": json.dumps(conversation(n)) for n in range(30)}
    # Reference: the same inputs, one clean run.
    subprocess.run(MEMFS + ["init", str(tmp_path / "ref"), "--no-git"], check=True, env=env, capture_output=True)
    ref = tmp_path / "ref"
    for name, data in inputs.items():
        (tmp_path / name).write_text(data)
    subprocess.run(MEMFS + ["ingest", *[str(tmp_path / n) for n in sorted(inputs)]], cwd=ref, env=env, check=True,
                   capture_output=True, timeout=300)
    want = _item_set(ref)
    assert len(want) > 20

    subprocess.run(MEMFS + ["init", str(tmp_path / "w"), "--no-git"], check=True, env=env, capture_output=True)
    ws = tmp_path / "w"
    for name, data in inputs.items():
        (ws / "inbox" / name).write_text(data)
    rng = random.Random(7)
    kills = 0
    for _ in range(40):
        if not waiting(ws):
            break
        proc = _start(ws, env)
        time.sleep(rng.uniform(0.5, 1.5))
        proc.kill()
        proc.communicate()
        kills += 1
    proc = _start(ws, env)  # a clean finish
    # Finished means settled, not just an empty inbox: with vectors after the write the
    # inputs a killed daemon took may still owe their near-duplicate checks, and a SIGTERM
    # that lands before the signal handlers are set stops this daemon before it makes them.
    wait(lambda: settled(ws, env), timeout=120)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert kills >= 3

    archived = sorted(p.name for p in (ws / "resources").rglob("*.json"))
    assert len(archived) == len(inputs)  # each input archived exactly once
    failed = sorted((ws / "inbox" / "failed").iterdir()) if (ws / "inbox" / "failed").exists() else []
    assert not failed, [(p.name, p.read_text(errors="replace")[:300]) for p in failed if p.name.endswith(".txt")]
    got = _item_set(ws)
    assert got == want  # no item lost, duplicated or reinforced twice
    leftovers = [p for p in ws.rglob(".*.tmp")]
    assert leftovers == []
    check = subprocess.run(MEMFS + ["sync", "--json"], cwd=ws, env=env, capture_output=True, text=True, timeout=120)
    report = json.loads(check.stdout)
    assert report["items_added"] == report["items_removed"] == report["items_updated"] == 0


@pytest.mark.slow
def test_a_line_moved_between_files_in_two_saves_stays_recallable_under_the_daemon(tmp_path: Path) -> None:
    """A person moves a stamped line by pasting it into another file, saving, then cutting
    it from the first with an in-place save: the daemon's index follows to the copy left."""
    env = _env(MEMFS_EMBEDDER_PROVIDER="hashing")
    subprocess.run(MEMFS + ["init", str(tmp_path / "w"), "--no-git"], check=True, env=env, capture_output=True)
    ws = tmp_path / "w"
    subprocess.run(MEMFS + ["add", "Bob keeps a tortoise called Shelly.", "--category", "relationships"],
                   cwd=ws, env=env, check=True, capture_output=True, timeout=60)
    first = ws / "memory" / "relationships.md"
    line = next(ln for ln in first.read_text().splitlines(keepends=True) if "Shelly" in ln)
    item_id = line.split("id=")[1].split()[0]
    proc = _start(ws, env)

    def where() -> set[str]:
        return {path for i, path, _ in indexed_items(ws) if i == item_id}

    try:
        wait(lambda: status(ws, env)["items"] > 0)
        (ws / "memory" / "pets.md").write_text("# Pets\n\n" + line)  # save 1: paste
        wait(lambda: "memory/pets.md" in indexed_files(ws))
        keep = "".join(ln for ln in first.read_text().splitlines(keepends=True) if "Shelly" not in ln)
        with first.open("r+") as fh:  # save 2: cut, in place (truncate first)
            fh.truncate(0)
            fh.flush()
            time.sleep(0.2)
            fh.write(keep)
        wait(lambda: where() == {"memory/pets.md"})
        hits = json.loads(subprocess.run(MEMFS + ["recall", "tortoise Shelly", "--json"], cwd=ws, env=env,
                                         capture_output=True, text=True, timeout=60).stdout)
        assert any(h["id"] == item_id and h["path"] == "memory/pets.md" for h in hits)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    assert proc.returncode == 0
