"""Which passages extraction reads, and how they are packed into extraction calls (pure)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rabbithole.research.models import Passage


def select_passages(passages: Sequence[Passage], limit: int, min_relevance: float) -> list[Passage]:
    """Seeds first (search order), then reached passages at or above ``min_relevance``, most relevant
    first, ``limit`` in all. A reached passage without a known relevance is kept."""
    seeds = [p for p in passages if p.depth == 0]
    reached = [p for p in passages if p.depth > 0 and (p.relevance is None or p.relevance >= min_relevance)]
    reached.sort(key=lambda p: (p.depth, -(p.relevance if p.relevance is not None else 0.0)))
    if len(seeds) >= limit:
        return seeds[:limit]
    return [*seeds, *reached[: limit - len(seeds)]]


def batches_of(passages: Sequence[Passage], budget: int, count: Callable[[str], int]) -> list[list[str]]:
    """Chunk ids in batches of at most ``budget`` tokens (a passage larger than the budget alone)."""
    batches: list[list[str]] = []
    current: list[str] = []
    used = 0
    for p in passages:
        cost = count(p.text) + 40  # the passage tag and sentence numbers
        if current and used + cost > budget:
            batches.append(current)
            current, used = [], 0
        current.append(p.chunk_id)
        used += cost
    if current:
        batches.append(current)
    return batches
