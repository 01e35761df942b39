"""Nodes of digging one task: one LLM or I/O step each (the reference gate asks the model once per depth
from inside the expansion step, never once per reference)."""

from __future__ import annotations

import asyncio
import functools
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from rabbithole.core.models import PageText, SearchHit
from rabbithole.references.expansion import GateRequest
from rabbithole.research import events
from rabbithole.research.anchor import anchor_text
from rabbithole.research.context import ResearchContext
from rabbithole.research.dig import prompts
from rabbithole.research.dig.evidence import evidence_from_findings, evidence_order
from rabbithole.research.dig.schemas import TaskQueries, TaskSummaryDraft, extraction_schema, gate_schema
from rabbithole.research.dig.selection import batches_of, select_passages
from rabbithole.research.dig.state import DigState, ExtractInput
from rabbithole.research.evidence.drift import anchor_similarities
from rabbithole.research.evidence.numbering import number_passages, render_numbered
from rabbithole.research.llm_step import StepResult, ask, ask_sync
from rabbithole.research.models import Passage, TaskResult, TaskSummary
from rabbithole.research.passages import from_expansion, from_hit, merge_hits

#: Candidate references judged in one gate call at most (the prompt stays small); more are followed.
MAX_GATED = 60
#: Tokens of the gate prompt kept for the instructions, the task, the output schema and a margin.
GATE_RESERVE = 1200


