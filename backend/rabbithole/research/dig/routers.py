"""Pure routers of the dig subgraph."""

from __future__ import annotations

from typing import Literal

from rabbithole.research.dig.state import DigInput, DigState


def start(state: DigInput) -> Literal["make_queries", "search"]:
    """A task without queries (added by the user) gets them from the model first."""
    task = state["task"]
    missing_corpus = state["corpus_language"] != state["language"] and not task.corpus_queries
    return "make_queries" if not task.queries or missing_corpus else "search"


def after_extract(state: DigState) -> Literal["extract", "summarize"]:
    return "extract" if state.get("cursor", 0) < len(state.get("batches", [])) else "summarize"


def after_follow(state: DigState) -> Literal["extract", "summarize"]:
    return "extract" if state.get("batches") else "summarize"
