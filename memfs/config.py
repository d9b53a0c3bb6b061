"""memfs.toml, validated: unknown keys and wrong types are errors that name the key.

Every setting can be overridden from the environment as MEMFS_<SECTION>_<KEY>
(e.g. MEMFS_EMBEDDER_PROVIDER=hashing, MEMFS_RECALL_TOP_K=5). Secrets are never read
from the file: only the *name* of the environment variable that holds a key is.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memfs.errors import ConfigError
from memfs.agents.config import AgentsConfig
from memfs.llm.config import LLMConfig, llm_config_from_env

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from memfs.workspace import CONFIG_NAME  # noqa: E402  (one name, defined where it is looked for)


class _Section(BaseModel):
    # allow_inf_nan=False: `inf`/`nan` are valid TOML floats but no setting means them, and
    # a NaN weight turns every recall score into NaN (invalid JSON out of `recall --json`).
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)


class EmbedderConfig(_Section):
    provider: Literal["minilm", "hashing", "openai"] = Field(
        "minilm", description="minilm: all-MiniLM-L6-v2 int8 ONNX, offline; hashing: numpy feature hashing; "
        "openai: any OpenAI-compatible /embeddings endpoint.")
    dim: int = Field(1024, ge=64, le=8192, description="Dimension of the hashing embedder.")
    model: str = "text-embedding-3-small"
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = Field(30.0, gt=0)
    batch_size: int = Field(64, ge=1, le=2048)
    threads: int = Field(2, ge=1, le=64, description="onnxruntime intra-op threads for minilm.")


class RecallConfig(_Section):
    top_k: int = Field(10, ge=1, le=1000)
    candidates: int = Field(100, ge=1, le=10000, description="Hits taken from each ranker before fusion.")
    rrf_k: float = Field(60.0, gt=0)
    bm25_weight: float = Field(1.0, ge=0)
    vector_weight: float = Field(1.0, ge=0)
    lexical_weight: float = Field(2.0, ge=0, description="Bonus for BM25 hits scoring far above the other "
                                  "lexical matches (a rare name or identifier); 0 is plain RRF.")
    recency_half_life_days: float = Field(365.0, gt=0)
    recency_weight: float = Field(0.1, ge=0, le=1)
    reinforcement_weight: float = Field(0.1, ge=0)
    exact_search_max: int = Field(5000, ge=0, description="Below this many vectors, search exactly with numpy.")
    hnsw_m: int = Field(16, ge=4, le=128)
    hnsw_ef_construction: int = Field(200, ge=10)
    hnsw_ef: int = Field(64, ge=10)


class MemoryFileConfig(_Section):
    token_budget: int = Field(1500, ge=50, description="memory.md stays within this many (approximate) tokens.")
    split_items: int = Field(200, ge=0, description="A category file with more items is split by topic into "
                             "<name>--<topic>.md parts; 0 never splits.")


class IngestConfig(_Section):
    max_file_bytes: int = Field(20_000_000, ge=1)
    max_export_bytes: int = Field(500_000_000, ge=1, description="A chat export (.zip or conversations.json) "
                                  "may be this big; each conversation in it is still held to max_file_bytes.")
    dedupe_threshold: float = Field(0.92, gt=0, le=1, description="Cosine similarity above which a new "
                                    "fact reinforces an existing item instead of adding one.")
    settle_seconds: float = Field(0.3, ge=0, description="A new inbox file must keep its size this long.")
    batch_segments: int = Field(2000, ge=1, description="A larger input is memorized this many segments (turns, "
                                "sections) at a time: a checkpoint after each batch; the daemon honours SIGTERM "
                                "and takes other inputs between two batches.")
    vectors_after_write: bool = Field(True, description="Daemon, offline: write a fact whose filing needs no "
                                      "vector first (keyword-recallable at once) and embed it and check it for "
                                      "near-duplicates after the write (`memfs status` shows what is still "
                                      "owed). false: embed every fact before its write, as `memfs ingest` does.")


class DaemonConfig(_Section):
    auto_start_items: int = Field(10_000, ge=0, description="A `memfs ingest` done in-process on a store of at "
                                  "least this many items starts a `memfs daemon` in the background, so the next "
                                  "ones are handed to a warm process instead of rebuilding the entry files' state "
                                  "(seconds at 100,000 items); 0 never starts one.")
    idle_exit_seconds: float = Field(600.0, gt=0, description="A daemon started that way stops after this long "
                                     "with no input, request or edit.")


class GitConfig(_Section):
    autocommit: bool = False


class CategoryConfig(_Section):
    kind: Literal["memory", "index", "skill"] = "memory"
    description: str = ""
    title: str | None = None


class Config(_Section):
    llm: LLMConfig = LLMConfig()
    embedder: EmbedderConfig = EmbedderConfig()
    recall: RecallConfig = RecallConfig()
    memory: MemoryFileConfig = MemoryFileConfig()
    ingest: IngestConfig = IngestConfig()
    git: GitConfig = GitConfig()
    daemon: DaemonConfig = DaemonConfig()
    agents: AgentsConfig = AgentsConfig()
    categories: dict[str, CategoryConfig] = Field(default_factory=dict)


def _format_error(err: ValidationError, origin: str) -> str:
    first = err.errors()[0]
    loc = ".".join(str(p) for p in first["loc"])
    msg = first["msg"]
    if first["type"] == "extra_forbidden":
        msg = "unknown key"
    return f"{origin}: {loc}: {msg}" + (f" (got {first['input']!r})" if first["type"] != "extra_forbidden"
                                          and not isinstance(first.get("input"), dict) else "")


def _env_overrides(environ: dict[str, str]) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    sections = {name for name, f in Config.model_fields.items() if name != "categories"}
    for key, value in environ.items():
        if not key.startswith("MEMFS_"):
            continue
        rest = key[len("MEMFS_"):].lower()
        section, _, field = rest.partition("_")
        if section in sections and field:
            out.setdefault(section, {})[field] = value
    return out


def load_config(root: Path, environ: dict[str, str] | None = None) -> Config:
    """Read `<root>/memfs.toml` (missing file = defaults), then apply MEMFS_* overrides."""
    environ = dict(os.environ) if environ is None else environ
    path = root / CONFIG_NAME
    data: dict[str, Any] = {}
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as err:
            raise ConfigError(f"{path}: invalid TOML: {err}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"{path}: not valid UTF-8") from None
    try:
        config = Config.model_validate(data)
    except ValidationError as err:
        raise ConfigError(_format_error(err, str(path))) from None
    for section, fields in _env_overrides(environ).items():
        merged = {**getattr(config, section).model_dump(), **fields}
        try:
            setattr(config, section, type(getattr(config, section)).model_validate(merged))
        except ValidationError as err:
            first = err.errors()[0]
            field = str(first["loc"][0]) if first["loc"] else "?"
            name = f"MEMFS_{section.upper()}_{field.upper()}"
            msg = "unknown setting" if first["type"] == "extra_forbidden" else first["msg"]
            raise ConfigError(f"environment {name}: {msg}") from None
    # MEMFS_LLM=openai, MEMFS_LLM_MODEL, OPENAI_BASE_URL: the one-line switch to LLM mode.
    try:
        config.llm = llm_config_from_env(config.llm, environ)
    except ValidationError as err:
        raise ConfigError(_format_error(err, "environment (MEMFS_LLM*)")) from None
    return config
