"""Passages the run retrieved, as plain data for the graph state: from search hits and from what reference
expansion reached (with the chain of passages and mentions that led there)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from rabbithole.core.models import Chunk, SearchHit
from rabbithole.references.provenance import ExpansionResult, TracedPassage
from rabbithole.research.models import ChainStep, Passage, RetrievedPassage


def from_chunk(chunk: Chunk, **extra: object) -> Passage:
    return Passage(
        chunk_id=chunk.id,
        collection=chunk.collection,
        document=chunk.document,
        page=chunk.page,
        page_end=chunk.page_end,
        section=chunk.section,
        heading=chunk.heading,
        start=chunk.start,
        end=chunk.end,
        text=chunk.text,
        **extra,  # type: ignore[arg-type]
    )


def seed_step(chunk: Chunk, query: str) -> ChainStep:
    """The first step of a chain: the search hit, with the query that found it."""
    return ChainStep(
        chunk_id=chunk.id, document=chunk.document, page=chunk.page, section=chunk.section, query=query
    )


def from_hit(hit: SearchHit, query: str | None = None) -> Passage:
    """A search hit as a seed; with the query that found it, its chain is that one step."""
    return from_chunk(
        hit.chunk,
        search_score=hit.score,
        relevance=hit.similarity,
        depth=0,
        query=query,
        chain=[seed_step(hit.chunk, query)] if query else [],
    )


def found_by(queries: Sequence[str], hit_lists: Sequence[Sequence[SearchHit]]) -> dict[str, str]:
    """Per passage (chunk id), the query whose hit on it scored best, the first of equals (as
    ``merge_hits`` keeps its score): the search that found it."""
    best: dict[str, tuple[float, str]] = {}
    for query, hits in zip(queries, hit_lists, strict=True):
        for hit in hits:
            known = best.get(hit.chunk.id)
            if known is None or hit.score > known[0]:
                best[hit.chunk.id] = (hit.score, query)
    return {chunk_id: query for chunk_id, (_, query) in best.items()}


def merge_hits(hit_lists: Iterable[Sequence[SearchHit]]) -> list[SearchHit]:
    """Hits of several queries, each passage once (its best score), best first; ties keep query order."""
    best: dict[str, SearchHit] = {}
    order: list[str] = []
    for hits in hit_lists:
        for hit in hits:
            known = best.get(hit.chunk.id)
            if known is None:
                order.append(hit.chunk.id)
                best[hit.chunk.id] = hit
            elif hit.score > known.score:
                best[hit.chunk.id] = hit
    ranked = sorted(range(len(order)), key=lambda i: (-best[order[i]].score, i))
    return [best[order[i]] for i in ranked]


def chain_of(
    result: ExpansionResult, passage: TracedPassage, queries: Mapping[str, str] | None = None
) -> list[ChainStep]:
    """Seed first (with the query that found it, where ``queries`` knows it); each step names the mention
    in it that led to the next step."""
    steps = result.chain(passage.id)
    out: list[ChainStep] = []
    for i, step in enumerate(steps):
        nxt = steps[i + 1] if i + 1 < len(steps) else None
        mention = " ".join(nxt.via.mention.split()) if nxt is not None and nxt.via is not None else None
        chunk = step.chunk
        out.append(
            ChainStep(
                chunk_id=chunk.id,
                document=chunk.document,
                page=chunk.page,
                section=chunk.section,
                mention=mention,
                query=(queries or {}).get(chunk.id) if i == 0 else None,
            )
        )
    return out


def from_expansion(result: ExpansionResult, queries: Mapping[str, str] | None = None) -> list[Passage]:
    """Every passage of an expansion with its depth, relevance and chain; ``queries``: the query that
    found each seed (chunk id), named by the chain's first step (a seed's chain is that one step)."""
    known = queries or {}
    out = []
    for p in result.passages:
        query = known.get(p.id) if p.depth == 0 else None
        seed_chain = [seed_step(p.chunk, query)] if query else []
        chain = chain_of(result, p, known) if p.depth > 0 else seed_chain
        out.append(
            from_chunk(
                p.chunk,
                depth=p.depth,
                relevance=p.relevance,
                search_score=p.search_score,
                query=query,
                chain=chain,
            )
        )
    return out


def shown_passage(hit: SearchHit, snippet_chars: int = 400) -> RetrievedPassage:
    """A search hit as the user is shown it (clarification rounds, the assessment): where, score, snippet."""
    return RetrievedPassage(
        chunk_id=hit.chunk.id,
        collection=hit.chunk.collection,
        document=hit.chunk.document,
        page=hit.chunk.page,
        page_end=hit.chunk.page_end,
        section=hit.chunk.section,
        score=round(hit.score, 4),
        snippet=" ".join(hit.chunk.text.split())[:snippet_chars],
        start=hit.chunk.start,
        end=hit.chunk.end,
    )
