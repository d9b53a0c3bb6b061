"""The entry files an agent lives on (issue 12), end to end through the real CLI.

A workspace is fed a two-session chat, a meeting transcript and project notes (tests/
fixtures/entry/); the tests then read index.md → memory.md → a person page as an agent
would, and check structure, current-only facts, links that resolve to real item lines,
determinism and that a person's edits survive.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from datetime import date
from pathlib import Path

import pytest

from memfs.core.categoryfile import parse_category
from memfs.core.rootfiles import approx_tokens
from memfs.entry.pages import KEPT_HEADING
from memfs.entry.pagefile import PAGE_BEGIN, split_page
from memfs.workspace import init_workspace
from tests.support.cli import run

FIXTURES = Path(__file__).parent / "fixtures" / "entry"
INPUTS = ["priya-chat.json", "kickoff-transcript.json", "onboarding-notes.md"]
ROOT_LINK = re.compile(r"\[((?:memory|index|skill)/[\w./-]+\.md)#([A-Za-z0-9_-]+)\]")
PAGE_LINK = re.compile(r"\]\((\.\./(?:memory|index|skill)/[\w./-]+\.md)#([A-Za-z0-9_-]+)\)")


def cli(root: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    proc = run(["--dir", str(root), *args], check=False)
    assert (proc.returncode == 0) == ok, proc.stderr
    return proc


def fed(tmp_path: Path, order: list[str] = INPUTS, name: str = "mem") -> Path:
    root = init_workspace(tmp_path / name, git=False).root
    cli(root, "ingest", *[str(FIXTURES / n) for n in order])
    return root


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fed(tmp_path_factory.mktemp("entry"))


def read(root: Path, rel: str) -> str:
    return (root / rel).read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    """The lines under `heading` up to the next heading of the same or a higher level."""
    level = heading.split(" ", 1)[0]
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith("#"):
            this = line.split(" ", 1)[0]
            if inside and len(this) <= len(level):
                break
            if line.startswith(heading):
                inside = True
                continue
        if inside:
            out.append(line)
    return "\n".join(out)


def item_ids(root: Path, rel: str) -> set[str]:
    return {it.id for it in parse_category(read(root, rel), rel).items}


def assert_links_resolve(root: Path, text: str, base: Path) -> int:
    """Every link names an item id that is really an item line of the file it points at."""
    links = PAGE_LINK.findall(text) if base != root else ROOT_LINK.findall(text)
    for path, item_id in links:
        target = (base / path).resolve()
        rel = target.relative_to(root.resolve()).as_posix()
        assert target.is_file(), f"{path} does not exist"
        assert item_id in item_ids(root, rel), f"{path}#{item_id} is not an item line there"
    return len(links)


# -- reading it as an agent would ---------------------------------------------------------

def test_index_is_a_map_with_people_categories_archive_and_search(workspace: Path) -> None:
    index = read(workspace, "index.md")
    people = section(index, "## People")
    assert "[Priya](people/priya.md)" in people and "[Marcus](people/marcus.md)" in people
    assert people.index("Priya") < people.index("Marcus")  # the most central first
    for rel in re.findall(r"\]\(((?:people|memory|index|skill)/[\w.-]+\.md)\)", index):
        assert (workspace / rel).is_file(), rel
    rows = [ln for ln in index.splitlines() if ln.startswith("- [") and "](memory/" in ln]
    assert rows and all("fact" in ln and "last learned" in ln for ln in rows)
    # A real summary (who it is about, what it mentions), not the file's first item.
    events = next(ln for ln in rows if "memory/events.md" in ln)
    assert "About Priya" in events and "mentions" in events
    first_item = parse_category(read(workspace, "memory/events.md"), "memory/events.md").items[0].text
    assert first_item.rstrip(".") not in events
    # Empty template categories share one line instead of a row each.
    assert "](memory/education.md)" not in index and "memory/education.md" in index.split("Empty for now")[1]
    assert "3 inputs archived in resources/" in section(index, "## Raw material")
    assert "memfs recall" in section(index, "## Searching")


def test_no_date_in_index_is_in_the_future(workspace: Path) -> None:
    index = read(workspace, "index.md")
    learned = re.findall(r"last learned (\d{4}-\d{2}-\d{2})", index)
    assert learned
    newest_input = "2026-10-07"  # the project notes' date; the chat plans reach 2027
    assert all(d <= newest_input and d <= date.today().isoformat() for d in learned), learned


def test_memory_md_is_a_profile_an_agent_can_answer_from(workspace: Path, ws_budget: int = 1500) -> None:
    memory = read(workspace, "memory.md")
    body = memory.split("-->", 1)[1].rsplit("<!--", 1)[0]
    assert approx_tokens(body) <= ws_budget
    people = re.findall(r"^## (\w+) \(\[page\]\(people/", memory, re.M)
    assert people[0] == "Priya" and set(people) >= {"Priya", "Dana", "Marcus"}
    priya = section(memory, "## Priya")
    profile = priya.split("**Goals and plans**")[0]
    assert re.search(r"Work[\w, ]*: .*design lead at Brightwave", profile)
    assert re.search(r"Constraint[\w, ]*: .*vegetarian and allergic to peanuts", profile)
    assert re.search(r"Constraint[\w, ]*: .*stopped drinking coffee", profile)
    assert re.search(r"People[\w, ]*: .*partner Tom .*dog Biscuit", profile)
    plans = priya.split("**Goals and plans**")[1]
    assert "half marathon on 2027-04-18" in plans and "2026-11-20" in plans
    # The home line learned last comes first: "where does she live now" is the first Home line.
    homes = [ln for ln in profile.splitlines() if ln.startswith("- Home")]
    assert "Leeds" in homes[0] and "Manchester" in homes[-1]
    # Filler never appears: the meeting's reactions stay out.
    assert "saves" not in memory and "Okay, let's start" not in memory
    assert assert_links_resolve(workspace, memory, workspace) >= 15


def test_person_page_has_everything_current_with_links(workspace: Path) -> None:
    page = read(workspace, "people/priya.md")
    parts = split_page(page)
    assert parts is not None and parts.body is not None and parts.front == "---\ntitle: Priya\n---\n"
    for heading in ("## Where they live", "## Work and role", "## People and animals around them",
                    "## Constraints", "## Goals and plans"):
        assert heading in page, heading
    assert "Brightwave" in section(page, "## Work and role")
    assert "allergic to peanuts" in section(page, "## Constraints")
    # every current fact about Priya in the category files is on her page
    facts = [it for rel in ("memory/profile.md", "memory/health.md", "memory/habits.md")
             for it in parse_category(read(workspace, rel), rel).items if it.text.startswith("Priya")]
    assert facts and all(it.id in page for it in facts)
    assert assert_links_resolve(workspace, page, workspace / "people") >= 10


def test_skill_md_groups_procedures_in_order(workspace: Path) -> None:
    skill = read(workspace, "skill.md")
    local = section(skill, "## skill/procedures.md")
    assert "**Running it locally**" in local
    assert local.index("make dev") < local.index("make test")  # steps in file order
    assert assert_links_resolve(workspace, skill, workspace) == 3


# -- current facts only -----------------------------------------------------------------------

def _supersede(root: Path, rel: str, old_words: str, new_id: str, until: str) -> str:
    """Mark the line containing `old_words` as superseded, as the dedupe step writes it."""
    text = read(root, rel)
    lines = text.splitlines(keepends=True)
    for n, line in enumerate(lines):
        if old_words in line and "<!-- id=" in line:
            old_id = re.search(r"id=([\w-]+)", line).group(1)  # type: ignore[union-attr]
            lines[n] = line.replace(" -->", f" until={until} superseded_by={new_id} -->", 1)
            (root / rel).write_text("".join(lines), encoding="utf-8")
            return old_id
    raise AssertionError(f"no line with {old_words!r} in {rel}")


def test_superseded_facts_leave_memory_md_and_close_the_person_page(tmp_path: Path) -> None:
    root = fed(tmp_path)
    leeds = next(it.id for it in parse_category(read(root, "memory/profile.md"), "memory/profile.md").items
                 if "Leeds" in it.text)
    where = next(f"memory/{p.name}" for p in sorted((root / "memory").glob("*.md")) if "in Manchester" in p.read_text())
    old = _supersede(root, where, "Manchester", leeds, "2026-08")
    cli(root, "sync")
    memory = read(root, "memory.md")
    assert "Manchester" not in memory and "Leeds" in memory
    # Two: Manchester, and the Northwind job that "I left Northwind" ended when it was ingested.
    assert "2 superseded kept as history" in memory
    page = read(root, "people/priya.md")
    history = page.split("## History (superseded)")[1]
    assert "## " not in history.split(PAGE_BEGIN)[0].split("<!-- memfs:end")[0]  # history is the last section
    assert "until 2026-08: Priya lives in Manchester" in history and f"#{old})" in history
    assert "Priya works as a product designer at Northwind" in history
    assert f"superseded by [memory/profile.md#{leeds}](../memory/profile.md#{leeds})" in history
    assert "Manchester" not in page.split("## History (superseded)")[0]
    assert "+ 1 superseded" in read(root, "index.md")
    assert_links_resolve(root, page, root / "people")


# -- determinism -------------------------------------------------------------------------------

ENTRY = ("index.md", "memory.md", "skill.md", "people/priya.md", "people/dana.md", "people/marcus.md")


@pytest.mark.slow
def test_same_store_renders_byte_identical_entry_files(tmp_path: Path) -> None:
    a = fed(tmp_path, INPUTS, "a")
    b = fed(tmp_path, list(reversed(INPUTS)), "b")  # another order, another day: same memory
    for rel in ENTRY:
        assert read(a, rel) == read(b, rel), rel
    before = {rel: read(a, rel) for rel in ENTRY}
    cli(a, "sync")
    shutil.rmtree(a / ".memfs")
    cli(a, "sync", "--rebuild")
    assert {rel: read(a, rel) for rel in ENTRY} == before
    assert sorted(p.name for p in (a / "people").iterdir()) == ["dana.md", "marcus.md", "priya.md"]


# -- a person's edits ------------------------------------------------------------------------------

@pytest.mark.slow
def test_notes_outside_the_blocks_survive_and_aliases_join_people(tmp_path: Path) -> None:
    root = fed(tmp_path)
    page = root / "people" / "priya.md"
    text = page.read_text()
    text = text.replace("title: Priya\n", "title: Priya\naliases: [Pri]\n")
    text = text.replace(PAGE_BEGIN, "My own note: ask about the marathon training.\n\n" + PAGE_BEGIN)
    page.write_text(text + "\nWritten below the block.\n")
    memory = root / "memory.md"
    memory.write_text("Read me first (a person's line above the block).\n\n" + memory.read_text() + "\nBelow.\n")
    cli(root, "add", "Pri is learning Portuguese in the evenings.")
    text = page.read_text()
    assert "aliases: [Pri]" in text  # front-matter is the person's: never rewritten
    assert text.index("My own note") < text.index(PAGE_BEGIN) < text.index("Written below the block.")
    assert "Pri is learning Portuguese" in text.split(PAGE_BEGIN)[1]
    assert not (root / "people" / "pri.md").exists()
    mem = memory.read_text()
    assert mem.startswith("Read me first") and mem.rstrip().endswith("Below.")
    assert "## Priya ([page](people/priya.md); also Pri)" in mem and "learning Portuguese" in mem


@pytest.mark.slow
def test_an_edit_inside_a_page_block_is_kept_and_the_block_rebuilt(tmp_path: Path) -> None:
    root = fed(tmp_path)
    page = root / "people" / "priya.md"
    text = page.read_text()
    changed = text.replace("Priya goes bouldering every Thursday.", "Priya goes bouldering every Friday now.")
    changed = changed.replace("## Constraints", "Remember: she hates surprises.\n\n## Constraints")
    page.write_text(changed)
    cli(root, "sync")  # the page changed: the views are stale, the block is rebuilt
    text = page.read_text()
    parts = split_page(text)
    assert parts is not None and parts.body is not None
    assert "every Thursday" in parts.body and "Friday" not in parts.body  # agrees with the category file
    kept = parts.after
    assert "## Kept from your edit of the generated block" in kept
    assert "Priya goes bouldering every Friday now." in kept and "Remember: she hates surprises." in kept
    cli(root, "sync")
    assert page.read_text() == text  # stable once kept: nothing moves twice
    # Without the index's copy of the last block (.memfs deleted), only the changed line is kept.
    shutil.rmtree(root / ".memfs")
    page.write_text(text.replace("Priya loves bouldering more than anything.", "Priya loves bouldering."))
    cli(root, "sync", "--rebuild")
    kept = split_page(page.read_text()).after  # type: ignore[union-attr]
    assert "Priya loves bouldering. [" in kept and kept.count(KEPT_HEADING) == 2
    assert "Roundhay" not in kept and "Priya goes bouldering every Friday now." in kept


@pytest.mark.slow
def test_broken_page_markers_are_a_warning_and_the_page_is_left_alone(tmp_path: Path) -> None:
    root = fed(tmp_path)
    page = root / "people" / "marcus.md"
    broken = page.read_text().split("<!-- memfs:end generated")[0]  # the end marker is gone
    page.write_text(broken)
    cli(root, "add", "Marcus enjoys cycling to the office.")
    assert page.read_text() == broken
    status = cli(root, "status").stdout + cli(root, "status").stderr
    assert "people/marcus.md" in status and "markers are broken" in status


@pytest.mark.slow
def test_a_generated_page_goes_when_its_person_does_unless_a_person_wrote_in_it(tmp_path: Path) -> None:
    root = init_workspace(tmp_path / "mem", git=False).root
    ids = []
    for text in ("Zoe lives in Oslo.", "Zoe works as a pilot.", "Ines lives in Faro.", "Ines works as a chef."):
        out = cli(root, "add", text).stdout
        ids.append(re.search(r"\b([0-9a-f]{8})\b", out).group(1))  # type: ignore[union-attr]
    assert (root / "people/zoe.md").exists() and (root / "people/ines.md").exists()
    ines = root / "people" / "ines.md"
    ines.write_text(ines.read_text() + "\nMet her at the market.\n")
    for item_id in ids:
        cli(root, "forget", item_id, "--yes")
    assert not (root / "people/zoe.md").exists()  # nobody touched it: gone with its facts
    text = ines.read_text()  # a person wrote in it: kept, and it says memfs knows nothing now
    assert "Met her at the market." in text and "memfs has no current facts about Ines." in text


def test_empty_workspace_has_a_short_map(tmp_path: Path) -> None:
    root = init_workspace(tmp_path / "mem", git=False).root
    cli(root, "sync")
    index = read(root, "index.md")
    assert "## People" not in index and "Nothing archived yet" in index
    assert "Empty for now" in index and "](memory/profile.md)" not in index
    assert "0 of 0 current items shown." in read(root, "memory.md")
    assert not (root / "people").exists()


@pytest.mark.slow
def test_a_hand_added_plan_far_ahead_is_not_a_future_update(tmp_path: Path) -> None:
    root = init_workspace(tmp_path / "mem", git=False).root
    cli(root, "add", "Sam plans a trip to Japan.", "--when", "2099-05-01")
    cli(root, "add", "Sam lives in Bristol.")
    learned = re.findall(r"last learned (\S+?)\)", read(root, "index.md"))
    assert learned and all(d <= date.today().isoformat() for d in learned)
    assert "2099-05-01" in section(read(root, "memory.md"), "## Sam").split("**Goals and plans**")[1]


@pytest.mark.slow
def test_a_symlinked_people_folder_is_never_written_through(tmp_path: Path) -> None:
    root = init_workspace(tmp_path / "mem", git=False).root
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "people").symlink_to(outside, target_is_directory=True)
    cli(root, "add", "Zoe lives in Oslo.")
    cli(root, "add", "Zoe works as a pilot.")
    assert list(outside.iterdir()) == []
    assert "## Zoe" in read(root, "memory.md")  # the root files still say what memfs knows
