"""The writer: add one fact (or reinforce its twin), forget one item, pick its category.

Each verb takes the workspace lock for its write burst, starts from an index that matches
the files, writes through `store.CategoryStore` (read-verify-write) and re-indexes only
the file it changed.
"""

from __future__ import annotations

from memfs.categorize import PART_SEP, Categorizer, CategorySpec
from memfs.core.model import DEFAULT_TYPE_OF_KIND, KIND_OF_TYPE, KINDS, MEMORY_TYPES, Item, normalize_text, parse_when
from memfs.errors import MemfsError, NotFoundError
from memfs.index import repository
from memfs.index.db import text_hash
from memfs.index.vecfill_store import owe_vectors
from memfs.services.runtime import Runtime
from memfs.store import CategoryStore, today_iso
from memfs.workspace import slugify


def add(rt: Runtime, text: str, category: str | None = None, type: str | None = None, when: str | None = None,
        src: str | None = None) -> Item:
    """File one fact. An identical fact already in memory is reinforced instead (seen + 1).
    Secret-shaped strings are redacted first (memfs.redact)."""
    from memfs.redact import record_counts, redact

    redaction = redact(text)
    clean = normalize_text(redaction.text)
    if not clean:
        raise MemfsError("nothing to add: the text is empty")
    if type is not None and type not in MEMORY_TYPES:
        raise MemfsError(f"unknown type {type!r}: expected one of {', '.join(MEMORY_TYPES)}")
    if when is not None:
        try:
            when = parse_when(when)
        except ValueError as err:
            raise MemfsError(f"when: {err}") from None
    with rt.lock("add"):
        record_counts(rt.ws.state, redaction.kinds)
        rt.indexer.sync()  # start from an index that matches the files (cheap when nothing changed)
        db = rt.indexer.db
        same = repository.id_and_path(db, text_hash(clean))
        if same is not None:
            return reinforce(rt, same[0], same[1])
        specs = rt.category_specs()  # (one walk of the workspace for both uses below)
        forced = forced_type(rt, category, specs) if type is None else None  # (a named category ignores the hint)
        guessed, hint = (forced, None) if forced is not None else guess_type(clean)
        item_type = type or guessed
        vector = None
        if category is None:
            vectors, fresh = rt.indexer.embed_texts({text_hash(clean): clean})
            vector = vectors[text_hash(clean)]
            with db.transaction():
                db.store_vectors(fresh)
        spec = resolve_category(rt, category, item_type, vector, hint, specs, clean, when)
        if type is None and KIND_OF_TYPE[item_type] != spec.kind:
            item_type = DEFAULT_TYPE_OF_KIND[spec.kind]
        item_id = rt.fresh_id(clean, src or "add")
        item = Item(id=item_id, text=clean, type=item_type, when=when, src=src, updated=today_iso())  # type: ignore[arg-type]
        h = text_hash(clean)
        later = vector is None and rt.vectors_later and h not in rt.indexer.deferred
        if later:  # a one-shot add: the vector is the next sync's or recall's (no numpy here)
            owe_vectors(db)
            rt.indexer.deferred.add(h)
        try:
            CategoryStore(rt.ws, rt.config).edit(spec.rel, lambda doc: doc.add(item))
            rt.after_write([spec.rel])
        finally:
            if later:
                rt.indexer.deferred.discard(h)
    return item


def resolve_category(rt: Runtime, category: str | None, item_type: str, vector,  # type: ignore[no-untyped-def]
                     hint: str | None = None, specs: list[CategorySpec] | None = None,
                     text: str = "", when: str | None = None) -> CategorySpec:
    """The category a fact goes to: the one named (`name` or `kind/name`), else the nearest
    description of its kind (`categorize.Categorizer`); `specs`: `rt.category_specs()`, if
    the caller has them already."""
    specs = rt.category_specs() if specs is None else specs
    if category is not None:
        if "/" in category:
            kind, _, name = category.partition("/")
            name = name[:-3] if name.endswith(".md") else name
            if kind not in KINDS:
                raise MemfsError(f"unknown kind {kind!r} in {category!r}: use memory/, index/ or skill/")
            if ("/" in name or PART_SEP in name) and f"{kind}/{name}.md" in rt.ws.category_rels():
                return CategorySpec(kind, name, "")  # a nested note or a split part, named exactly
            return CategorySpec(kind, slugify(name), "")
        slug = slugify(category)
        for spec in specs:
            if spec.name == category or spec.name == slug:  # a part ("events--maria") exactly
                return spec
        cfg = rt.config.categories.get(slug)
        return CategorySpec(cfg.kind if cfg else KIND_OF_TYPE.get(item_type, "memory"), slug, "")
    return Categorizer(rt.embedder, specs, rt.indexer.embed_cached).choose(vector, item_type, hint, text, when)


def reinforce(rt: Runtime, item_id: str, rel: str) -> Item:
    """seen + 1 and today's `updated` on one item (call under the writer lock)."""
    found: list[Item] = []

    def bump(doc) -> None:  # type: ignore[no-untyped-def]
        slot = doc.find(item_id)
        if slot is None:
            raise NotFoundError(f"item {item_id} is no longer in {rel}; run `memfs sync`")
        slot.item = slot.item.model_copy(update={"seen": slot.item.seen + 1, "updated": today_iso()})
        found.append(slot.item)

    CategoryStore(rt.ws, rt.config).edit(rel, bump)
    rt.after_write([rel])
    return found[0]


def forget(rt: Runtime, item_id: str) -> Item:
    """Delete one item's line from its file (the old line stays in git history)."""
    with rt.lock("forget"):
        rt.indexer.sync()
        row = rt.indexer.db.items_by_ids([item_id]).get(item_id)
        if row is None:
            raise NotFoundError(f"no item with id {item_id!r}")
        removed: list[Item] = []

        def drop(doc) -> None:  # type: ignore[no-untyped-def]
            slot = doc.find(item_id)
            if slot is None:
                raise NotFoundError(f"item {item_id} is no longer in {row.path}; run `memfs sync`")
            removed.append(slot.item)
            doc.remove(item_id)

        CategoryStore(rt.ws, rt.config).edit(row.path, drop)
        rt.after_write([row.path])
    return removed[0]


def forced_type(rt: Runtime, category: str | None, specs: list[CategorySpec]) -> str | None:
    """The one type the named category's kind allows (index/ holds only knowledge), else
    None: the type is then guessed (`guess_type`, whose classifier costs a one-shot add
    ~5 ms to load for an answer the folder already gives)."""
    if category is None:
        return None
    if "/" in category:
        kind: str | None = category.partition("/")[0]
    else:
        slug = slugify(category)
        kind = next((spec.kind for spec in specs if spec.name == slug), None)
        if kind is None and slug in rt.config.categories:
            kind = rt.config.categories[slug].kind
    types = [t for t, k in KIND_OF_TYPE.items() if k == kind]
    return types[0] if len(types) == 1 else None


def guess_type(text: str) -> tuple[str, str | None]:
    """(type, category hint) for a fact added by hand: personal cues first, else knowledge.

    The offline extractor's classifier is reused: read as something a person said, a
    fact with a clear personal cue (a preference, an event, a habit) is about people;
    anything else is read as a statement about the world."""
    from memfs.extract.classify import classify

    spoken = classify(text, kind="conversation", personal=True)
    if spoken[1] is not None or spoken[0] != "profile":
        return spoken
    return classify(text, kind="document")
