"""What the tests share, imported as ``from tests.support.<module> import ...``.

- ``cli``: the real CLI in a subprocess with a clean environment (`MEMFS`, `env`, `run`, `init`).
- ``daemon``: `memfs daemon` as a subprocess whose log can be polled (`Daemon`, `wait`).
- ``fake_openai``: the one fake OpenAI-compatible server (chat, streaming, embeddings, models)
  and its misbehaviour knobs; `MisbehavingModel`.
- ``factories``: inputs several tests feed memfs (conversations, chats, transcripts).
- ``workspace``: an in-process `Memory` on the hashing embedder and readers of a
  workspace's state (items, index rows, inbox).
- ``figures``: figures a test measured, printed with ``pytest -s``.

Fixtures (`ws_path`, `mem`, `fake`, `client`) live in tests/conftest.py.
"""
