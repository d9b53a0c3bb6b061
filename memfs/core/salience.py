"""Salience: how much a fact counts beyond matching, the one formula recall and memory.md share.

    salience = (1 + w_r · ln seen) × ((1 − w_t) + w_t · 0.5^(age / half_life)) × type_weight

Reinforcement grows with the log of how often a fact was seen; recency decays by half
every `half_life` days but never below `1 − w_t`; an undated fact is not penalised.
Recall uses `[recall] reinforcement_weight` and `recency_weight` with no type weight;
memory.md and the person pages rank with w_r = 1, w_t = 0.5 and a small preference for
profile and behavior lines (`ENTRY_TYPE_WEIGHT`). docs/decisions.md, "Salience".
"""

from __future__ import annotations

import math

#: memory.md's preference among item types (unlisted types weigh 1.0).
ENTRY_TYPE_WEIGHT: dict[str, float] = {"profile": 1.2, "behavior": 1.1, "event": 1.0, "knowledge": 0.9}
#: memory.md's weights in the formula above.
ENTRY_REINFORCEMENT_WEIGHT = 1.0
ENTRY_RECENCY_WEIGHT = 0.5


def salience(seen: int, age_days: float | None, half_life_days: float, reinforcement_weight: float,
             recency_weight: float, type_weight: float = 1.0) -> float:
    """The formula above; `age_days` None (undated) means no decay."""
    reinforce = 1.0 + reinforcement_weight * math.log(max(seen, 1))
    decay = 1.0 if age_days is None else 0.5 ** (max(age_days, 0.0) / half_life_days)
    return reinforce * ((1.0 - recency_weight) + recency_weight * decay) * type_weight
