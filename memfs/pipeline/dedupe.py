"""The dedupe and categorize steps of the memorize pipeline (split out of memorize.py).

dedupe: each fact against this input's own earlier facts and the store (an exact text
match by hash, then the nearest vector above `ingest.dedupe_threshold` that does not
contradict it) -> add, reinforce or replay; in LLM mode the model may overrule. Offline,
the vector check of a fact that can be filed without its vector is made right after the
write instead (pipeline/vecfill.py), so embedding is off the critical path. A replay
is a fact this very input already filed (a crash replay): it adds nothing.
categorize: the file a new fact goes to; a reinforcement stays in its target's file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from memfs.categorize import Categorizer
from memfs.core.itemline import text_id
from memfs.core.model import normalize_text
from memfs.core.segment import Fact
from memfs.extract.supersede import conflicts
from memfs.core.hashing import text_hash
from memfs.index import repository
from memfs.index.vecfill_store import has_marks, mark_paths, marked_ids
from memfs.index.search import Searcher
from memfs.pipeline.engine import State
from memfs.pipeline.supersession import plan as plan_supersessions

if TYPE_CHECKING:
    from memfs.pipeline.runtime import PipelineRuntime
    from memfs.pipeline.memorize import MemorizeContext

MERGE_NEIGHBOURS = 5
MERGE_MIN_SIMILARITY = 0.6


@dataclass
class Decision:
    fact: Fact
    vector: np.ndarray | None  # None: embedded after the write (pipeline/vecfill.py)
    action: str  # add | reinforce | update | replay
    item_id: str
    target_id: str | None = None  # for reinforce: the existing (or earlier new) item
    rel: str | None = None
    when: str | None = None
    extra_seen: int = 0
    new_text: str | None = None  # for update: the superseding text


def _from_resource(src: str | None, resource: str) -> bool:
    """True if an item's `src` points into `resource` (this input added it)."""
    return bool(src) and src.startswith(resource + "#")  # type: ignore[union-attr]


# A fact another says in full before going on past a clause break ("Priya is vegetarian and
# allergic to peanuts." against "Priya is vegetarian and allergic to peanuts, so the office
# lunches are tricky."): said again, so a reinforcement of the longer line, though the extra
# clause keeps their vectors below `dedupe_threshold`. Not the other way round: the longer
# one adds what the shorter did not say. Precision first: a continuation that may take the
# fact back ("…, but she quit in 2023", "…, which she gave away", "… - not anymore") is no
# repeat, nor is a number cut short ("at 9" against "at 9:30", "1" against "1,200").
_CLAUSE_BREAK = re.compile(r"(?:[,;:](?=\s)|\s[-\u2013\u2014](?=\s)|(?=\s(?:so|and|because|since)\b))",
                           re.IGNORECASE)
_CONTRARY = re.compile(r"\b(?:not|no|nor|never|no longer|anymore|any more|but|though|although|however|except|"
                       r"until|till|instead|used to|quit|quits|stopped|stops|gave|sold|left|lost|died|ended|"
                       r"former|formerly|outgrew|which|who|whom|whose|if|unless|or)\b|n't\b", re.IGNORECASE)
_WORDS = re.compile(r"\w+")
#: The fewest words a fact needs to be taken as said again inside a longer one.
MIN_OPENING_WORDS = 4


def opens(text: str, longer: str) -> bool:
    """True if `longer` says all of `text` (up to its final stop) and goes on past a clause
    break with nothing that could take it back."""
    head = text.rstrip(" .!?\u2026")
    if len(_WORDS.findall(head)) < MIN_OPENING_WORDS or len(longer) <= len(head) \
            or not longer.lower().startswith(head.lower()):
        return False
    rest = longer[len(head):]
    return _CLAUSE_BREAK.match(rest) is not None and _CONTRARY.search(rest) is None


