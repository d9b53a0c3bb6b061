"""Dropping cached vectors no line uses any more, once enough lines have changed.

The embedding cache is keyed by text hash and outlives the rows that used it, so an undo
(`git checkout` of an edit) costs no embedding. Without a bound it only grows: every edited
line, every removed note and every fact that was only compared (a reinforcement's twin)
leaves its vector behind, and only `forget` used to drop them. A sync counts the rows it
removed or changed (`embed_churn` in the index's meta table) and, once that reaches
`SHARE` of the index (at least `MIN_CHURN`), drops every vector no item or passage uses —
but never the category descriptions' (nothing references them; the next start would embed
them all again). A rebuild collects at once: it has just re-read every line.
"""

from __future__ import annotations

from memfs.index import repository
from memfs.index.syncplan import SyncReport
from memfs.services.runtime import Runtime

CHURN_KEY = "embed_churn"
#: Rows removed or changed since the last collection before one is worth its scan.
MIN_CHURN = 1000
#: ... or this share of the index's rows, whichever is larger.
SHARE = 0.05


def drop_unused(rt: Runtime) -> int:
    """Delete every cached vector no item or passage uses, but the category descriptions'."""
    from memfs.categorize import spec_texts
    from memfs.core.hashing import text_hash

    keep = frozenset(text_hash(t) for t in spec_texts(rt.category_specs()))
    dropped = repository.drop_unused_embeddings(rt.indexer.db, keep)
    rt.indexer.db.set_meta(CHURN_KEY, "0")
    return dropped


def collect_if_due(rt: Runtime, report: SyncReport, rebuilt: bool = False) -> int:
    """After a sync: count its churn; collect when due (or after a rebuild). Vectors dropped."""
    churn = report.items_removed + report.items_updated + report.passages_removed
    if rebuilt:
        return drop_unused(rt)
    if not churn:
        return 0
    db = rt.indexer.db
    total = int(db.get_meta(CHURN_KEY) or 0) + churn
    if total < MIN_CHURN or total < SHARE * repository.count_rows(db):
        db.set_meta(CHURN_KEY, str(total))
        return 0
    return drop_unused(rt)
