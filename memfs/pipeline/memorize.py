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
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, Field, PrivateAttr

from memfs.core.hashing import content_digest  # noqa: F401 - importable from here, as before
from memfs.categorize import Categorizer
from memfs.core.itemline import text_id
from memfs.core.model import Item, normalize_text
from memfs.core.segment import Fact, ParsedSource
from memfs.errors import MemfsError
from memfs.extract.docdate import date_document
from memfs.extract.supersede import conflicts
from memfs.fsutil import atomic_write, read_regular, read_regular_stat, same_version
from memfs.index import repository
from memfs.index.db import text_hash
from memfs.index.search import Searcher
from memfs.llm.report import LLMReport
from memfs.pipeline.engine import Pipeline, State, Step, Stop, timing_hook
from memfs.pipeline.replay import MessageLedger
from memfs.pipeline.supersession import Retirement, until_of
from memfs.pipeline.supersession import plan as plan_supersessions
from memfs.store import CategoryStore, ProtectedError
from memfs.workspace import slugify

if TYPE_CHECKING:
    from memfs.pipeline.runtime import PipelineRuntime

VIA_KEY = "via"
MERGE_NEIGHBOURS = 5
#: Segments before a batch given to the extractor as context (their facts belong to the batch before).
BATCH_CONTEXT = 3
MERGE_MIN_SIMILARITY = 0.6
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


class Unsettled(MemfsError):
    """The input changed while it was read or processed: nothing was written, it stays
    where it is, to be taken again once it has settled."""


@dataclass
class Decision:
    fact: Fact
    vector: np.ndarray
    action: str  # add | reinforce | update | replay
    item_id: str
    target_id: str | None = None  # for reinforce: the existing (or earlier new) item
    rel: str | None = None
    when: str | None = None
    extra_seen: int = 0
    new_text: str | None = None  # for update: the superseding text


@dataclass
class MemorizeContext:
    """Per-process state shared by runs: the searcher for near-duplicate lookups."""

    searcher: Searcher | None = None
    categorizer: Categorizer | None = None
    categorizer_key: tuple = ()
    stage_seconds: dict[str, float] = field(default_factory=dict)
    parsed: tuple[str, ParsedSource] | None = None  # (digest, source) of the large input in progress


def _from_resource(src: str | None, resource: str) -> bool:
    """True if an item's `src` points into `resource` (this input added it)."""
    return bool(src) and src.startswith(resource + "#")  # type: ignore[union-attr]


def resource_rel(name: str, digest: str, when: datetime | None) -> str:
    """`resources/YYYY/MM/DD-<slug>-<hash16>.<ext>`: allow-listed, dated, content-addressed."""
    day = (when.date() if when else date.today())
    stem, _, ext = name.rpartition(".")
    if not stem:
        stem, ext = name, ""
    ext = ext.lower() if ext.lower() in _EXT_OK else "txt"
    return f"resources/{day:%Y/%m/%d}-{slugify(stem, 40)}-{digest[:16]}.{ext}"


