"""States of the report graph and its section subgraph: small, with what each phase hands on."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from rabbithole.research.evidence.citations import DraftSection
from rabbithole.research.llm_step import merge_counts
from rabbithole.research.models import (
    Evidence,
    Passage,
    QueryAnchor,
    ResearchResult,
    RetrievedPassage,
    RunMode,
    SectionGrade,
    TaskSpec,
    UnreadPassage,
)
from rabbithole.research.report.models import ReviewTarget, SectionResult, SectionSpec


def merge_sections(
    left: dict[str, SectionResult] | None, right: dict[str, SectionResult] | None
) -> dict[str, SectionResult]:
    """Reducer of ``sections_done``: a rewritten section replaces its earlier result, the others stay."""
    return {**(left or {}), **(right or {})}


class ReportInput(TypedDict):
    question: str  # the topic (the key the shared start and anchor nodes read)
    collections: list[str]
    mode: RunMode
    guidance: str
    sections_hint: list[str]
    refinement_rounds: int


class ReportState(ReportInput, total=False):
    language: str
    corpus_language: str
    anchor: QueryAnchor
    research_queries: list[str]
    corpus_queries: list[str]
    clarification_summary: str
    # the outline
    outline_passages: list[RetrievedPassage]
    title: str
    proposed: list[SectionSpec]
    feedback: list[str]  # the user's feedback, every round
    outline_rounds: int
    replan: bool
    outline: list[SectionSpec]  # as approved
    # sections and refinement
    sections_done: Annotated[dict[str, SectionResult], merge_sections]
    refinement_round: int
    review: list[ReviewTarget]
    # the outcome
    result: ResearchResult
    warnings: Annotated[list[str], operator.add]
    llm_calls: Annotated[dict[str, int], merge_counts]
    llm_tokens: Annotated[dict[str, int], merge_counts]  # "<kind>.prompt" / "<kind>.output"


class SectionInput(TypedDict):
    section: SectionSpec
    anchor: QueryAnchor
    topic: str
    guidance: str
    language: str
    corpus_language: str
    collections: list[str]
    refinement: int  # 0: the first pass; n: the n-th refinement
    instructions: str  # the reviewer's, in a refinement
    queries: list[str]  # a refinement's queries (empty: the section's questions)
    previous: SectionResult | None  # the section as written before this refinement (its evidence is kept)


class SectionOutput(TypedDict, total=False):
    sections_done: Annotated[dict[str, SectionResult], merge_sections]
    warnings: Annotated[list[str], operator.add]
    llm_calls: Annotated[dict[str, int], merge_counts]
    llm_tokens: Annotated[dict[str, int], merge_counts]  # "<kind>.prompt" / "<kind>.output"


class SectionState(SectionInput, SectionOutput, total=False):
    depth: int  # search rounds so far in this pass - 1
    next_queries: list[str]  # a failing grade's follow-up queries
    next_corpus_queries: list[str]
    # the keys the shared dig nodes (search, follow_references, extract) read and write
    task: TaskSpec
    seeds: list[Passage]
    retrieved: list[str]
    passages: list[Passage]
    followed: int
    skipped: int
    batches: list[list[str]]
    evidence: Annotated[list[Evidence], operator.add]
    passages_unread: Annotated[list[UnreadPassage], operator.add]  # every round's, as extraction wrote them
    extraction_failures: Annotated[int, operator.add]
    task_warnings: Annotated[list[str], operator.add]
    # this section's own
    unread: list[UnreadPassage]  # what is still unread after the last round (``write`` keeps it)
    unread_counted: int  # the entries of ``passages_unread`` the last ``write`` took into ``unread``
    retrieved_all: Annotated[list[str], operator.add]
    followed_all: Annotated[int, operator.add]
    passages_all: Annotated[int, operator.add]
    draft: DraftSection
    answered: bool  # the model's last answer was valid (false: the draft is its findings' statements)
    language_ok: bool  # the model's last text was in the report's language
    grade: SectionGrade


class FrameInput(TypedDict):
    """One framing section (introduction, conclusion, a section without research), by Send."""

    section: SectionSpec
    topic: str
    guidance: str
    language: str
    outline: list[SectionSpec]
    researched: list[SectionResult]
