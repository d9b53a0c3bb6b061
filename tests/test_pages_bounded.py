"""Person pages are bounded (entry/pages.SECTION_MAX lines a section, the most seen or newest
kept) and, their order not depending on the day, are not rewritten when only the day moves
(issue #18 item 4): a new day's input costs the pages of the people it is about."""

from __future__ import annotations

from pathlib import Path

from memfs.entry.pages import SECTION_MAX
from memfs.views import forget_state
from tests.support.workspace import hashing_memory
from tests.test_views_incremental import assert_same_as_full_rebuild


def _likes(n: int) -> str:
    """n preferences of Priya learned 2026-01-01..; every 10th seen 4 times."""
    lines = []
    for k in range(n):
        seen = " seen=4" if k % 10 == 0 else ""
        lines.append(f"- Priya likes hobby number {k} a lot. <!-- id=p{k:05d} type=preference "
                     f"src=resources/2026/01/{1 + k % 28:02d}-chat-0123456789abcdef.json#S1:1{seen} -->\n")
    return "---\ntitle: Preferences\n---\n" + "".join(lines)


def _section(page: str, heading: str) -> list[str]:
    body = page.split(f"## {heading}\n\n", 1)[1].split("\n\n", 1)[0]
    return [ln for ln in body.splitlines() if ln.startswith("- ")]


def test_a_big_section_keeps_the_most_seen_and_says_how_many_more(ws_path: Path) -> None:
    n = SECTION_MAX + 30
    (ws_path / "memory" / "preferences.md").write_text(_likes(n))
    (ws_path / "memory" / "profile.md").write_text(
        "---\ntitle: Profile\n---\n- Priya lives in Leeds with her partner Tom. <!-- id=h00001 type=profile -->\n")
    forget_state()
    with hashing_memory(ws_path) as mem:
        mem.sync()
        page = (ws_path / "people" / "priya.md").read_text()
        rows = _section(page, "Preferences")
        assert len(rows) == SECTION_MAX + 1, rows[-3:]
        assert rows[-1] == f'- … 30 more: `memfs recall "Priya Preferences"`'
        most_seen = [f"p{k:05d}" for k in range(0, n, 10)]
        assert all(f"#{i}]" in "\n".join(rows[: len(most_seen)]) for i in most_seen)  # most seen first
        assert f"at most {SECTION_MAX} lines a section" in page
        assert_same_as_full_rebuild(mem)


def test_a_new_day_about_nobody_rewrites_no_page(ws_path: Path) -> None:
    # Seen twice long ago against once lately: the day's salience order of these two flips as
    # the reference day moves on by years; the page's order (most seen, then newest) does not.
    flips = ("- Priya prefers green tea over coffee. <!-- id=q00001 type=preference seen=2 "
             "src=resources/2022/01/01-chat-0123456789abcdef.json#S1:1 -->\n"
             "- Priya loves the cello these days. <!-- id=q00002 type=preference "
             "src=resources/2026/01/01-chat-0123456789abcdef.json#S1:1 -->\n")
    (ws_path / "memory" / "preferences.md").write_text(_likes(40) + flips)
    (ws_path / "memory" / "relationships.md").write_text(
        "---\ntitle: Relationships\n---\n- Dana has a sister called Mira. <!-- id=d00001 type=profile -->\n"
        "- Dana works as a nurse at the county hospital. <!-- id=d00002 type=profile -->\n")
    forget_state()
    with hashing_memory(ws_path) as mem:
        mem.sync()
        pages = {p.name: p.read_bytes() for p in (ws_path / "people").glob("*.md")}
        assert set(pages) == {"priya.md", "dana.md"}
        events = ws_path / "memory" / "events.md"
        for day in ("2026-01-02", "2031-06-01", "2040-01-01"):  # each a newer day: the reference day moves
            text = events.read_text() if events.exists() else "---\ntitle: Events\n---\n"
            events.write_text(text + f"- The office moved to a new floor. <!-- id=e{day[:4]}{day[5:7]}{day[8:]} type=event "
                              f"src=resources/{day[:4]}/{day[5:7]}/{day[8:]}-chat-0123456789abcdef.json#S1:1 -->\n")
            mem.sync()
            with mem.lock("test"):
                written = mem.regenerate_views()
            assert not [w for w in written if w.startswith("people/")]
            assert {p.name: p.read_bytes() for p in (ws_path / "people").glob("*.md")} == pages
            assert_same_as_full_rebuild(mem)
        mem.add("Dana prefers green tea over coffee.", category="memory/preferences")
        assert (ws_path / "people" / "dana.md").read_bytes() != pages["dana.md"]  # her facts changed: rewritten
        assert (ws_path / "people" / "priya.md").read_bytes() == pages["priya.md"]
        assert_same_as_full_rebuild(mem)
