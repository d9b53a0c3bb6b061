"""Chat exports inside a .zip, read safely.

Nothing from the archive is ever written to disk and no member name is used as a path:
members are read into memory, bounded, and only the JSON/JSONL ones are looked at (by
shape, through the same readers as a dropped file). Sizes are checked against the
declared size and again while decompressing, so a zip bomb or a lying header stops at
the limit; encrypted and nested archives are not opened.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from typing import Any

from memfs.readers.errors import ReadError
from memfs.readers.text import one_line

LABEL = "ZIP archive"
MAX_MEMBERS = 100_000
MAX_RATIO = 200  # compression ratio past which a large member is treated as a bomb
RATIO_FLOOR = 10_000_000  # ... once it would expand past 10 MB
LOOKED_AT = (".json", ".jsonl", ".ndjson")


def read_zip(data: bytes, read_export: Callable[[bytes], tuple[str, Any] | None],
             max_bytes: int) -> list[tuple[str, Any]]:
    """(label, items) of every export member; refuses an archive with none."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as exc:
        raise ReadError(f"{LABEL}: damaged ({one_line(str(exc))})") from None
    if len(members) > MAX_MEMBERS:
        raise ReadError(f"{LABEL}: {len(members)} members, more than the {MAX_MEMBERS} memfs reads")
    found: list[tuple[str, Any]] = []
    looked: list[str] = []
    budget = max_bytes
    with archive:
        for info in members:
            name = one_line(info.filename, 80)
            if info.is_dir() or not info.filename.lower().endswith(LOOKED_AT):
                continue
            if info.flag_bits & 0x1:
                raise ReadError(f"{LABEL}: {name} is encrypted; export it again without a password")
            if info.file_size > budget:
                raise ReadError(f"{LABEL}: {name} expands to {info.file_size / 1e6:.1f} MB, over the "
                                f"{max_bytes / 1e6:.1f} MB limit (ingest.max_export_bytes)")
            if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
                raise ReadError(f"{LABEL}: {name} is compressed {info.file_size // max(info.compress_size, 1)}:1, "
                                "which only a zip bomb is")
            body = _read_member(archive, info, budget, name)
            budget -= len(body)
            looked.append(name)
            try:
                got = read_export(body)
            except ReadError as err:
                raise ReadError(f"{err.message} (in {name} inside the {LABEL})") from None
            if got is not None:
                found.append(got)
    if not looked:  # photos, an Office document: what memfs said of a zip before it read exports
        raise ReadError("binary file (looks like ZIP archive or Office document)")
    if not found:
        what = f"{', '.join(looked[:5])}{' ...' if len(looked) > 5 else ''}"
        raise ReadError(f"{LABEL}: no chat export inside (looked at {what}); memfs reads ChatGPT, Claude.ai, "
                        "Open WebUI exports and Claude Code, Codex, SillyTavern transcripts")
    return found


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: int, name: str) -> bytes:
    """Decompress at most ``budget`` bytes: the header's size is not trusted."""
    try:
        with archive.open(info) as stream:
            body = stream.read(budget + 1)
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, ValueError, OSError, EOFError) as exc:
        raise ReadError(f"{LABEL}: {name} cannot be read ({one_line(str(exc))})") from None
    if len(body) > budget:
        raise ReadError(f"{LABEL}: {name} expands past the limit (ingest.max_export_bytes)")
    return body
