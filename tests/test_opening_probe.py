"""Dedupe's probe for items that open on a fact's words (issue #18 item 4): a range of the
items_opening index, whatever the store's size, returning every item whose text starts with
the words (ASCII case aside; past 64 characters, those sharing the first 64), which
`dedupe.opens` then judges."""

from __future__ import annotations

import random
from pathlib import Path

from memfs.index import repository
from tests.support.workspace import hashing_memory

STARTS = ["Priya moved to Leeds in August", "Tom sold the old blue car", "The weekly standup is at 9",
          "Café Nördlicht serves the best strudel in the old town of Kraków and every Sunday",  # > 64 chars
          "Café Nördlicht serves the best strudel in the old town of Kraków and every Sunday there"]
ENDS = [", and loves it.", " and bought a bike.", ".", " - says Dana.", ", which is new.", " on Mondays."]


def test_the_probe_returns_every_current_item_that_opens_on_the_head(ws_path: Path) -> None:
    rng = random.Random(18)
    texts = sorted({f"{rng.choice(STARTS)}{rng.choice(ENDS)} ({i % 7})" for i in range(120)})
    (ws_path / "index" / "notes.md").write_text("# Notes\n\n" + "".join(f"- {t}\n" for t in texts))
    mem = hashing_memory(ws_path)
    try:
        mem.sync()
        db = mem.indexer.db
        rows = db.conn.execute("SELECT id, text FROM items").fetchall()
        assert len(rows) == len(texts)
        plan = db.conn.execute("EXPLAIN QUERY PLAN SELECT id FROM items WHERE lower(substr(text, 1, 64)) = ?",
                               ("x",)).fetchall()
        assert "items_opening" in str(plan)  # an index probe, not a scan
        for _ in range(300):
            text = rng.choice(texts)
            head = text[:rng.randint(1, len(text))]
            head = "".join(c.upper() if c.isascii() and rng.random() < 0.3 else c for c in head)
            want = {i for i, t in rows if t.lower().startswith(head.lower())}
            key = head[:64].lower()  # past 64 characters the caller compares the rest
            may = {i for i, t in rows if t[:64].lower() == key} if len(head) >= 64 else want
            got = {r[0] for r in repository.current_opening_with(db, head, limit=1000)}
            assert want <= got <= may, head
        # A superseded item is history, never the line a fact is said again in.
        victim = rows[0][0]
        with db.transaction() as c:
            c.execute("UPDATE items SET superseded_by='x' WHERE id=?", (victim,))
        text = next(t for i, t in rows if i == victim)
        assert victim not in {r[0] for r in repository.current_opening_with(db, text, limit=1000)}
    finally:
        mem.close()
