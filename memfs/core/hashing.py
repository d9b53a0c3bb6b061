"""The hashes memfs keys things by, each named for what it identifies.

- `content_digest`: an input's identity (SHA-256 of its raw bytes). The journal, the
  resource names (`-<first 16 hex>.<ext>`), the forget record and the hooks' copies use it,
  so it must never change.
- `text_hash`: one text's key in the index (the embedding cache, the duplicate check):
  the first 64 bits of its SHA-1 (16 hex characters; it was all 40, stored three times per
  text plus two indexes: 7 % of `.memfs/`). A collision among 10^6 texts has odds of ~3e-8.
- `file_hash`: a category file's bytes, to see what changed since the last sync.
- `short_digest`: a short, stable tag of some text (a person page's body, cache keys).

SHA-1 where the hash only names cached, rebuildable state; SHA-256 for inputs, whose
digest is written into the Markdown's provenance.
"""

from __future__ import annotations

import hashlib


def content_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


TEXT_HASH_LEN = 16


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:TEXT_HASH_LEN]


def file_hash(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def short_digest(text: str, length: int = 12) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:length]
