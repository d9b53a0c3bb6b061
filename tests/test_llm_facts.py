"""LLM mode writes the same item lines as offline, citing the same turns (issue #19).

A fact-quality scorer (and an agent) reads item lines from the Markdown: text, the `src`
anchor of the turn, `when`. Through the fake OpenAI server (there is no real model on this
machine) a LoCoMo-shaped session is ingested in LLM mode and offline; both must give lines
of one format whose anchors are the dia_ids the model cited, with the model's first person
rewritten to the speaker.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

from memfs.llm.config import LLMConfig
from memfs.llm.runtime import LLMRuntime
from memfs.pipeline.memorize import Memorizer
from tests.support.fake_openai import SECRET, FakeOpenAI, ok
from tests.support.workspace import hashing_memory

ITEM = re.compile(r"^\s{0,3}[-*+] (.*?)\s*<!--(.*?)-->\s*$")
SESSION = {"format": "memfs.conversation/1", "title": "Caroline and Melanie, session 1",
           "participants": ["Caroline", "Melanie"],
           "sessions": [{"id": "S1", "time": "2023-05-08T13:56:00", "turns": [
               {"id": "D1:1", "speaker": "Caroline", "text": "Hey Mel! Good to see you!"},
               {"id": "D1:2", "speaker": "Caroline",
                "text": "I went to a LGBTQ support group yesterday and it was so powerful."},
               {"id": "D1:3", "speaker": "Melanie",
                "text": "Last weekend I took my kids camping. It was great to unplug from work and hike in the hills."}]}]}


def _items(root: Path) -> list[tuple[str, str, dict[str, str]]]:
    out = []
    for path in sorted((root / "memory").rglob("*.md")):
        for line in path.read_text(encoding="utf-8").splitlines():
            m = ITEM.match(line)
            if m:
                meta = dict(p.partition("=")[::2] for p in m.group(2).split() if "=" in p)
                src = unquote(meta.get("src", ""))
                out.append((m.group(1), src.split("#", 1)[1] if "#" in src else "", meta))
    return out


def _ingest(root: Path, tmp: Path, fake: FakeOpenAI | None) -> list[tuple[str, str, dict[str, str]]]:
    mem = hashing_memory(root)
    try:
        if fake is not None:
            rt = LLMRuntime.from_config(LLMConfig(provider="openai", base_url=fake.url),
                                        environ={"OPENAI_API_KEY": SECRET}, state_dir=mem.ws.state,
                                        backoff_base=0.01)
            assert rt is not None
            mem.runtime.memorizer = Memorizer(mem.runtime, extractor=rt.extractor(
                categories=[s.name for s in mem.category_specs()]))
        src = tmp / "session-01.json"
        src.write_text(json.dumps(SESSION), encoding="utf-8")
        assert mem.ingest_file(src).status == "processed"
    finally:
        mem.close()
    return _items(root)


def test_llm_lines_cite_the_turns_and_match_the_offline_format(fake: FakeOpenAI, tmp_path: Path) -> None:
    from memfs.workspace import init_workspace

    fake.responder = lambda body: ok({"facts": [
        {"text": "Caroline attended an LGBTQ support group on 2023-05-07 and found it powerful.",
         "type": "event", "turns": [2], "when": "2023-05-07"},
        {"text": "I took my kids camping on the weekend of 2023-04-29.", "type": "event", "turns": [3]},
        {"text": "Melanie enjoys unplugging with her kids.", "type": "profile", "turns": [3]}]})
    llm = _ingest(init_workspace(tmp_path / "llm", git=False).root, tmp_path, fake)
    offline = _ingest(init_workspace(tmp_path / "off", git=False).root, tmp_path, None)

    by_text = {text: (anchor, meta) for text, anchor, meta in llm}
    assert by_text["Caroline attended an LGBTQ support group on 2023-05-07 and found it powerful."][0] == "D1:2"
    assert by_text["Caroline attended an LGBTQ support group on 2023-05-07 and found it powerful."][1]["when"] \
        == "2023-05-07"
    assert by_text["Melanie enjoys unplugging with her kids."][0] == "D1:3"
    # the model's first person is the speaker of the turn it cites
    assert any(t.startswith("Melanie took") and a == "D1:3" for t, a, _ in llm), llm
    assert not any(re.search(r"\b(?:I|my)\b", t) for t, _, _ in llm)
    # one line format: every line parses, cites a turn of the session, and has the same keys
    assert offline and all(a in {"D1:2", "D1:3"} for _, a, _ in llm + offline)
    keys = {k for _, _, m in offline for k in m}
    assert all({"id", "type", "when", "src"} <= set(m) <= keys | {"via"} for _, _, m in llm), (llm, keys)
    # offline writes the same kind of line for the same turns
    assert any(a == "D1:3" and t.startswith("Melanie found it great to unplug") for t, a, _ in offline), offline
