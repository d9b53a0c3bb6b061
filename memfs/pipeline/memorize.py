"""The memorize pipeline: one input file → dated, attributed, filed, indexed memory items.

    ingest → segment → extract → dedupe → categorize → persist → remember → index → summarize

(A chat export is first cut into one input per conversation, each run through all of
this: pipeline/exports.py. `segment` drops messages already memorized and `remember`
records them once archived: pipeline/replay.py.)

(`summarize` runs after `index` because the root files are views of the index; category
summaries are refreshed by `persist` in the same atomic write as the items.)

Exactly-once without a transaction across files: every item id derives from the input's
content hash, the turn and the fact, and a reinforcement records the input that made it
(`via=`). Replaying an input after a crash therefore finds its own items and
reinforcements already there and adds nothing; the input is archived to resources/ and
removed from the inbox only after its items are on disk.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field, PrivateAttr

from memfs.categorize import Categorizer
from memfs.core.segment import Fact, ParsedSource
from memfs.core.hashing import content_digest  # noqa: F401 - importable from here, as before
from memfs.extract.docdate import date_document
from memfs.index import repository
from memfs.fsutil import read_regular, read_regular_stat, same_version
from memfs.index.search import Searcher
from memfs.llm.report import LLMReport
from memfs.pipeline.dedupe import MERGE_MIN_SIMILARITY, MERGE_NEIGHBOURS, Decision, DedupeSteps  # noqa: F401
from memfs.pipeline.dedupe import _from_resource  # noqa: F401  (re-exported)
from memfs.pipeline.engine import Pipeline, State, Step, Stop, timing_hook
from memfs.pipeline.persist import VIA_KEY, PersistSteps, Unsettled  # noqa: F401  (re-exported)
from memfs.pipeline.replay import MessageLedger
from memfs.workspace import slugify

if TYPE_CHECKING:
    from memfs.pipeline.runtime import PipelineRuntime

#: Segments before a batch given to the extractor as context (their facts belong to the batch before).
BATCH_CONTEXT = 3
_EXT_OK = {"json", "jsonl", "md", "markdown", "txt", "text"}


class IngestResult(BaseModel):
    """What one input became; `memfs ingest --json` and the daemon's log print this."""

    name: str
    status: str = Field(description="processed | partial (a large input, batches left) | duplicate | waiting (still being written: left where it is) | failed")
    resource: str | None = None
    added: list[str] = Field(default_factory=list)
    reinforced: list[str] = Field(default_factory=list)
    updated: list[str] = Field(default_factory=list)
    skipped_replay: int = 0
    replayed: int = Field(0, description="Messages left out as already memorized (a re-export, a grown log).")
    conversations: int = Field(0, description="For a chat export: how many conversations it held.")
    resources: list[str] = Field(default_factory=list, description="For a chat export: one per conversation.")
    notes: list[str] = Field(default_factory=list, description="What an export reader left out, and why.")
    batch: str | None = Field(None, description="segments memorized so far / in all, for a large input")
    restored: int = Field(0, description="items of an already processed input that had left the Markdown "
                          "(a git discard, a forget) and were filed again because it was dropped again")
    skipped_earlier: int = Field(0, description="facts of segments an earlier version of this (grown) input "
                                 "already had; memorized then")
    files: list[str] = Field(default_factory=list)
    redacted: dict[str, int] = Field(default_factory=dict, description="secrets replaced, by kind")
    root_files: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    llm: LLMReport | None = Field(None, description="LLM mode: this input's calls, tokens and fallbacks")
    #: Per category file written: the bytes memfs read before writing it (gitops uses it
    #: to commit a person's uncommitted edit apart from memfs' own change).
    _prewrite: dict[str, bytes | None] = PrivateAttr(default_factory=dict)


