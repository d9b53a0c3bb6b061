"""The persist step of the memorize pipeline (split out of memorize.py): the decisions
become category-file edits (CategoryStore's read-verify-write, one edit per file), then
the input is archived in resources/ — only once its items are on disk, so a crash before
that replays the input and finds its own items already there (exactly once)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import TYPE_CHECKING, Any

from memfs.core.model import Item, normalize_text
from memfs.errors import MemfsError
from memfs.fsutil import atomic_write, same_version
from memfs.pipeline.dedupe import Decision
from memfs.pipeline.engine import State
from memfs.pipeline.supersession import Retirement, until_of
from memfs.store import CategoryStore, ProtectedError

if TYPE_CHECKING:
    from memfs.pipeline.runtime import PipelineRuntime
    from memfs.pipeline.memorize import IngestResult

VIA_KEY = "via"


class Unsettled(MemfsError):
    """The input changed while it was read or processed: nothing was written, it stays
    where it is, to be taken again once it has settled."""


class PersistSteps:
    """Mixed into Memorizer: writing the decisions and archiving the input."""

    rt: "PipelineRuntime"

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
        result: "IngestResult" = state["result"]
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

    def _summarizer(self) -> Callable[[str, list[Item]], str] | None:
        """LLM mode: category summaries by the model (most reinforced items first)."""
        rt = self.rt.llm
        if rt is None:
            return None

        def summarize(title: str, items: list[Item]) -> str:
            ranked = [it.text for _, it in sorted(enumerate(items), key=lambda t: (-t[1].seen, t[0]))]
            return normalize_text(rt.summarize_category(title, ranked[:200], 240))

        return summarize
