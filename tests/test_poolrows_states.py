"""The per-file item counts a regeneration reads twice (the split check and the pool's
refresh) are read once per index version, and never served for another version."""

from __future__ import annotations

from memfs.api import Memory
from memfs.entry import poolrows
from memfs.index import repository


def test_file_states_are_read_once_per_index_version_and_follow_every_change(mem: Memory) -> None:
    db = mem.indexer.db
    mem.add("Priya lives in Leeds.", category="memory/people")
    with db.snapshot():
        first = poolrows.file_states(db)
        assert poolrows.file_states(db) is first  # the same version: not read again
        assert first == repository.file_states(db)
    mem.add("Priya works as a nurse.", category="memory/people")
    with db.snapshot():
        again = poolrows.file_states(db)
        assert again == repository.file_states(db)
    assert again["memory/people.md"][1] == first["memory/people.md"][1] + 1
