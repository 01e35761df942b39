"""State of the synthesis subgraph."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from rabbithole.research.evidence.citations import DraftSection
from rabbithole.research.llm_step import merge_counts
from rabbithole.research.models import (
    AssembledSection,
    Dropped,
    Evidence,
    PackingReport,
    QualityScores,
    QueryAnchor,
    ReportChecks,
    ResearchResult,
    TaskResult,
    TaskSpec,
    TextGuards,
)
from rabbithole.research.synthesis.sections import SectionDraft, SectionPlan


def merge_drafts(
    left: dict[int, SectionDraft] | None, right: dict[int, SectionDraft] | None
) -> dict[int, SectionDraft]:
    """Reducer of ``drafts``: the sections written in parallel, a rewrite replacing its first version."""
    return {**(left or {}), **(right or {})}


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
    llm_tokens: Annotated[dict[str, int], merge_counts]


class SectionJob(TypedDict):
    """What one ``write_section`` call gets (sent, one per section)."""

    section: SectionPlan
    anchor: QueryAnchor
    language: str
    clarification_summary: str
    feedback: list[str]
    wrong_language: bool
    passes: int


class SynthesisState(SynthesisInput, SynthesisOutput, total=False):
    evidence: list[Evidence]  # after validation
    dropped: list[Dropped]
    sections_planned: list[SectionPlan]
    drafts: Annotated[dict[int, SectionDraft], merge_drafts]
    pending: list[int]  # the sections the next pass writes
    feedback: dict[int, list[str]]  # per section, for the remediation pass
    title: str
    sections: list[DraftSection]  # the report as shown: guarded, assembled sections in place
    assembled: list[AssembledSection]
    checks: ReportChecks
    text_guards: TextGuards
    packing: PackingReport
    quality: QualityScores | None
    remediated: bool
    # warnings of this subgraph, reported in the result (added up: sections are written side by side)
    notes: Annotated[list[str], operator.add]
