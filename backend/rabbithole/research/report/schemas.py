"""What the model answers in report mode, and the typed answer to the outline interrupt. Schemas that
carry ids are built per call with the ids the model may use (an enum)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, create_model, model_validator


def _choice(values: Sequence[str]) -> Any:
    return Literal[tuple(values)]  # type: ignore[valid-type]


class SectionDraft(BaseModel):
    title: str = Field(min_length=1, description="Section heading.")
    description: str = Field("", description="What the section covers, in one or two sentences.")
    research: bool = Field(
        description="True: researched in the documents; false: an introduction, conclusion or summary "
        "written from the researched sections."
    )
    questions: list[str] = Field(
        default_factory=list, max_length=3, description="What it answers (search queries), user's language."
    )
    corpus_queries: list[str] = Field(
        default_factory=list, max_length=3, description="The same searches in the documents' language."
    )


def outline_schema(min_sections: int, max_sections: int) -> type[BaseModel]:
    """{title, sections: [SectionDraft]} with as many sections as an outline may have."""
    return create_model(
        "OutlineDraft",
        title=(str, Field(description="Title of the report.")),
        sections=(list[SectionDraft], Field(min_length=min_sections, max_length=max_sections)),
    )


def section_schema(
    evidence_ids: Sequence[str], max_claims: int = 12, *, name: str = "SectionText"
) -> type[BaseModel]:
    """{claims: [{text, evidence: [id]}]} with ids among the evidence shown ({claims: [{text}]} without)."""
    if not evidence_ids:
        bare = create_model("SectionClaim", text=(str, Field(description="One sentence of the section.")))
        return create_model(
            name,
            claims=(list[bare], Field(min_length=1, max_length=max_claims)),  # type: ignore[valid-type]
        )
    id_list: Any = list[_choice(evidence_ids)]  # type: ignore[misc]
    claim = create_model(
        "SectionClaim",
        text=(str, Field(description="One sentence of the section, without citation marks.")),
        evidence=(id_list, Field(max_length=5, description="Ids of the evidence that supports it.")),
    )
    return create_model(
        name,
        claims=(list[claim], Field(min_length=1, max_length=max_claims)),  # type: ignore[valid-type]
    )


class SectionGradeJudgement(BaseModel):
    """Does the section's draft cover what the section is for?"""

    passed: bool = Field(description="The draft covers the section's questions with the evidence.")
    missing: list[str] = Field(default_factory=list, max_length=5, description="What it leaves open.")
    follow_up_queries: list[str] = Field(
        default_factory=list, max_length=3, description="Searches that would find what is missing."
    )
    corpus_queries: list[str] = Field(
        default_factory=list, max_length=3, description="The same searches in the documents' language."
    )


def review_schema(section_ids: Sequence[str]) -> type[BaseModel]:
    """{improve: [{section, instructions, queries}]} naming research sections only."""
    target = create_model(
        "ReviewItem",
        section=(_choice(section_ids), Field(description="The id of a section to improve.")),
        instructions=(str, Field(description="What to improve in it.")),
        queries=(list[str], Field(max_length=3, description="Searches that would find what it lacks.")),
    )
    return create_model(
        "ReportReview",
        improve=(list[target], Field(max_length=len(section_ids))),  # type: ignore[valid-type]
    )


#: The most questions an edited section may have, and the longest one.
MAX_SECTION_QUESTIONS = 6
MAX_QUESTION_LENGTH = 500


class SectionEdit(BaseModel):
    """A section as the user leaves it. ``questions``: what it is searched for (blank and repeated ones
    dropped; none left: its title). Left out, a kept section (same id and title) keeps its questions, and a
    renamed or added one is searched under its title."""

    id: str | None = None
    title: str = Field(min_length=1, max_length=500)
    description: str = Field("", max_length=2000)
    research: bool = True
    questions: list[Annotated[str, Field(max_length=MAX_QUESTION_LENGTH)]] | None = Field(
        None, max_length=MAX_SECTION_QUESTIONS
    )

    model_config = {"extra": "forbid"}


class OutlineAnswer(BaseModel):
    """The answer to the outline interrupt: ``approve`` the outline as proposed, ``edit`` it (the edited
    sections: rename, reorder, add, remove, toggle research; approved as edited), or send ``feedback`` text,
    which re-plans the outline with it."""

    action: Literal["approve", "edit", "feedback"]
    sections: list[SectionEdit] | None = Field(None, max_length=20, description="action edit: the sections.")
    feedback: str | None = Field(None, max_length=4000, description="action feedback: what to change.")

    model_config = {"extra": "forbid"}

    @model_validator(mode="after")
    def _fits_action(self) -> OutlineAnswer:
        if self.action == "edit" and self.sections is None:
            raise ValueError("an edit needs the sections")
        if self.action == "feedback" and not (self.feedback or "").strip():
            raise ValueError("feedback needs a text")
        if self.action != "edit" and self.sections is not None:
            raise ValueError(f"'{self.action}' takes no sections")
        if self.action != "feedback" and self.feedback is not None:
            raise ValueError(f"'{self.action}' takes no feedback")
        return self
