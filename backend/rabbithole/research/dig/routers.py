"""Pure routers of the dig subgraph."""

from __future__ import annotations

from typing import Literal

from langgraph.types import Send

from rabbithole.research.dig.state import DigInput, DigState


def start(state: DigInput) -> Literal["make_queries", "search"]:
    """A task without queries (added by the user) gets them from the model first."""
    task = state["task"]
    missing_corpus = state["corpus_language"] != state["language"] and not task.corpus_queries
    return "make_queries" if not task.queries or missing_corpus else "search"


def to_extraction(state: DigState) -> list[Send] | Literal["summarize"]:
    """One extraction call per batch, in parallel (each knows how many there are: its share of the task's
    extra calls, ``retry_shares``); none: straight to the summary."""
    batches = state.get("batches", [])
    if not batches:
        return "summarize"
    by_id = {p.chunk_id: p for p in state.get("passages", [])}
    return [
        Send(
            "extract",
            {
                "task": state["task"],
                "anchor": state["anchor"],
                "language": state["language"],
                "batch": [by_id[i] for i in ids if i in by_id],
                "batch_index": index,
                "batch_count": len(batches),
            },
        )
        for index, ids in enumerate(batches)
    ]
