"""Compiling the report: the sections in outline order, guarded and measured (``checking``: a section whose
model text is unusable assembled from its findings, labelled), with one global citation numbering, the
table of contents, the sources (document, page, section, verified quote, reference chain), the support
check of every cited sentence (the research run's attribution), the measured checks and the result."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from rabbithole.research import events
from rabbithole.research.context import ResearchContext
from rabbithole.research.dig.extraction import unread_error
from rabbithole.research.evidence.citations import DraftSection, render_sources
from rabbithole.research.evidence.ocr_pages import ocr_pages
from rabbithole.research.export.labels import labels as export_labels
from rabbithole.research.models import ReportSectionView, TaskResult, TaskSummary, token_use
from rabbithole.research.report import assembly, prompts
from rabbithole.research.report.checking import checked_report
from rabbithole.research.report.models import SectionResult
from rabbithole.research.report.state import ReportState
from rabbithole.research.synthesis.attribution import build_result
from rabbithole.research.synthesis.prompts import labels as synthesis_labels

NO_RESEARCH = "no section was researched: the report cites no sources"


async def compile_report(state: ReportState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O (embedder): the report and its sources; citations outside the run's evidence are removed. The
    sections are guarded together, the research sections measured, and one whose model text is unusable
    is assembled from its findings, labelled (``checking``)."""
    ctx = runtime.context
    events.phase("compile")
    language = state["language"]
    done = state.get("sections_done", {})
    ordered = [done[s.id] for s in state["outline"] if s.id in done]
    mapping, evidence = assembly.canonical_ids([r.evidence for r in ordered])
    checked = checked_report(state["title"], ordered, mapping, question=state["question"], language=language)
    for note in checked.notes:
        events.warning(note)
    names, own = synthesis_labels(language), prompts.labels(language)
    tasks = [task_result(r) for r in ordered if r.section.research]
    notes = checked.notes + ([] if tasks else [NO_RESEARCH])
    run_id = ctx.run_id
    attribution_state = {
        "language": language,
        "question": state["question"],
        "title": checked.title,
        "sections": [d for _, d in checked.sections],
        "text_guards": checked.guards,
        "checks": checked.checks,
        "assembled": checked.assembled,
        "task_results": tasks,
        "notes": notes,
    }
    ocr = await asyncio.to_thread(ocr_pages, ctx.catalog, evidence, ctx.ocr_low_confidence)
    result = await asyncio.to_thread(
        build_result,
        run_id=run_id,
        state=attribution_state,
        evidence=evidence,
        embed=ctx.vectors.embed if ctx.vectors is not None else ctx.embedder.embed_documents,
        support_threshold=ctx.settings.support_threshold,
        unmarked={own["no_evidence"], *checked.statements},
        ocr=ocr,
    )
    mark = names["uncited"]

    def markdown(draft: DraftSection) -> str:
        return assembly.section_markdown(draft.heading, result.claims, uncited_mark=mark, note=draft.note)

    headings = [d.heading for _, d in checked.sections]
    blocks = [f"# {checked.title}", assembly.table_of_contents(headings, own["contents"])]
    blocks += [markdown(d) for _, d in checked.sections]
    words = export_labels(language)
    sources = render_sources(
        result.sources,
        heading=names["sources"],
        page_label=names["page"],
        weak_label=words["weak"],
        chain_label=words["chain"],
        ocr_low_label=words["ocr_low"],
    )
    if sources:
        blocks.append(sources)
    views = [
        ReportSectionView(
            id=r.section.id,
            title=d.heading,
            research=r.section.research,
            markdown=markdown(d),
            grade=r.grade,
            rounds=r.rounds,
            refined=r.refined,
            evidence=len(r.evidence),
        )
        for r, d in checked.sections
    ]
    final = result.model_copy(update={"report_markdown": "\n\n".join(blocks), "sections": views})
    return {"result": final, "warnings": result.warnings}


def task_result(r: SectionResult) -> TaskResult:
    """A research section as a task of the result; one that found nothing because the model could not
    read its passages is in its error state, with that reason (as the research run's tasks)."""
    error = unread_error(r.passages_unread, r.passages) if not r.evidence else None
    return TaskResult(
        task_id=r.section.id,
        title=r.section.title,
        state="error" if error else "done",
        passages=r.passages,
        retrieved=r.retrieved,
        references_followed=r.references_followed,
        evidence=r.evidence,
        summary=TaskSummary(gaps=r.grade.missing if r.grade is not None else []),
        warnings=r.warnings,
        error=error,
        extraction_failures=r.extraction_failures,
        passages_unread=r.passages_unread,
    )


def finish(state: ReportState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """The result with every warning of the run, the LLM calls by kind and the retrieved passages."""
    result = state["result"]
    done = state.get("sections_done", {})
    warnings = list(dict.fromkeys([*state.get("warnings", []), *result.warnings]))
    retrieved = sorted({cid for r in done.values() for cid in r.retrieved})
    final = result.model_copy(
        update={
            "warnings": warnings,
            "run_id": runtime.context.run_id,
            "llm_calls": dict(state.get("llm_calls", {})),
            "llm_tokens": token_use(state.get("llm_tokens", {})),
            "retrieved_chunks": retrieved,
        }
    )
    events.phase("done")
    return {"result": final}
