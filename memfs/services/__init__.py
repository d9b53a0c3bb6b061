"""The service layer under `memfs.api.Memory`: one module per job.

- `runtime`: the composition root (workspace, config, embedder, index, journal, LLM,
  lock, caches) that every service and the memorize pipeline take.
- `writer`: add (or reinforce), forget one item, resolve a category.
- `recall`: hybrid search, LLM recall, the warm daemon's shortcut.
- `ingest`: the memorize pipeline with failure filing, inbox removal and git.
- `reindex`: sync, and healing a damaged index.
- `status`: `memfs status` and `memfs context`.

Views (root files, person pages) are `Runtime.regenerate_views` over `memfs.views`.
"""
