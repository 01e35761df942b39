"""Nodes of the run graph: one LLM or I/O step each."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import asdict, replace
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Send, interrupt
from pydantic import ValidationError

from rabbithole.research import events
from rabbithole.research.context import ResearchContext
from rabbithole.research.dig.pinned import pins_by_task, settle
from rabbithole.research.event_models import AssessmentEvent, AssessmentView, LanguageEvent, PlanEvent
from rabbithole.research.llm_step import ask
from rabbithole.research.models import PlanProposal, ResearchResult, token_use
from rabbithole.research.passages import merge_hits, shown_passage
from rabbithole.research.run import prompts
from rabbithole.research.run.assessment import decide
from rabbithole.research.run.plan_edit import PlanEditError, apply_decision, proposed_plan
from rabbithole.research.run.schemas import AssessJudgement, PlanDecision, plan_schema
from rabbithole.research.run.state import RunState
from rabbithole.research.run.views import assessment_views
from rabbithole.research.search_views import figures

ASSESS_SHOWN = 6


async def start(state: RunState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O: the question's language, and the documents' language (recorded at ingestion; detected and
    recorded now for documents ingested before that)."""
    ctx = runtime.context

    def languages() -> tuple[str, str]:
        language = ctx.detector.detect(state["question"])
        counts: Counter[str] = Counter()
        for collection in state["collections"]:
            ctx.catalog.require_collection(collection)
            for document, code in ctx.catalog.document_languages(collection).items():
                if not code:
                    chunks = ctx.catalog.chunks(collection, document)[:4]
                    code = ctx.detector.detect(" ".join(c.text for c in chunks)) if chunks else ""
                    if code:
                        ctx.catalog.set_document_language(collection, document, code)
                if code:
                    counts[code] += 1
        corpus = counts.most_common(1)[0][0] if counts else language
        return language, corpus

    language, corpus_language = await asyncio.to_thread(languages)
    events.emit(LanguageEvent(language=language, corpus_language=corpus_language))
    return {"language": language, "corpus_language": corpus_language, "warnings": [], "llm_calls": {}}


