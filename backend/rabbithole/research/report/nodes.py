"""Nodes of the report graph: the outline (search, proposal, the user's approval), the review of the draft
and the framing sections. One LLM or I/O step each; the shared start and anchor nodes are the research
run's, the section subgraph is in ``section_nodes``, compiling in ``compile``."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt
from pydantic import ValidationError

from rabbithole.core.text import unique_texts
from rabbithole.research import events
from rabbithole.research.context import ResearchContext
from rabbithole.research.evidence.citations import DraftClaim, DraftSection
from rabbithole.research.llm_step import ask
from rabbithole.research.passages import merge_hits, shown_passage
from rabbithole.research.report import prompts
from rabbithole.research.report.event_models import OutlineEvent, SectionEvent
from rabbithole.research.report.models import OutlineProposal, ReviewTarget, SectionResult
from rabbithole.research.report.outline import OutlineEditError, apply_answer, proposed_outline
from rabbithole.research.report.schemas import OutlineAnswer, outline_schema, review_schema, section_schema
from rabbithole.research.report.section_nodes import report_settings
from rabbithole.research.report.state import FrameInput, ReportState

#: Passages of the outline search shown to the model.
OUTLINE_PASSAGES = 10
SNIPPET_CHARS = 300


async def outline_search(state: ReportState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O: the planner's queries (the topic, the sections asked for, the user's latest feedback) against
    the collections (the embeddings are multilingual; the sections search in both languages)."""
    ctx = runtime.context
    events.phase("outline")
    feedback = state.get("feedback", [])
    queries = unique_texts([state["question"], *state["sections_hint"], *feedback[-1:]])

    def run() -> list[Any]:
        return [ctx.searcher.search(q, state["collections"], k=ctx.settings.clarify_k) for q in queries]

    merged = merge_hits(await asyncio.to_thread(run))
    return {"outline_passages": [shown_passage(h, SNIPPET_CHARS) for h in merged[:OUTLINE_PASSAGES]]}


