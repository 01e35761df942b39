"""What the model answers in the run graph, and the typed payloads of the plan interrupt."""

from __future__ import annotations

from pydantic import BaseModel, Field, create_model


class AssessJudgement(BaseModel):
    """Can the documents answer the question?"""

    answerable: bool = Field(description="The passages hold what is needed to answer it.")
    needs_live_data: bool = Field(description="It asks for live or current data no document can hold.")
    reason: str = Field(description="Why, in one or two sentences.")
    corpus_covers: list[str] = Field(
        default_factory=list, max_length=6, description="Topics the passages cover."
    )


class TaskDraft(BaseModel):
    title: str = Field(min_length=1)
    description: str = ""
    queries: list[str] = Field(min_length=1, max_length=3, description="In the user's language.")
    corpus_queries: list[str] = Field(default_factory=list, max_length=3, description="In the documents'.")


def plan_schema(min_tasks: int, max_tasks: int) -> type[BaseModel]:
    """{tasks: [TaskDraft]} with as many tasks as the plan may have besides the direct one."""
    return create_model(
        "PlanDraft",
        tasks=(list[TaskDraft], Field(min_length=min_tasks, max_length=max_tasks)),
    )


class TaskEdit(BaseModel):
    """A task as the user leaves it: an existing id keeps its queries unless its title changed."""

    id: str | None = None
    title: str = Field(min_length=1, max_length=500)
    description: str = Field("", max_length=2000)
    queries: list[str] | None = Field(None, max_length=6)

    model_config = {"extra": "forbid"}


class PlanDecision(BaseModel):
    """The answer to the plan interrupt: ``tasks`` None approves the plan as proposed; a list is the
    edited plan (order, removals, additions, new titles)."""

    tasks: list[TaskEdit] | None = None

    model_config = {"extra": "forbid"}
