"""`[agents]` in memfs.toml: what the MCP server, the proxy and the hooks share."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class AgentsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    speaker: str = Field("user", min_length=1, max_length=80,
                         description="Speaker name for a proxied conversation whose request has no `user` field.")
    assistant: str = Field("assistant", min_length=1, max_length=80,
                           description="Speaker name of the model's turns in a filed conversation.")
    inject_k: int = Field(8, ge=1, le=50, description="Items recalled for the proxy's memory block.")
    inject_chars: int = Field(2000, ge=200, le=50_000,
                              description="The memory block the proxy injects stays within this many characters.")
    lock_timeout: float = Field(30.0, gt=0, le=600,
                                description="Seconds an MCP write waits for the writer lock (a daemon's burst).")
    upstream_timeout: float = Field(600.0, gt=0, description="Seconds the proxy waits for the upstream.")
    recall_timeout: float = Field(5.0, gt=0, description="Seconds the proxy gives memfs before forwarding "
                                  "the request without memory.")
    ingest_without_daemon: bool = Field(True, description="With no daemon running, the proxy ingests each "
                                        "exchange it files at once (so the next request recalls it).")
