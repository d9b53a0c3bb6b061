"""`front.simple_front` reads the front-matter memfs writes without YAML (issue #17 item 3:
a one-shot `memfs add` imports no yaml). Whatever it accepts, it must read exactly as the
safe YAML loader does; anything else is None and takes the YAML parser."""

from __future__ import annotations

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memfs.core.front import dump_front, load_front, simple_front, split_front


def _yaml(inner: str) -> object:
    try:
        return yaml.load(inner, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return "<error>"


words = st.sampled_from(["Big", "kind", "index", "memory", "yes", "No", "TRUE", "off", "Null", "null", "y", "n",
                         "inf", ".inf", "nan", "1", "0x1f", "1e3", "2024-05-01", "12:30", "a:b", "a: b", "#x",
                         "a #b", "-", "- a", "?", "? a", "!x", "&a", "*a", "|", ">", "'q'", '"q"', "[a]", "{a}",
                         "a,b", "a.b", "(a)", "a/b", "x+y", "x-y", "_", "é", "a\tb", "=", "<<", "~", "%", "@", "`"])
keys = st.sampled_from(["title", "kind", "description", "summary", "x_1", "true", "On", "null", "1", "a b", "-a",
                        "é", "_", "Title"])
seps = st.sampled_from([": ", ": ", ":", ":  ", " : ", ":\t"])
blanks = st.sampled_from([" ", " ", "  ", "\t", ""])


@st.composite
def fronts(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(0, 4))):
        value = draw(blanks).join(draw(st.lists(words, min_size=0, max_size=4)))
        lines.append(draw(keys) + draw(seps) + value + draw(st.sampled_from(["", "", " ", "\t", " # c"])))
    text = "\n".join(lines)
    return text + draw(st.sampled_from(["\n", "\n", "", "\n\n", "\r\n"]))


@settings(max_examples=1500, suppress_health_check=[HealthCheck.too_slow])
@given(fronts())
@example("title: Big\nkind: index\n")
@example("title: Yes\n")
@example("a: b  c\n")
@example("a: b\na: c\n")
def test_simple_front_reads_what_yaml_reads(inner: str) -> None:
    got = simple_front(inner)
    if got is not None:
        assert got == _yaml(inner)


@settings(max_examples=500)
@given(st.text(alphabet=st.characters(min_codepoint=1, max_codepoint=0x7f) | st.sampled_from("é\u2028\x85"),
               max_size=60))
def test_simple_front_on_arbitrary_text(inner: str) -> None:
    got = simple_front(inner)
    if got is not None:
        assert got == _yaml(inner)


@settings(max_examples=300)
@given(st.from_regex(r"[A-Z][a-z]{0,8}( [a-z0-9]{1,6}){0,5}", fullmatch=True))
def test_memfs_own_front_matter_takes_the_simple_reader(title: str) -> None:
    """The control: what memfs writes for a plain title and kind is read without YAML
    (unless the title is a YAML word), and load_front gives the same values either way."""
    raw = dump_front({"title": title, "kind": "memory"})
    front_raw, inner, _, fmt = split_front(raw + "# x\n")
    got = simple_front(inner)
    if title.lower() not in ("yes", "no", "true", "false", "on", "off", "null"):
        assert got == {"title": title, "kind": "memory"}
    assert load_front(front_raw, inner, fmt, "memory/x.md") == (_yaml(inner), None)


def test_anything_else_takes_yaml() -> None:
    for inner in ("title: Big # note\n", "tags: [a, b]\n", "title: 'Big'\n", "n: 12\n", "title: Yes\n",
                  "a:\n  - b\n", "title: Big\n\nkind: index\n", "title: Big\nkind: index"):
        assert simple_front(inner) is None, inner
    front, err = load_front("---\ntitle: Yes\n---\n", "title: Yes\n", "yaml", "memory/x.md")
    assert (front, err) == ({"title": True}, None)