class DedupeSteps:
    """Mixed into Memorizer: the steps between extraction and the write."""

    rt: "PipelineRuntime"
    ctx: "MemorizeContext"
    #: Make every owed near-duplicate check now; lines merged (Memorizer: pipeline/vecfill.py
    #: imports this module, so the call lives there).
    settle_checks: Callable[[], int]

    def searcher(self) -> Searcher:
        """The per-context searcher (dedupe here; the deferred near-duplicate checks too)."""
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
        salt_base = f"{digest[:16]}#"
        ids = [text_id(f.text, salt_base + f.anchor) for f in facts]
        existing = db.items_by_ids(ids)
        norm = [normalize_text(f.text) for f in facts]
        hashes = [text_hash(t) for t in norm]
        same_of = {h: repository.id_and_src(db, h) for h in dict.fromkeys(hashes)}
        later = self.rt.llm is None and self.ctx.vectors_later and not state.get("restoring")
        if self._owes_checks(later, same_of) and self.settle_checks():
            existing = db.items_by_ids(ids)  # lines merged away meanwhile
            same_of = {h: repository.id_and_src(db, h) for h in dict.fromkeys(hashes)}
        # Offline, a fact whose filing does not need its meaning (a category hint, a kind
        # with one file) and that is no exact duplicate is written before its vector: found
        # by keyword at once, embedded and checked for near-duplicates right after the write
        # (pipeline/vecfill.py). The rest are embedded now, in one batch, and decided here.
        # Not when restoring a processed input: a line the check after the write merged away
        # has left the Markdown too, and restored and merged again it would count twice
        # (its twin's `via=` may name a later input by now). Embedded first, it is a
        # reinforcement, which a restore leaves out.
        categorizer = self._categorizer() if later else None
        now = [i for i, f in enumerate(facts) if norm[i] and same_of[hashes[i]] is None
               and not (later and not categorizer.needs_vector(f.type, f.category_hint))]  # type: ignore[union-attr]
        texts = {hashes[i]: norm[i] for i in now}
        vectors, fresh = indexer.embed_texts(texts) if texts else ({}, [])
        if fresh:
            with db.transaction():
                db.store_vectors(fresh)
        vecs = np.stack([vectors[hashes[i]] for i in now]) if now else None
        near_of = dict(zip(now, self.searcher().nearest(vecs, 1))) if vecs is not None else {}
        decisions: list[Decision] = []
        accepted: list[int] = []  # indexes into decisions of new items in this batch (with vectors)
        by_hash: dict[str, int] = {}
        adds: list[tuple[str, Decision]] = []  # this input's new facts, by their normalized text
        deferred: list[Decision] = []
        for i, fact in enumerate(facts):
            text = norm[i]
            if not text:
                continue
            vec = vectors.get(hashes[i]) if i in near_of else None
            item_id = ids[i]
            row = existing.get(item_id)
            if row is not None and row.src and row.src.startswith(state["resource"] + "#"):
                decisions.append(Decision(fact, vec, "replay", item_id))
                continue
            if row is not None:  # an unrelated item owns this id: salt until free
                item_id = self.rt.fresh_id(fact.text, salt_base + fact.anchor)
            h = hashes[i]
            if h in by_hash:  # the same fact twice in this input
                decisions[by_hash[h]].extra_seen += 1
                continue
            same = same_of[h]
            if same is not None:
                # An item this very input added (a replay after a crash): its twin already
                # counted there as extra_seen; reinforcing it again would count it twice.
                own = _from_resource(same[1], state["resource"])
                decisions.append(Decision(fact, vec, "replay" if own else "reinforce", item_id, target_id=same[0]))
                continue
            longer = next((d for t, d in adds if opens(text, t)), None)
            if longer is not None:  # said again in full inside a longer fact of this input
                longer.extra_seen += 1
                continue
            words = _WORDS.findall(text)
            found = next((r for r in repository.current_opening_with(db, words[:12]) if opens(text, r[2])),
                         None) if len(words) >= MIN_OPENING_WORDS else None
            if found is not None:  # said again in full inside a longer line of the store
                own = _from_resource(found[1], state["resource"])
                decisions.append(Decision(fact, vec, "replay" if own else "reinforce", item_id, target_id=found[0]))
                continue
            if vec is None:  # written first; its near-duplicate check follows the write
                by_hash[h] = len(decisions)
                decisions.append(Decision(fact, None, "add", item_id))
                adds.append((text, decisions[-1]))
                deferred.append(decisions[-1])
                continue
            hits = near_of.get(i) or []
            near = hits[0] if hits else None
            if near is not None and near[1] >= threshold:
                target = db.items_by_labels([near[0]]).get(near[0])
                if target is not None and not conflicts(text, target.text):
                    own = _from_resource(target.src, state["resource"])
                    decisions.append(Decision(fact, vec, "replay" if own else "reinforce", item_id,
                                              target_id=target.id))
                    continue
            twin = next((j for j in accepted if float(decisions[j].vector @ vec) >= threshold  # type: ignore[operator]
                         and not conflicts(text, normalize_text(decisions[j].fact.text))), None)
            if twin is not None:
                decisions[twin].extra_seen += 1
                continue
            by_hash[h] = len(decisions)
            accepted.append(len(decisions))
            decisions.append(Decision(fact, vec, "add", item_id))
            adds.append((text, decisions[-1]))
        self._llm_merge(decisions)
        # Offline supersession: a newer value for the same subject and attribute retires
        # the old line (kept, with until= and superseded_by=). LLM UPDATEs do the same.
        state["retirements"] = plan_supersessions(decisions, db)
        if deferred:  # marked before the write, so a crash right after it still gets the check
            from memfs.index.vecfill_store import mark

            written = {d.item_id: text_hash(normalize_text(d.fact.text)) for d in deferred}
            mark(db, written)
            indexer.deferred.update(written.values())
        state["decisions"] = decisions

    def _owes_checks(self, later: bool, same_of: dict[str, tuple[str, str | None] | None]) -> bool:
        """Must the near-duplicate checks owed by earlier writes be made before this input
        is decided? Embedding first (no `vectors_later`): whenever one is owed, since an
        unembedded line is invisible to this input's vector search (a twin would be added
        and the older line later merged into it). Writing first: when one of this input's
        facts repeats a line whose check is owed, since that line may yet be merged into
        its twin (and the twin then hold this sighting twice) or carry sightings its twin
        cannot tell from this input's: embed-first counts each input once per line."""
        db = self.rt.indexer.db
        if not has_marks(db):
            return False
        return not later or bool(marked_ids(db, [same[0] for same in same_of.values() if same]))

    def _categorizer(self) -> Categorizer:
        """The categorizer for the current category list (descriptions embedded once per list)."""
        specs = self.rt.category_specs()
        key = tuple(specs)
        if self.ctx.categorizer is None or self.ctx.categorizer_key != key:
            self.ctx.categorizer, self.ctx.categorizer_key = (
                Categorizer(self.rt.embedder, specs, self.rt.indexer.embed_cached), key)
        return self.ctx.categorizer

    def _llm_merge(self, decisions: list[Decision]) -> None:
        """LLM mode: for each new fact, the model sees its nearest existing items and says
        ADD, REINFORCE, UPDATE (supersede) or NONE. Offline, or on any failure, the
        threshold decisions above stand."""
        rt = self.rt.llm
        adds = [d for d in decisions if d.action == "add"]
        if rt is None or not adds:
            return
        db = self.rt.indexer.db
        hits = self.searcher().nearest(np.stack([d.vector for d in adds]), MERGE_NEIGHBOURS)
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
        categorizer = self._categorizer()  # descriptions embedded once per set of categories
        db = self.rt.indexer.db
        targets = db.items_by_ids([d.target_id for d in decisions if d.target_id])
        for d in decisions:
            if d.action == "add":
                d.rel = categorizer.choose(d.vector, d.fact.type, d.fact.category_hint, d.fact.text,
                                           d.fact.when).rel
            elif d.action in ("reinforce", "update"):
                row = targets.get(d.target_id or "")
                d.rel = row.path if row else None
        # the file each line written first goes to: at its check, a line found elsewhere was moved
        mark_paths(db, {d.item_id: d.rel for d in decisions if d.action == "add" and d.vector is None and d.rel})
        state["placed"] = [d for d in decisions if d.rel]
