"""What the model answers in synthesis. The report schema is built per call with the evidence ids shown, so
a citation can only name evidence the run retrieved."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field, create_model


def report_schema(evidence_ids: Sequence[str]) -> type[BaseModel]:
    """{title, sections: [{heading, claims: [{text, evidence: [id]}]}]}."""
    ids = Literal[tuple(evidence_ids)]  # type: ignore[valid-type]
    claim = create_model(
        "Claim",
        text=(str, Field(description="One sentence of the report, without citation marks.")),
        evidence=(list[ids], Field(max_length=5, description="Ids of the evidence that supports it.")),  # type: ignore[valid-type]
    )
    section = create_model(
        "ReportSection",
        heading=(str, Field(description="Section heading.")),
        claims=(list[claim], Field(min_length=1, max_length=14)),  # type: ignore[valid-type]
    )
    return create_model(
        "ReportDraft",
        title=(str, Field(description="Title of the report.")),
        sections=(list[section], Field(min_length=1, max_length=8)),  # type: ignore[valid-type]
    )


class QualityJudgement(BaseModel):
    """Scores of the report against the evidence, 0-100 each, and what to fix."""

    factual_accuracy: int = Field(ge=0, le=100)
    semantic_validity: int = Field(ge=0, le=100)
    structure: int = Field(ge=0, le=100)
    citation_correctness: int = Field(ge=0, le=100)
    query_relevance: int = Field(ge=0, le=100)
    issues: list[str] = Field(default_factory=list, max_length=8)
