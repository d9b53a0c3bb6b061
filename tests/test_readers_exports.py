"""Chat exports and agent transcripts (issue 15) and "replays reinforce nothing" (issue 19.6).

Fixtures in tests/fixtures/exports/ are written by hand from each format's documented
shape; markers in them (ABANDONED-, HIDDEN-, INJECTED-, SECRET-, UNCHOSEN-) flag text that
must never be memorized or archived.
"""

from __future__ import annotations

import io
import json
import shutil
import signal
import subprocess
import time
import zipfile
from pathlib import Path

import pytest

from memfs.api import Memory
from memfs.readers import read_source
from memfs.readers.errors import ReadError
from memfs.readers.unpack import unpack
from tests.support.workspace import hashing_memory
from tests.support.cli import MEMFS
from tests.support.cli import env as cli_env

FIXTURES = Path(__file__).parent / "fixtures" / "exports"
FORBIDDEN = ("ABANDONED", "HIDDEN", "INJECTED", "SECRET", "UNCHOSEN", "SUBAGENT")
LIMITS = {"max_bytes": 20_000_000, "max_export_bytes": 500_000_000}

# fixture -> (format label, number of inputs it becomes, a fact memorized from it)
FORMATS = {
    "chatgpt-conversations.json": ("ChatGPT export", 2, "green tea"),
    "claude-conversations.json": ("Claude.ai export", 2, "allergic to peanuts"),
    "claude-projects.json": ("Claude.ai projects export", 3, "every Sunday at 03:00"),
    "claude-code-session.jsonl": ("Claude Code session", 1, "Fly.io every Friday"),
    "codex-rollout.jsonl": ("Codex session", 1, "new post every Monday"),
    "openwebui-chat-export.json": ("Open WebUI export", 1, "50 kilometres a week"),
    "sillytavern-chat.jsonl": ("SillyTavern chat", 1, "sourdough bread"),
}


def _turns(name: str) -> list[list[tuple[str, str | None, str]]]:
    """(anchor, speaker, text) of every input an export fixture becomes."""
    got = unpack((FIXTURES / name).read_bytes(), **LIMITS)
    assert got is not None
    return [[(s.anchor, s.speaker, s.text) for s in read_source(p.data, p.name).segments] for p in got.parts]


def _resources(root: Path) -> list[Path]:
    return [p for p in (root / "resources").rglob("*") if p.is_file() and not p.name.startswith(".")]


def _all_text(root: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in root.rglob("*")
                     if p.is_file() and ".memfs" not in p.parts and ".git" not in p.parts)


# -- readers ---------------------------------------------------------------------------

def test_chatgpt_follows_the_active_branch_only() -> None:
    lisbon, guitar = _turns("chatgpt-conversations.json")
    u = "aaaaaaaa-0000-4000-8000-0000000000"
    assert [a for a, _, _ in lisbon] == [u + "02", u + "03", u + "06", u + "10", u + "11"]
    assert [s for _, s, _ in lisbon] == ["user", "assistant", "user", "assistant", "user"]
    # The image part is dropped, the text part of the same message kept.
    assert lisbon[2][2] == "My sister Beth visits me every summer and we go surfing in Ericeira."
    assert not any(word in text for _, _, text in lisbon + guitar for word in FORBIDDEN)
    got = unpack((FIXTURES / "chatgpt-conversations.json").read_bytes(), **LIMITS)
    assert got is not None and got.label == "ChatGPT export"
    doc = json.loads(got.parts[0].data)
    assert doc["title"] == "Moving to Lisbon" and doc["sessions"][0]["time"] == "2024-11-29T10:00:00"
    assert doc["source"]["updated"] == "2024-11-29T10:15:00"
    assert "1 images" in got.notes[0] and "1 tool calls" in got.notes[0] and "1 system messages" in got.notes[0]


