"""Pipelines: named, checked lists of steps (the engine), and the memorize pipeline."""
