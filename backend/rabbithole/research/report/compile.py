"""Compiling the report: the sections in outline order with one global citation numbering, the table of
contents, the sources (document, page, section, verified quote, reference chain), the support check of
every cited sentence (the research run's attribution) and the result."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.config import get_config
from langgraph.runtime import Runtime

from rabbithole.research import events
from rabbithole.research.context import ResearchContext
from rabbithole.research.models import ReportSectionView, TaskResult, TaskSummary, token_use
from rabbithole.research.report import assembly, prompts
from rabbithole.research.report.state import ReportState
from rabbithole.research.synthesis.attribution import build_result
from rabbithole.research.synthesis.prompts import labels as synthesis_labels

VIA = {"de": "über", "en": "via"}
NO_RESEARCH = "no section was researched: the report cites no sources"


async def compile_report(state: ReportState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O (embedder): the report and its sources; citations outside the run's evidence are removed."""
    ctx = runtime.context
    events.phase("compile")
    language = state["language"]
    done = state.get("sections_done", {})
    ordered = [done[s.id] for s in state["outline"] if s.id in done]
    mapping, evidence = assembly.canonical_ids([r.evidence for r in ordered])
    guarded = assembly.guarded_report(
        state["title"],
        ordered,
        assembly.merged_drafts(ordered, mapping),
        question=state["question"],
        language=language,
    )
    names, own = synthesis_labels(language), prompts.labels(language)
    tasks = [
        TaskResult(
            task_id=r.section.id,
            title=r.section.title,
            passages=r.passages,
            retrieved=r.retrieved,
            references_followed=r.references_followed,
            evidence=r.evidence,
            summary=TaskSummary(gaps=r.grade.missing if r.grade is not None else []),
            warnings=r.warnings,
        )
        for r in ordered
        if r.section.research
    ]
    notes = [] if tasks else [NO_RESEARCH]
    run_id = str(get_config().get("configurable", {}).get("thread_id", ""))
    attribution_state = {
        "language": language,
        "question": state["question"],
        "title": guarded.title,
        "sections": [d for _, d in guarded.sections],
        "text_guards": guarded.counts,
        "task_results": tasks,
        "notes": notes,
    }
    result = await asyncio.to_thread(
        build_result,
        run_id=run_id,
        state=attribution_state,
        evidence=evidence,
        embed=ctx.vectors.embed if ctx.vectors is not None else ctx.embedder.embed_documents,
        support_threshold=ctx.settings.support_threshold,
        unmarked={own["no_evidence"]},
    )
    mark = names["uncited"]
    headings = [d.heading for _, d in guarded.sections]
    blocks = [f"# {guarded.title}", assembly.table_of_contents(headings, own["contents"])]
    blocks += [assembly.section_markdown(h, result.claims, uncited_mark=mark) for h in headings]
    sources = assembly.sources_block(
        result.sources, names["sources"], names["page"], VIA.get(language, "via")
    )
    if sources:
        blocks.append(sources)
    views = [
        ReportSectionView(
            id=r.section.id,
            title=d.heading,
            research=r.section.research,
            markdown=assembly.section_markdown(d.heading, result.claims, uncited_mark=mark),
            grade=r.grade,
            rounds=r.rounds,
            refined=r.refined,
            evidence=len(r.evidence),
        )
        for r, d in guarded.sections
    ]
    final = result.model_copy(update={"report_markdown": "\n\n".join(blocks), "sections": views})
    return {"result": final, "warnings": result.warnings}


def finish(state: ReportState) -> dict[str, Any]:
    """The result with every warning of the run, the LLM calls by kind and the retrieved passages."""
    result = state["result"]
    done = state.get("sections_done", {})
    warnings = list(dict.fromkeys([*state.get("warnings", []), *result.warnings]))
    retrieved = sorted({cid for r in done.values() for cid in r.retrieved})
    final = result.model_copy(
        update={
            "warnings": warnings,
            "run_id": str(get_config().get("configurable", {}).get("thread_id", result.run_id)),
            "llm_calls": dict(state.get("llm_calls", {})),
            "llm_tokens": token_use(state.get("llm_tokens", {})),
            "retrieved_chunks": retrieved,
        }
    )
    events.phase("done")
    return {"result": final}
