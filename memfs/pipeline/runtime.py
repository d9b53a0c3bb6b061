"""What the memorize pipeline needs of the workspace it writes to, and nothing more.

`services.runtime.Runtime` satisfies it; a test can pass anything with these members.
Keeping the pipeline off the facade (`Memory`) keeps the layers one-way: the pipeline never
sees the facade, the facade composes the pipeline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from memfs.categorize import CategorySpec
    from memfs.config import Config
    from memfs.inbox import Journal
    from memfs.index.sync import Indexer
    from memfs.llm.runtime import LLMRuntime
    from memfs.providers.embedding import Embedder
    from memfs.workspace import Workspace


class PipelineRuntime(Protocol):
    """The workspace, its config, the index and journal, the embedder, the LLM (None
    offline), id allocation, the category list, and the view refresh."""

    ws: "Workspace"
    config: "Config"

    @property
    def journal(self) -> "Journal": ...

    @property
    def indexer(self) -> "Indexer": ...

    @property
    def embedder(self) -> "Embedder": ...

    @property
    def llm(self) -> "LLMRuntime | None": ...

    def fresh_id(self, text: str, salt: str) -> str: ...

    def category_specs(self) -> "list[CategorySpec]": ...

    def regenerate_views(self) -> list[str]: ...
