"""What a sync reports and plans: shared by the full sync (memfs.index.sync) and the
spliced-write delta (memfs.index.delta), which must not import each other."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from memfs.core.categoryfile import CategoryDoc


class SyncReport(BaseModel):
    """What a sync did; `warnings` name the file and line of every problem it skipped."""

    files_seen: int = 0
    files_parsed: int = 0
    files_removed: int = 0
    items_added: int = 0
    items_updated: int = 0
    items_removed: int = 0
    embedded: int = 0
    passages_added: int = 0
    passages_removed: int = 0
    reembedded_all: bool = False
    #: Cached vectors no line used any more, dropped after this sync (services/cachegc.py).
    vectors_dropped: int = 0
    warnings: list[str] = Field(default_factory=list)
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        return bool(self.files_parsed or self.files_removed or self.items_added
                    or self.items_updated or self.items_removed or self.passages_added or self.passages_removed)


@dataclass
class _Parsed:
    rel: str
    size: int
    mtime_ns: int
    digest: str
    doc: CategoryDoc
    front_lines: int = 0


@dataclass
class _Plan:
    inserts: list[tuple] = field(default_factory=list)
    updates: list[tuple] = field(default_factory=list)
    delete_labels: list[int] = field(default_factory=list)
    need_vectors: dict[str, str] = field(default_factory=dict)  # text_hash -> text
    vector_labels: set[str] = field(default_factory=set)  # ids whose vector changed
    passage_labels: list[int] = field(default_factory=list)  # vector labels of new passages
    shadowed: list[tuple[str, str]] = field(default_factory=list)  # (id, path) copies not indexed
    freed_ids: list[str] = field(default_factory=list)  # ids whose indexed line went
