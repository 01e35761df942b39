"""Nodes of digging one task: one LLM or I/O step each (the reference gate, ``gating``, asks the model once
per depth from inside the expansion step, never once per reference)."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from typing import Any

from langgraph.runtime import Runtime

from rabbithole.core.models import SearchHit
from rabbithole.research import events
from rabbithole.research.anchor import anchor_text
from rabbithole.research.context import ResearchContext
from rabbithole.research.dig import prompts
from rabbithole.research.dig.evidence import evidence_order
from rabbithole.research.dig.extraction import read_batch, retry_shares, unread_error, unread_places
from rabbithole.research.dig.gating import AHEAD_DEPTHS, ReferenceGate, candidates_ahead
from rabbithole.research.dig.pinned import pinned_first
from rabbithole.research.dig.query_views import task_views
from rabbithole.research.dig.schemas import TaskQueries, TaskSummaryDraft
from rabbithole.research.dig.selection import batches_of, select_passages
from rabbithole.research.dig.state import DigState, ExtractInput
from rabbithole.research.event_models import TaskProgressEvent
from rabbithole.research.evidence.drift import anchor_similarities
from rabbithole.research.llm_step import ask
from rabbithole.research.models import Passage, TaskResult, TaskSummary, UnreadPassage
from rabbithole.research.passages import found_by, from_expansion, from_hit, merge_hits


async def make_queries(state: DigState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM (a task the user added without queries, or one without queries in the documents' language):
    the queries it lacks. A task's own queries are kept (the first task's first query is the question);
    the model's are used only where it has none."""
    task = state["task"]
    messages = prompts.queries_prompt(task, state["anchor"], state["language"], state["corpus_language"])
    step = await ask(runtime.context.llm, "task_queries", TaskQueries, messages)
    queries = task.queries or (step.value.queries if step.value is not None else [task.title])
    corpus = task.corpus_queries or (step.value.corpus_queries if step.value is not None else [])
    task = task.model_copy(update={"queries": list(queries), "corpus_queries": list(corpus)})
    return {
        "task": task,
        "task_warnings": step.warnings,
        "llm_calls": step.counts(),
        "llm_tokens": step.usage(),
    }


