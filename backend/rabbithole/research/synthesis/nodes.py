"""Nodes of synthesis: one LLM or I/O step each."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.messages import BaseMessage
from langgraph.runtime import Runtime

from rabbithole.llm.structured import with_schema_instruction
from rabbithole.research import events
from rabbithole.research.anchor import anchor_text
from rabbithole.research.context import ResearchContext
from rabbithole.research.event_models import DraftSectionEvent, RemediationEvent
from rabbithole.research.evidence.citations import DraftClaim, render_report, same_source
from rabbithole.research.evidence.drift import anchor_similarities, validate_drift
from rabbithole.research.evidence.ocr_pages import ocr_pages
from rabbithole.research.guards import GuardClaim, GuardSection, guard_draft
from rabbithole.research.llm_step import ask
from rabbithole.research.models import Evidence, QualityScores, Tier
from rabbithole.research.synthesis import prompts
from rabbithole.research.synthesis.assembly import assemble_report
from rabbithole.research.synthesis.attribution import build_result
from rabbithole.research.synthesis.packing import PackedContext, pack_context
from rabbithole.research.synthesis.preview import SectionPreview
from rabbithole.research.synthesis.schemas import QualityJudgement, section_schema
from rabbithole.research.synthesis.sections import SectionDraft, SectionPlan, plan_sections
from rabbithole.research.synthesis.state import SectionJob, SynthesisState

#: Tokens kept free beyond the instructions, the schema and the question (estimates are not exact).
PROMPT_MARGIN = 300


async def validate(state: SynthesisState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O (embedder): drop evidence that drifted from the query anchor, per-tier thresholds; plan the
    sections (one per task with evidence left), all of them pending."""
    ctx = runtime.context
    events.phase("validate")
    evidence = [e for t in state["task_results"] for e in t.evidence]
    scores = {e.id: e.anchor_similarity for e in evidence if e.anchor_similarity is not None}
    unmeasured = [e for e in evidence if e.anchor_similarity is None]  # dug before the dig measured it
    if unmeasured:
        measured = await asyncio.to_thread(
            anchor_similarities, ctx.embedder, anchor_text(state["anchor"]), unmeasured
        )
        scores.update(measured)
    s = ctx.settings
    thresholds: dict[Tier, float] = {
        "primary": s.drift_primary,
        "secondary": s.drift_secondary,
        "tertiary": s.drift_tertiary,
    }
    checked = validate_drift(evidence, scores, thresholds, warn_share=s.drift_warn_share)
    notes = [checked.warning] if checked.warning else []
    for n in notes:
        events.warning(n)
    planned = plan_sections(state.get("plan", []), state["task_results"], checked.kept)
    if planned:
        events.phase("synthesize")
    return {
        "evidence": checked.kept,
        "dropped": checked.dropped,
        "notes": notes,
        "sections_planned": planned,
        "pending": [s.index for s in planned],
        "title": state["question"],
    }


def _budget(ctx: ResearchContext, fixed: list[BaseMessage]) -> int:
    """What the window leaves for context beside the ``fixed`` messages."""
    return max(300, ctx.llm.window.budget - ctx.llm.window.count_messages(fixed) - PROMPT_MARGIN)


def conversation(summary: str, question: str) -> str:
    """The clarification's summary as a section prompt shows it: nothing where it only restates the
    question (a quick run, or nothing answered: the prompt names the question already)."""
    flat = " ".join(summary.split())
    return "" if flat in ("", f"Question: {' '.join(question.split())}") else summary


def _section_context(job: SectionJob, ctx: ResearchContext, fixed: list[BaseMessage]) -> PackedContext:
    task = job["section"].task
    # the task's gaps (what its evidence leaves open); its summarised findings restate the evidence shown
    gaps_only = task.model_copy(update={"summary": task.summary.model_copy(update={"findings": []})})
    return pack_context(
        conversation(job["clarification_summary"], job["anchor"].question),
        [gaps_only],
        task.evidence,
        _budget(ctx, fixed),
        ctx.llm.window.count_text,
    )


