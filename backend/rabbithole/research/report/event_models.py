"""The progress events of report mode (``outline``, ``section``); the others are in
``research/event_models.py``."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from rabbithole.research.event_models import GraphEvent
from rabbithole.research.report.models import SectionSpec


class OutlineEvent(GraphEvent):
    """Report mode: the proposed outline (the outline interrupt follows)."""

    type: Literal["outline"] = "outline"
    sections: list[SectionSpec]
    round: int


SectionState = Literal["researching", "searching_web", "writing", "graded", "refining", "done", "refined"]


class SectionEvent(GraphEvent):
    """Report mode: a section's progress (the figures of its state; the others are null)."""

    type: Literal["section"] = "section"
    section_id: str
    title: str
    state: SectionState
    round: int | None = Field(None, description="researching, graded: the search round, from 1.")
    refinement: int | None = Field(None, description="researching: the refinement pass, 0 the first.")
    evidence: int | None = None
    passed: bool | None = Field(None, description="graded, done, refined: the latest grade.")
    queries: list[str] | None = Field(None, description="searching_web: its queries.")
    instructions: str | None = Field(None, description="refining: what the reviewer asked for.")