async def search(state: DigState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O: hybrid search with the task's queries in every view: the user's language, the documents'
    (corpus queries that pass the language check), the glossary's German terms (``dig/query_views.py``)."""
    ctx = runtime.context
    task = state["task"]
    events.emit(TaskProgressEvent(task_id=task.id, step="searching", state="running"))
    views, dropped = task_views(
        task, state["language"], state["corpus_language"], ctx.settings, ctx.searcher.settings, ctx.detector
    )
    queries = [v.query for v in views]

    def run() -> list[list[SearchHit]]:
        return [ctx.searcher.search(q, state["collections"], k=ctx.settings.k) for q in queries]

    hit_lists = await asyncio.to_thread(run)
    found = found_by(queries, hit_lists)
    seeds = [from_hit(h, found.get(h.chunk.id)) for h in merge_hits(hit_lists)]
    events.emit(
        TaskProgressEvent(
            task_id=task.id,
            step="searched",
            queries=queries,
            passages=len(seeds),
            dropped_corpus_queries=dropped,
        )
    )
    return {"seeds": seeds}


async def follow_references(state: DigState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O: reference expansion from the seeds of each collection, with the LLM gate judging all candidate
    references of one depth in one call (invalid gate output: follow them all, with a warning); with
    ``research.gate_ahead`` (and a concurrency above 1) the first two depths are judged side by side
    (``gating``)."""
    ctx = runtime.context
    task, anchor = state["task"], state["anchor"]
    events.emit(TaskProgressEvent(task_id=task.id, step="following_references"))
    gate = ReferenceGate(ctx, task, anchor)
    # two calls at once only where the run makes calls side by side (concurrency 1: one after the other)
    ahead = ctx.settings.gate_ahead and ctx.settings.concurrency > 1 and ctx.depth >= max(AHEAD_DEPTHS)
    by_collection: dict[str, list[str]] = defaultdict(list)
    for seed in state["seeds"]:
        by_collection[seed.collection].append(seed.chunk_id)
    scores = {s.chunk_id: s for s in state["seeds"]}
    found = {s.chunk_id: s.query for s in state["seeds"] if s.query}
    vector = await asyncio.to_thread(
        ctx.searcher.embed_views, f"{task.title}\n{anchor.question}", list(by_collection)
    )
    scoped_query = (task.corpus_queries or task.queries or [task.title])[0]

    def prepare(collection: str, ids: list[str]) -> tuple[Any, list[SearchHit]]:
        engine = ctx.reference_engine(collection)
        chunks = ctx.catalog.get_chunks(collection, ids)
        hits = [
            SearchHit(chunks[i], scores[i].search_score or 0.0, scores[i].relevance)
            for i in ids
            if i in chunks
        ]
        return engine, hits

    def expand(engine: Any, hits: list[SearchHit]) -> list[Passage]:
        result = engine.expand(
            hits,
            vector,
            depth=ctx.depth,
            batch_gate=gate.batch_gate(engine),
            query=scoped_query,  # whole-document mentions are followed by a search scoped to it
        )
        return from_expansion(result, found)

    reached: list[Passage] = []
    for collection, ids in by_collection.items():
        engine, hits = await asyncio.to_thread(prepare, collection, ids)
        if ahead:
            candidates = await asyncio.to_thread(candidates_ahead, engine, hits, vector, scoped_query)
            await gate.judge_ahead(candidates, engine)
        reached.extend(await asyncio.to_thread(expand, engine, hits))
    for item in gate.judged:
        if item.follow:
            events.emit(item)
    for w in gate.warnings:
        events.warning(w)
    passages = select_passages(reached, ctx.settings.max_passages, ctx.settings.min_passage_relevance)
    passages = pinned_first(passages, state.get("pinned_passages", []), ctx.settings.max_passages)
    budget = min(ctx.settings.extract_batch_tokens, max(200, ctx.llm.window.budget - 1200))
    batches = batches_of(passages, budget, ctx.llm.window.count_text)
    followed = sum(1 for j in gate.judged if j.follow)
    events.emit(
        TaskProgressEvent(
            task_id=task.id,
            step="followed_references",
            followed=followed,
            skipped=len(gate.judged) - followed,
            passages=len(passages),
        )
    )
    return {
        "passages": passages,
        "retrieved": [p.chunk_id for p in reached],
        "followed": followed,
        "skipped": len(gate.judged) - followed,
        "batches": batches,
        "task_warnings": gate.warnings,
        "llm_calls": gate.counts,
        "llm_tokens": gate.tokens,
    }


async def extract(state: ExtractInput, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM: one batch of passages with numbered sentences -> findings with the sentence numbers that state
    them, each fact tied to the sentences that hold its numbers and provisions; quotes cut from the page
    text by offsets. An answer that stays invalid or is cut does not stop the run: the passages whose
    findings are missing are asked again in smaller batches within the batch's share of
    ``research.extract_retry_calls`` (``extraction``), and what stays unread is recorded with a warning
    naming the model's failure, never read as "no evidence"."""
    ctx = runtime.context
    task, batch, index = state["task"], state["batch"], state["batch_index"]
    events.emit(TaskProgressEvent(task_id=task.id, step="extracting", state="running", batch=index + 1))
    shares = retry_shares(ctx.settings.extract_retry_calls, state.get("batch_count", 1))
    extra = shares[index] if index < len(shares) else 0
    reading = await read_batch(
        ctx, task, state["anchor"], state["language"], batch, index=index, extra_calls=extra
    )
    warnings = []
    if reading.unread:
        reason = reading.reasons[-1] if reading.reasons else "no valid answer"
        warnings.append(
            f"extract: the model could not read {len(reading.unread)} of {len(batch)} passage(s) of task "
            f"'{task.title}' ({unread_places(reading.unread)}); its answers stayed invalid or were cut, also "
            f"in smaller batches (last: {reason})"
        )
    for w in warnings:
        events.warning(w)
    return {
        "evidence": reading.evidence,
        "passages_unread": [
            UnreadPassage(
                chunk_id=p.chunk_id,
                collection=p.collection,
                document=p.document,
                page=p.page,
                section=p.section,
            )
            for p in reading.unread
        ],
        "extraction_failures": reading.failed_calls,
        "facts_retied": reading.retied,
        "passages_shared": reading.shared,
        "facts_dropped": reading.dropped,
        "task_warnings": warnings,
        "llm_calls": {"extract": reading.requests},
        "llm_tokens": reading.tokens,
    }


async def measure_drift(state: DigState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O (embedder): each finding's similarity to the query anchor. Measured here, while other tasks
    wait for the model, rather than for all evidence at once at the start of synthesis."""
    evidence = state.get("evidence", [])
    embedder = runtime.context.embedder
    scores = await asyncio.to_thread(anchor_similarities, embedder, anchor_text(state["anchor"]), evidence)
    return {"similarities": scores}


async def summarize(state: DigState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM: the task's findings, gaps and related findings (invalid output, or an answer cut before its
    first complete finding: the findings' own statements; a cut answer otherwise keeps its complete items).
    A task that found nothing because the model could not read its passages is in its error state, with
    the passages it could not read (``TaskResult.passages_unread``)."""
    task = state["task"]
    scores = state.get("similarities", {})
    evidence = sorted(
        (
            e.model_copy(update={"anchor_similarity": scores[e.id]}) if e.id in scores else e
            for e in state.get("evidence", [])
        ),
        key=evidence_order,
    )
    warnings = list(state.get("task_warnings", []))
    counts: dict[str, int] = {}
    tokens: dict[str, int] = {}
    if evidence:
        events.emit(TaskProgressEvent(task_id=task.id, step="summarizing"))
        messages = prompts.summary_prompt(task, state["anchor"], evidence, state["language"])
        step = await ask(runtime.context.llm, "summarize", TaskSummaryDraft, messages)
        counts, tokens = step.counts(), step.usage()
        warnings.extend(step.warnings)
        for w in step.warnings:
            events.warning(w)
        draft = step.value
        if draft is not None and getattr(step, "truncated", False) and not draft.findings:
            draft = None  # cut before its first complete finding: the findings' own statements instead
            note = f"summarize: task '{task.title}': the answer was cut before its first finding; "
            warnings.append(note + "summarised by the findings' own statements")
            events.warning(warnings[-1])
    else:
        draft = None
    if draft is not None:
        summary = TaskSummary(findings=draft.findings, gaps=draft.gaps, related=draft.related)
    else:
        summary = TaskSummary(
            findings=[e.fact for e in evidence if e.answers],
            gaps=[] if evidence else [task.title],
            related=[e.fact for e in evidence if not e.answers],
        )
    unread = state.get("passages_unread", [])
    error = unread_error(unread, len(state.get("passages", []))) if not evidence else None
    result = TaskResult(
        task_id=task.id,
        title=task.title,
        state="error" if error else "done",
        queries=[*task.queries, *task.corpus_queries],
        passages=len(state.get("passages", [])),
        retrieved=state.get("retrieved", []),
        references_followed=state.get("followed", 0),
        references_skipped=state.get("skipped", 0),
        evidence=evidence,
        summary=summary,
        warnings=warnings,
        error=error,
        extraction_failures=state.get("extraction_failures", 0),
        passages_unread=unread,
        facts_retied=state.get("facts_retied", 0),
        passages_shared=state.get("passages_shared", 0),
        facts_dropped=state.get("facts_dropped", 0),
    )
    if error:
        events.emit(TaskProgressEvent(task_id=task.id, step="failed", state="error", error=error))
    else:
        events.emit(TaskProgressEvent(task_id=task.id, step="done", state="done", evidence=len(evidence)))
    return {"task_results": [result], "warnings": warnings, "llm_calls": counts, "llm_tokens": tokens}
