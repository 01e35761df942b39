"""What the model answers in synthesis. A section's schema is built per call with the evidence ids shown,
so a citation can only name evidence the run retrieved; the heading is the approved task's title, never
the model's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field, create_model

#: Sentences one section call may write: a complete answer stays well inside ``llm.max_output_tokens``.
MAX_CLAIMS = 10


def section_schema(evidence_ids: Sequence[str]) -> type[BaseModel]:
    """{claims: [{text, evidence: [id]}]}: one section, its sentences in order."""
    ids = Literal[tuple(evidence_ids)]  # type: ignore[valid-type]
    claim = create_model(
        "Claim",
        text=(str, Field(description="One sentence of the report, without citation marks.")),
        evidence=(list[ids], Field(max_length=5, description="Ids of the evidence that supports it.")),  # type: ignore[valid-type]
    )
    return create_model(
        "SectionDraft",
        claims=(list[claim], Field(min_length=1, max_length=MAX_CLAIMS)),  # type: ignore[valid-type]
    )


class QualityJudgement(BaseModel):
    """Scores of the report against the evidence, 0-100 each, and what to fix."""

    factual_accuracy: int = Field(ge=0, le=100)
    semantic_validity: int = Field(ge=0, le=100)
    structure: int = Field(ge=0, le=100)
    citation_correctness: int = Field(ge=0, le=100)
    query_relevance: int = Field(ge=0, le=100)
    issues: list[str] = Field(default_factory=list, max_length=8)