async def make_queries(state: DigState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM (only for a task the user added without queries): its search queries."""
    task = state["task"]
    messages = prompts.queries_prompt(task, state["anchor"], state["language"], state["corpus_language"])
    step = await ask(runtime.context.llm, "task_queries", TaskQueries, messages)
    if step.value is None:
        task = task.model_copy(update={"queries": [task.title]})
    else:
        task = task.model_copy(
            update={"queries": step.value.queries, "corpus_queries": step.value.corpus_queries}
        )
    return {"task": task, "task_warnings": step.warnings, "llm_calls": step.counts()}


async def search(state: DigState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O: hybrid search with the task's queries in the user's and the documents' language."""
    ctx = runtime.context
    task = state["task"]
    events.task_progress(task.id, "searching", state="running")
    per_language = ctx.settings.queries_per_task
    queries = [*task.queries[:per_language], *task.corpus_queries[:per_language]] or [task.title]

    def run() -> list[list[SearchHit]]:
        return [ctx.searcher.search(q, state["collections"], k=ctx.settings.k) for q in queries]

    merged = merge_hits(await asyncio.to_thread(run))
    seeds = [from_hit(h) for h in merged]
    events.task_progress(task.id, "searched", queries=queries, passages=len(seeds))
    return {"seeds": seeds}


async def follow_references(state: DigState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O: reference expansion from the seeds of each collection, with the LLM gate judging all candidate
    references of one depth in one call (invalid gate output: follow them all, with a warning)."""
    ctx = runtime.context
    task, anchor = state["task"], state["anchor"]
    events.task_progress(task.id, "following_references")
    counts: dict[str, int] = {}
    warnings: list[str] = []
    judged: list[dict[str, Any]] = []

    def gate(depth: int, all_requests: Sequence[GateRequest], *, engine: Any) -> set[int]:
        # as many candidates as fit one prompt (most relevant passages first); the rest is followed
        lines: list[str] = []
        room = ctx.llm.window.budget - GATE_RESERVE
        for i, r in enumerate(all_requests[:MAX_GATED]):
            line = prompts.gate_line(i, r, _heading(engine, r))
            room -= ctx.llm.window.count_text(line) + 2
            if room < 0:
                break
            lines.append(line)
        if not lines:
            return set(range(len(all_requests)))
        schema = gate_schema(len(lines))
        step: StepResult[Any] = ask_sync(ctx.llm, "gate", schema, prompts.gate_prompt(task, anchor, lines))
        counts["gate"] = counts.get("gate", 0) + step.requests
        warnings.extend(f"{w} (references at depth {depth} followed)" for w in step.warnings)
        follow = set(range(len(all_requests)))
        if step.value is not None:
            for d in step.value.decisions:  # type: ignore[attr-defined]
                if not d.follow:
                    follow.discard(d.index)
        for i, r in enumerate(all_requests):
            judged.append(
                {
                    "from": {"document": r.source.chunk.document, "section": r.source.chunk.section},
                    "mention": " ".join(r.reference.mention.split()),
                    "to": {"document": r.target.document, "section": r.target.section},
                    "follow": i in follow,
                    "depth": depth,
                }
            )
        return follow

    def run() -> list[Passage]:
        by_collection: dict[str, list[str]] = defaultdict(list)
        for seed in state["seeds"]:
            by_collection[seed.collection].append(seed.chunk_id)
        scores = {s.chunk_id: s for s in state["seeds"]}
        vector = ctx.searcher.embed_query(f"{task.title}\n{anchor.question}", list(by_collection))
        scoped_query = (task.corpus_queries or task.queries or [task.title])[0]
        out: list[Passage] = []
        for collection, ids in by_collection.items():
            engine = ctx.reference_engine(collection)
            chunks = ctx.catalog.get_chunks(collection, ids)
            hits = [
                SearchHit(chunks[i], scores[i].search_score or 0.0, scores[i].relevance)
                for i in ids
                if i in chunks
            ]
            result = engine.expand(
                hits,
                vector,
                depth=ctx.depth,
                batch_gate=functools.partial(gate, engine=engine),
                query=scoped_query,  # whole-document mentions are followed by a search scoped to it
            )
            out.extend(from_expansion(result))
        return out

    reached = await asyncio.to_thread(run)
    for item in judged:
        if item["follow"]:
            events.emit("reference_followed", task_id=task.id, **item)
    for w in warnings:
        events.warning(w)
    passages = select_passages(reached, ctx.settings.max_passages, ctx.settings.min_passage_relevance)
    budget = min(ctx.settings.extract_batch_tokens, max(200, ctx.llm.window.budget - 1200))
    batches = batches_of(passages, budget, ctx.llm.window.count_text)
    followed = sum(1 for j in judged if j["follow"])
    events.task_progress(
        task.id,
        "followed_references",
        followed=followed,
        skipped=len(judged) - followed,
        passages=len(passages),
    )
    return {
        "passages": passages,
        "retrieved": [p.chunk_id for p in reached],
        "followed": followed,
        "skipped": len(judged) - followed,
        "batches": batches,
        "task_warnings": warnings,
        "llm_calls": counts,
    }


def _heading(engine: Any, request: GateRequest) -> str:
    target = request.target
    if target.document is None or target.section is None:
        return ""
    chunks = engine.passages.section_passages(target.document, target.section)
    return str(chunks[0].heading) if chunks else ""


async def extract(state: ExtractInput, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM: one batch of passages with numbered sentences -> findings with the sentence numbers that state
    them; quotes cut from the page text by offsets (invalid output: no evidence from this batch)."""
    ctx = runtime.context
    task, batch, index = state["task"], state["batch"], state["batch_index"]
    events.task_progress(task.id, "extracting", batch=index + 1)
    table = number_passages(batch)
    if not table:
        return {}
    schema = extraction_schema([s.number for s in table])
    messages = prompts.extraction_prompt(
        task, state["anchor"], render_numbered(batch, table), state["language"]
    )
    step = await ask(ctx.llm, "extract", schema, messages)
    for w in step.warnings:
        events.warning(w)
    evidence = []
    if step.value is not None:
        pages = await asyncio.to_thread(_pages_of, ctx, batch)
        evidence = evidence_from_findings(
            step.value.findings,  # type: ignore[attr-defined]
            table,
            batch,
            pages,
            task_id=task.id,
            id_prefix=f"{task.id}-b{index + 1}",
            anchor=state["anchor"],
            settings=ctx.settings,
        )
    return {"evidence": evidence, "task_warnings": step.warnings, "llm_calls": step.counts()}


def _pages_of(ctx: ResearchContext, batch: Sequence[Passage]) -> dict[tuple[str, str], list[PageText]]:
    out: dict[tuple[str, str], list[PageText]] = {}
    for p in batch:
        key = (p.collection, p.document)
        if key not in out:
            out[key] = ctx.catalog.pages(p.collection, p.document)
    return out


async def measure_drift(state: DigState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O (embedder): each finding's similarity to the query anchor. Measured here, while other tasks
    wait for the model, rather than for all evidence at once at the start of synthesis."""
    evidence = state.get("evidence", [])
    embedder = runtime.context.embedder
    scores = await asyncio.to_thread(anchor_similarities, embedder, anchor_text(state["anchor"]), evidence)
    return {"similarities": scores}


async def summarize(state: DigState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM: the task's findings, gaps and related findings (invalid output: the findings' own statements)."""
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
    if evidence:
        events.task_progress(task.id, "summarizing")
        messages = prompts.summary_prompt(task, state["anchor"], evidence, state["language"])
        step = await ask(runtime.context.llm, "summarize", TaskSummaryDraft, messages)
        counts = step.counts()
        warnings.extend(step.warnings)
        for w in step.warnings:
            events.warning(w)
        draft = step.value
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
    result = TaskResult(
        task_id=task.id,
        title=task.title,
        queries=[*task.queries, *task.corpus_queries],
        passages=len(state.get("passages", [])),
        retrieved=state.get("retrieved", []),
        references_followed=state.get("followed", 0),
        references_skipped=state.get("skipped", 0),
        evidence=evidence,
        summary=summary,
        warnings=warnings,
    )
    events.task_progress(task.id, "done", state="done", evidence=len(evidence))
    return {"task_results": [result], "warnings": warnings, "llm_calls": counts}
