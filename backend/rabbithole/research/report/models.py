"""The typed data report mode keeps in its checkpointed state, and the outline interrupt's payload."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rabbithole.research.evidence.citations import DraftSection
from rabbithole.research.models import Evidence, SectionGrade, UnreadPassage


class SectionSpec(BaseModel):
    """A section of the outline, as the user approves it."""

    #: Always sent whole: the OpenAPI document marks every field required (the generated types say so too).
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    id: str
    title: str
    description: str = ""
    research: bool = True
    questions: list[str] = Field(default_factory=list, description="What it answers (also its queries).")
    corpus_queries: list[str] = Field(
        default_factory=list, description="Its queries in the language of the collection's documents."
    )


class OutlineProposal(BaseModel):
    """The payload of the outline interrupt: the proposed sections, the most an edited outline may have,
    the feedback rounds used and allowed, and why the last answer was refused."""

    #: Always sent whole: the OpenAPI document marks every field required (the generated types say so too).
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    kind: Literal["outline"] = "outline"
    topic: str
    title: str
    sections: list[SectionSpec]
    limit: int
    round: int = Field(description="Re-plans with feedback so far.")
    max_rounds: int
    error: str | None = None


class ReviewTarget(BaseModel):
    """A section the reviewer wants improved: what to do and what to search for."""

    section_id: str
    instructions: str
    queries: list[str] = Field(default_factory=list)


class SectionResult(BaseModel):
    """A written section: its draft (claims citing evidence ids), the evidence it rests on, its grade, and
    what compile measures it by: whether the model's last answer for it was valid and in the report's
    language, and the retrieved passages the model could not read."""

    section: SectionSpec
    draft: DraftSection
    evidence: list[Evidence] = Field(default_factory=list)
    grade: SectionGrade | None = None
    rounds: int = 0
    refined: int = 0
    passages: int = 0
    references_followed: int = 0
    retrieved: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    answered: bool = Field(
        True, description="False: the model's last answer was invalid (the draft: its findings' statements)."
    )
    language_ok: bool = Field(True, description="The model's last text was in the report's language.")
    passages_unread: list[UnreadPassage] = Field(
        default_factory=list,
        description="Retrieved passages the model could not read (its extraction answers stayed invalid or "
        "were cut), over all rounds and passes; one read in a later round is no longer listed.",
    )
    extraction_failures: int = Field(0, description="Extraction calls whose answer stayed invalid or cut.")
