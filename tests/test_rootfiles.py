"""Root files (index.md, memory.md, skill.md): the generated block between memfs' markers
(memfs/core/rootfiles.py) and writing it into a real file without losing a person's notes
(memfs/rootwrite.py)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from memfs.core.rootfiles import BEGIN, END, MarkerError, approx_tokens, link_path, merge_generated, one_line
from memfs.rootwrite import prewrite_of, write_root_file


def test_one_line_link_path_and_tokens() -> None:
    assert one_line("a\nb\r\tc\u2028d") == "a b  c d"
    assert one_line("plain") == "plain"
    assert link_path("memory/odd\nname.md") == "memory/odd%0Aname.md"
    assert link_path("memory/ok.md") == "memory/ok.md"
    assert approx_tokens("") == 1 and approx_tokens("x" * 8) == 2 and approx_tokens("x" * 9) == 3


def test_merge_into_nothing_and_into_a_file_without_markers() -> None:
    assert merge_generated(None, "# Memory\n") == f"{BEGIN}\n# Memory\n{END}\n"
    notes = "My own notes.\n"
    merged = merge_generated(notes, "body")
    assert merged == f"My own notes.\n\n{BEGIN}\nbody\n{END}\n"  # appended, the notes untouched
    assert merge_generated("no newline", "body") == f"no newline\n\n{BEGIN}\nbody\n{END}\n"


def test_merge_replaces_only_the_block_and_keeps_crlf() -> None:
    existing = f"above\n{BEGIN}\nold\n{END}\nbelow\n"
    assert merge_generated(existing, "new\n\n") == f"above\n{BEGIN}\nnew\n{END}\nbelow\n"
    crlf = existing.replace("\n", "\r\n")
    assert merge_generated(crlf, "a\nb") == f"above\r\n{BEGIN}\r\na\r\nb\r\n{END}\r\nbelow\r\n"


@pytest.mark.parametrize("existing, what", [
    (f"{BEGIN}\nno end\n", "the end marker is missing"),
    (f"no begin\n{END}\n", "the begin marker is missing"),
    (f"{BEGIN}\n{BEGIN}\n{END}\n", "a marker appears twice"),
    (f"{END}\nx\n{BEGIN}\n", "the end marker comes before the begin"),
])
def test_a_damaged_marker_pair_is_refused_not_guessed(existing: str, what: str) -> None:
    with pytest.raises(MarkerError, match=what):
        merge_generated(existing, "body")


def test_write_root_file_keeps_the_persons_text_and_reports_change(tmp_path: Path) -> None:
    path = tmp_path / "memory.md"
    assert write_root_file(path, "# Memory\n\nfirst", settle=0.0)  # a new file
    assert prewrite_of(path) is None
    path.write_text("My header, by hand.\n\n" + path.read_text() + "\nMy footer.\n")
    before = path.read_bytes()
    assert write_root_file(path, "# Memory\n\nsecond", settle=0.0)
    text = path.read_text()
    assert text.startswith("My header, by hand.\n\n") and text.endswith("\nMy footer.\n")
    assert "second" in text and "first" not in text
    assert prewrite_of(path) == before
    assert not write_root_file(path, "# Memory\n\nsecond", settle=0.0)  # same bytes: nothing written
    assert path.read_text() == text


def test_write_root_file_keeps_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "index.md"
    path.write_text("\ufeffnotes\n", encoding="utf-8")
    assert write_root_file(path, "body", settle=0.0)
    assert path.read_text(encoding="utf-8") == f"\ufeffnotes\n\n{BEGIN}\nbody\n{END}\n"


@pytest.mark.parametrize("content, warning", [
    (f"notes\n{BEGIN}\nunterminated\n".encode(), "leaves the file as it is"),
    (b"caf\xe9 notes\n", "is not valid UTF-8"),
])
def test_write_root_file_leaves_a_file_it_cannot_merge(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                        content: bytes, warning: str) -> None:
    path = tmp_path / "skill.md"
    path.write_bytes(content)
    with caplog.at_level(logging.WARNING, logger="memfs.rootwrite"):
        assert not write_root_file(path, "body", settle=0.0)
    assert path.read_bytes() == content
    assert warning in caplog.text and "skill.md" in caplog.text


def test_a_save_between_read_and_rename_is_merged_not_lost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The person saves after memfs read the file: memfs merges into their version."""
    import memfs.rootwrite as rootwrite

    path = tmp_path / "memory.md"
    path.write_text(f"v1 notes\n{BEGIN}\nold\n{END}\n")
    real = rootwrite.unchanged_since
    saved = []

    def person_saves_first(p: Path, data: bytes | None) -> bool:
        if not saved:
            p.write_text(f"v2 notes, edited\n{BEGIN}\nold\n{END}\n")
            saved.append(True)
        return real(p, data)

    monkeypatch.setattr(rootwrite, "unchanged_since", person_saves_first)
    assert write_root_file(path, "new", settle=0.0)
    assert path.read_text() == f"v2 notes, edited\n{BEGIN}\nnew\n{END}\n"
