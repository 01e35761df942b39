"""Digging one task: search in the user's and the documents' language, follow references (an LLM gate per
depth), extract findings by sentence number in batches, tier them, summarise the task."""

from rabbithole.research.dig.graph import build_dig_graph

__all__ = ["build_dig_graph"]
