"""The composition root: one workspace's config, embedder, index, journal, LLM, lock and caches.

Every service takes a `Runtime`; the memorize pipeline takes it too, through the narrow
`memfs.pipeline.runtime.PipelineRuntime` protocol it satisfies. Everything heavy is built
on first use, so opening a workspace to print `status` loads no model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memfs.categorize import CategorySpec, SpecMemo
from memfs.config import Config
from memfs.errors import MemfsError
from memfs.core.itemline import text_id
from memfs.fsutil import WriterLock
from memfs.entry import heapfreeze
from memfs.entry.poolcache import persist_parts
from memfs.index import repository
from memfs.index.heal import move_aside
from memfs.index.sync import Indexer, SyncReport
from memfs.providers.embedding import Embedder, make_embedder
from memfs.views import after_split, regenerate_root_files, split_oversized
from memfs.workspace import Workspace, slugify

if TYPE_CHECKING:
    from memfs.inbox import Journal
    from memfs.index.search import Searcher
    from memfs.llm.runtime import LLMRuntime
    from memfs.pipeline.memorize import Memorizer

#: Splits one check may run in a row: a part a split writes past the limit splits at once,
#: not at the next input (a topic's part of a pasted 10,000-line file splits again and again).
SPLIT_ROUNDS = 4


class Runtime:
    """What the services share for one workspace; built lazily, closed once."""

    def __init__(self, ws: Workspace, config: Config, embedder: Embedder | None = None,
                 lock_timeout: float = 60.0) -> None:
        self.ws = ws
        self.config = config
        self.lock_timeout = lock_timeout
        self._embedder = embedder
        self._indexer: Indexer | None = None
        self.searcher: "Searcher | None" = None  # the read-only recall handle (services.recall)
        self._journal: "Journal | None" = None
        self._memorizer: "Memorizer | None" = None
        self.views_made = 0  # root-file regenerations by this process
        self._unchecked: set[str] = set()  # files written since the last split check
        self._llm_loaded = False  # the LLM runtime is read from config once, on first use
        self._llm: "LLMRuntime | None" = None
        self._specs = SpecMemo()  # category_specs, kept while the files and config are the same
        #: A one-shot process (`memfs add` without a daemon): an add into a named category
        #: leaves its vector to the next sync or recall (services/writer.py).
        self.vectors_later = False

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self.config.embedder)
            if self.config.embedder.provider == "openai" and self.config.llm.provider != "local":
                # One OpenAI client, one account: embedding calls count against the LLM's
                # token budget and are saved with its usage.
                try:
                    llm = self.llm
                except MemfsError:  # a misconfigured LLM is reported where it is used
                    llm = None
                if llm is not None:
                    self._embedder.usage, self._embedder.budget = llm.usage, llm.budget  # type: ignore[attr-defined]
        return self._embedder

    @property
    def indexer(self) -> Indexer:
        if self._indexer is None:
            self._indexer = Indexer(self.ws, self.config, self.embedder)
        return self._indexer

    @property
    def journal(self) -> "Journal":
        if self._journal is None:
            from memfs.inbox import Journal

            self._journal = Journal(self.ws, self.indexer.db)
        return self._journal

    @property
    def llm(self) -> "LLMRuntime | None":
        """The LLM runtime when `[llm] provider` (or MEMFS_LLM) is openai; None offline."""
        if not self._llm_loaded:
            from memfs.llm.config import llm_config_from_env

            # Offline, the runtime module is not imported at all: it imports the openai SDK,
            # 1-5 s on a busy machine, which every sync that changed a file paid for the views.
            if llm_config_from_env(self.config.llm).enabled:
                from memfs.llm.runtime import LLMRuntime

                self._llm = LLMRuntime.from_config(self.config.llm, state_dir=self.ws.state)
            self._llm_loaded = True
        return self._llm

    @property
    def llm_used(self) -> "LLMRuntime | None":
        """The LLM runtime if this process built one (never builds it)."""
        return self._llm if self._llm_loaded else None

    @property
    def memorizer(self) -> "Memorizer":
        if self._memorizer is None:
            from memfs.pipeline.memorize import Memorizer

            rt = self.llm
            extractor = rt.extractor(categories=[s.name for s in self.category_specs()]) if rt else None
            self._memorizer = Memorizer(self, extractor=extractor)
        return self._memorizer

    @memorizer.setter
    def memorizer(self, memorizer: "Memorizer") -> None:
        """Use this pipeline instead (a test wiring its own extractor)."""
        self._memorizer = memorizer

    def lock(self, purpose: str = "write", timeout: float | None = None) -> WriterLock:
        return WriterLock(self.ws.state / "write.lock", timeout=self.lock_timeout if timeout is None else timeout,
                          purpose=purpose, anchor=self.ws.root)

    def close(self) -> None:
        self.save_llm_usage()
        if self._indexer is not None:
            self._indexer.close()
            self._indexer = None
        if self.searcher is not None:
            self.searcher.db.close()
            self.searcher = None

    def save_llm_usage(self) -> None:
        """Add this process's LLM calls to `.memfs/llm-usage.json` (every command that called a
        model: add, forget, sync, recall --mode llm, ingest, the daemon)."""
        try:
            if self.llm_used is not None:
                self.llm_used.persist_usage()
            own = getattr(self._embedder, "usage", None)  # an OpenAI embedder without an LLM runtime
            if own is not None and own.steps and (self.llm_used is None or own is not self.llm_used.usage):
                from memfs.llm.usage import USAGE_FILE

                self.ws.state.mkdir(exist_ok=True)
                own.merge_into_json(self.ws.state / USAGE_FILE)
        except OSError:  # derived state: never fail a command over it
            pass

    def reset_index(self, damaged: str | None = None) -> None:
        """Forget every open handle on `.memfs/` (the next use reopens it); with `damaged`,
        move the index file aside first (memfs.index.heal). Call under the writer lock."""
        self.close()
        self._journal = None
        if self._memorizer is not None:
            self._memorizer.ctx.searcher = None
            self._memorizer.ledger.reset()  # its tables are gone with the index
        if damaged is not None:
            move_aside(self.ws.state / "index.sqlite3", damaged)

    def category_specs(self) -> list[CategorySpec]:
        """Configured categories plus every category file on disk, sorted by `kind/name`
        (the same list object while neither changed: categorize.SpecMemo)."""
        configured = tuple((cat.kind, slugify(name), cat.description) for name, cat in self.config.categories.items())
        return self._specs.get(configured, self.ws.category_rels())

    def warm_up(self) -> None:
        """Load the embedder, the category vectors and dedupe's vector index now, and freeze
        the entry files' state out of full collections (the daemon does, after refreshing
        its entry files: its first input at 100,000 items took 4.6 s for these, the next 0.2)."""
        self.embedder.embed(["warm up"])
        self.memorizer.warm_up(self.category_specs())
        heapfreeze.settle_now()

    def fresh_id(self, text: str, salt: str) -> str:
        """The text-derived id, salted further until no indexed item has it."""
        db = self.indexer.db
        candidate = text_id(text, salt)
        while repository.has_item(db, candidate):
            salt += "+"
            candidate = text_id(text, salt)
        return candidate

    def regenerate_views(self) -> list[str]:
        """Rewrite index.md / memory.md / skill.md where their content changes (the model
        condenses memory.md and skill.md in LLM mode). Call under the writer lock."""
        rt = self.llm
        self.split_oversized_files()
        with heapfreeze.paused():  # its short-lived objects are no reason to walk a 100k-item heap
            written = regenerate_root_files(self.ws, self.indexer.db, self.config,
                                            summarize=rt.try_summarize_memory if rt else None)
            persist_parts(self.ws, self.indexer.db)  # the big files' entry parts, for the next process
        if self._memorizer is not None:
            self._memorizer.ctx.views_owed = False  # lines merged since are in them now
        self.views_made += 1  # (services.ingest.ViewDebt: a regeneration pays what was owed)
        return written

    def split_oversized_files(self, written_only: bool = False) -> None:
        """Split the category files grown past `memory.split_items` by topic and index the
        parts (under the writer lock): after every input, even one whose views wait.
        `written_only`: check just the files written since the last check (`note_written`:
        every batch of a large input, and the inputs between its batches), not every file."""
        files: list[str] | None = sorted(self._unchecked) if written_only else None
        self._unchecked.clear()
        for _ in range(SPLIT_ROUNDS):  # a part just written can itself be past the limit
            split = split_oversized(self.ws, self.indexer.db, self.config, files)
            if not split:
                break
            self.indexer.sync(only=split)
            files = split
        after_split(self.indexer.db)

    def note_written(self, rels: list[str]) -> None:
        """Category files an input (or a batch of one) wrote: the next split check looks at them."""
        self._unchecked.update(rels)

    def after_write(self, rels: list[str]) -> SyncReport:
        """Index the files a writer changed, then refresh the views."""
        report = self.indexer.sync(only=rels)
        self.regenerate_views()
        return report
