"""`MisbehavingModel`: a responder for `FakeOpenAI` that answers by the schema a request asks
for (extraction, merge, summary, recall), like a model would, with switches for what
llama-cpp-python serving SmolLM2-135M did to memfs:

- ``reject_json_schema``: HTTP 500 with llama-cpp-python's pydantic message on
  ``response_format: json_schema`` ("Input should be 'text' or 'json_object'");
- ``cite``: "all" (one grounded fact per turn), "none" (schema-valid facts with
  ``"turns": []``: answers citing nothing), "first" (only the first turn: first-topic
  dominance), "invented" (a fact citing turn 1 about something no turn says);
- ``placeholder_summaries``: "The summary text." for every summary;
- ``one_based_merge``: facts and neighbours numbered from 1 where 0 was shown;
- ``merge``: "reinforce" (REINFORCE every fact into its first neighbour, related or not),
  "update-subject" (UPDATE neighbour 0 with text about someone else), "add";
- ``runaway``: a 200 whose body never ends (a space every 50 ms), as a generation that
  does not stop; ``finish_length``: answers cut at max_tokens (invalid JSON,
  finish_reason "length").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tests.support.fake_openai import Reply, fail, ok, runaway

#: What llama-cpp-python's server says (HTTP 500) to response_format type json_schema.
LLAMA_CPP_REJECTION = ("1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  Input should be "
                       "'text' or 'json_object' [type=literal_error, input_value='json_schema', input_type=str]")

# -- a model that misbehaves on purpose ----------------------------------------------------

_TURN_RE = re.compile(r"^\[(\d+)\] (?:\([^)]*\) )?([^:\n]+): (.+)$", re.MULTILINE)
_NEW_RE = re.compile(r"^NEW fact (\d+): (.+)$", re.MULTILINE)
_EXISTING_RE = re.compile(r"^    (\d+): (.+)$", re.MULTILINE)


def schema_of(body: dict[str, Any]) -> str:
    """Which answer a request wants: the json_schema name, else the schema title in the prompt."""
    rf = body.get("response_format") or {}
    if rf.get("type") == "json_schema":
        return str(rf.get("json_schema", {}).get("name", ""))
    prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
    for name in ("ExtractionAnswer", "MergeAnswer", "SummaryAnswer", "RewriteAnswer", "RerankAnswer",
                 "SufficientAnswer"):
        if f'"title":"{name}"' in prompt:
            return name
    return ""


@dataclass
class MisbehavingModel:
    reject_json_schema: bool = False
    cite: str = "all"  # all | none | first | invented
    placeholder_summaries: bool = False
    one_based_merge: bool = False
    merge: str = "add"  # add | reinforce | update-subject
    runaway: bool = False
    finish_length: bool = False
    calls: dict[str, int] = field(default_factory=dict)

    def __call__(self, body: dict[str, Any]) -> Reply:
        rf = (body.get("response_format") or {}).get("type")
        if self.reject_json_schema and rf == "json_schema":
            return fail(500, LLAMA_CPP_REJECTION)
        kind = schema_of(body)
        self.calls[kind] = self.calls.get(kind, 0) + 1
        if self.runaway:
            return runaway()
        if self.finish_length:
            r = ok('{"facts": [{"text": "Alice went to the lake and then she went to the')
            r.finish_reason = "length"
            return r
        user = next((m["content"] for m in reversed(body.get("messages", [])) if m.get("role") == "user"), "")
        if kind == "ExtractionAnswer":
            return ok({"facts": self._facts(user)})
        if kind == "MergeAnswer":
            return ok({"decisions": self._merge(user)})
        if kind == "SummaryAnswer":
            if self.placeholder_summaries:
                return ok({"summary": "The summary text."})
            items = [line[2:] for line in user.splitlines() if line.startswith("- ")]
            return ok({"summary": " ".join(items[:2])[:200] or "nothing"})
        if kind == "RewriteAnswer":
            return ok({"queries": []})
        if kind == "RerankAnswer":
            return ok({"order": []})
        if kind == "SufficientAnswer":
            return ok({"sufficient": True})
        return ok({})

    def _facts(self, user: str) -> list[dict[str, Any]]:
        turns = [(int(n), who.strip(), text.strip()) for n, who, text in _TURN_RE.findall(user)]
        people = [(n, who, text) for n, who, text in turns if who.lower() not in ("assistant", "ai", "bot")]
        if self.cite == "none":
            return [{"text": f"{who} said: {text}", "type": "profile", "turns": []} for _, who, text in people]
        if self.cite == "first":
            people = people[:1]
        out = [{"text": f"{who} said: {text}", "type": "profile", "turns": [n]} for n, who, text in people]
        if self.cite == "invented" and people:
            out = out[:1] + [{"text": "Zorblax commands the lunar fleet from Atlantis.", "type": "profile",
                              "turns": [people[0][0]]}]
        return out

    def _merge(self, user: str) -> list[dict[str, Any]]:
        shift = 1 if self.one_based_merge else 0
        out = []
        for block in user.split("\n\n"):
            m = _NEW_RE.search(block)
            if not m:
                continue
            k = int(m.group(1))
            existing = _EXISTING_RE.findall(block)
            if self.merge == "reinforce" and existing:
                out.append({"fact": k + shift, "action": "REINFORCE", "target": len(existing) - 1 + shift})
            elif self.merge == "update-subject" and existing:
                out.append({"fact": k + shift, "action": "UPDATE", "target": 0 + shift,
                            "text": "Zorblax now lives on the Moon."})
            else:
                out.append({"fact": k + shift, "action": "ADD"})
        return out
