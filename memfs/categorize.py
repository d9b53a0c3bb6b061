"""Choosing a category file for a new item: its kind from its type, its file by meaning.

A fact is compared (cosine) with each category's "title: description"; an extractor's
hint wins when that category exists. Categories are the config's plus every file a
person created, so a new file under memory/ becomes a filing target at once.

A part of a split memory/ file ("events--maria.md") is not compared: its name is a
person, so every fact naming Maria came nearer to it than to any description, and her
opinions, photos and feelings were filed as events. The family is chosen by its parent,
then a fact about the part's person (its first words) goes into that part.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memfs.core.lazynp import lazy_numpy
from memfs.core.model import KIND_OF_TYPE
from memfs.providers.embedding import Embedder
from memfs.workspace import slugify

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_numpy(globals())  # imported on first use (core/lazynp.py)


@dataclass(frozen=True)
class CategorySpec:
    kind: str
    name: str
    description: str

    @property
    def rel(self) -> str:
        return f"{self.kind}/{self.name}.md"


#: Used when a kind has no category at all (a workspace emptied by hand).
FALLBACK = {"memory": "profile", "index": "knowledge", "skill": "procedures"}


def specs_of(configured: tuple[tuple[str, str, str], ...], rels: list[str]) -> list[CategorySpec]:
    """Configured categories ((kind, slug, description)) plus every top-level note in `rels`
    (the walk's 'kind/name.md' strings), sorted by `kind/name`; a configured one wins."""
    specs: dict[str, CategorySpec] = {}
    for kind, slug, description in configured:
        specs[f"{kind}/{slug}"] = CategorySpec(kind, slug, description)
    for rel in rels:
        kind, name = rel.split("/", 1)
        if "/" in name:  # a person's note in a subfolder: filed into only when named
            continue
        specs.setdefault(f"{kind}/{name[:-3]}", CategorySpec(kind, name[:-3], ""))
    return [specs[k] for k in sorted(specs)]


class SpecMemo:
    """`specs_of`, kept while the configured categories and the walk's list are equal: the
    same list object then, so the categorizer keyed on it (its description vectors) is kept
    without ~1,000 specs built, hashed and compared an input at 100,000 items."""

    def __init__(self) -> None:
        self._configured: tuple[tuple[str, str, str], ...] | None = None
        self._rels: list[str] | None = None
        self._specs: list[CategorySpec] = []

    def get(self, configured: tuple[tuple[str, str, str], ...], rels: list[str]) -> list[CategorySpec]:
        if configured != self._configured or rels != self._rels:
            self._configured, self._rels, self._specs = configured, rels, specs_of(configured, rels)
        return self._specs


def spec_texts(specs: list[CategorySpec]) -> list[str]:
    """What is embedded for each category ("name: description"): kept in the embedding
    cache by content hash, so forgetting must not drop these (nothing else references them)."""
    return [f"{s.name.replace('-', ' ')}: {s.description}" for s in specs]


class Categorizer:
    def __init__(self, embedder: Embedder, specs: list[CategorySpec],
                 embed: Callable[[list[str]], np.ndarray] | None = None) -> None:
        """`embed`, if given, is a cached embedding (Indexer.embed_cached): a daemon over
        10,000 notes then starts without embedding 10,000 descriptions again (issue #18)."""
        self.embedder = embedder
        self.specs = specs
        self._embed = embed or embedder.embed
        self._vectors: np.ndarray | None = None
        self._parents: set[str] | None = None

    def _spec_vectors(self) -> np.ndarray:
        if self._vectors is None:
            texts = spec_texts(self.specs)
            self._vectors = self._embed(texts) if texts else np.zeros((0, 1), dtype=np.float32)
        return self._vectors

    def prepare(self) -> None:
        """Embed the category descriptions now (a daemon warming up), not on first use."""
        self._spec_vectors()

    def needs_vector(self, type_: str, hint: str | None = None) -> bool:
        """Does `choose` compare meanings for this fact? Not when a hint names a category of
        its kind or the kind has one category: its vector can then come after the write."""
        kind = KIND_OF_TYPE.get(type_, "memory")
        pool = [s for s in self.specs if s.kind == kind and not self._family_part(s)]
        if len(pool) <= 1:
            return False
        return not (hint and any(s.name in (hint, slugify(hint)) for s in self.specs if s.kind == kind))

    def choose(self, vector: np.ndarray | None, type_: str, hint: str | None = None,
               text: str = "", when: str | None = None) -> CategorySpec:
        """The file for a fact of this type; `text` and `when` pick a split family's part."""
        kind = KIND_OF_TYPE.get(type_, "memory")
        pool = [i for i, s in enumerate(self.specs) if s.kind == kind and not self._family_part(s)]
        if hint:
            if PART_SEP in hint:  # a part named exactly (a model offered the file names)
                for s in self.specs:
                    if s.kind == kind and s.name == hint:
                        return s
            slug = slugify(hint)
            for i in pool:
                if self.specs[i].name == slug:
                    return self._into_part(self.specs[i], text, when)
        if not pool:
            return CategorySpec(kind, FALLBACK[kind], "")
        if vector is None or len(pool) == 1:
            return self._into_part(self.specs[pool[0]], text, when)
        mat = self._spec_vectors()[pool]
        if mat.shape[1] != vector.shape[0]:
            return self._into_part(self.specs[pool[0]], text, when)
        best = int(np.argmax(mat @ vector))
        return self._into_part(self.specs[pool[best]], text, when)

    def _family_part(self, spec: CategorySpec) -> bool:
        """A part of a split memory/ file whose parent is a category: chosen through it. A
        part whose parent file is gone is a category of its own again."""
        if spec.kind != "memory" or PART_SEP not in spec.name:
            return False
        if self._parents is None:
            self._parents = {s.name for s in self.specs if s.kind == "memory" and PART_SEP not in s.name}
        return spec.name.partition(PART_SEP)[0] in self._parents

    def _into_part(self, spec: CategorySpec, text: str, when: str | None) -> CategorySpec:
        """The part of `spec`'s split family a fact belongs in, else `spec` itself: the part
        of the person its first words name (that person's year part if there is one), or the
        part of its year when the family is split by year. These are the split's rules
        (entry/split.py) as far as one fact tells: the split also knows aliases ("Maria" of
        "Maria Lopez"), a subject further in, and the learned day of an undated fact, so it
        may still move a line the filing left in the parent or a person's part."""
        if spec.kind != "memory" or PART_SEP in spec.name or not text:
            return spec
        parts = {s.name: s for s in self.specs if s.kind == "memory" and s.name.startswith(spec.name + PART_SEP)}
        if not parts:
            return spec
        year = when[:4] if when and when[:4].isdigit() else None
        for lead in _lead_slugs(text):
            part = parts.get(f"{spec.name}{PART_SEP}{lead}")
            if part is not None:
                return parts.get(f"{part.name}-{year}", part) if year else part
        return parts.get(f"{spec.name}{PART_SEP}{year}", spec) if year else spec


#: A split family's separator (entry/indexfile.PART_SEP; slugify never makes it).
PART_SEP = "--"
_WORD = re.compile(r"[^\W\d_][\w'\u2019-]*")


def _lead_slugs(text: str) -> list[str]:
    """The slugs a part named for the fact's subject could have: its first word, then its
    first two ("Maria's ..." -> "maria"; "Tom Hale ..." -> "tom-hale", "tom")."""
    words = [w.removesuffix("'s").removesuffix("\u2019s") for w in _WORD.findall(text[:80])[:2]]
    out = [slugify(" ".join(words[:2]))] if len(words) == 2 else []
    return [s for s in (*out, slugify(words[0]) if words else "") if s]
