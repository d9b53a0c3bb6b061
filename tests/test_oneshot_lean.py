"""A one-shot `memfs add` loads and does only what its write needs (issue #17 item 3): no
YAML, Markdown AST or gitignore parser for a workspace memfs wrote, the cyclic collector
off during the add, numpy's BLAS threads not started, and the line splitter at C speed
for plain text — each giving exactly what the slower path gives."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memfs import console
from memfs.core.front import split_lines
from tests.support.cli import env, init


def _split_reference(text: str) -> list[str]:
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


@given(st.text(alphabet=st.sampled_from("ab \n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029é\t-")))
def test_split_lines_is_a_split_on_newlines_only(text: str) -> None:
    assert split_lines(text) == _split_reference(text)


def test_the_console_add_runs_with_the_collector_paused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memfs import warm_write

    seen: list[bool] = []
    monkeypatch.setattr(warm_write, "perform", lambda mem, req: seen.append(gc.isenabled()) or {
        "status": "done", "stdout": "", "stderr": "", "exit": 0})
    monkeypatch.delenv("MEMFS_DEBUG", raising=False)
    ws = init(tmp_path / "w")
    for name in console.BLAS_THREADS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")  # the person's own setting is kept
    assert console.add_here(str(ws), "Tea is a drink.", "places", None, False)["status"] == "done"
    assert seen == [False] and gc.isenabled()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "3" and os.environ["MKL_NUM_THREADS"] == "1"


def test_the_console_add_freezes_what_it_built_before_the_collector_is_back_on(tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Turned back on with ~150,000 objects allocated since the pause (a 50,000-item file),
    the collector's first collection walked them all (~12 ms of a one-shot add)."""
    from memfs import warm_write

    kept: list[list[int]] = []
    started: list[int] = []

    def count(phase: str, info: dict) -> None:  # type: ignore[type-arg]
        if phase == "start":
            started.append(info["generation"])

    def perform(mem, req):  # type: ignore[no-untyped-def]
        kept.extend([k] for k in range(20_000))  # what a big file's parse leaves alive
        gc.callbacks.append(count)
        return {"status": "done", "stdout": "", "stderr": "", "exit": 0}

    monkeypatch.setattr(warm_write, "perform", perform)
    monkeypatch.delenv("MEMFS_DEBUG", raising=False)
    ws = init(tmp_path / "w")
    try:
        assert console.add_here(str(ws), "Tea is a drink.", "places", None, False)["status"] == "done"
    finally:
        gc.callbacks.remove(count)
        console._KEPT.clear()
    assert started == [] and gc.isenabled()


def test_a_one_shot_add_imports_no_yaml_mistune_or_pathspec(tmp_path: Path) -> None:
    ws = init(tmp_path / "w")
    for k in range(3):  # the first creates the file (its front-matter by YAML); the others read it
        out = subprocess.run([sys.executable, "-X", "importtime", "-m", "memfs.console", "add",
                              f"Ola keeps bicycle {k} in the shed.", "-c", "places"], cwd=ws,
                             env=env(), capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines()
                    if line.startswith("import time:")}
        assert not imported & {"yaml", "frontmatter", "mistune", "pathspec"} - ({"yaml"} if k == 0 else set()), k
    assert (ws / "index" / "places.md").read_text().count("Ola keeps bicycle") == 3


def test_numpy_is_imported_on_first_use_and_then_is_numpy_itself() -> None:
    code = """
import sys, threading
from memfs.index import quant, sidecar_source
assert "numpy" not in sys.modules
out = []
threads = [threading.Thread(target=lambda: out.append(quant.round_trip([[0.5, -1.0]]).shape)) for _ in range(4)]
[t.start() for t in threads]; [t.join() for t in threads]
import numpy
assert out == [(1, 2)] * 4 and quant.np is numpy and type(sidecar_source.np).__name__ == "LazyNumpy"
assert sidecar_source.np.float32 is numpy.float32 and sidecar_source.np is numpy
"""
    out = subprocess.run([sys.executable, "-c", code], env=env(), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr


def test_an_add_into_a_one_type_folder_takes_its_type_without_the_classifier(tmp_path: Path) -> None:
    """index/ holds only knowledge: the classifier's guess could not change the type."""
    from tests.support.workspace import hashing_memory

    ws = init(tmp_path / "w")
    code = ("import sys; from memfs.api import Memory; m = Memory(sys.argv[1]); "
            "it = m.add('Priya loves hiking in the Alps every summer.', category='index/trips'); m.close(); "
            "print(it.type, 'memfs.extract.classify' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(ws)], env=env(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["knowledge", "False"]
    with hashing_memory(ws) as mem:  # a folder of more types still guesses: a preference is a profile fact
        assert mem.add("Priya went to a concert in Leeds last week.", category="memory/outings").type == "event"
