"""The payload of a run's pending interrupt, discriminated by ``kind``: a clarification round, the plan or
(report mode) the outline. The graphs interrupt with these models' JSON; GET /api/runs/{id} shows it as
``interrupt``, and the ``interrupt`` event carries it."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, TypeAdapter
from typing_extensions import TypeAliasType

from rabbithole.research.models import ClarificationInterrupt, PlanProposal
from rabbithole.research.report.models import OutlineProposal

#: A named type in the OpenAPI document (``Interrupt``).
Interrupt = TypeAliasType(
    "Interrupt",
    Annotated[ClarificationInterrupt | PlanProposal | OutlineProposal, Field(discriminator="kind")],
)
_INTERRUPT: TypeAdapter[Interrupt] = TypeAdapter(Interrupt)


def interrupt_of_payload(payload: dict[str, Any] | None) -> Interrupt | None:
    """The pending interrupt as its model (the graphs hold its JSON)."""
    return None if payload is None else _INTERRUPT.validate_python(payload)
