"""State of the synthesis subgraph."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from rabbithole.research.evidence.citations import DraftSection
from rabbithole.research.llm_step import merge_counts
from rabbithole.research.models import (
    Dropped,
    Evidence,
    PackingReport,
    QualityScores,
    QueryAnchor,
    ResearchResult,
    TaskResult,
    TaskSpec,
    TextGuards,
)


class SynthesisInput(TypedDict):
    question: str
    language: str
    anchor: QueryAnchor
    clarification_summary: str
    plan: list[TaskSpec]
    task_results: list[TaskResult]


class SynthesisOutput(TypedDict, total=False):
    result: ResearchResult
    warnings: Annotated[list[str], operator.add]
    llm_calls: Annotated[dict[str, int], merge_counts]


class SynthesisState(SynthesisInput, SynthesisOutput, total=False):
    evidence: list[Evidence]  # after validation
    dropped: list[Dropped]
    title: str
    sections: list[DraftSection]
    text_guards: TextGuards  # what the guards did to the last draft
    packing: PackingReport
    attempts: int  # synthesis calls so far (language retry)
    language_ok: bool
    quality: QualityScores | None
    remediated: bool
    # warnings of this subgraph, reported in the result (added up: the language retry and the review of
    # the first draft run side by side)
    notes: Annotated[list[str], operator.add]