class Memorizer:
    """Builds and runs the memorize pipeline against one workspace's runtime (the writer)."""

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

    def warm_up(self, specs: list) -> None:  # type: ignore[type-arg]
        """Compute the category descriptions' vectors now, not on the first input."""
        self.ctx.categorizer, self.ctx.categorizer_key = (
            Categorizer(self.rt.embedder, specs, self.rt.indexer.embed_cached), tuple(specs))
        self.ctx.categorizer.prepare()

    def _searcher(self) -> Searcher:
        if self.ctx.searcher is None:
            m = self.rt
            self.ctx.searcher = Searcher(m.indexer.db, m.embedder, m.ws.state, m.config.recall)
        return self.ctx.searcher

    def step_dedupe(self, state: State) -> None:
        facts: list[Fact] = state["facts"]
        digest: str = state["digest"]
        indexer = self.rt.indexer
        db = indexer.db
        threshold = self.rt.config.ingest.dedupe_threshold
        texts = {text_hash(normalize_text(f.text)): normalize_text(f.text) for f in facts}
        vectors, fresh = indexer.embed_texts(texts) if texts else ({}, [])
        if fresh:
            with db.transaction():
                db.store_vectors(fresh)
        salt_base = f"{digest[:16]}#"
        ids = [text_id(f.text, salt_base + f.anchor) for f in facts]
        existing = db.items_by_ids(ids)
        vecs = np.stack([vectors[text_hash(normalize_text(f.text))] for f in facts]) if facts else None
        neighbours = self._searcher().nearest(vecs, 1) if vecs is not None else []
        decisions: list[Decision] = []
        accepted: list[int] = []  # indexes into decisions of new items in this batch
        by_hash: dict[str, int] = {}
        for i, fact in enumerate(facts):
            text = normalize_text(fact.text)
            if not text:
                continue
            vec = vecs[i]  # type: ignore[index]
            item_id = ids[i]
            row = existing.get(item_id)
            if row is not None and row.src and row.src.startswith(state["resource"] + "#"):
                decisions.append(Decision(fact, vec, "replay", item_id))
                continue
            if row is not None:  # an unrelated item owns this id: salt until free
                item_id = self.rt.fresh_id(fact.text, salt_base + fact.anchor)
            h = text_hash(text)
            if h in by_hash:  # the same fact twice in this input
                decisions[by_hash[h]].extra_seen += 1
                continue
            same = repository.id_and_src(db, h)
            if same is not None:
                # An item this very input added (a replay after a crash): its twin already
                # counted there as extra_seen; reinforcing it again would count it twice.
                own = _from_resource(same[1], state["resource"])
                decisions.append(Decision(fact, vec, "replay" if own else "reinforce", item_id, target_id=same[0]))
                continue
            near = neighbours[i][0] if neighbours and neighbours[i] else None
            if near is not None and near[1] >= threshold:
                target = db.items_by_labels([near[0]]).get(near[0])
                if target is not None and not conflicts(text, target.text):
                    own = _from_resource(target.src, state["resource"])
                    decisions.append(Decision(fact, vec, "replay" if own else "reinforce", item_id,
                                              target_id=target.id))
                    continue
            twin = next((j for j in accepted if float(decisions[j].vector @ vec) >= threshold
                         and not conflicts(text, normalize_text(decisions[j].fact.text))), None)
            if twin is not None:
                decisions[twin].extra_seen += 1
                continue
            by_hash[h] = len(decisions)
            accepted.append(len(decisions))
            decisions.append(Decision(fact, vec, "add", item_id))
        self._llm_merge(decisions)
        # Offline supersession: a newer value for the same subject and attribute retires
        # the old line (kept, with until= and superseded_by=). LLM UPDATEs do the same.
        state["retirements"] = plan_supersessions(decisions, db)
        state["decisions"] = decisions

    def _llm_merge(self, decisions: list[Decision]) -> None:
        """LLM mode: for each new fact, the model sees its nearest existing items and says
        ADD, REINFORCE, UPDATE (supersede) or NONE. Offline, or on any failure, the
        threshold decisions above stand."""
        rt = self.rt.llm
        adds = [d for d in decisions if d.action == "add"]
        if rt is None or not adds:
            return
        db = self.rt.indexer.db
        hits = self._searcher().nearest(np.stack([d.vector for d in adds]), MERGE_NEIGHBOURS)
        labels = {lab for row in hits for lab, score in row if score >= MERGE_MIN_SIMILARITY}
        rows = db.items_by_labels(labels)
        neighbours = [[(rows[lab].id, rows[lab].text, float(score)) for lab, score in row
                       if score >= MERGE_MIN_SIMILARITY and lab in rows] for row in hits]
        if not any(neighbours):
            return
        verdicts = rt.decide_merges([normalize_text(d.fact.text) for d in adds], neighbours)
        for d, v in zip(adds, verdicts):
            if v.fallback:
                continue
            if v.action == "reinforce" and v.target_id:
                d.action, d.target_id = "reinforce", v.target_id
            elif v.action == "update" and v.target_id and v.text:
                d.action, d.target_id, d.new_text = "update", v.target_id, v.text
            elif v.action == "none":
                d.action = "none"

    def step_categorize(self, state: State) -> None:
        decisions: list[Decision] = state["decisions"]
        specs = self.rt.category_specs()
        key = tuple(specs)
        if self.ctx.categorizer is None or self.ctx.categorizer_key != key:
            # The descriptions' vectors are computed once per set of categories, not per input.
            self.ctx.categorizer, self.ctx.categorizer_key = Categorizer(
                self.rt.embedder, specs, self.rt.indexer.embed_cached), key
        categorizer = self.ctx.categorizer
        db = self.rt.indexer.db
        targets = db.items_by_ids([d.target_id for d in decisions if d.target_id])
        for d in decisions:
            if d.action == "add":
                d.rel = categorizer.choose(d.vector, d.fact.type, d.fact.category_hint).rel
            elif d.action in ("reinforce", "update"):
                row = targets.get(d.target_id or "")
                d.rel = row.path if row else None
        state["placed"] = [d for d in decisions if d.rel]

    def step_persist(self, state: State) -> None:
        if "read_stat" in state and not same_version(state["path"], state["read_stat"]):
            # Appended to (or rewritten) while memfs extracted it: nothing is written yet,
            # so leave it in the inbox and take the whole, settled file later.
            raise Unsettled(f"{state['name']} changed while memfs processed it")
        placed: list[Decision] = state["placed"]
        if state.get("restoring"):  # only missing items come back; reinforcements counted once already
            placed = [d for d in placed if d.action == "add"]
        retirements: list[Retirement] = list(state.get("retirements") or [])
        for d in placed:
            if d.action == "update" and d.target_id:  # LLM UPDATE: a new current line, the old one history
                retirements.append(Retirement(d.target_id, d.item_id, until_of(d.fact), d.rel))
        in_batch = {r.old_id: r for r in retirements if r.old_rel is None}
        on_disk: dict[str, list[Retirement]] = {}
        for r in retirements:
            if r.old_rel is not None:
                on_disk.setdefault(r.old_rel, []).append(r)
        resource: str = state["resource"]
        via = state["digest"][:12]
        result: IngestResult = state["result"]
        store = CategoryStore(self.rt.ws, self.rt.config, summarizer=self._summarizer())
        by_rel: dict[str, list[Decision]] = {}
        for d in placed:
            by_rel.setdefault(d.rel or "", []).append(d)
        for rel in on_disk:
            by_rel.setdefault(rel, [])
        touched: list[str] = []
        skipped: set[int] = set()
        vanished: set[int] = set()  # reinforcements whose target was gone at write time
        for rel in sorted(by_rel):
            group = by_rel[rel]

            def apply(doc: Any, group: list[Decision] = group, marks: list[Retirement] = on_disk.get(rel, [])) -> None:
                for d in group:
                    if d.action in ("add", "update"):
                        if doc.find(d.item_id) is None:
                            extra = {}
                            gone = in_batch.get(d.item_id)
                            if gone is not None:
                                extra = {"until": gone.until, "superseded_by": gone.new_id}
                            text = d.new_text if d.action == "update" and d.new_text else d.fact.text
                            doc.add(Item(id=d.item_id, text=text, type=d.fact.type, when=d.fact.when,
                                         src=f"{resource}#{d.fact.anchor}", seen=1 + d.extra_seen, extra=extra))
                    else:
                        slot = doc.find(d.target_id)
                        if slot is None:
                            # The target vanished (a person removed it since the dedupe):
                            # the fact is kept as an item of its own, not counted as reinforced.
                            vanished.add(id(d))
                            if doc.find(d.item_id) is None:
                                doc.add(Item(id=d.item_id, text=d.fact.text, type=d.fact.type, when=d.fact.when,
                                             src=f"{resource}#{d.fact.anchor}", seen=1 + d.extra_seen))
                            continue
                        vanished.discard(id(d))
                        if slot.item.extra.get(VIA_KEY) == via:
                            continue  # this input already reinforced it
                        extra = {**slot.item.extra, VIA_KEY: via}
                        said = d.fact.stated or (d.fact.when if d.fact.when and len(d.fact.when) == 10 else None)
                        stamp = said if said and said <= date.today().isoformat() else slot.item.updated
                        slot.item = slot.item.model_copy(update={
                            "seen": slot.item.seen + 1 + d.extra_seen, "extra": extra,
                            "updated": max(filter(None, [slot.item.updated, stamp]), default=None)})
                for r in marks:  # retire an older line: it stays, as history
                    slot = doc.find(r.old_id)
                    if slot is None or slot.item.extra.get("superseded_by"):
                        continue  # gone meanwhile, or already superseded
                    slot.item = slot.item.model_copy(update={
                        "extra": {**slot.item.extra, "until": r.until, "superseded_by": r.new_id}})

            try:
                store.edit(rel, apply)
            except ProtectedError as err:  # a person write-protected it: skip it, say so
                result.warnings.append(str(err))
                skipped.update(id(d) for d in group)
                continue
            touched.append(rel)
        result._prewrite = dict(store.written)
        for d in placed:
            if id(d) in skipped:
                continue
            if d.action == "add" or id(d) in vanished:
                result.added.append(d.item_id)
            elif d.action == "update":
                result.added.append(d.item_id)
                result.updated.append(d.target_id or "")
            else:
                result.reinforced.append(d.target_id or "")
        result.skipped_replay = sum(1 for d in state["decisions"] if d.action == "replay")
        # Only now that the items are on disk: archive the input (content-addressed),
        # once its last batch is on disk.
        target = self.rt.ws.safe_target(resource)
        if result.status != "partial" and not target.exists():
            atomic_write(target, state["data"])
        result.resource = resource
        result.files = touched
        state["touched"] = touched

    def step_remember(self, state: State) -> None:
        """After the archive exists: its messages count as memorized from now on."""
        self.ledger.record(state["resource"], state["fingerprints"])

    def _summarizer(self) -> Callable[[str, list[Item]], str] | None:
        """LLM mode: category summaries by the model (most reinforced items first)."""
        rt = self.rt.llm
        if rt is None:
            return None

        def summarize(title: str, items: list[Item]) -> str:
            ranked = [it.text for _, it in sorted(enumerate(items), key=lambda t: (-t[1].seen, t[0]))]
            return normalize_text(rt.summarize_category(title, ranked[:200], 240))

        return summarize

    def step_index(self, state: State) -> None:
        touched: list[str] = state["touched"]
        if touched:
            self.rt.indexer.sync(only=touched)
        if state["result"].status == "partial":  # checkpoint: this batch is filed and indexed
            self.rt.journal.set_progress(state["digest"], state["batch"][1])
        state["indexed"] = True

    def step_summarize(self, state: State) -> None:
        if state.get("defer_views") or state["result"].status == "partial":
            state["root_files"] = []  # an export's conversation or a batch: views once, at the end
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
