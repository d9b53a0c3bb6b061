"""A regeneration reads each person page once (read_pages hands its text to the page
writer): a page edited after that read, before the page is rewritten, keeps the edit."""

from __future__ import annotations

from pathlib import Path

import pytest

import memfs.views as views
from memfs.api import Memory
from memfs.entry.pagefile import PAGE_BEGIN
from memfs.entry.pages import KEPT_HEADING


def test_a_page_edited_after_it_was_read_keeps_the_edit(mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    for fact in ("Priya lives in Leeds with her partner.", "Priya is allergic to peanuts.",
                 "Priya prefers green tea over coffee."):
        mem.add(fact, category="memory/profile")
    page = mem.ws.root / "people" / "priya.md"
    assert page.is_file()
    real = views.read_pages
    edited: list[Path] = []

    def read_then_edit(ws, texts=None):  # type: ignore[no-untyped-def]
        out = real(ws, texts)
        if not edited:  # the person types into the block after memfs read the page
            text = page.read_text()
            page.write_text(text.replace(PAGE_BEGIN + "\n", PAGE_BEGIN + "\n- Priya also plays chess.\n", 1))
            edited.append(page)
        return out

    monkeypatch.setattr(views, "read_pages", read_then_edit)
    mem.add("Priya works as a nurse at the county hospital.", category="memory/profile")  # her page is rewritten
    text = page.read_text()
    assert edited and "works as a nurse" in text
    assert KEPT_HEADING in text and "- Priya also plays chess." in text.split(KEPT_HEADING, 1)[1]