@dataclass
class MemorizeContext:
    """Per-process state shared by runs: the searcher for near-duplicate lookups."""

    searcher: Searcher | None = None
    categorizer: Categorizer | None = None
    categorizer_key: tuple = ()
    stage_seconds: dict[str, float] = field(default_factory=dict)
    parsed: tuple[str, ParsedSource] | None = None  # (digest, source) of the large input in progress
    #: Offline: write facts that can be filed without their vector first (pipeline/vecfill.py).
    vectors_later: bool = False
    views_owed: bool = False  # lines merged after the write; root files not refreshed yet
    #: A caller with more inputs behind this one refreshes the root files once for all of
    #: them (services.ingest.ViewDebt): this input leaves them owed.
    defer_views: bool = False




def resource_rel(name: str, digest: str, when: datetime | None) -> str:
    """`resources/YYYY/MM/DD-<slug>-<hash16>.<ext>`: allow-listed, dated, content-addressed."""
    day = (when.date() if when else date.today())
    stem, _, ext = name.rpartition(".")
    if not stem:
        stem, ext = name, ""
    ext = ext.lower() if ext.lower() in _EXT_OK else "txt"
    return f"resources/{day:%Y/%m/%d}-{slugify(stem, 40)}-{digest[:16]}.{ext}"


