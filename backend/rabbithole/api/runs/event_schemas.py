"""The server-sent events of the run endpoints, as the OpenAPI document publishes them (the web app's types
are generated from it):

- ``RunEventPayload``: the ``data`` of a run's event (GET /api/runs/{id}/events), discriminated by ``type``:
  the event as its emitter built it (``research/event_models.py``,
  ``research/report/event_models.py``, ``research/clarify/progress.py``, ``research/synthesis/preview.py``,
  ``runs/run_events.py``) with the fields
  every event carries (``run_id``, ``seq``, ``created_at``); an ``interrupt`` event is further
  discriminated by ``kind``.
- ``RunListChange``: the ``data`` of a run-list change (GET /api/runs/events), discriminated by ``change``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel
from typing_extensions import TypeAliasType

from rabbithole.research import event_models as graph
from rabbithole.research.clarify import progress as clarify
from rabbithole.research.models import RunStatus
from rabbithole.research.report import event_models as report
from rabbithole.research.synthesis import preview
from rabbithole.runs import run_events as runner


class EventEnvelope(BaseModel):
    """What every event of a run carries besides its own fields."""

    run_id: str
    seq: int = Field(description="The event's number in its run, from 1 (the SSE id).")
    created_at: str = Field(description="When it was emitted (ISO 8601).")


class StatusEventPayload(runner.StatusEvent, EventEnvelope):
    pass


class PhaseEventPayload(graph.PhaseEvent, EventEnvelope):
    pass


class LanguageEventPayload(graph.LanguageEvent, EventEnvelope):
    pass


class ClarificationEventPayload(graph.ClarificationEvent, EventEnvelope):
    pass


class AssessmentEventPayload(graph.AssessmentEvent, EventEnvelope):
    pass


class PlanEventPayload(graph.PlanEvent, EventEnvelope):
    pass


class TodoEventPayload(graph.TodoEvent, EventEnvelope):
    pass


class TaskProgressEventPayload(graph.TaskProgressEvent, EventEnvelope):
    pass


class ReferenceFollowedEventPayload(graph.ReferenceFollowedEvent, EventEnvelope):
    pass


class WarningEventPayload(graph.WarningEvent, EventEnvelope):
    pass


class DraftSectionEventPayload(graph.DraftSectionEvent, EventEnvelope):
    pass


class RemediationEventPayload(graph.RemediationEvent, EventEnvelope):
    pass


class ClarificationProgressEventPayload(clarify.ClarificationProgress, EventEnvelope):
    pass


class ClarificationAnswerEventPayload(clarify.ClarificationAnswered, EventEnvelope):
    pass


class DraftTextEventPayload(preview.DraftTextEvent, EventEnvelope):
    pass


class OutlineEventPayload(report.OutlineEvent, EventEnvelope):
    pass


class SectionEventPayload(report.SectionEvent, EventEnvelope):
    pass


class ClarificationInterruptEventPayload(runner.ClarificationInterruptEvent, EventEnvelope):
    pass


class PlanInterruptEventPayload(runner.PlanInterruptEvent, EventEnvelope):
    pass


class OutlineInterruptEventPayload(runner.OutlineInterruptEvent, EventEnvelope):
    pass


class ReportEventPayload(runner.ReportEvent, EventEnvelope):
    pass


class ErrorEventPayload(runner.ErrorEvent, EventEnvelope):
    pass


class DoneEventPayload(runner.DoneEvent, EventEnvelope):
    pass


#: The ``interrupt`` event: the pending interrupt's payload, by ``kind``.
InterruptEventPayload = TypeAliasType(
    "InterruptEventPayload",
    Annotated[
        ClarificationInterruptEventPayload | PlanInterruptEventPayload | OutlineInterruptEventPayload,
        Field(discriminator="kind"),
    ],
)


class RunEventPayload(
    RootModel[
        Annotated[
            StatusEventPayload
            | PhaseEventPayload
            | LanguageEventPayload
            | ClarificationEventPayload
            | ClarificationProgressEventPayload
            | ClarificationAnswerEventPayload
            | AssessmentEventPayload
            | PlanEventPayload
            | TodoEventPayload
            | TaskProgressEventPayload
            | ReferenceFollowedEventPayload
            | WarningEventPayload
            | DraftTextEventPayload
            | DraftSectionEventPayload
            | RemediationEventPayload
            | OutlineEventPayload
            | SectionEventPayload
            | InterruptEventPayload
            | ReportEventPayload
            | ErrorEventPayload
            | DoneEventPayload,
            Field(discriminator="type"),
        ]
    ]
):
    """The ``data`` of one event of a run's stream, by ``type``."""


class _Change(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)


class ReadyChange(_Change):
    """The first event of the stream: subscribed (changes from now on come)."""

    change: Literal["ready"] = "ready"


class RunStateChange(_Change):
    """A run's status or phase changed."""

    change: Literal["status", "phase"]
    run_id: str
    status: RunStatus
    phase: str
    seq: int = Field(description="Numbers the changes of this server process.")


class RunDeletedChange(_Change):
    """A run was deleted."""

    change: Literal["deleted"] = "deleted"
    run_id: str
    seq: int


class RunListChange(
    RootModel[Annotated[ReadyChange | RunStateChange | RunDeletedChange, Field(discriminator="change")]]
):
    """The ``data`` of one event of the run list's stream, by ``change``."""