async def write_section(state: SectionJob, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM: one section's sentences, each citing evidence ids of its task (an enum of the ids shown). A cut
    answer keeps its complete sentences; no valid answer leaves the section unanswered (``assemble``
    decides what stands in its place). The section is streamed as the model writes it (``draft_text``,
    ``synthesis.preview``), and sent whole (``draft_section``) as soon as it is written; the report shown at
    the end is the checked one."""
    ctx = runtime.context
    job = state
    section: SectionPlan = job["section"]
    language = job["language"]

    def messages(context: str) -> list[BaseMessage]:
        return prompts.section_prompt(
            job["anchor"],
            section.heading,
            section.description,
            context,
            language,
            feedback=job["feedback"],
            wrong_language=job["wrong_language"],
        )

    evidence_ids = [e.id for e in section.task.evidence]
    packed = _section_context(job, ctx, with_schema_instruction(messages(""), section_schema(evidence_ids)))
    notes: list[str] = []
    if packed.report.cut:
        notes.append(
            f"synthesis: {len(packed.report.cut)} item(s) of section '{section.heading}' did not fit the "
            "context window and were left out"
        )
    shown = [e.id for e in packed.evidence] or evidence_ids
    preview = SectionPreview(
        index=section.index,
        heading=section.heading,
        task_id=section.task.task_id,
        attempt=job["passes"],
        evidence=section.task.evidence,
        emit=events.emit,
    )
    step = await ask(ctx.llm, "synthesize", section_schema(shown), messages(packed.text), on_text=preview)
    claims: list[DraftClaim] = []
    if step.value is not None:
        claims = [
            DraftClaim(text=c.text, evidence_ids=list(c.evidence))
            for c in step.value.claims  # type: ignore[attr-defined]
        ]
    text = " ".join(c.text for c in claims)
    language_ok = ctx.detector.detect(text) == language if text.strip() else True
    draft = SectionDraft(
        index=section.index,
        task_id=section.task.task_id,
        heading=section.heading,
        claims=claims,
        answered=step.value is not None,
        truncated=step.truncated,
        language_ok=language_ok,
        passes=job["passes"],
        warnings=step.warnings,
    )
    notes.extend(step.warnings)
    for n in notes:
        events.warning(n)
    shown_claims = guard_draft(
        "",
        [GuardSection(section.heading, [GuardClaim(c.text, list(c.evidence_ids)) for c in claims])],
        task_titles=[section.heading],
        question="",
        language=language,
    ).sections
    events.emit(
        DraftSectionEvent(
            index=section.index,
            heading=section.heading,
            task_id=section.task.task_id,
            attempt=job["passes"],
            truncated=step.truncated,
            claims=[
                DraftClaim(text=c.text, evidence_ids=c.evidence_ids) for s in shown_claims for c in s.claims
            ],
        )
    )
    return {
        "drafts": {section.index: draft},
        "notes": notes,
        "llm_calls": step.counts(),
        "llm_tokens": step.usage(),
    }


def assemble(state: SynthesisState) -> dict[str, Any]:
    """The report from the sections written (pure): guarded together (``research.guards``), measured
    (``synthesis.checks``), and after the remediation pass a section still unusable is assembled from
    its verified findings (``synthesis.sections``)."""
    assembled = assemble_report(
        state.get("sections_planned", []),
        state.get("drafts", {}),
        question=state["question"],
        language=state["language"],
        final=bool(state.get("remediated")),
    )
    notes = [n for n in assembled.notes if n not in state.get("notes", [])]
    for n in notes:
        events.warning(n)
    return {
        "sections": assembled.sections,
        "assembled": assembled.assembled,
        "checks": assembled.checks,
        "text_guards": assembled.guards,
        "notes": notes,
    }


async def check_quality(state: SynthesisState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM: the report scored against the evidence it cites (invalid output: no scores, a warning); the
    verdict also needs the measured checks to pass."""
    ctx = runtime.context
    if not state.get("sections"):
        return {"quality": None}
    by_id = {e.id: e for e in state.get("evidence", [])}
    rendered = render_report(
        state["sections"], set(by_id), title=state.get("title"), same=same_source(list(by_id.values()))
    )
    cited = [by_id[i] for i in rendered.order if i in by_id]
    fixed = with_schema_instruction(
        prompts.quality_prompt(state["anchor"], "", rendered.markdown), QualityJudgement
    )
    packed = pack_context("", [], cited, _budget(ctx, fixed), ctx.llm.window.count_text)
    step = await ask(
        ctx.llm,
        "quality",
        QualityJudgement,
        prompts.quality_prompt(state["anchor"], packed.text, rendered.markdown),
    )
    for w in step.warnings:
        events.warning(w)
    accounting = {"notes": step.warnings, "llm_calls": step.counts(), "llm_tokens": step.usage()}
    if step.value is None:
        return {"quality": None, **accounting}
    j = step.value
    scores = [j.factual_accuracy, j.semantic_validity, j.structure, j.citation_correctness, j.query_relevance]
    overall = round(sum(scores) / len(scores), 1)
    checks = state.get("checks")
    quality = QualityScores(
        factual_accuracy=j.factual_accuracy,
        semantic_validity=j.semantic_validity,
        structure=j.structure,
        citation_correctness=j.citation_correctness,
        query_relevance=j.query_relevance,
        overall=overall,
        issues=j.issues,
        remediated=bool(state.get("remediated")),
        passed=overall >= ctx.settings.quality_threshold and (checks is None or checks.passed),
    )
    return {"quality": quality, **accounting}


def start_remediation(state: SynthesisState) -> dict[str, Any]:
    """The one remediation pass: the sections the measured checks found a problem in are written again
    with it named; when they found none in a section (the model's grades failed the report, or a problem
    of the whole report), every section, with the reviewer's issues."""
    checks = state.get("checks")
    quality = state.get("quality")
    planned = state.get("sections_planned", [])
    by_heading: dict[str, list[str]] = {}
    for p in checks.problems if checks is not None else []:
        if p.section is not None:
            text = p.detail + (f': "{p.sentence}"' if p.sentence else "")
            by_heading.setdefault(p.section, []).append(text)
    general = [p.detail for p in checks.problems if p.section is None] if checks is not None else []
    issues = quality.issues if quality is not None and not quality.passed else []
    if by_heading:
        pending = [s.index for s in planned if s.heading in by_heading]
    else:
        pending = [s.index for s in planned]
    feedback = {s.index: [*by_heading.get(s.heading, []), *general, *issues] for s in planned}
    events.emit(
        RemediationEvent(
            issues=[*issues, *general, *(f"{h}: {t}" for h, ts in by_heading.items() for t in ts)]
        )
    )
    return {"remediated": True, "pending": pending, "feedback": feedback}


async def attribute(state: SynthesisState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O (embedder): sources, the support check of every cited sentence, citation statistics, and the
    measured checks completed by the support check."""
    ctx = runtime.context
    events.phase("attribute")
    run_id = ctx.run_id
    evidence: list[Evidence] = state.get("evidence", [])
    ocr = await asyncio.to_thread(ocr_pages, ctx.catalog, evidence, ctx.ocr_low_confidence)
    result = await asyncio.to_thread(
        build_result,
        run_id=run_id,
        state=state,
        evidence=evidence,
        embed=ctx.embedder.embed_documents,
        support_threshold=ctx.settings.support_threshold,
        ocr=ocr,
    )
    return {"result": result, "warnings": result.warnings}
