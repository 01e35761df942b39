"""Fusion of ranked lists (weighted normalized scores, or Reciprocal Rank Fusion) and de-duplication of
overlapping chunks (pure functions).

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
    rrf: float  # raw fused sum (RRF, or the weighted score sum)
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


def weighted_score_fusion(
    scores: Mapping[str, Mapping[K, float]],
    weights: Mapping[str, float],
    bonus: Mapping[K, float] | None = None,
    bonus_weight: float = 0.0,
    *,
    bonus_of: Callable[[list[Fused[K]]], Mapping[K, float]] | None = None,
) -> list[Fused[K]]:
    """Fuse by a weighted sum of normalized scores, best first.

    ``scores``: per retriever name, its candidates (in its rank order, best first) with scores in [0, 1]
    (see :func:`minmax_normalized`, :func:`max_normalized`); a candidate missing from a retriever's list
    adds 0 for it. The weights of the retrievers given are rescaled to sum to 1 (one retriever alone
    weighs 1). ``bonus``: an extra score in [0, 1] per candidate (a heading match), weighted by
    ``bonus_weight`` on top; or ``bonus_of``: computes it from the ranking without bonus (whose ``rrf`` is
    the weighted sum), so the sums are formed once. The fused ``score`` is that sum capped at 1.0: 1.0 =
    best in every list (or nearly so with a bonus); ``ranks`` are the 1-based positions in each list. Ties
    are broken by the best single rank, then by first appearance.
    """
    present = {name: max(0.0, weights.get(name, 0.0)) for name in scores}
    total = sum(present.values())
    fused: dict[K, Fused[K]] = {}
    for name, ranked in scores.items():
        weight = present[name] / total if total > 0 else 1.0 / len(present)
        for position, (key, value) in enumerate(ranked.items(), start=1):
            item = fused.get(key)
            if item is None:
                item = fused[key] = Fused(key, 0.0, 0.0)
            item.rrf += weight * value
            item.ranks[name] = position
    tie = {key: (min(item.ranks.values()), i) for i, (key, item) in enumerate(fused.items())}

    def ranking() -> list[Fused[K]]:
        return sorted(fused.values(), key=lambda f: (-f.rrf, *tie[f.key]))

    if bonus_of is not None and bonus_weight > 0:
        bonus = bonus_of(ranking())
    if bonus is not None and bonus_weight > 0:
        for key, item in fused.items():
            item.rrf += bonus_weight * bonus.get(key, 0.0)
    result = ranking()
    for item in result:
        item.score = min(1.0, max(0.0, item.rrf))
    return result


def minmax_normalized(ranked: Sequence[tuple[K, float]]) -> dict[K, float]:
    """Scores rescaled to [0, 1] over the list: best 1.0, worst 0.0 (all 1.0 when they are equal)."""
    if not ranked:
        return {}
    values = [value for _, value in ranked]
    high, low = max(values), min(values)
    span = high - low
    return {key: (value - low) / span if span > 0 else 1.0 for key, value in ranked}


def max_normalized(ranked: Sequence[tuple[K, float]]) -> dict[K, float]:
    """Scores divided by the best one (for scores >= 0 such as BM25): best 1.0, a zero stays 0.0."""
    if not ranked:
        return {}
    high = max(value for _, value in ranked)
    return {key: value / high if high > 0 else 0.0 for key, value in ranked}


def pin_first_ranks(fused: Sequence[Fused[K]], first: int, within: int) -> list[Fused[K]]:
    """``fused`` with every candidate that some retriever ranked among its ``first`` moved up, when fusion
    put it lower, into the first ``within`` positions (by fused order among themselves; the others keep
    their order and give up the last places of the head). ``first`` 0: unchanged."""
    result = list(fused)
    if first <= 0 or within <= 0:
        return result
    position = {id(f): i for i, f in enumerate(result)}
    waiting = [f for f in result if f.ranks and min(f.ranks.values()) <= first][:within]
    if all(position[id(f)] < within for f in waiting):
        return result
    pinned = {id(f) for f in waiting}
    others = [f for f in result if id(f) not in pinned]
    head: list[Fused[K]] = []
    taken = 0
    while len(head) < within and (waiting or taken < len(others)):
        slots = within - len(head)
        if waiting and (
            taken >= len(others)
            or len(waiting) >= slots
            or position[id(waiting[0])] < position[id(others[taken])]
        ):
            head.append(waiting.pop(0))
        else:
            head.append(others[taken])
            taken += 1
    return head + others[taken:]
