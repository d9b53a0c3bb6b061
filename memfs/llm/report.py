"""What LLM mode did for one input, in numbers and in one line a person reads.

Built from the `Usage` recorded while the input ran (`Usage.delta_since`), so it costs nothing
extra and counts exactly what `memfs status` accumulates. The line goes to `memfs
ingest`'s output, the daemon log and the commit message: a fallback is never silent.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from memfs.llm.usage import Usage

#: Merge events that mean "the model's decision was not applied as given".
MERGE_REJECTIONS = ("invalid-target", "reinforce-not-near", "update-subject-changed", "update-text-ungrounded",
                    "unanswered")


def _reasons(per: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(per.items(), key=lambda kv: (-kv[1], kv[0])))


class LLMReport(BaseModel):
    """Calls, tokens and fallbacks of one input; `line()` is the human form."""

    calls: int = 0
    tokens: int = 0
    batches: int = Field(0, description="Extraction batches (after splitting).")
    batch_fallbacks: dict[str, int] = Field(default_factory=dict, description="reason -> batches extracted "
                                            "offline (whole or, for 'coverage', the turns the model skipped)")
    merge_fallbacks: dict[str, int] = Field(default_factory=dict)
    merge_rejected: dict[str, int] = Field(default_factory=dict, description="event -> decisions turned into ADD")
    summary_fallbacks: dict[str, int] = Field(default_factory=dict)
    recall_fallbacks: dict[str, int] = Field(default_factory=dict)
    events: dict[str, dict[str, int]] = Field(default_factory=dict)

    @classmethod
    def from_usage(cls, u: Usage) -> "LLMReport":
        merge_events = u.events.get("merge", {})
        return cls(calls=u.total_calls, tokens=u.total_tokens,
                   batches=u.events.get("extract", {}).get("batches", 0),
                   batch_fallbacks=dict(u.fallbacks.get("extract", {})),
                   merge_fallbacks=dict(u.fallbacks.get("merge", {})),
                   merge_rejected={k: v for k, v in merge_events.items() if k in MERGE_REJECTIONS},
                   summary_fallbacks=dict(u.fallbacks.get("summarize", {})),
                   recall_fallbacks=dict(u.fallbacks.get("recall", {})),
                   events={k: dict(v) for k, v in u.events.items()})

    @property
    def fell_back(self) -> int:
        return sum(self.batch_fallbacks.values())

    def line(self) -> str:
        """`llm: fell back offline for N of M batches (reason n); C calls, T tokens; ...`"""
        parts = []
        if self.batches or self.batch_fallbacks:
            text = f"fell back offline for {self.fell_back} of {max(self.batches, self.fell_back)} batches"
            if self.batch_fallbacks:
                text += f" ({_reasons(self.batch_fallbacks)})"
            parts.append(text)
        parts.append(f"{self.calls} calls, {self.tokens} tokens")
        if self.merge_fallbacks:
            parts.append(f"merge fell back ({_reasons(self.merge_fallbacks)})")
        if self.merge_rejected:
            parts.append(f"merge decisions rejected: {_reasons(self.merge_rejected)}")
        if self.summary_fallbacks:
            parts.append(f"summaries kept extractive ({_reasons(self.summary_fallbacks)})")
        mode = [k.split(":", 1)[1] for step in self.events.values() for k in step if k.startswith("mode:")]
        if mode:
            parts.append(f"structured output stepped down to {mode[-1]}")
        if any("circuit-open" in step for step in self.events.values()):
            parts.append("circuit breaker opened: the rest went offline")
        return "llm: " + "; ".join(parts)
