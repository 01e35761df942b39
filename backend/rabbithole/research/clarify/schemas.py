"""What the model answers in clarification (validated; see llm_step for invalid output)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class ClarifyQueries(BaseModel):
    """Search queries for one clarification round."""

    queries: list[str] = Field(min_length=1, max_length=5, description="In the user's language.")
    corpus_queries: list[str] = Field(
        default_factory=list, max_length=5, description="The same searches in the documents' language."
    )


class ClarifyAnalysis(BaseModel):
    """Coverage of the question by what the corpus returned, and grounded follow-up questions."""

    understanding: str = Field(min_length=1, description="The current understanding of the question.")
    coverage: float = Field(ge=0.0, le=1.0, description="How well the passages cover the question.")
    gaps: list[str] = Field(default_factory=list, max_length=6, description="Knowledge gaps.")
    questions: list[str] = Field(min_length=2, max_length=3, description="Follow-up questions for the user.")


class AnchorDraft(BaseModel):
    """The query anchor and research queries, from the question and the conversation."""

    key_entities: list[str] = Field(min_length=1, max_length=10)
    scope: str
    refinements: list[str] = Field(default_factory=list, max_length=10)
    research_queries: list[str] = Field(min_length=1, max_length=6, description="In the user's language.")
    corpus_queries: list[str] = Field(
        default_factory=list, max_length=6, description="In the documents' language."
    )
    summary: str = Field(description="Summary of the clarification conversation for the report writer.")
