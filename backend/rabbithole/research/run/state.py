"""State of the run graph: small, with what each phase hands on (subgraphs keep their own keys)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from rabbithole.research.llm_step import merge_counts
from rabbithole.research.models import (
    Assessment,
    ClarificationRound,
    PinnedProvision,
    QueryAnchor,
    ResearchResult,
    RetrievedPassage,
    RunMode,
    TaskResult,
    TaskSpec,
)


class RunInput(TypedDict):
    question: str
    collections: list[str]
    mode: RunMode


class RunState(RunInput, total=False):
    language: str
    corpus_language: str
    # clarification (or the quick anchor)
    rounds: list[ClarificationRound]
    anchor: QueryAnchor
    research_queries: list[str]
    corpus_queries: list[str]
    question_translation: str
    translations_dropped: int
    clarification_summary: str
    # assessment
    assess_passages: list[RetrievedPassage]
    assess_best: float
    assess_coverage: float
    assess_candidates: int
    assess_views: list[dict[str, Any]]
    assessment: Assessment
    # plan and dig
    plan: list[TaskSpec]
    task_results: Annotated[list[TaskResult], operator.add]
    pinned: Annotated[list[PinnedProvision], operator.add]  # each task's, resolved (dig/pinned.py)
    # the outcome
    result: ResearchResult
    warnings: Annotated[list[str], operator.add]
    llm_calls: Annotated[dict[str, int], merge_counts]
    llm_tokens: Annotated[dict[str, int], merge_counts]  # "<kind>.prompt" / "<kind>.output"
