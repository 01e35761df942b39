"""The events the runner emits beside the graphs' (``research/event_models.py``), one Pydantic model per
event type, discriminated by ``type``: the run's ``status``, its pending ``interrupt`` (the interrupt's
payload, discriminated by ``kind``, with the event's ``type``), its ``report``, its ``error`` and ``done``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from rabbithole.research.models import ClarificationInterrupt, PlanProposal, ResearchResult, RunStatus
from rabbithole.research.report.models import OutlineProposal


class StatusEvent(BaseModel):
    """The run's status changed (written with it); ``phase`` is the run's phase then ("" before the
    first)."""

    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    type: Literal["status"] = "status"
    status: RunStatus
    phase: str
    error: str | None = Field(None, description="The reason of a run in error.")


class ClarificationInterruptEvent(ClarificationInterrupt):
    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    type: Literal["interrupt"] = "interrupt"


class PlanInterruptEvent(PlanProposal):
    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    type: Literal["interrupt"] = "interrupt"


class OutlineInterruptEvent(OutlineProposal):
    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    type: Literal["interrupt"] = "interrupt"


#: The run waits for input: the pending interrupt's payload (``research/interrupts.py``) as an event.
InterruptEvent = Annotated[
    ClarificationInterruptEvent | PlanInterruptEvent | OutlineInterruptEvent, Field(discriminator="kind")
]

_INTERRUPT_EVENT: TypeAdapter[InterruptEvent] = TypeAdapter(InterruptEvent)


def interrupt_event(payload: dict[str, Any]) -> InterruptEvent:
    """The event of a pending interrupt, from its payload as the graph holds it (``kind`` and its fields)."""
    return _INTERRUPT_EVENT.validate_python({**payload, "type": "interrupt"})


class ReportEvent(BaseModel):
    """The run's checked report (written with the run's ``done`` status)."""

    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    type: Literal["report"] = "report"
    result: ResearchResult


class ErrorEvent(BaseModel):
    """The run failed: why, and how to resume it."""

    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    type: Literal["error"] = "error"
    message: str


class DoneEvent(BaseModel):
    """The run ended: it finished (``done``) or was cancelled (``cancelled``); its stream ends."""

    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    type: Literal["done"] = "done"
    status: Literal["done", "cancelled"] = "done"


#: Every event the runner emits itself.
RunnerEvent = (
    StatusEvent
    | ClarificationInterruptEvent
    | PlanInterruptEvent
    | OutlineInterruptEvent
    | ReportEvent
    | ErrorEvent
    | DoneEvent
)
