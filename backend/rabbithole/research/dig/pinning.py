"""The dig's pinning nodes (I/O). ``pin``: the provisions its task pins (``pinned.pins_by_task``) resolved by
the reference engine of each of the run's collections and their passages put first among the seeds, so that
references are followed from them too and extraction reads them first (``pinned.pinned_first``).
``pinned_evidence``: after extraction, a pinned provision the model read and found nothing in is listed among
the task's evidence with its opening sentences, verbatim, and a statement saying so."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from rabbithole.references.resolver import Citing
from rabbithole.research.context import ResearchContext
from rabbithole.research.dig.evidence import quoted_evidence
from rabbithole.research.dig.pinned import named_provisions, not_answering, opening, pinned_chunks
from rabbithole.research.dig.state import DigState
from rabbithole.research.evidence.quotes import quotes_from_run
from rabbithole.research.evidence.tiering import entity_match, tier_of
from rabbithole.research.models import Evidence, Passage, PinnedProvision, QueryAnchor
from rabbithole.research.passages import from_chunk

__all__ = ["listed_evidence", "pin", "pinned_evidence", "resolve_pin"]


def resolve_pin(
    ctx: ResearchContext, pin: PinnedProvision, collections: list[str], vector: Any
) -> tuple[PinnedProvision, list[Passage]]:
    """The provision resolved in the first collection that has it, with its passages (their similarity to
    the task as relevance); not found: the reason of the first collection (``Unresolved``)."""
    refs = named_provisions(pin.provision)
    if not refs:
        return pin.model_copy(update={"found": False, "reason": "not_a_provision"}), []
    ref = refs[0]
    reason: str | None = None
    for collection in collections:
        engine = ctx.reference_engine(collection)
        resolved = engine.resolver.resolve(ref, Citing())
        if not resolved.followable or resolved.document is None:
            reason = reason or (resolved.reason.value if resolved.reason else "no_section")
            continue
        section = [
            c for label in resolved.labels for c in engine.passages.section_passages(resolved.document, label)
        ]
        if not section:
            reason = reason or "no_passages"
            continue
        similarity = engine.passages.relevance(vector)
        chunks = pinned_chunks(ref, section, similarity)
        scores = similarity(chunks)
        passages = [from_chunk(c, depth=0, relevance=scores.get(c.id), pinned=True) for c in chunks]
        found = pin.model_copy(
            update={
                "found": True,
                "collection": collection,
                "document": resolved.document,
                "section": resolved.section,
                "reason": None,
                "chunk_ids": [p.chunk_id for p in passages],
            }
        )
        return found, passages
    return pin.model_copy(update={"found": False, "reason": reason or "no_collection"}), []


async def pin(state: DigState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O: the task's pinned provisions resolved, their passages first among the seeds; a provision not
    found in the collections is recorded (``found`` false) and warned about at the end of the run."""
    pins = state.get("pins", [])
    if not pins:
        return {}
    ctx = runtime.context
    task, anchor, collections = state["task"], state["anchor"], state["collections"]
    vector = await asyncio.to_thread(
        ctx.searcher.embed_views, f"{task.title}\n{anchor.question}", list(collections)
    )

    def run() -> list[tuple[PinnedProvision, list[Passage]]]:
        return [resolve_pin(ctx, p, collections, vector) for p in pins]

    resolved = await asyncio.to_thread(run)
    pinned = [p for p, _ in resolved]
    passages: list[Passage] = []
    ids: set[str] = set()
    for _, found in resolved:
        for p in found:
            if p.chunk_id not in ids:
                ids.add(p.chunk_id)
                passages.append(p)
    seeds = [*passages, *(s for s in state.get("seeds", []) if s.chunk_id not in ids)]
    return {"seeds": seeds, "pinned_passages": passages, "pinned": pinned}


def listed_evidence(
    ctx: ResearchContext, pin: PinnedProvision, passage: Passage, anchor: QueryAnchor, language: str, n: int
) -> Evidence | None:
    """The pinned ``passage``'s opening sentences as evidence of its provision, cut from the page by
    offsets, with the statement that nothing in it answers (None: no sentence, or offsets on no page)."""
    run = opening(passage)
    if not run:
        return None
    try:
        quote = quotes_from_run(run, ctx.catalog.pages(passage.collection, passage.document))[0]
    except ValueError:  # offsets of a stale chunk: nothing listed rather than a wrong quote
        return None
    relevance = passage.relevance if passage.relevance is not None else 0.0
    match = entity_match(f"{passage.heading}\n{quote.text}", anchor.key_entities)
    s = ctx.settings
    tier, score = tier_of(
        relevance=relevance,
        entity_match=match,
        depth=0,
        is_search_hit=True,
        answers=False,
        primary=s.tier_primary,
        secondary=s.tier_secondary,
    )
    return quoted_evidence(
        passage,
        quote,
        id=f"{pin.task_id}-p{n}-e1",
        task_id=pin.task_id,
        fact=not_answering(pin, passage.heading, language),
        answers=False,
        relevance=round(relevance, 4),
        entity_match=round(match, 4),
        tier=tier,
        tier_score=round(score, 4),
        pinned=True,
    )


async def pinned_evidence(state: DigState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """I/O (the catalog's pages): each pinned provision of the task that the model read and found nothing
    in (no finding from its section) listed among the task's evidence (``listed_evidence``); one whose
    passages the model could not read is left to the result's warning."""
    found = [p for p in state.get("pinned", []) if p.found and p.chunk_ids]
    if not found:
        return {}
    ctx = runtime.context
    have = {(e.collection, e.document, e.section) for e in state.get("evidence", [])}
    unread = {u.chunk_id for u in state.get("passages_unread", [])}
    passages = {p.chunk_id: p for p in state.get("pinned_passages", [])}

    def run() -> list[Evidence]:
        listed: list[Evidence] = []
        for n, pin in enumerate(found, 1):
            read = [passages[i] for i in pin.chunk_ids if i in passages and i not in unread]
            if not read or (pin.collection, pin.document, pin.section) in have:
                continue
            item = listed_evidence(ctx, pin, read[0], state["anchor"], state["language"], n)
            if item is not None:
                listed.append(item)
        return listed

    listed = await asyncio.to_thread(run)
    return {"evidence": listed} if listed else {}