async def propose_outline(state: ReportState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM: the proposed sections (invalid output: one research section on the topic, plus the sections
    the user asked for)."""
    ctx = runtime.context
    s = report_settings(ctx)
    low = min(s.min_sections, s.max_sections)
    messages = prompts.outline_prompt(
        state["question"],
        state["guidance"],
        state["sections_hint"],
        state.get("outline_passages", []),
        state.get("feedback", []),
        state["language"],
        state["corpus_language"],
        low,
        s.max_sections,
    )
    step = await ask(ctx.llm, "outline", outline_schema(low, s.max_sections), messages)
    drafts: list[Any] = []
    title = state["question"]
    if step.value is not None:
        drafts = list(step.value.sections)  # type: ignore[attr-defined]
        title = " ".join(str(step.value.title).split()) or title  # type: ignore[attr-defined]
    warnings = [f"{w} (the outline is the topic alone)" for w in step.warnings]
    for w in warnings:
        events.warning(w)
    sections = proposed_outline(drafts, state["sections_hint"], s.section_limit)
    if not sections:
        sections = proposed_outline([], [state["question"]], s.section_limit)
    return {
        "proposed": sections,
        "title": title,
        "warnings": warnings,
        "llm_calls": step.counts(),
        "llm_tokens": step.usage(),
    }


def approve_outline(state: ReportState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """Interrupt: the user approves the outline, edits it (approved as edited), or sends feedback, which
    re-plans it (at most ``report_mode.max_outline_rounds`` times; then feedback is refused with a reason). An
    answer that does not fit is asked again with ``error`` saying why."""
    s = report_settings(runtime.context)
    rounds = state.get("outline_rounds", 0)
    payload = OutlineProposal(
        topic=state["question"],
        title=state["title"],
        sections=state["proposed"],
        limit=s.section_limit,
        round=rounds,
        max_rounds=s.max_outline_rounds,
    )
    events.emit(OutlineEvent(sections=state["proposed"], round=rounds))
    while True:
        value = interrupt(payload.model_dump(mode="json"))
        try:
            answer = OutlineAnswer.model_validate(value)
            if answer.action == "feedback":
                if rounds >= s.max_outline_rounds:
                    raise OutlineEditError(
                        f"the outline was re-planned {rounds} times, the most allowed: approve or edit it"
                    )
                text = " ".join((answer.feedback or "").split())
                return {
                    "replan": True,
                    "feedback": [*state.get("feedback", []), text],
                    "outline_rounds": rounds + 1,
                }
            approved = apply_answer(state["proposed"], answer, s.section_limit)
            break
        except (ValidationError, OutlineEditError, TypeError) as exc:
            payload = payload.model_copy(update={"error": str(exc)})
    events.phase("sections")
    return {"replan": False, "outline": approved, "refinement_round": 0}


def sections_done(state: ReportState) -> dict[str, Any]:
    """The join of the sections researched in parallel; the router decides what follows."""
    return {}


async def review(state: ReportState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM: the reviewer reads the whole draft and names the research sections to improve (invalid
    output: none, a warning)."""
    ctx = runtime.context
    events.phase("review")
    done = state.get("sections_done", {})
    researched = [done[s.id] for s in state["outline"] if s.research and s.id in done]
    ids = [r.section.id for r in researched]
    messages = prompts.review_prompt(
        state["question"], state["guidance"], prompts.researched_block(researched), ids
    )
    step = await ask(ctx.llm, "review", review_schema(ids), messages)
    for w in step.warnings:
        events.warning(w)
    targets: list[ReviewTarget] = []
    if step.value is not None:
        for item in step.value.improve:  # type: ignore[attr-defined]
            if item.section in ids and item.section not in {t.section_id for t in targets}:
                instructions = " ".join(str(item.instructions).split())
                targets.append(
                    ReviewTarget(
                        section_id=item.section, instructions=instructions, queries=unique_texts(item.queries)
                    )
                )
    for t in targets:
        section = done[t.section_id].section
        events.emit(
            SectionEvent(
                section_id=section.id, title=section.title, state="refining", instructions=t.instructions
            )
        )
    return {
        "review": targets,
        "refinement_round": state.get("refinement_round", 0) + 1,
        "warnings": step.warnings,
        "llm_calls": step.counts(),
        "llm_tokens": step.usage(),
    }


async def frame(state: FrameInput, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM: a framing section (introduction, conclusion, summary, a section without research) from the
    finished research sections, citing the evidence ids their claims cite. Invalid output: the section
    holds the first claims of the researched sections with evidence (with their citations)."""
    ctx = runtime.context
    section = state["section"]
    events.emit(SectionEvent(section_id=section.id, title=section.title, state="writing"))
    researched = state["researched"]
    ids = list(dict.fromkeys(i for r in researched for c in r.draft.claims for i in c.evidence_ids))
    messages = prompts.frame_prompt(
        section,
        state["topic"],
        state["guidance"],
        state["outline"],
        prompts.researched_block(researched),
        state["language"],
    )
    step = await ask(ctx.llm, "frame", section_schema(ids, name="FramingText"), messages)
    warnings = list(step.warnings)
    if step.value is not None:
        claims = [
            DraftClaim(text=c.text, evidence_ids=list(getattr(c, "evidence", [])))
            for c in step.value.claims  # type: ignore[attr-defined]
        ]
    else:
        warnings = [
            f"{w} (section '{section.title}': the researched sections' first claims)" for w in warnings
        ]
        claims = [r.draft.claims[0] for r in researched if r.evidence and r.draft.claims]
        if not claims:
            claims = [DraftClaim(text=prompts.labels(state["language"])["no_evidence"])]
    for w in warnings:
        events.warning(w)
    result = SectionResult(
        section=section, draft=DraftSection(heading=section.title, claims=claims), warnings=warnings
    )
    events.emit(SectionEvent(section_id=section.id, title=section.title, state="done"))
    return {
        "sections_done": {section.id: result},
        "warnings": warnings,
        "llm_calls": step.counts(),
        "llm_tokens": step.usage(),
    }