def test_claude_ai_conversations_attachments_and_projects() -> None:
    chat, attachment = _turns("claude-conversations.json")
    assert [s for _, s, _ in chat] == ["user", "assistant", "user"]
    assert chat[1][2] == "Noted. A peanut-free kitchen it is."  # thinking and tool parts left out
    assert chat[0][0] == "c0ffee00-0000-4000-8000-0000000000a1"
    assert "12000 euros" in attachment[0][2]
    got = unpack((FIXTURES / "claude-conversations.json").read_bytes(), **LIMITS)
    assert got is not None and any("1 conversation without text" in n for n in got.notes)
    instructions, backup, compose = _turns("claude-projects.json")
    assert "Debian 12" in instructions[0][2] and backup[0][0] == "backups"
    assert "jellyfin/jellyfin" in compose[0][2]


def test_claude_code_keeps_what_was_said_not_tools() -> None:
    (turns,) = _turns("claude-code-session.jsonl")
    w = "cccccccc-0000-4000-8000-0000000000"
    assert [a for a, _, _ in turns] == [w + "03", w + "05", w + "09", w + "10"]
    assert turns[0][2].endswith("banker's rounding in this shop.")  # <system-reminder> stripped
    assert not any(word in text for _, _, text in turns for word in FORBIDDEN)
    got = unpack((FIXTURES / "claude-code-session.jsonl").read_bytes(), **LIMITS)
    assert got is not None and json.loads(got.parts[0].data)["title"] == "Fix checkout rounding bug"
    assert b"sk_live" not in got.parts[0].data and b".env" not in got.parts[0].data
    lines = (FIXTURES / "claude-code-session.jsonl").read_text().splitlines()
    recap = {**json.loads(lines[-1]), "uuid": "cccccccc-0000-4000-8000-000000000099", "isCompactSummary": True,
             "message": {"role": "user", "content": "This session is being continued: RECAP of all above."}}
    compacted = unpack(("\n".join(lines + [json.dumps(recap)]) + "\n").encode(), **LIMITS)
    assert compacted is not None and b"RECAP" not in compacted.parts[0].data
    assert "1 compaction summaries" in compacted.notes[0]


def test_codex_drops_injected_context_and_tools() -> None:
    (turns,) = _turns("codex-rollout.jsonl")
    assert turns == [("l4", "user", "My blog is built with Hugo and I host it on Netlify."),
                     ("l10", "assistant", "I updated the Hugo config for Netlify."),
                     ("l12", "user", "I write a new post every Monday morning.")]


