"""Nodes of clarification: one LLM or I/O step each."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from rabbithole.core.text import unique_texts
from rabbithole.research import events
from rabbithole.research.anchor import fallback_anchor, summary_of, user_answers
from rabbithole.research.clarify import progress, prompts
from rabbithole.research.clarify.schemas import AnchorDraft, ClarifyAnalysis, ClarifyQueries
from rabbithole.research.clarify.state import ClarifyState
from rabbithole.research.context import ResearchContext
from rabbithole.research.event_models import ClarificationEvent
from rabbithole.research.llm_step import ask, merge_counts
from rabbithole.research.models import (
    ClarificationInterrupt,
    ClarificationRound,
    QueryAnchor,
)
from rabbithole.research.passages import merge_hits, shown_passage
from rabbithole.research.translation import translate_question

#: Passages of a round shown to the model and the user.
SHOWN_PASSAGES = 8
SNIPPET_CHARS = 400
END = "/end"


def _clean(queries: list[str]) -> list[str]:
    out: list[str] = []
    for q in queries:
        q = " ".join(q.split())
        if q and q.lower() not in (o.lower() for o in out):
            out.append(q)
    return out


async def make_queries(state: ClarifyState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM: this round's queries (round 1: the question, a broader one, another angle)."""
    rounds = state.get("rounds", [])
    if not rounds:
        events.phase("clarify")
    progress.progress(len(rounds) + 1, "planning")
    messages = prompts.queries_prompt(state["question"], rounds, state["language"], state["corpus_language"])
    step = await ask(runtime.context.llm, "clarify_queries", ClarifyQueries, messages)
    answers = user_answers(rounds)
    if step.value is None:
        # default: the question, refined by the latest answer
        queries = _clean([state["question"], *(f"{state['question']} {a}" for a in answers[-1:])])
    else:
        first = [state["question"]] if not rounds else []
        queries = _clean([*first, *step.value.queries, *step.value.corpus_queries])
    for w in step.warnings:
        events.warning(w)
    return {
        "queries": queries[:8],
        "warnings": step.warnings,
        "llm_calls": step.counts(),
        "llm_tokens": step.usage(),
    }