class Memorizer(DedupeSteps, PersistSteps):
    """Builds and runs the memorize pipeline against one workspace's runtime (the writer).

    The dedupe/categorize steps live in pipeline/dedupe.py, persist in pipeline/persist.py."""

    def __init__(self, rt: "PipelineRuntime", extractor: Callable[[ParsedSource], list[Fact]] | None = None) -> None:
        self.rt = rt
        self.ctx = MemorizeContext()
        if extractor is None:
            from memfs.extract import extract_offline

            extractor = extract_offline
        self.extractor = extractor
        self.ledger = MessageLedger(rt)
        self.pipeline = self.build()
        self.pipeline.hooks.after.append(timing_hook(self.ctx.stage_seconds))

    def build(self) -> Pipeline:
        return Pipeline("memorize", [
            Step("ingest", self.step_ingest, ("path", "name"), ("data", "digest")),
            Step("segment", self.step_segment, ("data", "name"), ("source", "resource", "fingerprints")),
            Step("batch", self.step_batch, ("source", "digest"), ("batch",)),
            Step("extract", self.step_extract, ("source",), ("facts",)),
            Step("dedupe", self.step_dedupe, ("facts", "digest", "resource"), ("decisions",)),
            Step("categorize", self.step_categorize, ("decisions",), ("placed",)),
            Step("persist", self.step_persist, ("placed", "data", "resource", "digest"), ("touched",)),
            Step("remember", self.step_remember, ("touched", "resource", "fingerprints"), ()),
            Step("index", self.step_index, ("touched",), ("indexed",)),
            Step("summarize", self.step_summarize, ("indexed",), ("root_files",)),
        ], initial=("path", "name"))

    # -- steps -------------------------------------------------------------------
    def step_ingest(self, state: State) -> None:
        path: Path = state["path"]
        limit = self.rt.config.ingest.max_file_bytes
        preset = state.get("data")  # one conversation of an export (see pipeline/exports.py)
        size = len(preset) if preset is not None else path.lstat().st_size
        if size > limit:
            from memfs.readers import ReadError

            raise ReadError(f"file is {size / 1e6:.1f} MB, over the {limit / 1e6:.1f} MB limit (ingest.max_file_bytes)")
        if preset is not None:
            data = preset  # one conversation of an export (pipeline/exports.py)
        else:
            data, seen = read_regular_stat(path)  # never blocks on a FIFO swapped in meanwhile
            if not same_version(path, seen):
                raise Unsettled(f"{path.name} changed while memfs read it")
            state["read_stat"] = seen
        state["data"] = data
        state["digest"] = digest = content_digest(data)
        # A forgotten input stays forgotten (checked first: another process's forget may not
        # have reached this one's journal cache); secrets are replaced before anything is
        # written (the digest stays the raw bytes', so the same file is still recognised).
        from memfs.forgotten import guard
        from memfs.redact import redact_bytes

        guard(self.rt.ws, digest, bool(state.get("allow_relearn")))
        if self.rt.journal.is_done(digest):
            state["result"].resource = resource = self.rt.journal.resource_of(digest)
            if not self._worth_restoring(resource):
                state["result"].status = "duplicate"
                raise Stop()
            # Processed before; re-dropping it restores what of it left the Markdown (a git
            # discard, a `forget`): its own items still there replay as no-ops, its missing
            # items come back, and nothing is reinforced a second time.
            state["restoring"] = True
        state["data"], redaction = redact_bytes(data)
        state["result"].redacted = dict(redaction.kinds)

    def warm_up(self, specs: list) -> None:  # type: ignore[type-arg]
        """Compute the category descriptions' vectors and load the vectors dedupe searches
        now, not on the first input (the hnsw graph: ~3.5 s at 100,000 items)."""
        self.ctx.categorizer, self.ctx.categorizer_key = (
            Categorizer(self.rt.embedder, specs, self.rt.indexer.embed_cached), tuple(specs))
        self.ctx.categorizer.prepare()
        self.searcher().preload()

    def settle_checks(self) -> int:
        """Every near-duplicate check left for after earlier writes, made now (the dedupe
        step asks when this input's decisions depend on them); lines merged."""
        from memfs.pipeline.vecfill import settle

        merged = settle(self.rt, self.searcher())
        self.ctx.views_owed = self.ctx.views_owed or bool(merged)
        return merged

    def _worth_restoring(self, resource: str | None) -> bool:
        """Replay a processed input? Offline, always (extraction is local, vectors cached);
        with an LLM, only when none of its items is left (each replay costs tokens)."""
        if resource is None:
            return False
        if self.rt.llm is None:
            return True
        return not repository.has_item_from(self.rt.indexer.db, resource)

    def step_segment(self, state: State) -> None:
        from memfs.readers import read_source

        cached = self.ctx.parsed
        if cached is not None and cached[0] == state["digest"]:
            source = cached[1]  # the next batch of the same large input: parsed once
        else:
            source = read_source(state["data"], state["name"], max_bytes=self.rt.config.ingest.max_file_bytes)
            source = date_document(source, state["name"])  # a dated header line or file name
        # A restore keeps the resource the input was first archived as (its items cite it).
        state["resource"] = ((state["result"].resource if state.get("restoring") else None)
                             or resource_rel(state["name"], state["digest"], source.time))
        state["earlier"] = self._earlier_segments(state["name"], state["data"], source)
        # Replays reinforce nothing: only messages not memorized before go on (pipeline/replay.py;
        # an input's own messages never count, so a crash replay or a restore re-runs them all).
        state["source"], state["fingerprints"], state["result"].replayed = self.ledger.split(source, state["resource"])

    def step_batch(self, state: State) -> None:
        """Narrow a large input to its next batch of segments (after its checkpoint).

        Each batch is extracted, filed and indexed on its own, so a 100k-turn chat never
        holds the writer lock for minutes: between batches the daemon stops on SIGTERM
        and takes the other inputs. The archive is written after the last batch only."""
        source = state["source"]
        total = len(source.segments)
        size = self.rt.config.ingest.batch_segments
        if total <= size or state.get("restoring"):
            state["batch"] = (0, total, total)
            self.ctx.parsed = None
            return
        self.ctx.parsed = (state["digest"], source)
        start = 0 if state.get("restoring") else min(self.rt.journal.progress(state["digest"]), total)
        end = min(start + size, total)
        lead = max(0, start - BATCH_CONTEXT)  # a few turns before, for who-said-what context only
        state["overlap"] = {seg.anchor for seg in source.segments[lead:start]}
        state["source"] = source.model_copy(update={"segments": source.segments[lead:end]})
        state["batch"] = (start, end, total)
        if end < total:
            state["result"].status = "partial"
        state["result"].batch = f"{end}/{total}"

    def _earlier_segments(self, name: str, data: bytes, source: ParsedSource) -> set[str]:
        """Anchors of segments this input already had in an earlier, shorter version.

        A log that grows after memfs took it (appended to after the read, or between two
        settle windows) comes back with the old bytes as its prefix. Its earlier version
        is archived in resources/ under the same name: segments identical to that
        version's (same anchor, same text) were memorized then, so only the new tail is
        extracted now (exactly once; found without the journal, so it survives a deleted
        .memfs/)."""
        from memfs.readers import ReadError, read_source

        best = b""
        for rel in self.rt.journal.resources_named(resource_rel(name, "0" * 16, None)):
            try:
                old = read_regular(self.rt.ws.root / rel)
            except OSError:
                continue
            if len(best) < len(old) < len(data) and old.endswith(b"\n") and data.startswith(old):
                best = old
        if not best:
            return set()
        try:
            before = {(seg.anchor, seg.text) for seg in read_source(best, name).segments}
        except ReadError:
            return set()
        return {seg.anchor for seg in source.segments if (seg.anchor, seg.text) in before}

    def step_extract(self, state: State) -> None:
        facts = self.extractor(state["source"]) if state["source"].segments else []
        overlap: set[str] = state.get("overlap") or set()
        if overlap:  # the previous batch's turns, there for context: memorized with that batch
            facts = [f for f in facts if f.anchor not in overlap]
        earlier: set[str] = state.get("earlier") or set()
        if earlier:
            state["result"].skipped_earlier = sum(1 for f in facts if f.anchor in earlier)
            facts = [f for f in facts if f.anchor not in earlier]
        state["facts"] = facts

    def step_remember(self, state: State) -> None:
        """After the archive exists: its messages count as memorized from now on."""
        self.ledger.record(state["resource"], state["fingerprints"])

    def step_index(self, state: State) -> None:
        touched: list[str] = state["touched"]
        if touched:
            self.rt.indexer.sync(only=touched)
            self.rt.note_written(touched)  # (a batch whose views wait: the split check's files)
        if state["result"].status == "partial":  # checkpoint: this batch is filed and indexed
            self.rt.journal.set_progress(state["digest"], state["batch"][1])
        state["indexed"] = True

    def step_summarize(self, state: State) -> None:
        if state.get("defer_views") or state["result"].status == "partial":
            state["root_files"] = []  # an export's conversation or a batch: views once, at the end
            return
        if self.ctx.defer_views:  # more inputs behind this one: views once for all of them
            self.rt.split_oversized_files(written_only=True)  # (where the next facts go depends on it)
            state["root_files"] = []
            return
        state["root_files"] = self.rt.regenerate_views()
        state["result"].root_files = list(state["root_files"] or [])

    # -- running -------------------------------------------------------------------
    def run(self, path: Path, name: str | None = None, allow_relearn: bool = False,
            max_batches: int | None = None) -> IngestResult:
        """Process one file (a large one in batches: all of them, or at most `max_batches`,
        then status "partial"). Raises ReadError for unreadable input (the caller files it)."""
        t0 = datetime.now()
        total: IngestResult | None = None
        passes = 0
        while True:
            result = self._run_once(path, name, allow_relearn)
            passes += 1
            if total is None:
                total = result
            else:
                for key in ("added", "reinforced", "updated", "files"):
                    getattr(total, key).extend(x for x in getattr(result, key) if key != "files"
                                               or x not in total.files)
                total.skipped_replay += result.skipped_replay
                total.replayed += result.replayed
                total.status, total.resource, total.batch = result.status, result.resource, result.batch
            if result.status != "partial" or (max_batches is not None and passes >= max_batches):
                total.seconds = (datetime.now() - t0).total_seconds()
                return total

    def _run_once(self, path: Path, name: str | None, allow_relearn: bool = False) -> IngestResult:
        from memfs.pipeline.exports import run_input

        result = IngestResult(name=name or path.name, status="processed")
        t0 = datetime.now()
        rt = self.rt.llm
        before = rt.usage.snapshot() if rt is not None else None
        if rt is not None:
            rt.begin_input()
        try:
            run_input(self, path, result, allow_relearn=allow_relearn)  # a chat export: once per conversation
        finally:
            if rt is not None and before is not None:
                result.llm = LLMReport.from_usage(rt.usage.delta_since(before))
        result.seconds = (datetime.now() - t0).total_seconds()
        return result
