"""Front-matter of a category file: split it off, load it safely, edit it line by line.

A person's YAML layout (comments, flow lists, quoting, key order) is kept: memfs edits
only the lines of the keys it changes, and the result must load back to exactly the
intended values, or nothing is written (issue #10, item 11). TOML (`+++`) is read, never
edited. Split out of categoryfile.py (issue #17: parse, render and edit apart).

yaml (and python-frontmatter) load on first use: the front-matter memfs writes itself is
read by `simple_front` (issue #17 item 3: a one-shot `memfs add` pays no YAML import).
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml

#: python-frontmatter's YAML boundary (`YAMLHandler.FM_BOUNDARY`), without importing it.
FM_BOUNDARY = re.compile(r"^-{3,}\s*$", re.MULTILINE)


def _yaml_load(text: str) -> Any:
    """What python-frontmatter's YAMLHandler.load gives: yaml.load with the safe loader."""
    import yaml

    return yaml.load(text, Loader=yaml.SafeLoader)


#: The most values a front-matter may expand to, aliases counted at every use. YAML
#: anchors let a few hundred bytes stand for billions of values ("billion laughs"); the
#: safe loader builds them by reference, but anything that walks or prints the result
#: (str(), ==, the index) would expand them. Hardening fix: refuse such front-matter.
FRONT_MAX_VALUES = 100_000
#: Front-matter keys memfs owns, in the order it writes them.
FRONT_KEYS: tuple[str, ...] = ("title", "kind", "description", "summary", "updated", "items")


def dump_front(front: dict[str, Any]) -> str:
    """Front-matter in a fixed key order (memfs' keys first), so output is deterministic."""
    ordered = {k: front[k] for k in FRONT_KEYS if k in front}
    ordered.update({k: v for k, v in front.items() if k not in ordered})
    import yaml

    text = yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True, width=10**9, default_flow_style=False)
    return f"---\n{text}---\n"


def split_front(text: str) -> tuple[str, str, str, str]:
    """(whole front-matter block incl. delimiters, its inner text, body, format) — exact substrings.

    `---` opens YAML front-matter, `+++` TOML (Hugo, Zola); the format is "" without one."""
    for delim, fmt in (("---", "yaml"), ("+++", "toml")):
        if text.startswith(delim + "\n") or text.startswith(delim + "\r\n"):
            break
    else:
        return "", "", text, ""
    first_nl = text.index("\n") + 1
    if fmt == "yaml":
        m = FM_BOUNDARY.search(text, first_nl)
    else:
        m = _TOML_BOUNDARY.search(text, first_nl)
    if m is None:
        return "", "", text, ""
    end = m.end()
    if end < len(text) and text[end] == "\r":
        end += 1
    if end < len(text) and text[end] == "\n":
        end += 1
    return text[:end], text[first_nl : m.start()], text[end:], fmt


_TOML_BOUNDARY = re.compile(r"^\+{3}\s*$", re.MULTILINE)


def edit_front(front_raw: str, old: dict[str, Any], new: dict[str, Any], newline: str, path: str) -> str:
    """Apply the changed top-level keys to YAML front-matter as line edits.

    Only a changed key's own lines are replaced, removed or (for a new key) appended, so
    comments, flow lists, quoting and order of everything else stay as the person wrote
    them. The result must load back to exactly `new`, or nothing is written."""
    first_nl = front_raw.index("\n") + 1
    import yaml

    m = FM_BOUNDARY.search(front_raw, first_nl)
    assert m is not None
    opening, inner, closing = front_raw[:first_nl], front_raw[first_nl:m.start()], front_raw[m.start():]
    lines = split_lines(inner)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += newline
    blocks = _top_level_blocks(lines)
    changed = [k for k in list(old) + [k for k in new if k not in old] if old.get(k, _MISSING) != new.get(k, _MISSING)]
    replace: dict[int, list[str]] = {}
    drop: set[int] = set()
    appended: list[str] = []
    for key in changed:
        span = blocks.get(key) if isinstance(key, str) else None
        text = _dump_key(key, new[key], newline) if key in new else []
        if span is None and key in old:
            raise_front(path, key)
        if span is None:
            appended.extend(text)
            continue
        a, b = span
        replace[a] = text
        drop.update(range(a + 1, b))
    out: list[str] = []
    for i, line in enumerate(lines):
        if i in replace:
            out.extend(replace[i])
        elif i not in drop:
            out.append(line)
    out.extend(appended)
    result = opening + "".join(out) + closing
    try:
        loaded = _yaml_load("".join(out)) or {}
    except yaml.YAMLError:
        loaded = None
    if loaded != new:
        raise_front(path, changed[0] if changed else "?")
    return result


_MISSING = object()
_TOP_KEY = re.compile(r"""^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"?:{}\[\]!&*|>%@`-][^:#\r\n]*?)[ \t]*:(?:[ \t]|\r?\n|$)""")


