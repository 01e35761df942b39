"""Reciprocal Rank Fusion and de-duplication of overlapping chunks (pure functions).

RRF: score(d) = sum over retrievers r of 1 / (k + rank_r(d)), ranks 1-based. The fused score is reported
normalized by the best possible score, n_retrievers / (k + 1), so 1.0 means "ranked first by every
retriever" whatever the query; a chunk found by one of two retrievers scores at most 0.5.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


@dataclass(slots=True)
class Fused(Generic[K]):
    key: K
    rrf: float  # raw RRF sum
    score: float  # rrf normalized to [0, 1]
    ranks: dict[str, int] = field(default_factory=dict)  # retriever name -> 1-based rank


def max_rrf(n_retrievers: int, k: int) -> float:
    """The RRF score of an item ranked first by every retriever."""
    return n_retrievers / (k + 1)


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[K]], k: int = 60, n_retrievers: int | None = None
) -> list[Fused[K]]:
    """Fuse ranked lists (best first, one per retriever name) into one list, best first.

    ``n_retrievers`` (default: number of lists) sets the normalization, so a retriever that ran but
    found nothing still counts. Ties are broken by the best single rank, then by first appearance.
    """
    if k < 1:
        raise ValueError("rrf k must be at least 1")
    best = max_rrf(n_retrievers if n_retrievers is not None else len(rankings), k) or 1.0
    fused: dict[K, Fused[K]] = {}
    for name, ranking in rankings.items():
        seen: set[K] = set()
        for position, key in enumerate(ranking, start=1):
            if key in seen:  # a retriever lists each item once; keep its best rank
                continue
            seen.add(key)
            item = fused.get(key)
            if item is None:
                item = fused[key] = Fused(key, 0.0, 0.0)
            item.rrf += 1.0 / (k + position)
            item.ranks[name] = position
    order = {key: i for i, key in enumerate(fused)}
    result = sorted(fused.values(), key=lambda f: (-f.rrf, min(f.ranks.values()), order[f.key]))
    for item in result:
        item.score = min(1.0, item.rrf / best)
    return result


def dedup_overlapping(
    items: Iterable[T],
    span: Callable[[T], tuple[Hashable, int, int]],
    min_overlap: float = 0.0,
) -> list[T]:
    """Drop items that overlap an earlier (better) item of the same document.

    ``items`` best first; ``span(item)`` = (document key, start, end) with [start, end) offsets.
    Two spans overlap when they share more than ``min_overlap`` x the shorter span's length
    (0.0: any shared character). Order is preserved.
    """
    kept: list[T] = []
    spans: dict[Hashable, list[tuple[int, int]]] = {}
    for item in items:
        doc, start, end = span(item)
        taken = spans.setdefault(doc, [])
        length = max(1, end - start)
        clash = False
        for s, e in taken:
            shared = min(end, e) - max(start, s)
            if shared > 0 and shared > min_overlap * min(length, max(1, e - s)):
                clash = True
                break
        if not clash:
            taken.append((start, end))
            kept.append(item)
    return kept
