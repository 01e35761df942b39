"""Nodes of synthesis: one LLM or I/O step each."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.messages import BaseMessage
from langgraph.config import get_config
from langgraph.runtime import Runtime

from rabbithole.core.errors import RunFailedError
from rabbithole.llm.structured import with_schema_instruction
from rabbithole.research import events
from rabbithole.research.anchor import anchor_text
from rabbithole.research.context import ResearchContext
from rabbithole.research.evidence.citations import DraftClaim, DraftSection, render_report
from rabbithole.research.evidence.drift import anchor_similarities, validate_drift
from rabbithole.research.guards import GuardClaim, GuardSection, guard_draft
from rabbithole.research.llm_step import ask
from rabbithole.research.models import Evidence, QualityScores, Tier
from rabbithole.research.synthesis import prompts, routers
from rabbithole.research.synthesis.attribution import build_result
from rabbithole.research.synthesis.packing import PackedContext, pack_context
from rabbithole.research.synthesis.schemas import QualityJudgement, report_schema
from rabbithole.research.synthesis.state import SynthesisState

#: Tokens kept free beyond the instructions, the schema and the question (estimates are not exact).
PROMPT_MARGIN = 300


async def validate(state: SynthesisState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O (embedder): drop evidence that drifted from the query anchor, per-tier thresholds."""
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
    return {"evidence": checked.kept, "dropped": checked.dropped, "notes": notes, "attempts": 0}


def _context(state: SynthesisState, ctx: ResearchContext, fixed: list[BaseMessage]) -> PackedContext:
    """The evidence packed into what the window leaves beside the ``fixed`` messages (instructions, the
    output schema, the question, the report under review)."""
    fixed_tokens = ctx.llm.window.count_messages(fixed)
    budget = max(300, ctx.llm.window.budget - fixed_tokens - PROMPT_MARGIN)
    return pack_context(
        state.get("clarification_summary", ""),
        state["task_results"],
        state.get("evidence", []),
        budget,
        ctx.llm.window.count_text,
    )


def _feedback(state: SynthesisState) -> list[str]:
    """The reviewer's issues, for the remediation pass."""
    quality = state.get("quality")
    return quality.issues if state.get("remediated") and quality is not None else []


