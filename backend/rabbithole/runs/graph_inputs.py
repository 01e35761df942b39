"""What a run's graph is given and what it answers with: its runtime context (the services, the settings with
the run's overrides applied, the run's id), its input, its config, and the payload of its pending interrupt.

    context = research_context(services, record)
    config = graph_config(record.id, context)
    state = graph_input(record, context)              # a run that has not started
    pending = interrupt_of(await graph.aget_state(config))
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rabbithole.embeddings.memo import TextVectors
from rabbithole.research.context import ResearchContext
from rabbithole.runs.store import RunRecord

if TYPE_CHECKING:
    from rabbithole.services import Services

#: Supersteps a run may take (clarification rounds and extraction batches loop).
RECURSION_LIMIT = 400


def research_context(services: Services, record: RunRecord) -> ResearchContext:
    """The run's runtime context: its overrides (validated when it was created) applied to the settings."""
    overrides = record.settings()
    research = services.settings.research
    changed = {
        key: value
        for key, value in overrides.model_dump(exclude_none=True).items()
        if key in ("k", "concurrency", "max_tasks", "max_clarify_rounds")
    }
    if changed:
        research = research.model_copy(update=changed)
        research = research.model_copy(update={"min_tasks": min(research.min_tasks, research.max_tasks)})
    depth = overrides.depth if overrides.depth is not None else services.settings.references.max_depth
    report = services.settings.report_mode
    report_changed = {
        key: value
        for key, value in overrides.model_dump(exclude_none=True).items()
        if key in ("refinement_rounds", "max_search_depth")
    }
    if report_changed:
        report = report.model_copy(update=report_changed)
    web = None
    if record.mode == "report":  # optional web research for the sections (off unless configured)
        searcher = services.web_searcher
        if searcher is not None:
            from rabbithole.web.research import web_evidence_search

            web = web_evidence_search(searcher)
    return ResearchContext(
        run_id=record.id,
        llm=services.llm_for(overrides.model),
        searcher=services.searcher,
        embedder=services.embedder,
        catalog=services.catalog,
        reference_engine=services.reference_engine,
        detector=services.language_detector,
        settings=research,
        depth=depth,
        report=report,
        web=web,
        vectors=TextVectors(services.embedder) if record.mode == "report" else None,
        ocr_low_confidence=services.settings.ingestion.ocr.low_confidence,
    )


def graph_config(run_id: str, context: ResearchContext) -> dict[str, Any]:
    """The run's LangGraph config: its thread (the run's id), concurrency and recursion limit."""
    return {
        "configurable": {"thread_id": run_id},
        "max_concurrency": context.settings.concurrency,
        "recursion_limit": RECURSION_LIMIT,
    }


def graph_input(record: RunRecord, context: ResearchContext) -> dict[str, Any]:
    """The input of a run that has not started."""
    state: dict[str, Any] = {
        "question": record.question,
        "collections": record.collections,
        "mode": record.mode,
    }
    if record.mode == "report":
        overrides = record.settings()
        rounds = context.report.refinement_rounds if context.report is not None else 1
        state |= {
            "guidance": overrides.guidance or "",
            "sections_hint": list(overrides.sections or []),
            "refinement_rounds": rounds,
        }
    return state


def interrupt_of(snapshot: Any) -> dict[str, Any] | None:
    """The payload of the pending interrupt (the run graph's or a subgraph's), if any."""
    for item in getattr(snapshot, "interrupts", ()) or ():
        value = getattr(item, "value", None)
        if isinstance(value, dict):
            return value
    for task in getattr(snapshot, "tasks", ()) or ():
        for item in getattr(task, "interrupts", ()) or ():
            value = getattr(item, "value", None)
            if isinstance(value, dict):
                return value
    return None
