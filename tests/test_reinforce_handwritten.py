"""A reinforcement of a person's hand-written (unstamped) line is written, not only reported.

Found by the store-operations hypothesis test (CI, 2026-12-01): `memfs add` of the text of a
line a person wrote printed "reinforced" while the file kept the line as it was (no `seen=2`),
because a file counted as changed only through its stamped lines."""

from __future__ import annotations

from pathlib import Path

from memfs.core.categoryfile import parse_category
from tests.support.cli import init, run


def test_memfs_add_of_a_hand_written_line_reinforces_it_on_disk(tmp_path: Path) -> None:
    root = init(tmp_path / "w")
    cat = root / "index" / "knowledge.md"
    person = "- Zed keeps a lighthouse in Oban.\n  - a note the person nested under it\n"
    cat.write_text(cat.read_text() + "\n" + person)
    run(["sync"], cwd=root)
    out = run(["add", "Zed keeps a lighthouse in Oban.", "-c", "knowledge"], cwd=root)
    assert "reinforced" in out.stdout
    text = cat.read_text()
    items = [s.item for s in parse_category(text, "index/knowledge.md").slots]
    zed = [i for i in items if i.text == "Zed keeps a lighthouse in Oban."]
    assert len(zed) == 1 and zed[0].seen == 2, text
    assert "  - a note the person nested under it\n" in text  # what they nested stays
    hits = run(["recall", "lighthouse Oban", "--json"], cwd=root).stdout
    assert '"seen": 2' in hits.replace('"seen":2', '"seen": 2')


def test_a_hand_written_line_no_change_touches_is_left_as_written(tmp_path: Path) -> None:
    root = init(tmp_path / "w")
    cat = root / "index" / "knowledge.md"
    before = cat.read_text() + "\n- Zed keeps a lighthouse in Oban.\n"
    cat.write_text(before)
    run(["sync"], cwd=root)
    run(["add", "Ines plays the oboe in a quartet.", "-c", "events"], cwd=root)
    assert cat.read_text() == before