async def synthesize(state: SynthesisState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM: the report as sections of claims citing evidence ids (an enum of the ids shown), guarded
    (``research.guards``: repeats collapsed, placeholder headings and title replaced, empty sections
    dropped) before the quality check reads it."""
    ctx = runtime.context
    events.phase("synthesize")
    attempts = state.get("attempts", 0)
    notes: list[str] = []  # new ones only (the state adds them up)
    feedback = _feedback(state)
    wrong_language = state.get("language_ok") is False
    all_ids = [e.id for e in state.get("evidence", [])]
    fixed = with_schema_instruction(
        prompts.synthesis_prompt(
            state["anchor"], "", state["language"], feedback=feedback, wrong_language=wrong_language
        ),
        report_schema(all_ids or ["none"]),
    )
    packed = _context(state, ctx, fixed)
    if packed.report.cut:
        note = f"synthesis: {len(packed.report.cut)} item(s) did not fit the context window and were left out"
        if note not in state.get("notes", []):
            notes.append(note)
            events.warning(note)
    if not packed.evidence:
        return {
            "sections": [],
            "title": state["question"],
            "packing": packed.report,
            "notes": notes,
            "attempts": attempts + 1,
            "language_ok": True,
        }
    messages = prompts.synthesis_prompt(
        state["anchor"], packed.text, state["language"], feedback=feedback, wrong_language=wrong_language
    )
    step = await ask(ctx.llm, "synthesize", report_schema([e.id for e in packed.evidence]), messages)
    if step.value is None:
        raise RunFailedError(
            "synthesis failed: the model gave no valid report ("
            + "; ".join(step.warnings)
            + "). Check the model (a larger one helps) and resume the run."
        )
    draft: Any = step.value
    guarded = guard_draft(
        draft.title,
        [
            GuardSection(s.heading.strip(), [GuardClaim(c.text, list(c.evidence)) for c in s.claims])
            for s in draft.sections
        ],
        task_titles=[t.title for t in state.get("plan", [])] or [t.title for t in state["task_results"]],
        question=state["question"],
        language=state["language"],
    )
    sections = [
        DraftSection(
            heading=s.heading,
            claims=[DraftClaim(text=c.text, evidence_ids=c.evidence_ids) for c in s.claims],
        )
        for s in guarded.sections
    ]
    text = " ".join(c.text for s in sections for c in s.claims)
    language_ok = ctx.detector.detect(text) == state["language"] if text.strip() else True
    return {
        "sections": sections,
        "title": guarded.title or state["question"],
        "text_guards": guarded.counts,
        "packing": packed.report,
        "attempts": attempts + 1,
        "language_ok": language_ok,
        "notes": notes,
        "llm_calls": step.counts(),
    }


async def check_quality(state: SynthesisState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM: the report scored against the evidence it cites (invalid output: no scores, a warning)."""
    ctx = runtime.context
    notes: list[str] = []  # new ones only (the state adds them up)
    if state.get("language_ok") is False and state.get("attempts", 0) >= routers.MAX_ATTEMPTS:
        note = f"the report is not in the question's language ({state['language']}) after a retry"
        notes.append(note)
        events.warning(note)
    if not state.get("sections"):
        return {"quality": None, "notes": notes}
    rendered = render_report(
        state["sections"], {e.id for e in state.get("evidence", [])}, title=state.get("title")
    )
    fixed = with_schema_instruction(
        prompts.quality_prompt(state["anchor"], "", rendered.markdown), QualityJudgement
    )
    packed = _context(state, ctx, fixed)
    step = await ask(
        ctx.llm,
        "quality",
        QualityJudgement,
        prompts.quality_prompt(state["anchor"], packed.text, rendered.markdown),
    )
    notes.extend(step.warnings)
    for w in step.warnings:
        events.warning(w)
    if step.value is None:
        return {"quality": None, "notes": notes, "llm_calls": step.counts()}
    j = step.value
    scores = [j.factual_accuracy, j.semantic_validity, j.structure, j.citation_correctness, j.query_relevance]
    overall = round(sum(scores) / len(scores), 1)
    quality = QualityScores(
        factual_accuracy=j.factual_accuracy,
        semantic_validity=j.semantic_validity,
        structure=j.structure,
        citation_correctness=j.citation_correctness,
        query_relevance=j.query_relevance,
        overall=overall,
        issues=j.issues,
        remediated=bool(state.get("remediated")),
        passed=overall >= ctx.settings.quality_threshold,
    )
    return {"quality": quality, "notes": notes, "llm_calls": step.counts()}


def reviewed(state: SynthesisState) -> dict[str, Any]:
    """Where the language retry and the review of the first draft meet (no step of its own)."""
    return {}


def start_remediation(state: SynthesisState) -> dict[str, Any]:
    """The one remediation pass: synthesis again with the reviewer's issues."""
    quality = state.get("quality")
    events.emit("remediation", issues=quality.issues if quality is not None else [])
    return {"remediated": True, "attempts": 1}


async def attribute(state: SynthesisState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O (embedder): sources, the support check of every cited sentence, citation statistics."""
    ctx = runtime.context
    events.phase("attribute")
    run_id = str(get_config().get("configurable", {}).get("thread_id", ""))
    evidence: list[Evidence] = state.get("evidence", [])
    result = await asyncio.to_thread(
        build_result,
        run_id=run_id,
        state=state,
        evidence=evidence,
        embed=ctx.embedder.embed_documents,
        support_threshold=ctx.settings.support_threshold,
    )
    return {"result": result, "warnings": result.warnings}
