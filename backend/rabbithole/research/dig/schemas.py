"""What the model answers while digging. Schemas that carry ids are built per call with the ids the model
may use (an enum), so structured output constrains a real model to them and the fake picks among them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model


class TaskQueries(BaseModel):
    """Search queries for a task the user added without queries."""

    queries: list[str] = Field(min_length=1, max_length=4, description="In the user's language.")
    corpus_queries: list[str] = Field(default_factory=list, max_length=4, description="In the documents'.")


class TaskSummaryDraft(BaseModel):
    findings: list[str] = Field(default_factory=list, max_length=12, description="What answers the task.")
    gaps: list[str] = Field(default_factory=list, max_length=8, description="What the evidence leaves open.")
    related: list[str] = Field(
        default_factory=list, max_length=8, description="Related findings that do not answer the task."
    )


def _choice(values: Sequence[Any]) -> Any:
    return Literal[tuple(values)]  # type: ignore[valid-type]


def gate_schema(count: int) -> type[BaseModel]:
    """{decisions: [{index, follow, reason}]} with index one of the candidates shown."""
    decision = create_model(
        "GateDecision",
        index=(_choice(list(range(count))), Field(description="The candidate's number.")),
        follow=(bool, Field(description="Follow this reference?")),
        reason=(str, Field(description="Why, in a few words.")),
    )
    return create_model("ReferenceGate", decisions=(list[decision], Field(max_length=count)))  # type: ignore[valid-type]


def extraction_schema(numbers: Sequence[int], max_findings: int = 12) -> type[BaseModel]:
    """{findings: [{fact, sentences, answers}]} with sentences among the numbers shown."""
    sentence_list: Any = list[_choice(list(numbers))]  # type: ignore[misc]
    finding = create_model(
        "Finding",
        fact=(str, Field(description="The finding in one sentence, in your own words.")),
        sentences=(
            sentence_list,
            Field(min_length=1, max_length=8, description="Numbers of the sentences that state it."),
        ),
        answers=(bool, Field(description="Does it answer the task (false: related only)?")),
    )
    return create_model(
        "Extraction",
        findings=(list[finding], Field(max_length=max_findings)),  # type: ignore[valid-type]
    )
