"""``web_research``: the questions of a report section searched on the web, the result pages fetched and
read, and the few verbatim passages that answer them, within a character budget.

Search (SearxNG, one query per question, concurrently) -> the results of all queries interleaved by rank,
one per address, the first ``max_pages`` -> fetch and extract (``web_research.concurrency`` at once)
-> sentences scored against the questions -> compressed into passages (``compress``). Every failure
(SearxNG down or answering an error, a page too slow, too large, not a web page, in the local network,
without text) is a warning; a failure never produces a passage, and no passage holds a word that is not
on its page.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

from rabbithole.research.models import Evidence
from rabbithole.web.compress import Span, candidate_sentences, page_passages, select
from rabbithole.web.errors import WebError
from rabbithole.web.extract import extract_text
from rabbithole.web.models import WebFindings, WebPage, WebPassage
from rabbithole.web.scoring import RelevanceScorer
from rabbithole.web.searcher import WebSearcher
from rabbithole.web.searxng import SearchHit

__all__ = ["EvidenceSearch", "web_evidence_search", "web_research"]

#: ``(queries, language, task_id) -> (web evidence with ids "{task_id}-w{n}", warnings)``: the shape a
#: report section's graph calls (``ResearchContext.web``).
EvidenceSearch = Callable[[Sequence[str], str, str], Awaitable[tuple[list[Evidence], list[str]]]]

log = logging.getLogger(__name__)


async def web_research(
    questions: Sequence[str],
    language: str,
    *,
    searcher: WebSearcher,
    budget_chars: int | None = None,
    max_pages: int | None = None,
) -> WebFindings:
    """Search the web for ``questions`` (``language``: ISO 639-1, passed to SearxNG) and keep the passages
    of the result pages that answer them: at most ``budget_chars`` characters in all (default
    ``web_research.budget_chars``) from at most ``max_pages`` pages (default ``web_research.max_pages``)."""
    settings = searcher.settings
    queries = list(dict.fromkeys(" ".join(q.split()) for q in questions if q.strip()))
    if not queries:
        return WebFindings()
    warnings: list[str] = []
    hits = await _search(searcher, queries, language, warnings)
    hits = hits[: max_pages or settings.max_pages]
    if not hits and not warnings:
        warnings.append(f"web search: no results for {'; '.join(queries)}")
    pages = await _read(searcher, hits, warnings)
    passages = await asyncio.to_thread(
        _passages, searcher, pages, queries, budget_chars or settings.budget_chars
    )
    if pages and not passages:
        warnings.append(
            f"web research: no passage of the {len(pages)} page(s) read reached relevance "
            f"{settings.min_relevance:g}"
        )
    return WebFindings(
        queries=queries, pages=pages, passages=passages, warnings=list(dict.fromkeys(warnings))
    )


def web_evidence_search(searcher: WebSearcher) -> EvidenceSearch:
    """``web_research`` over ``searcher`` as evidence: the passages as ``Evidence`` (``kind="web"``, ids
    ``{task_id}-w{n}``, see ``WebFindings.evidence``) and the warnings."""

    async def search(queries: Sequence[str], language: str, task_id: str) -> tuple[list[Evidence], list[str]]:
        findings = await web_research(queries, language, searcher=searcher)
        return findings.evidence(task_id), findings.warnings

    return search


async def _search(
    searcher: WebSearcher, queries: list[str], language: str, warnings: list[str]
) -> list[SearchHit]:
    async def one(query: str) -> list[SearchHit]:
        try:
            return await searcher.client.search(query, language, limit=searcher.settings.max_results)
        except WebError as exc:
            log.warning("web search: %s", exc)
            warnings.append(f"web search: {exc}")
            return []

    results = await asyncio.gather(*(one(q) for q in queries))
    merged: dict[str, SearchHit] = {}
    for rank in range(max((len(r) for r in results), default=0)):
        for hits in results:
            if rank < len(hits):
                merged.setdefault(hits[rank].url, hits[rank])
    return list(merged.values())


async def _read(searcher: WebSearcher, hits: list[SearchHit], warnings: list[str]) -> list[WebPage]:
    gate = asyncio.Semaphore(searcher.settings.concurrency)

    async def one(hit: SearchHit) -> WebPage | None:
        async with gate:
            try:
                fetched = await searcher.fetcher.fetch(hit.url)
                extracted = await asyncio.to_thread(extract_text, fetched)
            except WebError as exc:
                log.info("web page skipped: %s", exc)
                warnings.append(f"web page skipped: {exc}")
                return None
        return WebPage(
            url=hit.url,
            final_url=fetched.final_url,
            title=extracted.title or hit.title,
            fetched_at=fetched.fetched_at,
            text=extracted.text,
        )

    pages: dict[str, WebPage] = {}
    for page in await asyncio.gather(*(one(h) for h in hits)):
        if page is not None:
            pages.setdefault(page.final_url, page)
    return list(pages.values())


def _passages(
    searcher: WebSearcher, pages: list[WebPage], queries: list[str], budget_chars: int
) -> list[WebPassage]:
    """CPU work (embedding): runs in a worker thread."""
    if not pages:
        return []
    settings = searcher.settings
    scorer = RelevanceScorer(searcher.embedder, queries, lexical_weight=settings.lexical_weight)
    sentences = [candidate_sentences(p.text, passage_chars=settings.passage_chars) for p in pages]
    flat = [p.text[s.start : s.end] for p, spans in zip(pages, sentences, strict=True) for s in spans]
    relevance = scorer.score(flat)
    candidates: list[Span] = []
    at = 0
    for index, spans in enumerate(sentences):
        candidates += page_passages(
            index,
            spans,
            relevance[at : at + len(spans)],
            min_relevance=settings.min_relevance,
            passage_chars=settings.passage_chars,
        )
        at += len(spans)
    chosen = select(
        candidates,
        [p.text for p in pages],
        budget_chars=budget_chars,
        per_page=settings.passages_per_page,
    )
    return [
        WebPassage(
            id=f"w{n}",
            page=span.page,
            url=pages[span.page].final_url,
            title=pages[span.page].title,
            fetched_at=pages[span.page].fetched_at,
            start=span.start,
            end=span.end,
            quote=pages[span.page].text[span.start : span.end],
            score=round(span.score, 4),
            question=queries[span.question],
        )
        for n, span in enumerate(chosen, start=1)
    ]
