"""State of the dig subgraph (one per task, started by a Send)."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from rabbithole.research.llm_step import merge_counts
from rabbithole.research.models import Evidence, Passage, QueryAnchor, TaskResult, TaskSpec


class DigInput(TypedDict):
    task: TaskSpec
    anchor: QueryAnchor
    language: str
    corpus_language: str
    collections: list[str]


class DigOutput(TypedDict, total=False):
    task_results: Annotated[list[TaskResult], operator.add]
    warnings: Annotated[list[str], operator.add]
    llm_calls: Annotated[dict[str, int], merge_counts]


class DigState(DigInput, DigOutput, total=False):
    seeds: list[Passage]  # search hits, best first
    retrieved: list[str]  # ids of every passage retrieved (search and references)
    passages: list[Passage]  # what extraction reads: seeds and passages reached through references
    followed: int
    skipped: int
    batches: list[list[str]]  # chunk ids per extraction call
    cursor: int  # next batch
    evidence: list[Evidence]
    task_warnings: list[str]