def _top_level_blocks(lines: list[str]) -> dict[str, tuple[int, int]]:
    """Top-level key -> its lines [a, b): the key line plus its indented (or `- `) continuation."""
    out: dict[str, tuple[int, int]] = {}
    i = 0
    while i < len(lines):
        m = _TOP_KEY.match(lines[i])
        if not m:
            i += 1
            continue
        key = m.group(1)
        if key[:1] in "'\"":
            import yaml

            try:
                key = str(yaml.safe_load(key))
            except yaml.YAMLError:
                i += 1
                continue
        j = i + 1
        while j < len(lines) and (lines[j][:1] in (" ", "\t") or lines[j].startswith("- ")
                                  or lines[j].rstrip("\r\n") in ("-", "")):
            j += 1
        while j > i + 1 and not lines[j - 1].strip():
            j -= 1
        out.setdefault(key, (i, j))
        i = j
    return out


def _dump_key(key: str, value: Any, newline: str) -> list[str]:
    import yaml

    text = yaml.safe_dump({key: value}, sort_keys=False, allow_unicode=True, width=10**9, default_flow_style=False)
    return [line.replace("\n", newline) for line in split_lines(text)]


def raise_front(path: str, key: object) -> None:
    from memfs.errors import MemfsError

    raise MemfsError(f"{path}: cannot update front-matter key {key!r} without reformatting the person's YAML "
                     "(its layout is not one memfs edits line by line); nothing was written")


def yaml_error_line(err: "yaml.YAMLError") -> int | None:
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    return mark.line + 2 if mark is not None else None  # +1 for 1-based, +1 for the '---' line


def check_expansion(value: Any) -> None:
    """Raise ValueError if `value` expands to more than FRONT_MAX_VALUES values (or is recursive)."""
    stack = [value]
    count = 0
    while stack:
        item = stack.pop()
        count += 1
        if count > FRONT_MAX_VALUES:
            raise ValueError(f"front-matter expands to more than {FRONT_MAX_VALUES} values "
                             "(YAML aliases or recursion)")
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)



#: The characters other than '\n' that str.splitlines breaks a line at.
_ASCII_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e")
_OTHER_BREAKS = _ASCII_BREAKS + ("\x85", "\u2028", "\u2029")


def split_lines(text: str) -> list[str]:
    """Split on '\n' only (str.splitlines also splits on \x0c, \u2028 … which Markdown does not).

    A text holding none of those other breaks (what memfs writes) is split by
    `splitlines(keepends=True)`, at C speed: the same lines, no string built per line."""
    if not any(c in text for c in (_ASCII_BREAKS if text.isascii() else _OTHER_BREAKS)):
        return text.splitlines(True)
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


#: A `key: value` line of the plain kind memfs writes (a title, a kind, a description): an
#: ASCII key and a one-line plain scalar starting with a letter, of characters YAML reads
#: literally there (no `:`, `#`, quote, flow, anchor or tag character; a blank only between
#: words). Such a value is a string for YAML unless it is one of the words below.
_SIMPLE_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*): ([A-Za-z](?:[A-Za-z0-9_.,;()/!?+-]| (?! ))*"
                          r"(?<! ))\n")
#: Plain words YAML 1.1 (PyYAML's safe loader) reads as booleans or null, not strings.
_YAML_WORDS = frozenset(
    f(w) for w in ("yes", "no", "true", "false", "on", "off", "null") for f in (str.lower, str.title, str.upper))


def simple_front(inner: str) -> dict[str, str] | None:
    """The front-matter memfs writes, read without YAML: lines of `key: plain words`,
    exactly what the safe YAML loader gives for them; None for anything else (a comment,
    a quote, a list, a number, a duplicate key, a blank line...), which takes the YAML parser
    (tests/test_front_simple.py compares the two on arbitrary input)."""
    out: dict[str, str] = {}
    pos, end = 0, len(inner)
    if not end or inner[-1] != "\n":
        return None
    match = _SIMPLE_LINE.match
    while pos < end:
        m = match(inner, pos)
        if m is None:
            return None
        key, value = m.group(1), m.group(2)
        if key in out or key in _YAML_WORDS or value in _YAML_WORDS:
            return None
        out[key] = value
        pos = m.end()
    return out


def load_front(front_raw: str, inner: str, fmt: str, path: str) -> tuple[dict[str, Any], str | None]:
    """(front-matter values, the one-line error that makes the file never rewritten, or None)."""
    if fmt == "toml":
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # pragma: no cover
            import tomli as tomllib

        try:
            loaded_toml = tomllib.loads(inner)
            check_expansion(loaded_toml)
            return loaded_toml, None
        except (tomllib.TOMLDecodeError, ValueError) as err:
            return {}, f"{path}: broken TOML front-matter ({err}); file indexed without it, never rewritten"
    if not front_raw:
        return {}, None
    simple = simple_front(inner)
    if simple is not None:
        return simple, None
    import yaml

    try:
        loaded = _yaml_load(inner)
        if loaded is None:
            loaded = {}
        if not isinstance(loaded, dict):
            raise yaml.YAMLError("front-matter is not a mapping")
        check_expansion(loaded)
        return loaded, None
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as err:
        line = yaml_error_line(err) if isinstance(err, yaml.YAMLError) else None
        where = f"{path}:{line}" if line else path
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        return {}, f"{where}: broken front-matter ({first}); file indexed without it, never rewritten"
