"""Nodes of researching and writing one section (the search, reference following and extraction nodes are
the dig subgraph's, shared): plan a search round, widen the hits to their neighbouring chunks, write the
section citing evidence ids, grade it, and hand the section on."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from rabbithole.core.config import ReportSettings
from rabbithole.core.models import Chunk
from rabbithole.core.text import unique_texts
from rabbithole.llm.structured import with_schema_instruction
from rabbithole.research import events
from rabbithole.research.context import ResearchContext
from rabbithole.research.dig.evidence import evidence_order
from rabbithole.research.dig.extraction import unread_places
from rabbithole.research.evidence.citations import DraftClaim, DraftSection, strip_markers
from rabbithole.research.llm_step import ask
from rabbithole.research.models import Evidence, Passage, SectionGrade, TaskSpec, UnreadPassage
from rabbithole.research.passages import from_chunk
from rabbithole.research.report import prompts
from rabbithole.research.report.assembly import canonical_ids, unique_evidence
from rabbithole.research.report.event_models import SectionEvent
from rabbithole.research.report.models import SectionResult
from rabbithole.research.report.schemas import SectionGradeJudgement, section_schema
from rabbithole.research.report.state import SectionState
from rabbithole.research.report.unread import still_unread, unread_statement
from rabbithole.research.synthesis.consistency import correct_claims
from rabbithole.research.synthesis.packing import pack_context
from rabbithole.research.synthesis.prompts import evidence_item
from rabbithole.research.synthesis.prompts import labels as synthesis_labels
from rabbithole.research.synthesis.sections import assembled_section

#: Tokens kept free beyond the instructions, the schema and the section (estimates are not exact).
PROMPT_MARGIN = 300


def report_settings(ctx: ResearchContext) -> ReportSettings:
    return ctx.report if ctx.report is not None else ReportSettings()


def plan_round(state: SectionState) -> dict[str, Any]:
    """The task of this search round (the shared dig nodes read it): the section's questions, a
    refinement's queries, or a failing grade's follow-up queries. The first round of a refinement starts
    from the evidence the section had."""
    section = state["section"]
    depth = state.get("depth", -1) + 1
    if depth == 0:
        queries = state["queries"] or section.questions or [section.title]
        corpus = [] if state["queries"] else section.corpus_queries
    else:
        queries, corpus = state.get("next_queries", []), state.get("next_corpus_queries", [])
    description = " ".join(f"{section.description} {state['instructions']}".split())
    task = TaskSpec(
        id=f"{section.id}-p{state['refinement']}-d{depth}",
        title=section.title,
        description=description,
        queries=unique_texts(queries)[:3],
        corpus_queries=unique_texts(corpus)[:3],
    )
    events.emit(
        SectionEvent(
            section_id=section.id,
            title=section.title,
            state="researching",
            round=depth + 1,
            refinement=state["refinement"],
        )
    )
    update: dict[str, Any] = {"task": task, "depth": depth}
    previous = state.get("previous")
    if depth == 0 and previous is not None:
        update["evidence"] = list(previous.evidence)
        update["unread"] = list(previous.passages_unread)
    return update


def neighbours(
    seeds: Sequence[Passage], chunks_of: Any, count: Any, budget: int, *, have: set[str] | None = None
) -> list[Passage]:
    """Small-to-large: the seeds, each followed by its neighbouring chunks (the one before, the one after)
    while their tokens fit ``budget``; best seeds first, no chunk twice. ``chunks_of(collection, document)``
    gives a document's chunks in order."""
    seen = set(have or ()) | {s.chunk_id for s in seeds}
    cache: dict[tuple[str, str], list[Chunk]] = {}
    used = 0
    out: list[Passage] = []
    for seed in seeds:
        out.append(seed)
        if used >= budget:
            continue
        key = (seed.collection, seed.document)
        if key not in cache:
            cache[key] = list(chunks_of(*key))
        chunks = cache[key]
        index = next((i for i, c in enumerate(chunks) if c.id == seed.chunk_id), None)
        if index is None:
            continue
        for i in (index - 1, index + 1):
            if not 0 <= i < len(chunks) or chunks[i].id in seen:
                continue
            cost = int(count(chunks[i].text))
            if used + cost > budget:
                continue
            used += cost
            seen.add(chunks[i].id)
            out.append(from_chunk(chunks[i], depth=0, relevance=seed.relevance))
    return out


