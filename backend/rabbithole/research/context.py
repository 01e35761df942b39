"""The runtime context of the research graphs (LangGraph ``context_schema``): the services a run uses.

Built per run by the runner from the composition root (``Services``); nodes receive it as
``runtime.context`` and never reach for globals (nor for run storage: the runs layer, ``runs/``, owns it).
Per-run overrides (depth, k, model, ...) are already
applied to the settings here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel, Field

from rabbithole.research.readings import RunReadings

if TYPE_CHECKING:
    from rabbithole.catalog.repository import Catalog
    from rabbithole.core.config import ReportSettings, ResearchSettings
    from rabbithole.embeddings.base import Embedder
    from rabbithole.embeddings.memo import TextVectors
    from rabbithole.llm.factory import LLMClient
    from rabbithole.references.tracing import ReferenceEngine
    from rabbithole.research.language import LanguageDetector
    from rabbithole.research.models import Evidence
    from rabbithole.retrieval.hybrid import HybridSearcher


class RunOverrides(BaseModel):
    """Settings a run may override (API body, CLI options); None keeps the configured value."""

    depth: int | None = Field(None, ge=0, le=10, description="Reference hops followed per task.")
    k: int | None = Field(None, ge=1, le=100, description="Search hits per query and collection.")
    model: str | None = Field(None, min_length=1, description="Chat model for this run.")
    concurrency: int | None = Field(None, ge=1, le=32, description="Tasks dug in parallel.")
    max_tasks: int | None = Field(None, ge=1, le=15, description="Tasks the proposed plan has at most.")
    max_clarify_rounds: int | None = Field(None, ge=1, le=20, description="Clarification rounds at most.")
    guidance: str | None = Field(
        None, max_length=4000, description="Report mode: audience, length, required sections."
    )
    sections: list[str] | None = Field(
        None, max_length=12, description="Report mode: sections the outline should have (titles)."
    )
    refinement_rounds: int | None = Field(None, ge=0, le=5, description="Report mode: review rounds.")
    max_search_depth: int | None = Field(
        None, ge=0, le=5, description="Report mode: searches again on a failing section grade."
    )

    model_config = {"extra": "forbid"}


class WebResearch(Protocol):
    """Optional web research for a report section (off by default: the context's ``web`` is None): the
    section's queries in its language -> web evidence (verbatim passages of fetched pages, ids prefixed
    with ``task_id``, ``collection`` "web") and warnings. Failures are warnings, never evidence."""

    def __call__(
        self, queries: Sequence[str], language: str, task_id: str, /
    ) -> Awaitable[tuple[list[Evidence], list[str]]]: ...


@dataclass(frozen=True, slots=True)
class ResearchContext:
    run_id: str  # the run (and its LangGraph thread): results name it
    llm: LLMClient
    searcher: HybridSearcher
    embedder: Embedder
    catalog: Catalog
    reference_engine: Callable[[str], ReferenceEngine]
    detector: LanguageDetector
    settings: ResearchSettings
    depth: int
    report: ReportSettings | None = None  # report mode (None: the configured defaults)
    web: WebResearch | None = None  # report mode: a section also searches the web (None: off)
    vectors: TextVectors | None = None  # report mode: texts embedded early for the support check
    readings: RunReadings = field(default_factory=RunReadings)  # each passage read once per run
    ocr_low_confidence: float = 80.0  # sources from OCR pages read with less confidence are marked
