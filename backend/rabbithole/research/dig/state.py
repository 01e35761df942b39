"""State of the dig subgraph (one per task, started by a Send)."""

from __future__ import annotations

import operator
from typing import Annotated, NotRequired, TypedDict

from rabbithole.research.llm_step import merge_counts
from rabbithole.research.models import (
    Evidence,
    Passage,
    PinnedProvision,
    QueryAnchor,
    TaskResult,
    TaskSpec,
    UnreadPassage,
)


class DigInput(TypedDict):
    task: TaskSpec
    anchor: QueryAnchor
    language: str
    corpus_language: str
    collections: list[str]
    pins: NotRequired[list[PinnedProvision]]  # the provisions this task pins (dig/pinned.py)


class DigOutput(TypedDict, total=False):
    task_results: Annotated[list[TaskResult], operator.add]
    warnings: Annotated[list[str], operator.add]
    llm_calls: Annotated[dict[str, int], merge_counts]
    llm_tokens: Annotated[dict[str, int], merge_counts]  # "<kind>.prompt" / "<kind>.output"
    pinned: Annotated[list[PinnedProvision], operator.add]  # resolved (found or not), for the result


class DigState(DigInput, DigOutput, total=False):
    seeds: list[Passage]  # search hits, best first (the pinned passages before them)
    pinned_passages: list[Passage]  # the pinned provisions' passages, read first
    retrieved: list[str]  # ids of every passage retrieved (search and references)
    passages: list[Passage]  # what extraction reads: seeds and passages reached through references
    followed: int
    skipped: int
    batches: list[list[str]]  # chunk ids per extraction call
    evidence: Annotated[list[Evidence], operator.add]  # from every batch
    passages_unread: Annotated[list[UnreadPassage], operator.add]  # what the model could not read
    extraction_failures: Annotated[int, operator.add]  # calls whose answer stayed invalid or was cut
    facts_retied: Annotated[int, operator.add]  # facts quoted from the sentences that hold their numbers
    facts_dropped: Annotated[int, operator.add]  # facts whose numbers or provisions no passage holds
    passages_shared: Annotated[int, operator.add]  # read by another task of the run, not read again
    similarities: dict[str, float]  # evidence id -> similarity to the query anchor
    task_warnings: Annotated[list[str], operator.add]


class ExtractInput(TypedDict):
    """One extraction call (a Send per batch, so a task's batches run in parallel)."""

    task: TaskSpec
    anchor: QueryAnchor
    language: str
    batch: list[Passage]
    batch_index: int
    batch_count: NotRequired[int]  # the task's batches (they share its extra calls); absent: 1