async def widen(state: SectionState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O: the search hits with their neighbouring chunks, within ``report_mode.context_tokens``."""
    ctx = runtime.context
    budget = report_settings(ctx).context_tokens
    seeds = state.get("seeds", [])
    if budget <= 0 or not seeds:
        return {}
    widened = await asyncio.to_thread(
        neighbours, seeds, ctx.catalog.chunks, ctx.llm.window.count_text, budget
    )
    return {"seeds": widened}


def round_unread(state: SectionState) -> list[UnreadPassage]:
    """The section's passages still unread after this round: the earlier rounds' (and passes') less those
    this round read, with this round's."""
    every = state.get("passages_unread", [])
    read = [p.chunk_id for p in state.get("passages", [])]
    return still_unread(state.get("unread", []), every[state.get("unread_counted", 0) :], read)


async def write(state: SectionState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM: the section as claims citing the ids of its evidence (an enum of the ids shown). No evidence:
    the section says so (no call), and when the model could not read passages it says that instead, with
    where they lie, never that the documents hold nothing. Invalid output: the findings' own statements
    (``answered`` false: compile shows them labelled as assembled from the findings)."""
    ctx = runtime.context
    section = state["section"]
    language = state["language"]
    evidence = unique_evidence(state.get("evidence", []))
    unread = round_unread(state)
    update: dict[str, Any] = {
        "retrieved_all": state.get("retrieved", []),
        "followed_all": state.get("followed", 0),
        "passages_all": len(state.get("passages", [])),
        "unread": unread,
        "unread_counted": len(state.get("passages_unread", [])),
        "answered": True,
        "language_ok": True,
    }
    if not evidence:
        if unread:
            text = unread_statement(unread, language)
            warning = (
                f"section '{section.title}': no evidence, because the model could not read "
                f"{len(unread)} retrieved passage(s) ({unread_places(unread)}); the section says so"
            )
            events.warning(warning)
            update["task_warnings"] = [warning]
        else:
            text = prompts.labels(language)["no_evidence"]
        return {**update, "draft": DraftSection(heading=section.title, claims=[DraftClaim(text=text)])}
    events.emit(
        SectionEvent(section_id=section.id, title=section.title, state="writing", evidence=len(evidence))
    )
    fixed = with_schema_instruction(
        prompts.section_prompt(
            section, state["topic"], state["guidance"], "", language, state["instructions"]
        ),
        section_schema([e.id for e in evidence]),
    )
    budget = max(300, ctx.llm.window.budget - ctx.llm.window.count_messages(fixed) - PROMPT_MARGIN)
    packed = pack_context("", [], evidence, budget, ctx.llm.window.count_text)
    messages = prompts.section_prompt(
        section, state["topic"], state["guidance"], packed.text, language, state["instructions"]
    )
    step = await ask(ctx.llm, "section_write", section_schema([e.id for e in packed.evidence]), messages)
    warnings = list(step.warnings)
    if step.value is not None:
        claims = [
            DraftClaim(text=c.text, evidence_ids=list(c.evidence))
            for c in step.value.claims  # type: ignore[attr-defined]
        ]
        text = " ".join(c.text for c in claims)
        update["language_ok"] = ctx.detector.detect(text) == language if text.strip() else True
        note = None
    else:
        warnings = [f"{w} (section '{section.title}': assembled from its findings)" for w in warnings]
        names = synthesis_labels(language)
        note = f"{names['assembled']} ({names['no_answer']})."
        claims = assembled_section(section.title, packed.evidence, note).claims
        update["answered"] = False
    if packed.report.cut:
        warnings.append(
            f"section '{section.title}': {len(packed.report.cut)} evidence item(s) did not fit the context "
            "window and were left out"
        )
    for w in warnings:
        events.warning(w)
    return {
        **update,
        "draft": DraftSection(heading=section.title, claims=claims, note=note),
        "task_warnings": warnings,
        "llm_calls": step.counts(),
        "llm_tokens": step.usage(),
    }


def draft_text(draft: DraftSection, evidence: Sequence[Any]) -> str:
    """The draft as the grader sees it: claims with their ids, then the evidence they cite."""
    by_id = {e.id: e for e in evidence}
    lines = [c.text + (f" [{', '.join(c.evidence_ids)}]" if c.evidence_ids else "") for c in draft.claims]
    cited = dict.fromkeys(i for c in draft.claims for i in c.evidence_ids if i in by_id)
    if cited:
        lines += ["", "Evidence:", *(evidence_item(by_id[i]) for i in cited)]
    return "\n".join(lines)


async def grade(state: SectionState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM: pass or fail, with follow-up queries; a fail below ``report_mode.max_search_depth`` searches again
    with them. Invalid output: the draft passes (a warning)."""
    ctx = runtime.context
    section = state["section"]
    messages = prompts.grade_prompt(
        section,
        state["topic"],
        draft_text(state["draft"], state.get("evidence", [])),
        state["language"],
        state["corpus_language"],
    )
    step = await ask(ctx.llm, "section_grade", SectionGradeJudgement, messages)
    warnings = [f"{w} (section '{section.title}' passes)" for w in step.warnings]
    for w in warnings:
        events.warning(w)
    judged = step.value
    if judged is None:
        result = SectionGrade(passed=True)
        follow, corpus = [], []
    else:
        follow, corpus = unique_texts(judged.follow_up_queries), unique_texts(judged.corpus_queries)
        missing = unique_texts(judged.missing)
        result = SectionGrade(passed=judged.passed, missing=missing, follow_up_queries=follow)
    again = not result.passed and state["depth"] < report_settings(ctx).max_search_depth and bool(follow)
    events.emit(
        SectionEvent(
            section_id=section.id,
            title=section.title,
            state="graded",
            passed=result.passed,
            round=state["depth"] + 1,
        )
    )
    return {
        "grade": result,
        "next_queries": follow if again else [],
        "next_corpus_queries": corpus if again else [],
        "task_warnings": warnings,
        "llm_calls": step.counts(),
        "llm_tokens": step.usage(),
    }


def support_texts(draft: DraftSection, evidence: Sequence[Evidence]) -> list[str]:
    """The texts the support check at compile embeds for this draft: each citing sentence (as rendered,
    markers stripped; one stating a figure or provision its quotes do not as compile corrects it, citing
    each quoted place by its first evidence: ``checking``) and the quotes it cites."""
    mapping, kept = canonical_ids([evidence])
    by_id = {e.id: e for e in kept}
    claims = [
        DraftClaim(text=c.text, evidence_ids=list(dict.fromkeys(mapping.get(i, i) for i in c.evidence_ids)))
        for c in draft.claims
    ]
    corrected, _ = correct_claims(draft.heading, claims, by_id)
    texts: list[str] = []
    for claim in corrected:
        cited = [by_id[i].quote for i in claim.evidence_ids if i in by_id]
        text = strip_markers(claim.text)
        if cited and text:
            texts += [text, *cited]
    return list(dict.fromkeys(texts))


async def embed_claims(state: SectionState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O (embedder), beside the grade (which waits for the model): the draft's cited sentences and their
    quotes, embedded for the support check at compile. The vectors go to the run's cache
    (``ResearchContext.vectors``), not to the state: without it, compile embeds them."""
    vectors = runtime.context.vectors
    texts = support_texts(state["draft"], state.get("evidence", []))
    if vectors is not None and texts:
        await asyncio.to_thread(vectors.embed, texts)
    return {}


def finish_section(state: SectionState) -> dict[str, Any]:
    """The written section, replacing what it was before a refinement."""
    section = state["section"]
    previous = state.get("previous")
    evidence = sorted({e.id: e for e in state.get("evidence", [])}.values(), key=evidence_order)
    result = SectionResult(
        section=section,
        draft=state["draft"],
        evidence=evidence,
        grade=state.get("grade"),
        rounds=state["depth"] + 1 + (previous.rounds if previous is not None else 0),
        refined=state["refinement"],
        passages=state.get("passages_all", 0) + (previous.passages if previous is not None else 0),
        references_followed=state.get("followed_all", 0)
        + (previous.references_followed if previous is not None else 0),
        retrieved=sorted({*state.get("retrieved_all", []), *(previous.retrieved if previous else [])}),
        warnings=list(state.get("task_warnings", [])),
        answered=state.get("answered", True),
        language_ok=state.get("language_ok", True),
        passages_unread=state.get("unread", []),
        extraction_failures=state.get("extraction_failures", 0)
        + (previous.extraction_failures if previous is not None else 0),
    )
    events.emit(
        SectionEvent(
            section_id=section.id,
            title=section.title,
            state="refined" if state["refinement"] else "done",
            evidence=len(evidence),
            passed=result.grade.passed if result.grade is not None else None,
        )
    )
    return {"sections_done": {section.id: result}, "warnings": result.warnings}


async def web_search(state: SectionState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O (optional, off unless web research is configured): the round's queries on the web; the passages
    kept are web evidence beside the documents' (cited as web sources)."""
    web = runtime.context.web
    task = state["task"]
    if web is None or not task.queries:
        return {}
    section = state["section"]
    events.emit(
        SectionEvent(section_id=section.id, title=section.title, state="searching_web", queries=task.queries)
    )
    found, warnings = await web(task.queries, state["language"], task.id)
    for w in warnings:
        events.warning(w)
    return {"evidence": found, "task_warnings": warnings}
