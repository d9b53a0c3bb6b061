"""Figures the tests measured, printed with `pytest -s` (docs/reliability.md quotes them)."""

from __future__ import annotations

FIGURES: dict[str, object] = {}


def figure(name: str, value: object) -> None:
    FIGURES[name] = value
    print(f"\n[hardening-figure] {name} = {value}", flush=True)
