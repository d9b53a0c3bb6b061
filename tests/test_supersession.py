"""Memory that stays true: supersession on disk, and time in recall (API and real CLI)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from memfs.extract.supersede import slot_of, supersedes
from memfs.index.timefilter import TimeFilter, is_present_query
from memfs.errors import MemfsError
from tests.support.workspace import hashing_memory
from tests.support.cli import env as cli_env
from tests.support.cli import run as run_cli


def _chat(path: Path, name: str, text: str, when: str) -> Path:
    path.write_text(json.dumps([{"role": "user", "name": name, "content": text, "timestamp": when}]))
    return path


def _lines(root: Path) -> list[str]:
    out = []
    for kind in ("memory", "index", "skill"):
        for f in sorted((root / kind).rglob("*.md")):
            out += [ln for ln in f.read_text().splitlines() if ln.startswith("- ")]
    return out


@pytest.mark.parametrize("old,new", [
    ("Priya lives in Manchester.", "Priya now lives in Leeds."),
    ("Priya lives in Manchester.", "Priya moved to Leeds."),
    ("Tom works at Google.", "Tom works for Meta."),
    ("Priya drinks coffee every morning.", "Priya stopped drinking coffee."),
    ("Priya is vegetarian.", "Priya is no longer vegetarian."),
    ("Priya's wedding is on 2026-06-12.", "Priya's wedding was moved to 2026-09-05."),
    ("Sam is dating Alex.", "Sam is married to Jordan."),
    ("Priya smokes.", "Priya quit smoking."),
    # A job is a role at an employer: a new one replaces both.
    ("Priya works as a designer at Brightwave.", "Priya is now a lead engineer at Northwind."),
    ("Priya works as a designer at Brightwave.", "Priya works at Northwind."),
    ("Priya works at Brightwave.", "Priya started as a nurse at Northfield."),
    ("Priya works at Brightwave.", "Priya joined Northwind as a designer."),
    ("Marta works as a nurse at St Mary's.", "Marta works as a midwife now."),
    # An end replaces the line with its value, and needs no new one.
    ("Priya works at Brightwave.", "Priya left Brightwave."),
    ("Priya works as a designer at Brightwave.", "Priya left Brightwave in March 2026."),
    ("Priya works at Acme.", "Priya left Acme in 2025."),
    ("Priya works at Acme.", "Priya left Acme after five years."),
    ("Priya works at Brightwave.", "Priya quit her job at Brightwave."),
    ("Priya works at Brightwave.", "Priya resigned from Brightwave."),
    ("Priya works at Brightwave.", "Priya was laid off from Brightwave."),
    ("Priya is dating Tom.", "Priya broke up with Tom."),
    ("Priya is dating Tom.", "Priya split up with Tom."),
    ("Priya is married to Tom.", "Priya divorced Tom."),
    # A couple's end is said of both, either way round.
    ("Priya is dating Ken.", "Ken and Priya split up in September 2026."),
    ("Priya is married to Ken.", "Priya and Ken separated in the spring."),
    ("Priya lives in Leeds.", "Priya moved from Leeds to York in August 2026."),
    ("Priya lives in New York.", "Priya moved from New York to Boston."),
])
def test_a_newer_value_supersedes(old: str, new: str) -> None:
    assert supersedes(slot_of(new), slot_of(old))


@pytest.mark.parametrize("old,new", [
    ("Priya likes jazz.", "Priya likes blues."),            # many-valued: both true
    ("Priya lives in Leeds.", "Priya lives in Leeds city centre."),  # the same place
    ("Priya lives in Leeds.", "Priya lived in Manchester for five years."),  # history, not news
    ("Priya lives in Leeds.", "Tom lives in York."),          # another subject
    ("Tom works at Google.", "Tom joined the Chess Club."),   # a club is not an employer
    ("Priya has a dog.", "Priya has a cat."),
    ("Priya lives in Leeds.", "Priya lives with her sister."),
    ("Priya lives in Leeds.", "Priya is moving to York next year."),  # a plan, not yet true
    ("Priya works at Brightwave.", "Priya is a lead engineer at Brightwave."),  # the same employer
    ("Elena works as a curator.", "Elena works as a curator at the Science Museum."),
    ("Priya is dating Ken.", "Tom and Ken split up."),        # another couple
    ("Priya is dating Ken.", "Priya and Tom broke up."),
    ("Priya is dating Ken.", "Ken and Priya split up the bill."),  # not a break-up
])
def test_a_compatible_fact_supersedes_nothing(old: str, new: str) -> None:
    assert not supersedes(slot_of(new), slot_of(old))


@pytest.mark.parametrize("old,new", [
    ("Sam is a teacher at Hillside.", "Sam is a volunteer at Oxfam."),
    ("Sam works at Hillside.", "Sam works at Oxfam as a volunteer."),
    ("Sam works as a teacher.", "Sam works as a volunteer."),             # the old role patterns too
    ("Sam works as a teacher.", "Sam is a member at the Lido."),
    ("Sam's role is teacher.", "Sam's role is now mentor."),
    ("Sam works as a teacher at Hillside.", "Sam works as a volunteer driver."),
    ("Priya works as a designer at Brightwave.", "Priya joined Brightwave as a mentor."),
    ("Priya works at Northwind.", "Priya joined Brightwave as a mentor."),  # not an employer slot either
    ("Raj is a paramedic at Westfield.", "Raj is a student at Leeds University."),
    ("Priya is a designer at Brightwave.", "Priya is a speaker at PyCon."),
    ("Priya is a designer at Brightwave.", "Priya is an expert at Excel."),
    ("Priya is a designer at Brightwave.", "Priya is the youngest at Brightwave."),
])
def test_a_role_that_is_no_job_replaces_no_job(old: str, new: str) -> None:
    assert slot_of(new) is None
    assert not supersedes(slot_of(new), slot_of(old))


@pytest.mark.parametrize("old,new", [
    ("Priya is dating Tom.", "Priya left Tom a note."),
    ("Ana works at Google Docs.", "Ana left Google Docs open."),
    ("Priya works at Acme.", "Priya left Acme a review."),
    ("Priya works at Acme Park.", "Priya left Acme Park at noon."),
])
def test_left_ends_only_a_job_named_at_the_end_of_its_clause(old: str, new: str) -> None:
    slot = slot_of(new)
    assert slot is None or not slot.ended
    assert not supersedes(slot, slot_of(old))


def test_an_end_ends_only_its_own_value_and_nothing_replaces_it() -> None:
    assert not supersedes(slot_of("Ana left Google Docs."), slot_of("Ana works at Google."))  # never "contained"
    assert not supersedes(slot_of("Priya left Northwind."), slot_of("Priya works at Brightwave."))
    assert not supersedes(slot_of("Priya left Tom."), slot_of("Priya is dating Tom."))  # only a break-up verb
    assert not supersedes(slot_of("Priya works at Northwind."), slot_of("Priya left Brightwave."))
    assert not supersedes(slot_of("Priya left Northwind."), slot_of("Priya left Brightwave."))
    assert slot_of("Priya left Brightwave.").ended  # type: ignore[union-attr]


def test_a_shared_home_moves_and_the_household_stays(ws_path: Path, tmp_path: Path) -> None:
    mem = hashing_memory(ws_path)
    try:
        mem.ingest_file(_chat(tmp_path / "a.json", "Tom", "I live in Leeds with my sister.", "2026-03-02T10:00:00Z"))
        mem.ingest_file(_chat(tmp_path / "b.json", "Tom", "I moved to York.", "2026-10-05T10:00:00Z"))
        lines = _lines(ws_path)
        assert "superseded_by=" in next(ln for ln in lines if "Tom lives in Leeds." in ln)
        assert "superseded_by" not in next(ln for ln in lines if "Tom lives with their sister." in ln)
    finally:
        mem.close()


def test_time_filter_windows_and_errors() -> None:
    f = TimeFilter.of(since="2026-10-15")
    assert f.keep("2026-10", None, None) and not f.keep("2026-09-30", None, None) and not f.keep(None, None, None)
    assert TimeFilter.of(until="2026").keep("2026-12-31", None, None)
    as_of = TimeFilter.of(as_of="2026-05-01")
    assert as_of.keep("2026-03-02", "2026-10-05", "x")      # true then, superseded later
    assert not as_of.keep("2026-10-05", None, None)         # not yet said
    assert not TimeFilter().keep("2026-03-02", "2026-10-05", "x")
    assert TimeFilter.of(history=True).keep("2026-03-02", "2026-10-05", "x")
    with pytest.raises(MemfsError, match="as-of"):
        TimeFilter.of(as_of="2026-13")
    assert is_present_query("where does Priya live now") and not is_present_query("where did Priya live")


def test_a_move_supersedes_the_old_home_and_recall_answers_now_and_then(ws_path: Path, tmp_path: Path) -> None:
    mem = hashing_memory(ws_path)
    try:
        mem.ingest_file(_chat(tmp_path / "a.json", "Priya", "I live in Manchester. I love jazz.",
                              "2026-03-02T10:00:00Z"))
        mem.ingest_file(_chat(tmp_path / "b.json", "Priya", "I now live in Leeds. I love blues too.",
                              "2026-10-05T10:00:00Z"))
        lines = _lines(ws_path)
        old = next(ln for ln in lines if "Manchester" in ln)
        new = next(ln for ln in lines if "Leeds" in ln)
        new_id = new.split("id=")[1].split()[0]
        assert "Priya lives in Manchester." in old  # the old text is kept, as history
        assert f"superseded_by={new_id}" in old and "until=2026-10-05" in old
        assert "superseded_by" not in new
        assert not any("superseded_by" in ln for ln in lines if "jazz" in ln or "blues" in ln)

        now = mem.recall("where does Priya live now")
        assert "Leeds" in now[0].text and not any("Manchester" in h.text for h in now)
        then = mem.recall("where does Priya live", as_of="2026-05")
        assert any("Manchester" in h.text for h in then) and not any("Leeds" in h.text for h in then)
        history = mem.recall("where does Priya live", history=True)
        assert {"Manchester", "Leeds"} <= {w for h in history for w in ("Manchester", "Leeds") if w in h.text}
        assert all(h.when and h.when >= "2026-10" for h in mem.recall("Priya", since="2026-10"))

        # Replaying the newer input changes nothing (no second mark, no new line).
        before = sorted(_lines(ws_path))
        mem.ingest_file(_chat(tmp_path / "b2.json", "Priya", "I now live in Leeds. I love blues too.",
                              "2026-10-05T10:00:00Z"))
        assert sorted(_lines(ws_path)) == before
    finally:
        mem.close()


def test_an_older_fact_arriving_late_is_history_at_once(ws_path: Path, tmp_path: Path) -> None:
    mem = hashing_memory(ws_path)
    try:
        mem.ingest_file(_chat(tmp_path / "new.json", "Tom", "I work at Meta.", "2026-09-01T09:00:00Z"))
        mem.ingest_file(_chat(tmp_path / "old.json", "Tom", "I work at Google.", "2025-01-10T09:00:00Z"))
        lines = _lines(ws_path)
        google = next(ln for ln in lines if "Google" in ln)
        assert "superseded_by=" in google and "superseded_by" not in next(ln for ln in lines if "Meta" in ln)
        assert [h.text for h in mem.recall("where does Tom work")][0].endswith("Meta.")
    finally:
        mem.close()


@pytest.mark.slow
def test_cli_recall_time_flags_end_to_end(tmp_path: Path) -> None:
    env = cli_env(MEMFS_NO_WARM="1")

    def run(*args: str, ok: bool = True) -> subprocess.CompletedProcess:
        proc = run_cli(["--dir", str(tmp_path / "m"), *args], e=env, check=False)
        assert (proc.returncode == 0) == ok, proc.stderr
        return proc

    run_cli(["init", "--no-git", str(tmp_path / "m")], e=env)
    a = _chat(tmp_path / "a.json", "Priya", "I live in Manchester.", "2026-03-02T10:00:00Z")
    b = _chat(tmp_path / "b.json", "Priya", "I now live in Leeds.", "2026-10-05T10:00:00Z")
    run("ingest", str(a), str(b))
    now = json.loads(run("recall", "where does Priya live now", "--json").stdout)
    assert [h["text"] for h in now] == ["Priya now lives in Leeds."]
    hist = json.loads(run("recall", "where does Priya live", "--history", "--json").stdout)
    old = next(h for h in hist if "Manchester" in h["text"])
    assert old["superseded_by"] == now[0]["id"] and old["until"] == "2026-10-05"
    md = run("recall", "where does Priya live", "--as-of", "2026-04").stdout
    assert "Manchester" in md and "Leeds" not in md and "superseded by" in md
    assert "Leeds" not in run("recall", "Priya", "--until", "2026-06").stdout
    bad = run("recall", "Priya", "--since", "last week", ok=False)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "--since" in bad.stderr


def test_forgetting_the_newer_fact_makes_the_old_one_current_again(ws_path: Path, tmp_path: Path) -> None:
    mem = hashing_memory(ws_path)
    try:
        mem.ingest_file(_chat(tmp_path / "a.json", "Priya", "I live in Manchester.", "2026-03-02T10:00:00Z"))
        second = mem.ingest_file(_chat(tmp_path / "b.json", "Priya", "I now live in Leeds.", "2026-10-05T10:00:00Z"))
        assert not any("Manchester" in h.text for h in mem.recall("where does Priya live"))
        mem.forget(second.added[0])  # a person says: that was wrong
        assert "Manchester" in mem.recall("where does Priya live")[0].text
    finally:
        mem.close()


def test_root_files_and_summaries_show_what_is_true_now(ws_path: Path, tmp_path: Path) -> None:
    mem = hashing_memory(ws_path)
    try:
        mem.ingest_file(_chat(tmp_path / "a.json", "Priya", "I live in Manchester.", "2026-03-02T10:00:00Z"))
        mem.ingest_file(_chat(tmp_path / "b.json", "Priya", "I now live in Leeds.", "2026-10-05T10:00:00Z"))
        memory_md = (ws_path / "memory.md").read_text()
        assert "Leeds" in memory_md and "Manchester" not in memory_md
        rel = next(p for p in (ws_path / "memory").glob("*.md") if "Manchester" in p.read_text())
        # The category summary is derived from the items when indexed (not stored in the file).
        (summary,) = mem.indexer.db.conn.execute("SELECT summary FROM files WHERE path=?",
                                                 (f"memory/{rel.name}",)).fetchone()
        assert "Leeds" in summary and "Manchester" not in summary
    finally:
        mem.close()


def test_a_question_about_now_prefers_the_newest_fact_on_the_subject(ws_path: Path, tmp_path: Path) -> None:
    mem = hashing_memory(ws_path)
    try:
        # Neither line supersedes the other (reading two books is possible): recency decides.
        mem.ingest_file(_chat(tmp_path / "b.json", "Priya", "I'm reading a novel by Piranesi Clarke.",
                              "2023-10-05T10:00:00Z"))
        mem.ingest_file(_chat(tmp_path / "a.json", "Priya", "I'm reading a novel, a reading novel by Frank Herbert.",
                              "2023-03-02T10:00:00Z"))
        plain = [h.text for h in mem.recall("what novel is Priya reading")]
        now = [h.text for h in mem.recall("what novel is Priya reading now")]
        assert "Herbert" in plain[0]  # the older line matches the words better...
        assert "Clarke" in now[0]     # ...but asked about now, the newest fact wins
    finally:
        mem.close()


def test_a_crash_before_the_old_line_was_marked_is_healed_by_the_replay(ws_path: Path, tmp_path: Path) -> None:
    mem = hashing_memory(ws_path)
    try:
        mem.ingest_file(_chat(tmp_path / "a.json", "Priya", "I live in Manchester.", "2026-03-02T10:00:00Z"))
        new = _chat(tmp_path / "b.json", "Priya", "I now live in Leeds.", "2026-10-05T10:00:00Z")
        second = mem.ingest_file(new)
        # Simulate a crash after the new line was written but before the old one was marked
        # (and so before the input was archived and journalled).
        old_file = next(p for p in (ws_path / "memory").glob("*.md") if "Manchester" in p.read_text())
        marked = old_file.read_text()
        old_file.write_text(re.sub(r" superseded_by=\S+ until=\S+", "", marked))
        for res in (ws_path / "resources").rglob("*-b-*.json"):
            res.unlink()
        mem.journal.db.conn.execute("DELETE FROM journal")
        mem.close()
        mem = hashing_memory(ws_path)  # the restart after the crash
        mem.sync()
        assert "superseded_by" not in old_file.read_text()
        again = mem.ingest_file(new)
        assert again.skipped_replay == 1 and not again.added
        assert f"superseded_by={second.added[0]}" in old_file.read_text()
    finally:
        mem.close()
