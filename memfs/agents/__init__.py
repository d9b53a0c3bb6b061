"""Agents in the loop: memfs as an MCP tool server, an OpenAI-compatible memory proxy,
an in-process OpenAI client wrapper, and agent-host hooks (Claude Code, Codex).

Every module here is a thin layer over `memfs.api.Memory`; one job per module:
`tools` (the verbs agents call), `timefilter`, `why`, `mcp_server`, `inject` (the memory
block), `exchange` (filing a conversation into inbox/), `proxy`, `wrap`, `hooks`.
"""
