"""The progress events the research graphs emit (``events.emit``), one Pydantic model per event type,
discriminated by ``type``. Report mode's are in ``report/event_models.py``; the runner adds its own
(``runs/run_events.py``). The API publishes them all, with the fields every event carries
(``api/runs/event_schemas.py``), in its OpenAPI document, from which the web app's types are generated: a
field renamed here breaks mypy at the emitter and tsc in the app.

Fields a step does not report are null (every field is always sent)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rabbithole.research.evidence.citations import DraftClaim
from rabbithole.research.models import Assessment, ClarificationRound, Phase, TaskSpec, TaskState


class GraphEvent(BaseModel):
    """An event a graph emits (``events.emit``): its ``type`` tells which."""

    model_config = ConfigDict(
        extra="forbid", populate_by_name=True, json_schema_serialization_defaults_required=True
    )


class PhaseEvent(GraphEvent):
    """The run entered a phase."""

    type: Literal["phase"] = "phase"
    phase: Phase


class LanguageEvent(GraphEvent):
    """The question's language and the language most of the collections' documents are written in."""

    type: Literal["language"] = "language"
    language: str
    corpus_language: str


class ClarificationEvent(GraphEvent):
    """A clarification round: its questions and what the corpus returned (the interrupt follows)."""

    type: Literal["clarification"] = "clarification"
    round: ClarificationRound


class AssessmentView(BaseModel):
    """What one search view of the assessment found."""

    kind: Literal["question", "translation", "glossary"]
    query: str
    best_similarity: float
    candidates: int


class AssessmentEvent(Assessment, GraphEvent):
    """Whether the corpus can answer the question, and the retrieval figures behind the verdict."""

    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    type: Literal["assessment"] = "assessment"
    candidates: int = 0
    views: list[AssessmentView] = Field(default_factory=list)
    translations_dropped: int = 0


class PlanEvent(GraphEvent):
    """The proposed plan (an interactive run asks for its approval next)."""

    type: Literal["plan"] = "plan"
    tasks: list[TaskSpec]


class TodoItem(BaseModel):
    id: str
    title: str
    state: TaskState


class TodoEvent(GraphEvent):
    """The approved plan's tasks and their state."""

    type: Literal["todo"] = "todo"
    tasks: list[TodoItem]


TaskStep = Literal[
    "searching",
    "searched",
    "following_references",
    "followed_references",
    "extracting",
    "summarizing",
    "failed",
    "done",
]


class TaskProgressEvent(GraphEvent):
    """A step of a task's dig and the figures it reports (the others are null)."""

    type: Literal["task_progress"] = "task_progress"
    task_id: str
    step: TaskStep
    state: TaskState | None = None
    queries: list[str] | None = Field(None, description="searched: the queries of every search view.")
    passages: int | None = Field(None, description="searched: passages found; followed_references: to read.")
    dropped_corpus_queries: int | None = Field(None, description="searched: corpus queries not searched.")
    followed: int | None = None
    skipped: int | None = None
    batch: int | None = Field(None, description="extracting: the batch's number, from 1.")
    evidence: int | None = Field(None, description="done: findings kept.")
    error: str | None = Field(None, description="failed: why.")


class ReferencePlace(BaseModel):
    """A place of the reference graph: a document, a section of it where known, and the page it starts on
    (the app's reference graph opens it in its viewer)."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    collection: str
    document: str
    section: str | None = None
    page: int | None = Field(
        None, description="The page the passage or section starts on; None: the document as a whole."
    )


class ReferenceFollowedEvent(GraphEvent):
    """A reference the gate judged (``follow``) from one passage to another document or section; only the
    followed ones are emitted (``dig/followed.py`` builds them)."""

    type: Literal["reference_followed"] = "reference_followed"
    task_id: str
    from_: ReferencePlace = Field(alias="from")
    mention: str
    to: ReferencePlace
    follow: bool
    depth: int


class WarningEvent(GraphEvent):
    type: Literal["warning"] = "warning"
    message: str


class DraftSectionEvent(GraphEvent):
    """A report section as the model wrote it (its claims cite evidence ids; only the final report maps
    them to sources)."""

    type: Literal["draft_section"] = "draft_section"
    index: int
    heading: str
    task_id: str
    attempt: int = Field(description="1: the first version; 2: the rewrite of the remediation pass.")
    truncated: bool = Field(description="The answer was cut at its output limit (complete sentences kept).")
    claims: list[DraftClaim]


class RemediationEvent(GraphEvent):
    """The quality check failed: the issues the sections are rewritten for."""

    type: Literal["remediation"] = "remediation"
    issues: list[str]
