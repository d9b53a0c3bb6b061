"""Turn raw bytes into text or a clear refusal, and decide which reader gets the text.

Everything here is cheap and looks at content first; the file name's extension only
breaks ties (e.g. text that happens to start with "[" in a ``.txt`` file).
"""

from __future__ import annotations

import re

from memfs.readers.errors import ReadError

BOM = b"\xef\xbb\xbf"
JSON_EXTS = frozenset({"json"})
JSONL_EXTS = frozenset({"jsonl", "ndjson"})
MARKDOWN_EXTS = frozenset({"md", "markdown", "mdown", "mkd", "mkdn"})
TEXT_EXTS = frozenset({"txt", "text"})

# (magic prefix, offset, description, strong) for binary formats people are likely to drop.
# A weak magic is plain ASCII that could also start a text file ("MZ", "ID3"), so it only
# names the format once the content has proved to be binary some other way.
_MAGIC: tuple[tuple[bytes, int, str, bool], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "PNG image", True),
    (b"\xff\xd8\xff", 0, "JPEG image", True),
    (b"GIF87a", 0, "GIF image", True),
    (b"GIF89a", 0, "GIF image", True),
    (b"%PDF-", 0, "PDF document", True),
    (b"PK\x03\x04", 0, "ZIP archive or Office document", True),
    (b"\x1f\x8b", 0, "gzip archive", True),
    (b"\xfd7zXZ\x00", 0, "xz archive", True),
    (b"7z\xbc\xaf\x27\x1c", 0, "7-Zip archive", True),
    (b"\x7fELF", 0, "ELF executable", True),
    (b"SQLite format 3\x00", 0, "SQLite database", True),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", 0, "legacy Office document", True),
    (b"ID3", 0, "MP3 audio", False),
    (b"OggS", 0, "Ogg audio/video", False),
    (b"fLaC", 0, "FLAC audio", False),
    (b"ftyp", 4, "MP4/MOV video or audio", False),
    (b"MZ", 0, "Windows executable", False),
    (b"BZh", 0, "bzip2 archive", False),
)
_RIFF: dict[bytes, str] = {b"WEBP": "WebP image", b"WAVE": "WAV audio", b"AVI ": "AVI video"}

def extension(filename: str) -> str:
    """Lower-case extension of the last path component, without the dot ('' if none)."""
    name = filename.replace("\\", "/").rsplit("/", 1)[-1]
    stem, dot, ext = name.rpartition(".")
    return ext.lower() if dot and stem else ""


def check_size(data: bytes, max_bytes: int) -> None:
    """Refuse oversized input before doing any work on it."""
    if len(data) > max_bytes:
        raise ReadError(f"file is {len(data) / 1e6:.1f} MB, over the {max_bytes / 1e6:.1f} MB limit")


def _magic(data: bytes) -> tuple[str, bool] | None:
    """(description, strong) of a recognised binary format, else None."""
    if data.startswith(b"RIFF") and data[8:12] in _RIFF:
        return _RIFF[data[8:12]], True
    for magic, offset, label, strong in _MAGIC:
        if data[offset : offset + len(magic)] == magic:
            return label, strong
    return None


def _mostly_binary(sample: str) -> bool:
    """True if more than 10% of a decoded sample is replacement or control characters."""
    if not sample:
        return False
    bad = sum(1 for ch in sample if ch == "\ufffd" or (ch < " " and ch not in "\t\n\r\f\v"))
    return bad > len(sample) / 10


def decode(data: bytes) -> str:
    """Bytes to str: UTF-8 only (BOM allowed), LF line ends; binary content is refused."""
    skipped = len(BOM) if data.startswith(BOM) else 0
    data = data[skipped:]
    if not data:
        raise ReadError("empty file")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ReadError("file is UTF-16 text; save it as UTF-8")
    magic = _magic(data)
    binary = f"binary file (looks like {magic[0]})" if magic else None
    if magic is not None and magic[1]:
        raise ReadError(f"binary file (looks like {magic[0]})")
    if b"\x00" in data:
        raise ReadError(binary or "binary file (contains NUL bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if binary or _mostly_binary(data[:65536].decode("utf-8", errors="replace")):
            raise ReadError(binary or "binary file (mostly non-text bytes)") from None
        line = data.count(b"\n", 0, exc.start) + 1
        raise ReadError(f"not valid UTF-8 at byte {exc.start + skipped} (line {line})") from None
    if _mostly_binary(text[:65536]):
        raise ReadError(binary or "binary file (mostly control characters)")
    return text.replace("\r\n", "\n").replace("\r", "\n")


# Strong evidence of JSON: an object with a key, or an array of objects/arrays/strings.
_JSONISH = re.compile(r'\s*(\{\s*("|\})|\[\s*(\{|\[|"|\]))')
# A Markdown structure at the start of a line: ATX heading or code fence.
_MD_LINE = re.compile(r"(#{1,6}\s+\S|```|~~~)")


def looks_like_json(text: str) -> bool:
    return _JSONISH.match(text) is not None


def looks_like_markdown(text: str) -> bool:
    """Cheap sniff for files without a telling extension: front-matter or an ATX heading."""
    if text.startswith("---\n"):
        return True
    for i, line in enumerate(text.split("\n", 500)):
        if i >= 500:
            break
        if _MD_LINE.match(line):
            return True
    return False


# Chat exports, recognised from a prefix of their text: used only to name the format in
# the refusal of a damaged file (a complete file is recognised by its parsed shape).
_KEY = r'"{}"\s*:'
_VALUE = r':\s*"{}"'
_EXPORT_HINTS: tuple[tuple[tuple[str, ...], str], ...] = (
    ((_KEY.format("mapping"), _KEY.format("parent"), _KEY.format("children")), "ChatGPT export"),
    ((_KEY.format("chat_messages"),), "Claude.ai export"),
    ((_KEY.format("prompt_template"), _KEY.format("docs")), "Claude.ai projects export"),
    ((_KEY.format("currentId"), _KEY.format("history")), "Open WebUI export"),
    ((_KEY.format("sessionId"), _KEY.format("parentUuid")), "Claude Code session"),
    ((_VALUE.format("session_meta"), _KEY.format("payload")), "Codex session"),
    ((_VALUE.format("response_item"), _KEY.format("payload")), "Codex session"),
    ((_KEY.format("character_name"), _KEY.format("user_name")), "SillyTavern chat"),
    ((_KEY.format("is_user"), _KEY.format("mes")), "SillyTavern chat"),
)
_HINT_CHARS = 65536


def export_hint(text: str) -> str | None:
    """The export format a (possibly damaged) text looks like, from its first 64 KB."""
    head = text[:_HINT_CHARS]
    for patterns, label in _EXPORT_HINTS:
        if all(re.search(pattern, head) for pattern in patterns):
            return label
    return None