async def assess_search(state: RunState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O: search with the research queries in every view (``research/search_views.py``); the best
    similarity over the views, the share of queries with a hit above the floor and the candidates of the
    views in the documents' language are what retrieval says about coverage."""
    ctx = runtime.context
    events.phase("assess")
    views, dropped = assessment_views(state, ctx.settings, ctx.searcher.settings, ctx.detector)

    def run() -> list[Any]:
        return [ctx.searcher.search(v.query, state["collections"], k=ctx.settings.clarify_k) for v in views]

    hit_lists = await asyncio.to_thread(run)
    floor = ctx.settings.assess_floor
    found = figures(views, hit_lists, ctx.settings.assess_bm25_floor)
    if not ctx.settings.translation_views:  # as before the views: the best similarity alone
        found = [replace(f, candidates=0) for f in found]
    tops = [f.best_similarity for f in found]
    merged = merge_hits(hit_lists)
    shown = [shown_passage(h, 400) for h in merged[:ASSESS_SHOWN]]
    return {
        "assess_passages": shown,
        "assess_best": float(max(tops, default=0.0)),
        "assess_coverage": sum(1 for t in tops if t >= floor) / len(tops) if tops else 0.0,
        "assess_candidates": sum(f.candidates for f in found),
        "assess_views": [asdict(f) for f in found],
        "translations_dropped": state.get("translations_dropped", 0) + dropped,
    }


async def assess(state: RunState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM: can the corpus answer it? Retrieval decides where it is clear; see ``assessment.decide``."""
    ctx = runtime.context
    messages = prompts.assess_prompt(state["question"], state["assess_passages"], state["language"])
    step = await ask(ctx.llm, "assess", AssessJudgement, messages)
    assessment = decide(
        step.value,
        state["assess_best"],
        state["assess_coverage"],
        ctx.settings,
        candidates=state.get("assess_candidates", 0),
    )
    for w in step.warnings:
        events.warning(w)
    events.emit(
        AssessmentEvent(
            **assessment.model_dump(),
            candidates=state.get("assess_candidates", 0),
            views=[AssessmentView.model_validate(v) for v in state.get("assess_views", [])],
            translations_dropped=state.get("translations_dropped", 0),
        )
    )
    return {
        "assessment": assessment,
        "warnings": step.warnings,
        "llm_calls": step.counts(),
        "llm_tokens": step.usage(),
    }


def checked(state: RunState) -> dict[str, Any]:
    """The join of the assessment and the plan (both done); the router decides what follows."""
    return {}


def decline(state: RunState) -> dict[str, Any]:
    """The clear answer when the corpus cannot answer the question, and what it does cover."""
    a = state["assessment"]
    intro, covers, live, nothing = prompts.decline_texts(state["language"])
    reason = live if a.model_verdict == "live_data" else (a.reason or nothing.format(best=a.max_similarity))
    lines = [intro.format(collections=", ".join(state["collections"]), reason=reason)]
    topics = a.corpus_covers or sorted({p.document for p in state.get("assess_passages", [])})
    if topics:
        lines.append(covers.format(covers="; ".join(topics)))
    result = ResearchResult(
        run_id="",
        question=state["question"],
        language=state["language"],
        status="done",
        answerable=False,
        report_markdown="\n\n".join(lines),
    )
    return {"result": result}


async def plan(state: RunState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM: the proposed tasks (the question itself is the first, direct task)."""
    ctx = runtime.context
    events.phase("plan")
    s = ctx.settings
    extra_max = max(0, s.max_tasks - 1)
    extra_min = min(max(0, s.min_tasks - 1), extra_max)
    tasks = []
    counts: dict[str, int] = {}
    tokens: dict[str, int] = {}
    warnings: list[str] = []
    if extra_max:
        messages = prompts.plan_prompt(
            state["anchor"],
            state.get("clarification_summary", ""),
            state.get("research_queries", []),
            state["language"],
            state["corpus_language"],
            extra_min,
            extra_max,
        )
        step = await ask(ctx.llm, "plan", plan_schema(extra_min, extra_max), messages)
        counts, warnings, tokens = step.counts(), step.warnings, step.usage()
        if step.value is not None:
            tasks = list(step.value.tasks)  # type: ignore[attr-defined]
    for w in warnings:
        events.warning(w + " (the plan is the question alone)")
    proposed = proposed_plan(
        state["question"],
        state.get("research_queries", []),
        state.get("corpus_queries", []),
        tasks,
        s.max_tasks,
    )
    return {"plan": proposed, "warnings": warnings, "llm_calls": counts, "llm_tokens": tokens}


def approve_plan(state: RunState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """Interrupt (interactive): the user approves, edits, removes, adds and reorders tasks; the result is
    validated and renumbered. Quick mode approves the plan as proposed."""
    proposed = state["plan"]
    limit = runtime.context.settings.task_limit
    approved = proposed
    if state["mode"] == "interactive":
        payload = PlanProposal(question=state["question"], tasks=proposed, limit=limit)
        events.emit(PlanEvent(tasks=proposed))
        while True:
            value = interrupt(payload.model_dump(mode="json"))
            try:
                decision = PlanDecision.model_validate(value if value not in (None, True, "approve") else {})
                approved = apply_decision(proposed, decision, limit)
                break
            except (ValidationError, PlanEditError, TypeError) as exc:
                payload = payload.model_copy(update={"error": str(exc)})
    events.todo(approved, {})
    events.phase("dig")
    return {"plan": approved}


def dispatch(state: RunState, runtime: Runtime[ResearchContext]) -> list[Send]:
    """One dig per task, in parallel (bounded by the run's max_concurrency); each with the provisions it
    pins (named in the question or the task: ``dig/pinned.py``)."""
    pinning = runtime.context.settings.pin_provisions
    pins = pins_by_task(state["question"], state["plan"]) if pinning else {}
    return [
        Send(
            "dig",
            {
                "task": task,
                "anchor": state["anchor"],
                "language": state["language"],
                "corpus_language": state["corpus_language"],
                "collections": state["collections"],
                "pins": pins.get(task.id, []),
            },
        )
        for task in state["plan"]
    ]


def finish(state: RunState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """The result with every warning of the run, the LLM calls by kind, the retrieved passages and the
    pinned provisions with their evidence."""
    result = state["result"]
    pinned = settle(state.get("pinned", []), state.get("task_results", []), result.evidence)
    warnings = list(dict.fromkeys([*state.get("warnings", []), *result.warnings, *pinned.warnings]))
    order = {t.id: i for i, t in enumerate(state.get("plan", []))}
    retrieved = sorted({cid for t in state.get("task_results", []) for cid in t.retrieved})
    tasks = sorted(result.tasks, key=lambda t: order.get(t.id, len(order)))
    final = result.model_copy(
        update={
            "warnings": warnings,
            "run_id": runtime.context.run_id,
            "llm_calls": dict(state.get("llm_calls", {})),
            "llm_tokens": token_use(state.get("llm_tokens", {})),
            "retrieved_chunks": retrieved,
            "tasks": tasks,
            "pinned": pinned.pinned,
        }
    )
    for w in pinned.warnings:
        events.warning(w)
    events.phase("done")
    return {"result": final}
