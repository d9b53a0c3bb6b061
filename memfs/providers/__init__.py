"""Pluggable back-ends behind small protocols: embedders now, chat models later."""
