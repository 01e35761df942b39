"""Passages the run retrieved, as plain data for the graph state: from search hits and from what reference
expansion reached (with the chain of passages and mentions that led there)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

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


def from_hit(hit: SearchHit) -> Passage:
    return from_chunk(hit.chunk, search_score=hit.score, relevance=hit.similarity, depth=0)


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


def chain_of(result: ExpansionResult, passage: TracedPassage) -> list[ChainStep]:
    """Seed first; each step names the mention in it that led to the next step."""
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
            )
        )
    return out


def from_expansion(result: ExpansionResult) -> list[Passage]:
    """Every passage of an expansion with its depth, relevance and chain."""
    return [
        from_chunk(
            p.chunk,
            depth=p.depth,
            relevance=p.relevance,
            search_score=p.search_score,
            chain=chain_of(result, p) if p.depth > 0 else [],
        )
        for p in result.passages
    ]


def shown_passage(hit: SearchHit, snippet_chars: int = 400) -> RetrievedPassage:
    """A search hit as the user is shown it (clarification rounds, the assessment): where, score, snippet."""
    return RetrievedPassage(
        chunk_id=hit.chunk.id,
        document=hit.chunk.document,
        page=hit.chunk.page,
        section=hit.chunk.section,
        score=round(hit.score, 4),
        snippet=" ".join(hit.chunk.text.split())[:snippet_chars],
    )