def test_codex_older_layout() -> None:
    lines = [{"id": "sess-1", "timestamp": "2025-04-20T10:00:00.000Z", "instructions": "INJECTED-INSTRUCTIONS"},
             {"record_type": "state"},
             {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "I keep bees in Ghent."}]},
             {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"},
             {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Lovely."}]}]
    got = unpack(_jsonl(lines), **LIMITS)
    assert got is not None and got.label == "Codex session"
    doc = json.loads(got.parts[0].data)
    assert [(t["id"], t["text"]) for t in doc["sessions"][0]["turns"]] == [("l3", "I keep bees in Ghent."),
                                                                           ("l5", "Lovely.")]
    assert doc["sessions"][0]["time"] == "2025-04-20T10:00:00" and b"INJECTED" not in got.parts[0].data


def test_open_webui_and_sillytavern() -> None:
    (webui,) = _turns("openwebui-chat-export.json")
    m = "dddddddd-0000-4000-8000-0000000000"
    assert [a for a, _, _ in webui] == [m + "01", m + "03", m + "04"]
    (tavern,) = _turns("sillytavern-chat.jsonl")
    assert [(a, s) for a, s, _ in tavern] == [("l2", "assistant"), ("l3", "Ana"), ("l5", "assistant"), ("l6", "Ana")]
    assert tavern[2][2] == "Biscuit is a fine companion."  # the chosen swipe
    got = unpack((FIXTURES / "sillytavern-chat.jsonl").read_bytes(), **LIMITS)
    assert got is not None and json.loads(got.parts[0].data)["sessions"][0]["turns"][0]["time"] == "2024-05-12T16:02:00"


@pytest.mark.parametrize("data", [
    b'[{"role": "user", "content": "I moved to Lisbon."}]',
    b'{"role": "user", "content": "one JSONL line"}\n{"role": "assistant", "content": "two"}\n',
    b"# Notes\n\nPlain Markdown.\n",
    (FIXTURES / "chatgpt-user.json").read_bytes(),
    b"PK\x03\x04 is not a zip here",
])
def test_ordinary_inputs_are_not_exports(data: bytes) -> None:
    if data.startswith(b"PK"):
        with pytest.raises(ReadError, match="ZIP archive: damaged"):
            unpack(data, **LIMITS)
    else:
        assert unpack(data, **LIMITS) is None


def _damage(name: str, edit) -> bytes:  # type: ignore[no-untyped-def]
    text = (FIXTURES / name).read_text()
    if name.endswith(".jsonl"):
        lines = [json.loads(line) for line in text.splitlines()]
        return edit(lines) if callable(edit) else edit
    return json.dumps(edit(json.loads(text))).encode()


def _chatgpt_loop(value):  # type: ignore[no-untyped-def]
    mapping = value[1]["mapping"]
    mapping["client-created-root"]["parent"] = value[1]["current_node"]
    return value


DAMAGED = {
    "chatgpt-truncated": ("chatgpt-conversations.json",
                          (FIXTURES / "chatgpt-conversations.json").read_bytes()[:4000],
                          r"^ChatGPT export: broken JSON at line \d+ column \d+: .*\(is the file cut short\?\)$"),
    "chatgpt-current-node": ("chatgpt-conversations.json",
                             lambda v: [v[0], {**v[1], "current_node": "nope"}],
                             r"^ChatGPT export: conversation 2 \('Guitar practice'\): current_node 'nope' is not in the mapping$"),
    "chatgpt-loop": ("chatgpt-conversations.json", _chatgpt_loop, r"^ChatGPT export: conversation 2 .*form a loop$"),
    "chatgpt-no-mapping": ("chatgpt-conversations.json", lambda v: [v[0], {**v[1], "mapping": []}],
                           r'^ChatGPT export: conversation 2 .*"mapping" must be an object'),
    "claude-sender": ("claude-conversations.json",
                      lambda v: [{**v[0], "chat_messages": [{**v[0]["chat_messages"][0], "sender": "robot"}]}],
                      r'^Claude.ai export: conversation 1 \(\'Kitchen renovation\'\) message 1: "sender" must be'),
    "claude-projects-docs": ("claude-projects.json", lambda v: [{**v[0], "docs": {"a": 1}}],
                             r'^Claude.ai projects export: project 1 .*"docs" must be a list'),
    "openwebui-current": ("openwebui-chat-export.json",
                          lambda v: [{**v[0], "chat": {**v[0]["chat"], "history": {**v[0]["chat"]["history"], "currentId": "x"}}}],
                          r"^Open WebUI export: chat 1 \('Marathon training'\): currentId 'x' is not in history.messages$"),
}


def _jsonl(lines: list[object], broken_line: int | None = None) -> bytes:
    out = [json.dumps(line) for line in lines]
    if broken_line is not None:
        out[broken_line - 1] = out[broken_line - 1][:25]
    return ("\n".join(out) + "\n").encode()


DAMAGED_JSONL = {
    "claude-code-broken-line": ("claude-code-session.jsonl", lambda ls: _jsonl(ls, 5),
                                r"^Claude Code session: line 5: broken JSON at column \d+: "),
    "claude-code-no-message": ("claude-code-session.jsonl", lambda ls: _jsonl(ls[:4] + [{**ls[4], "message": "x"}]),
                               r'^Claude Code session: line 5: a assistant event needs a "message" object$'),
    "codex-payload": ("codex-rollout.jsonl", lambda ls: _jsonl(ls[:3] + [{**ls[3], "payload": [1]}]),
                      r'^Codex session: line 4: "payload" must be an object$'),
    "codex-broken-first-line": ("codex-rollout.jsonl", lambda ls: _jsonl(ls, 1), r"^Codex session: line 1: broken JSON"),
    "sillytavern-no-mes": ("sillytavern-chat.jsonl", lambda ls: _jsonl(ls[:2] + [{"name": "Ana", "is_user": True}]),
                           r'^SillyTavern chat: line 3: a message needs "mes" text$'),
}


@pytest.mark.parametrize("case", sorted(DAMAGED) + sorted(DAMAGED_JSONL))
def test_a_damaged_export_is_refused_naming_format_and_fault(case: str, mem: Memory, ws_path: Path) -> None:
    name, edit, pattern = DAMAGED.get(case) or DAMAGED_JSONL[case]
    data = edit if isinstance(edit, bytes) else _damage(name, edit)
    with pytest.raises(ReadError, match=pattern):
        unpack(data, **LIMITS)
    # Through the inbox: to failed/ with the same one-line reason; nothing else is written.
    dropped = ws_path / "inbox" / name
    dropped.write_bytes(data)
    result = mem.ingest_file(dropped)
    assert result.status == "failed" and result.error and "\n" not in result.error
    note = (ws_path / "inbox" / "failed" / f"{name}.error.txt").read_text()
    assert note.strip() == result.error
    assert (ws_path / "inbox" / "failed" / name).read_bytes() == data  # lost nothing
    assert not _resources(ws_path) and mem.status().items == 0


# -- through the pipeline ---------------------------------------------------------------

def test_every_format_through_the_inbox(mem: Memory, ws_path: Path) -> None:
    for name, (label, parts, fact) in FORMATS.items():
        dropped = ws_path / "inbox" / name
        shutil.copy(FIXTURES / name, dropped)
        result = mem.ingest_file(dropped)
        assert result.status == "processed", (name, result.error)
        assert result.conversations == parts and len(result.resources) == parts, name
        assert not dropped.exists()
        hits = mem.recall(fact, k=3)
        assert any(fact.lower() in h.text.lower() for h in hits), (name, [h.text for h in hits])
        hit = next(h for h in hits if fact.lower() in h.text.lower())
        rel, _, anchor = (hit.source or "").partition("#")
        assert rel in result.resources and anchor, hit.source  # one resource per conversation
        source = read_source((ws_path / rel).read_bytes(), rel)
        assert anchor in {s.anchor for s in source.segments}  # anchored by message id
    text = _all_text(ws_path)
    assert not any(word in text for word in FORBIDDEN)  # neither memorized nor archived
    assert len(_resources(ws_path)) == sum(p for _, p, _ in FORMATS.values())


@pytest.mark.slow
def test_every_format_through_memfs_ingest_cli(ws_path: Path) -> None:
    env = cli_env()
    files = [str(FIXTURES / name) for name in FORMATS]
    out = subprocess.run(MEMFS + ["ingest", "--json", *files], cwd=ws_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout)
    assert [r["status"] for r in results] == ["processed"] * len(FORMATS)
    assert [r["conversations"] for r in results] == [p for _, p, _ in FORMATS.values()]
    assert all((FIXTURES / name).exists() for name in FORMATS)  # files outside the inbox stay
    again = subprocess.run(MEMFS + ["ingest", str(FIXTURES / "chatgpt-conversations.json")], cwd=ws_path,
                           env=env, capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and "already memorized" in again.stdout
    bad = ws_path / "broken-export.json"
    bad.write_bytes((FIXTURES / "chatgpt-conversations.json").read_bytes()[:3000])
    refused = subprocess.run(MEMFS + ["ingest", str(bad)], cwd=ws_path, env=env, capture_output=True,
                             text=True, timeout=60)
    assert refused.returncode == 1 and "ChatGPT export: broken JSON" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1


def _zip(members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


CHATGPT_ZIP = {
    "conversations.json": (FIXTURES / "chatgpt-conversations.json").read_bytes(),
    "user.json": (FIXTURES / "chatgpt-user.json").read_bytes(),
    "message_feedback.json": b"[]",
    "chat.html": b"<html><body>ABANDONED-HTML-COPY</body></html>",
    "file-abc-image.png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 64,
}


@pytest.mark.slow
def test_a_chatgpt_zip_as_downloaded_through_the_real_daemon(tmp_path: Path) -> None:
    env = cli_env()
    subprocess.run(MEMFS + ["init", str(tmp_path / "w"), "--no-git"], check=True, env=env, capture_output=True)
    ws = tmp_path / "w"
    (ws / "inbox" / "chatgpt-export.zip").write_bytes(_zip(CHATGPT_ZIP))
    proc = subprocess.Popen(MEMFS + ["daemon"], cwd=ws, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        end = time.time() + 60
        while time.time() < end and (ws / "inbox" / "chatgpt-export.zip").exists():
            time.sleep(0.1)
        assert not (ws / "inbox" / "chatgpt-export.zip").exists()
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    resources = sorted(p.name for p in (ws / "resources").rglob("*.json"))
    assert len(resources) == 2 and any("chatgpt-moving-to-lisbon" in r for r in resources), resources
    assert not (ws / "inbox" / "failed").exists() or not list((ws / "inbox" / "failed").iterdir())
    assert "green tea" in _all_text(ws / "memory") and "ABANDONED" not in _all_text(ws)


def test_zip_members_are_read_safely(mem: Memory, ws_path: Path, tmp_path: Path) -> None:
    inbox = ws_path / "inbox"
    # A member named like a path is read, never written: nothing appears outside (or inside).
    sneaky = _zip({"../../../../tmp/evil.json": (FIXTURES / "codex-rollout.jsonl").read_bytes(),
                   "/abs/../x.jsonl": (FIXTURES / "sillytavern-chat.jsonl").read_bytes()})
    (inbox / "sneaky.zip").write_bytes(sneaky)
    before = set(tmp_path.rglob("*"))
    result = mem.ingest_file(inbox / "sneaky.zip")
    assert result.status == "processed" and result.conversations == 2
    created = {p for p in set(tmp_path.rglob("*")) - before if p.is_file()}
    assert all(ws_path in p.parents for p in created)
    assert not any("evil" in p.name or p.name == "x.jsonl" for p in created)
    # A zip bomb: 30 MB of zeros in a few KB is refused before it is inflated.
    (inbox / "bomb.zip").write_bytes(_zip({"conversations.json": b"[" + b" " * 30_000_000 + b"]"}))
    bomb = mem.ingest_file(inbox / "bomb.zip")
    assert bomb.status == "failed" and "zip bomb" in (bomb.error or "")
    # Over the export limit: refused by declared size.
    mem.config.ingest.max_export_bytes = 5_000
    (inbox / "big.zip").write_bytes(_zip({"conversations.json": (FIXTURES / "chatgpt-conversations.json").read_bytes()}))
    big = mem.ingest_file(inbox / "big.zip")
    assert big.status == "failed" and "over the 0.0 MB limit (ingest.max_export_bytes)" in (big.error or "")
    mem.config.ingest.max_export_bytes = 500_000_000
    # No export inside; a damaged archive; a damaged export inside.
    (inbox / "photos.zip").write_bytes(_zip({"a.png": b"\x89PNG", "notes.json": b'{"a": 1}'}))
    assert "ZIP archive: no chat export inside (looked at notes.json)" in (mem.ingest_file(inbox / "photos.zip").error or "")
    (inbox / "report.docx").write_bytes(_zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<w/>"}))
    assert mem.ingest_file(inbox / "report.docx").error == "binary file (looks like ZIP archive or Office document)"
    (inbox / "cut.zip").write_bytes(_zip(CHATGPT_ZIP)[:500])
    assert (mem.ingest_file(inbox / "cut.zip").error or "").startswith("ZIP archive: damaged")
    (inbox / "inner.zip").write_bytes(_zip({"conversations.json": CHATGPT_ZIP["conversations.json"][:3000]}))
    inner = mem.ingest_file(inbox / "inner.zip").error or ""
    assert inner.startswith("ChatGPT export: broken JSON") and "(in conversations.json inside the ZIP archive)" in inner
    assert sorted(p.name for p in (inbox / "failed").iterdir() if not p.name.endswith(".txt")) == \
        ["big.zip", "bomb.zip", "cut.zip", "inner.zip", "photos.zip", "report.docx"]


def test_a_claude_ai_zip_and_the_same_zip_again(mem: Memory, ws_path: Path) -> None:
    data = _zip({"conversations.json": (FIXTURES / "claude-conversations.json").read_bytes(),
                 "projects.json": (FIXTURES / "claude-projects.json").read_bytes(),
                 "users.json": b'[{"uuid": "acc-1", "full_name": "Ana", "email_address": "ana@example.com"}]'})
    got = unpack(data, **LIMITS)
    assert got is not None and got.label == "Chat export archive" and len(got.parts) == 5
    (ws_path / "inbox" / "data-2024.zip").write_bytes(data)
    first = mem.ingest_file(ws_path / "inbox" / "data-2024.zip")
    assert first.status == "processed" and first.conversations == 5 and len(first.resources) == 5
    items = _items(mem)
    (ws_path / "inbox" / "data-2024 (1).zip").write_bytes(data)
    again = mem.ingest_file(ws_path / "inbox" / "data-2024 (1).zip")
    assert again.status == "duplicate" and _items(mem) == items and len(_resources(ws_path)) == 5
    assert "ana@example.com" not in _all_text(ws_path)  # users.json is not an export: never read in


def test_the_size_limit_applies_per_conversation(mem: Memory, ws_path: Path) -> None:
    data = (FIXTURES / "chatgpt-conversations.json").read_bytes()
    mem.config.ingest.max_file_bytes = 2_000  # the export is 11 KB; each conversation is smaller
    path = ws_path / "inbox" / "conversations.json"
    path.write_bytes(data)
    assert mem.ingest_file(path).status == "processed"
    mem.config.ingest.max_file_bytes = 500
    path.write_bytes(data.replace(b"Guitar practice", b"Guitar lessons"))
    result = mem.ingest_file(path)
    assert result.status == "failed"
    assert result.error == ("ChatGPT export: conversation 'Moving to Lisbon' is 0.0 MB, over the 0.0 MB limit "
                            "per input (ingest.max_file_bytes)")
    # An ordinary input over the limit is refused as before, unread.
    chat = ws_path / "inbox" / "chat.json"
    chat.write_text(json.dumps([{"role": "user", "content": "I moved to Lisbon. " * 40}]))
    assert mem.ingest_file(chat).error == "file is 0.0 MB, over the 0.0 MB limit (ingest.max_file_bytes)"


# -- replays reinforce nothing -----------------------------------------------------------

def _chatgpt_grown() -> bytes:
    """The same export a week later: the Lisbon chat grew by one exchange."""
    value = json.loads((FIXTURES / "chatgpt-conversations.json").read_text())
    conv = value[0]
    u = "aaaaaaaa-0000-4000-8000-0000000000"
    last = conv["current_node"]
    conv["mapping"][last]["children"] = [u + "13"]
    conv["mapping"][u + "13"] = {"id": u + "13", "parent": last, "children": [], "message": {
        "id": u + "13", "author": {"role": "user"}, "create_time": 1733479200.0,
        "content": {"content_type": "text", "parts": ["I adopted a cat named Miso yesterday."]},
        "metadata": {}, "recipient": "all"}}
    conv["current_node"] = u + "13"
    conv["update_time"] = 1733479200.0
    return json.dumps(value).encode()


def _items(mem: Memory) -> dict[str, tuple[str, int]]:
    return {r.id: (r.text, r.seen) for r in mem.indexer.db.all_items()}


def test_a_re_export_that_grew_adds_only_what_is_new(mem: Memory, ws_path: Path) -> None:
    path = ws_path / "inbox" / "conversations.json"
    shutil.copy(FIXTURES / "chatgpt-conversations.json", path)
    first = mem.ingest_file(path)
    before = _items(mem)
    assert first.status == "processed" and all(seen == 1 for _, seen in before.values())
    # The same export again (any name): nothing at all.
    shutil.copy(FIXTURES / "chatgpt-conversations.json", ws_path / "inbox" / "again.json")
    assert mem.ingest_file(ws_path / "inbox" / "again.json").status == "duplicate"
    # A newer export: the unchanged conversation is a duplicate, the grown one adds one fact.
    path.write_bytes(_chatgpt_grown())
    grown = mem.ingest_file(path)
    assert grown.status == "processed" and grown.reinforced == [] and len(grown.added) == 1
    assert grown.replayed == 5 and len(grown.resources) == 2
    after = _items(mem)
    assert {k: v for k, v in after.items() if k in before} == before  # seen unchanged
    assert "Miso" in after[grown.added[0]][0]
    # An independent mention (another chat, another time) still counts.
    other = [{"role": "user", "content": "I prefer green tea over coffee in the morning.",
              "timestamp": "2025-01-05T08:00:00"}]
    (ws_path / "inbox" / "other.json").write_text(json.dumps(other))
    again = mem.ingest_file(ws_path / "inbox" / "other.json")
    assert len(again.reinforced) == 1 and _items(mem)[again.reinforced[0]][1] == 2


def test_a_transcript_that_grew_and_a_log_resent(mem: Memory, ws_path: Path) -> None:
    session = (FIXTURES / "claude-code-session.jsonl").read_text()
    path = ws_path / "inbox" / "session.jsonl"
    path.write_text(session)
    mem.ingest_file(path)
    before = _items(mem)
    extra = json.loads(session.splitlines()[-1])
    extra.update(uuid="cccccccc-0000-4000-8000-000000000011", timestamp="2025-03-14T09:10:00.000Z",
                 message={"role": "user", "content": "My cat Miso sleeps on the keyboard."})
    path.write_text(session + json.dumps(extra) + "\n")
    grown = mem.ingest_file(path)
    assert grown.reinforced == [] and len(grown.added) == 1 and grown.replayed == 4
    assert {k: v for k, v in _items(mem).items() if k in before} == before
    # A plain JSONL log without times, sent again with one more line.
    log = [{"role": "user", "content": "I play the cello in an amateur orchestra."},
           {"role": "user", "content": "We rehearse every Tuesday evening."}]
    (ws_path / "inbox" / "log.jsonl").write_text("".join(json.dumps(m) + "\n" for m in log))
    mem.ingest_file(ws_path / "inbox" / "log.jsonl")
    before = _items(mem)
    log.append({"role": "user", "content": "Our next concert is in the town hall."})
    (ws_path / "inbox" / "log.jsonl").write_text("".join(json.dumps(m) + "\n" for m in log))
    resent = mem.ingest_file(ws_path / "inbox" / "log.jsonl")
    assert resent.reinforced == [] and resent.replayed == 2 and resent.added
    assert {k: v for k, v in _items(mem).items() if k in before} == before


@pytest.mark.slow
def test_the_ledger_is_rebuilt_from_resources(ws_path: Path) -> None:
    with hashing_memory(ws_path) as mem:
        path = ws_path / "inbox" / "conversations.json"
        shutil.copy(FIXTURES / "chatgpt-conversations.json", path)
        mem.ingest_file(path)
        before = _items(mem)
    shutil.rmtree(ws_path / ".memfs")
    env = cli_env()
    subprocess.run(MEMFS + ["sync", "--rebuild"], cwd=ws_path, env=env, check=True, capture_output=True, timeout=60)
    (ws_path / "inbox" / "conversations.json").write_bytes(_chatgpt_grown())
    out = subprocess.run(MEMFS + ["ingest", "--json", str(ws_path / "inbox" / "conversations.json")], cwd=ws_path,
                         env=env, capture_output=True, text=True, timeout=60)
    (result,) = json.loads(out.stdout)
    assert result["reinforced"] == [] and len(result["added"]) == 1 and result["replayed"] == 5
    with hashing_memory(ws_path) as mem:
        assert {k: v for k, v in _items(mem).items() if k in before} == before


def test_exactly_once_after_a_crash_between_conversations(ws_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second conversation's items are on disk, its archive is not (nor its messages in
    the ledger): a crash. The restart replays the export and ends where a clean run ends."""
    from memfs.pipeline import persist as memorize  # the archive is written by the persist step

    path = ws_path / "inbox" / "conversations.json"
    path.write_bytes(_chatgpt_grown())
    real = memorize.atomic_write
    calls = {"n": 0}

    def crash_on_second_archive(target, data, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt("simulated crash")
        return real(target, data, *args, **kwargs)

    monkeypatch.setattr(memorize, "atomic_write", crash_on_second_archive)
    with hashing_memory(ws_path) as mem, pytest.raises(KeyboardInterrupt):
        mem.ingest_file(path)
    monkeypatch.setattr(memorize, "atomic_write", real)
    assert path.exists() and len(_resources(ws_path)) == 1
    with hashing_memory(ws_path) as mem:
        result = mem.ingest_file(path)
        # (Its items were written before the crash; the index learns of them at the next sync,
        # so the result may list them as added, but no line is written twice.)
        assert result.status == "processed" and not result.reinforced and not path.exists()
        crashed = _items(mem)
    # The same input in a clean workspace: the same items, each seen once.
    from memfs.workspace import init_workspace

    clean = init_workspace(ws_path.parent / "clean", git=False).root
    (clean / "inbox" / "c.json").write_bytes(_chatgpt_grown())
    with hashing_memory(clean) as mem:
        mem.ingest_file(clean / "inbox" / "c.json")
        assert sorted(crashed.values()) == sorted(_items(mem).values())
    assert crashed and all(seen == 1 for _, seen in crashed.values())
    assert len(_resources(ws_path)) == 2


# -- fuzzing: a damaged export gives parts or a one-line ReadError, never a crash --------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=False),
                        st.text(max_size=20))
JSON_VALUES = st.recursive(JSON_LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)), max_leaves=6)


def _paths(value: object, prefix: tuple = ()) -> list[tuple]:  # type: ignore[type-arg]
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            out += _paths(child, prefix + (key,))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            out += _paths(child, prefix + (i,))
    return out


def _replace(value: object, path: tuple, new: object) -> object:  # type: ignore[type-arg]
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)  # type: ignore[call-overload]
    copy[path[0]] = _replace(copy[path[0]], path[1:], new)
    return copy


def _parsed(name: str) -> object:
    text = (FIXTURES / name).read_text()
    return [json.loads(line) for line in text.splitlines()] if name.endswith(".jsonl") else json.loads(text)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(FORMATS)), pick=st.integers(0, 10**6), new=JSON_VALUES)
def test_a_randomly_damaged_export_never_crashes_the_reader(name: str, pick: int, new: object) -> None:
    value = _parsed(name)
    paths = _paths(value)
    damaged = _replace(value, paths[pick % len(paths)], new)
    if name.endswith(".jsonl") and isinstance(damaged, list):
        data = "".join(json.dumps(line) + "\n" for line in damaged).encode()
    else:
        data = json.dumps(damaged).encode()
    try:
        got = unpack(data, **LIMITS)
    except ReadError as err:
        assert "\n" not in err.message and "internal reader error" not in err.message, err.message
        return
    for part in got.parts if got else []:
        read_source(part.data, part.name)  # every part it makes is readable


def test_a_json_file_that_is_no_export_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Detection (unpack) hands its parsed value to read_source: one parse, same result."""
    import memfs.readers.jsonload as jsonload

    data = json.dumps({"messages": [{"role": "user", "content": "I moved to Leeds in May."},
                                    {"role": "assistant", "content": "Noted."}]}).encode()
    expected = read_source(data, "chat.json")
    calls: list[int] = []
    real = jsonload.load_json
    monkeypatch.setattr(jsonload, "load_json", lambda text, where="": calls.append(len(text)) or real(text, where))
    monkeypatch.setattr("memfs.readers.unpack.load_json", jsonload.load_json)
    assert unpack(data, max_bytes=10**7, max_export_bytes=10**8) is None
    assert read_source(data, "chat.json") == expected
    assert calls == [len(data)]
    assert read_source(data, "chat.json") == expected  # the hand-over is used once, then parsed again
    assert calls == [len(data)] * 2
