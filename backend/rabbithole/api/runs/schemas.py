"""Request and response bodies of the run endpoints. What a run produces is ``research/models.py``'s
(``ResearchResult``, ``RunSummary``), shared with the CLI; these are the API's own envelopes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from rabbithole.core.errors import InvalidRequestError, RunStateError
from rabbithole.research.context import RunOverrides
from rabbithole.research.event_models import TodoItem
from rabbithole.research.interrupts import Interrupt
from rabbithole.research.models import ResearchResult, RunMode, RunStatus, RunSummary
from rabbithole.research.report.schemas import OutlineAnswer
from rabbithole.research.run.schemas import TaskEdit


class CreateRun(BaseModel):
    question: str = Field(min_length=1, max_length=4000, description="The question (report mode: the topic).")
    collections: list[str] = Field(min_length=1, max_length=20)
    mode: RunMode = "interactive"
    settings: RunOverrides = Field(default_factory=RunOverrides, description="Per-run overrides.")
    guidance: str | None = Field(
        None, max_length=4000, description="Report mode: audience, length, required sections."
    )
    sections: list[str] | None = Field(
        None, max_length=12, description="Report mode: sections the outline should have (titles)."
    )
    refinement_rounds: int | None = Field(None, ge=0, le=5, description="Report mode: review rounds.")
    private: bool = Field(
        False,
        description="Accounts mode: only the account that starts the run (and administrators) see it; "
        "otherwise the members of all its collections do too. Ignored in the other modes.",
    )

    model_config = {"extra": "forbid"}

    def overrides(self) -> RunOverrides:
        """The settings with the report fields (which the run records with its overrides)."""
        report = {
            "guidance": self.guidance,
            "sections": self.sections,
            "refinement_rounds": self.refinement_rounds,
        }
        given = {k: v for k, v in report.items() if v is not None}
        return self.settings.model_copy(update=given) if given else self.settings


class RunCreated(BaseModel):
    run_id: str = Field(description="The LangGraph thread id.")
    status: RunStatus


class ClarificationAnswer(BaseModel):
    """The answer to a clarification interrupt; "/end" ends clarification."""

    answer: str = Field(min_length=1, max_length=4000)

    model_config = {"extra": "forbid"}


class PlanAnswer(BaseModel):
    """The answer to the plan interrupt: ``tasks`` null approves the plan as proposed; a list is the edited
    plan (order, removals, additions, new titles)."""

    tasks: list[TaskEdit] | None = Field(description="null: approve as proposed.")

    model_config = {"extra": "forbid"}


class ContinueRun(BaseModel):
    """No answer: continue a run that stopped (error, cancelled, interrupted by a restart)."""

    model_config = {"extra": "forbid"}


ResumeBody = ClarificationAnswer | PlanAnswer | OutlineAnswer | ContinueRun


class RunPage(BaseModel):
    items: list[RunSummary]
    total: int
    limit: int
    offset: int


class RunDetail(BaseModel):
    run: RunSummary
    mode: RunMode
    overrides: dict[str, Any]
    todo: list[TodoItem] = Field(description="The plan's tasks and their state, from the run's events.")
    interrupt: Interrupt | None = Field(None, description="The pending interrupt's payload, by ``kind``.")
    warnings: list[str]
    llm_calls: dict[str, int] = Field(description="LLM requests so far, by kind.")
    last_event: int = Field(description="Number of the run's last event (for ?after= / Last-Event-ID).")
    result: ResearchResult | None = Field(None, description="The report, once done.")


class RunDeleted(BaseModel):
    run_id: str
    deleted: Literal[True] = True


def check_fits(run_id: str, interrupt: dict[str, Any] | None, body: ResumeBody) -> None:
    """Whether ``body`` answers the pending ``interrupt`` (409 when none is pending, 422 when it does not
    fit)."""
    expected: dict[str, type[ClarificationAnswer | PlanAnswer | OutlineAnswer]] = {
        "clarification": ClarificationAnswer,
        "plan": PlanAnswer,
        "outline": OutlineAnswer,
    }
    if interrupt is None:
        if isinstance(body, ClarificationAnswer | PlanAnswer | OutlineAnswer):
            raise RunStateError(f"run {run_id} does not wait for input; send {{}} to continue it")
        return
    kind = str(interrupt.get("kind", ""))
    wanted = expected.get(kind)
    if wanted is None or not isinstance(body, wanted):
        shape = {
            "clarification": '{"answer": "..."}',
            "plan": '{"tasks": null | [...]}',
            "outline": '{"action": "approve" | "edit" | "feedback", "sections"?, "feedback"?}',
        }.get(kind, "{}")
        raise InvalidRequestError(
            f"run {run_id} waits for a {kind} answer ({shape}); the payload does not fit it"
        )