async def search(state: ClarifyState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O: hybrid search of every query, one after another, each reported (``clarification_progress``);
    dedup ratio = share of hits already returned (earlier in this round or in an earlier round)."""
    ctx = runtime.context
    k = ctx.settings.clarify_k
    queries = state["queries"]
    round_number = len(state.get("rounds", [])) + 1
    progress.progress(round_number, "searching", queries=len(queries))
    seen = set(state.get("seen", []))
    found: set[str] = set()
    hit_lists: list[list[Any]] = []
    total = duplicates = 0
    for searched, query in enumerate(queries, start=1):
        hits = await asyncio.to_thread(ctx.searcher.search, query, state["collections"], k=k)
        hit_lists.append(hits)
        for hit in hits:
            total += 1
            if hit.chunk.id in seen:
                duplicates += 1
            seen.add(hit.chunk.id)
            found.add(hit.chunk.id)
        progress.progress(
            round_number, "searching", queries=len(queries), searched=searched, passages=len(found)
        )
    merged = merge_hits(hit_lists)
    shown = [shown_passage(h, SNIPPET_CHARS) for h in merged[:SHOWN_PASSAGES]]
    best = max((h.similarity for h in merged if h.similarity is not None), default=0.0)
    return {
        "passages": shown,
        "seen": sorted(seen),
        "dedup_ratio": round(duplicates / total, 4) if total else 0.0,
        "best_similarity": float(best),
    }


async def analyze(state: ClarifyState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM: understanding, coverage, gaps and 2-3 follow-up questions grounded in the passages."""
    rounds = state.get("rounds", [])
    progress.progress(
        len(rounds) + 1,
        "analyzing",
        queries=len(state["queries"]),
        searched=len(state["queries"]),
        passages=len(state["passages"]),
    )
    messages = prompts.analysis_prompt(state["question"], rounds, state["passages"], state["language"])
    step = await ask(runtime.context.llm, "clarify_analysis", ClarifyAnalysis, messages)
    if step.value is None:
        # default: no questions to ask (clarification ends); coverage from retrieval alone
        understanding, coverage, gaps, questions = (
            state["question"],
            state.get("best_similarity", 0.0),
            [],
            [],
        )
    else:
        a = step.value
        understanding, coverage, gaps, questions = a.understanding, a.coverage, a.gaps, a.questions
    current = ClarificationRound(
        round=len(rounds) + 1,
        questions=[q.strip() for q in questions if q.strip()],
        understanding=understanding,
        coverage=max(0.0, min(1.0, float(coverage))),
        gaps=gaps,
        queries=state["queries"],
        passages=state["passages"],
        dedup_ratio=state.get("dedup_ratio", 0.0),
    )
    for w in step.warnings:
        events.warning(w)
    return {
        "current": current,
        "warnings": step.warnings,
        "llm_calls": step.counts(),
        "llm_tokens": step.usage(),
    }


def _answer_of(value: object) -> str:
    if isinstance(value, dict):
        value = value.get("answer")
    if not isinstance(value, str) or not value.strip():
        raise ValueError("a clarification answer is a non-empty text, or /end")
    return value.strip()


async def ask_user(state: ClarifyState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """Interrupt: the round's questions and what the corpus returned; the user answers or sends /end."""
    current = state["current"]
    assert current is not None
    events.emit(ClarificationEvent(round=current))
    payload = ClarificationInterrupt(**current.model_dump())
    while True:
        value = interrupt(payload.model_dump(mode="json"))
        try:
            answer = _answer_of(value)
            break
        except ValueError as exc:
            payload = payload.model_copy(update={"error": str(exc)})
    ended = answer.lower() == END
    progress.answered(current.round, answer, ended)
    answered = current.model_copy(update={"answer": answer})
    return {
        "rounds": [*state.get("rounds", []), answered],
        "current": None,
        "ended": ended,
    }


def record_round(state: ClarifyState) -> dict[str, Any]:
    """The last round, not asked (converged or out of rounds), goes on record unanswered."""
    current = state.get("current")
    if current is None:
        return {}
    return {"rounds": [*state.get("rounds", []), current], "current": None}


async def make_anchor(state: ClarifyState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """LLM: the immutable query anchor, research queries and the conversation summary; for a question in
    another language than the documents' (``research.translation_views``), its checked translation beside
    it (two calls at once, ``research/translation.py``), first among the corpus queries."""
    ctx = runtime.context
    rounds = state.get("rounds", [])
    progress.progress(max(1, len(rounds)), "anchoring")
    question, language = state["question"], state["language"]
    messages = prompts.anchor_prompt(question, rounds, language, state["corpus_language"])
    translating = ctx.settings.translation_views and state["corpus_language"] != language
    if translating:
        step, translation = await asyncio.gather(
            ask(ctx.llm, "anchor", AnchorDraft, messages),
            translate_question(ctx, question, language, state["corpus_language"]),
        )
    else:
        step, translation = await ask(ctx.llm, "anchor", AnchorDraft, messages), None
    corpus_queries: list[str] = []
    if step.value is None:
        anchor = fallback_anchor(question, language, rounds)
        queries = _clean([question, *(q for r in rounds[-1:] for q in r.queries)])
        summary = summary_of(question, rounds)
    else:
        draft = step.value
        anchor = QueryAnchor(
            question=question,
            language=language,
            key_entities=_clean(draft.key_entities),
            scope=draft.scope.strip(),
            refinements=_clean([*user_answers(rounds), *draft.refinements]),
        )
        queries = _clean([question, *draft.research_queries])
        if state["corpus_language"] != language:
            corpus_queries = _clean(draft.corpus_queries)
        summary = draft.summary.strip() or summary_of(question, rounds)
    warnings, counts, tokens = list(step.warnings), step.counts(), step.usage()
    translated: dict[str, Any] = {}
    if translation is not None:  # first among the corpus queries (they are checked where searched)
        corpus_queries = unique_texts([translation.text, *corpus_queries])
        warnings += translation.warnings
        counts = merge_counts(counts, translation.counts)
        tokens = merge_counts(tokens, translation.tokens)
        translated = {
            "question_translation": translation.text,
            "translations_dropped": translation.dropped,
        }
    for w in warnings:
        events.warning(w)
    return {
        "anchor": anchor,
        "research_queries": queries[:6],
        "corpus_queries": corpus_queries[:6],
        "clarification_summary": summary,
        "warnings": warnings,
        "llm_calls": counts,
        "llm_tokens": tokens,
        **translated,
    }
