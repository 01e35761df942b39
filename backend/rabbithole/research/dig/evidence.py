"""Evidence from an extraction answer: each fact tied to the sentences that hold its numbers and provisions
(``tying``), the sentences grouped into runs, each run cut from its page by offsets (verbatim by
construction), tiered by relevance, entity match, depth and source."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rabbithole.core.config import ResearchSettings
from rabbithole.core.models import PageText
from rabbithole.research.dig.tying import SentenceTokens, holds_any, tie_fact
from rabbithole.research.evidence.claim_tokens import claim_tokens
from rabbithole.research.evidence.numbering import NumberedSentence, group_runs
from rabbithole.research.evidence.quotes import PageQuote, quotes_from_run
from rabbithole.research.evidence.tiering import entity_match, tier_of
from rabbithole.research.models import Evidence, Passage, QueryAnchor

log = logging.getLogger(__name__)

#: Gap (in sentences) bridged when the chosen sentences of one finding are grouped into one quote.
MAX_GAP = 1


@dataclass
class FindingsEvidence:
    """The evidence of an extraction answer, and how many of its facts were tied to other sentences than
    the model chose (``retied``) or dropped because no passage holds their numbers or provisions."""

    evidence: list[Evidence] = field(default_factory=list)
    retied: int = 0
    dropped: int = 0


def evidence_from_findings(
    findings: Sequence[Any],
    table: Sequence[NumberedSentence],
    batch: Sequence[Passage],
    pages: Mapping[tuple[str, str], Sequence[PageText]],
    *,
    task_id: str,
    id_prefix: str,
    anchor: QueryAnchor,
    settings: ResearchSettings,
    sentences: Mapping[int, SentenceTokens] | None = None,
) -> FindingsEvidence:
    """``sentences``: the tokens of every numbered sentence (``tying.sentence_tokens``); given, each fact
    is tied to the sentences that hold its tokens first (None: quoted from the sentences chosen)."""
    by_id = {p.chunk_id: p for p in batch}
    result = FindingsEvidence()
    out = result.evidence
    seen: set[tuple[str, int, int, int]] = set()
    for finding in findings:
        fact = " ".join(str(finding.fact).split())
        if not fact:
            continue
        chosen: Sequence[int] = finding.sentences
        wanted = claim_tokens(fact) if sentences is not None else []
        if sentences is not None:
            tie = tie_fact(fact, chosen, sentences)
            if tie.sentences is None:
                result.dropped += 1
                log.info("fact dropped, no passage holds its numbers or provisions: %s", fact)
                continue
            result.retied += tie.retied
            chosen = tie.sentences
        for run in group_runs(chosen, table, max_gap=MAX_GAP):
            passage = by_id.get(run[0].chunk_id)
            if passage is None:
                continue
            if wanted and sentences is not None and not holds_any([s.number for s in run], wanted, sentences):
                continue  # states none of the fact's figures: its other quotes do
            for quote in _quotes(run, pages[(passage.collection, passage.document)]):
                key = (passage.chunk_id, quote.page, quote.start, quote.end)
                if key in seen or not quote.text.strip():
                    continue
                seen.add(key)
                match = entity_match(f"{passage.heading}\n{quote.text}", anchor.key_entities)
                relevance = passage.relevance if passage.relevance is not None else 0.0
                tier, score = tier_of(
                    relevance=relevance,
                    entity_match=match,
                    depth=passage.depth,
                    is_search_hit=passage.depth == 0,
                    answers=bool(finding.answers),
                    primary=settings.tier_primary,
                    secondary=settings.tier_secondary,
                )
                out.append(
                    quoted_evidence(
                        passage,
                        quote,
                        id=f"{id_prefix}-e{len(out) + 1}",
                        task_id=task_id,
                        fact=fact,
                        answers=bool(finding.answers),
                        relevance=round(relevance, 4),
                        search_score=passage.search_score,
                        entity_match=round(match, 4),
                        tier=tier,
                        tier_score=round(score, 4),
                    )
                )
    return result


def quoted_evidence(passage: Passage, quote: PageQuote, **fields: Any) -> Evidence:
    """Evidence quoted from ``passage``: where it stands (collection, document, page, section, heading, the
    reference chain, pinned) from the passage, the quote and its offsets from ``quote``, the rest
    (``id``, ``task_id``, ``fact``, scores) as given."""
    placed: dict[str, Any] = {
        "chunk_id": passage.chunk_id,
        "collection": passage.collection,
        "document": passage.document,
        "page": quote.page,
        "section": passage.section,
        "heading": passage.heading,
        "quote": quote.text,
        "start": quote.start,
        "end": quote.end,
        "depth": passage.depth,
        "chain": passage.chain,
        "pinned": passage.pinned,
    }
    return Evidence(**{**placed, **fields})


def _quotes(run: Sequence[NumberedSentence], pages: Sequence[PageText]) -> list[PageQuote]:
    """One verbatim quote per page the run lies on (none when its offsets are on no page)."""
    try:
        return quotes_from_run(run, pages)
    except ValueError as exc:  # offsets of a stale chunk: no quote rather than a wrong one
        log.warning("no quote for sentences %s: %s", [s.number for s in run], exc)
        return []


def evidence_order(evidence: Evidence) -> tuple[int, ...]:
    """Sort key of evidence ids like "t2-b1-e3": batch, then position (ids of other shapes last)."""
    numbers = [int(part[1:]) for part in evidence.id.split("-")[1:] if part[1:].isdigit()]
    return tuple(numbers) if numbers else (1_000_000,)
