"""Score fusion of the vector and BM25 candidates of one search, with the heading bonus
(``retrieval.fusion = "score"``; see docs/retrieval.md).

Each retriever's scores are normalized over its candidates (cosine similarity min-max, BM25 divided by the
best score) and summed with the weights ``1 - bm25_weight`` ("vector"), ``bm25_weight`` ("bm25") and
``translation_weight`` ("translation": the vector of a cross-lingual question's glossary translation, see
:mod:`rabbithole.retrieval.query_views`), rescaled to sum to 1 over the retrievers that ran; a question
BM25 searched through the glossary uses ``cross_lingual_bm25_weight`` instead of ``bm25_weight``; in
hybrid mode each candidate also gets ``heading_weight`` times its heading match
(:mod:`rabbithole.retrieval.headings`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rabbithole.core.config import RetrievalSettings
from rabbithole.retrieval.bm25_index import BM25Index
from rabbithole.retrieval.fusion import (
    Fused,
    max_normalized,
    minmax_normalized,
    pin_first_ranks,
    reciprocal_rank_fusion,
    weighted_score_fusion,
)
from rabbithole.retrieval.headings import HeadingMatcher

Key = tuple[str, str]  # (collection, chunk id)

#: retrieval.pin_first keeps each retriever's first candidates among this many first results
PIN_WITHIN = 5


class ScoreFusion:
    """Thread-safe (the heading cache is locked)."""

    def __init__(self) -> None:
        self._headings = HeadingMatcher()

    def fuse(
        self,
        lists: Mapping[str, Sequence[tuple[Key, float]]],
        query_tokens: dict[str, tuple[BM25Index, list[str]]] | None,
        depth: int,
        settings: RetrievalSettings,
        *,
        cross_lingual: bool = False,
    ) -> list[Fused[Key]]:
        """``lists``: the candidates of each retriever that ran ("vector", "translation", "bm25"), best
        first, with raw scores. ``query_tokens``: per collection its BM25 index and the query's BM25
        tokens, for the heading bonus (None: no bonus). The bonus is computed only for the candidates it
        could lift into the first ``depth`` (it is at most ``heading_weight``, so the others cannot get
        there). ``cross_lingual``: BM25 searched the query through the glossary, so BM25 weighs
        ``cross_lingual_bm25_weight`` instead of ``bm25_weight``."""
        scores: dict[str, dict[Key, float]] = {
            name: max_normalized(ranked) if name == "bm25" else minmax_normalized(ranked)
            for name, ranked in lists.items()
        }
        bm25_weight = settings.cross_lingual_bm25_weight if cross_lingual else settings.bm25_weight
        weights = {
            "vector": 1.0 - bm25_weight,
            "bm25": bm25_weight,
            "translation": settings.translation_weight,
        }
        if not query_tokens or settings.heading_weight <= 0:
            return weighted_score_fusion(scores, weights)

        def heading_bonus(base: list[Fused[Key]]) -> dict[Key, float]:
            bonus: dict[Key, float] = {}
            cutoff = base[depth - 1].rrf - settings.heading_weight if len(base) >= depth else -1.0
            for key in (f.key for f in base if f.rrf >= cutoff):
                entry = query_tokens.get(key[0])
                row = entry[0].row_of(key[1]) if entry is not None else None
                if entry is not None and row is not None:
                    bonus[key] = self._headings.match(entry[0], row, entry[1])
            return bonus

        return weighted_score_fusion(scores, weights, None, settings.heading_weight, bonus_of=heading_bonus)


def fuse_candidates(
    fusion: ScoreFusion,
    lists: Mapping[str, Sequence[tuple[Key, float]] | None],
    query_tokens: dict[str, tuple[BM25Index, list[str]]],
    depth: int,
    settings: RetrievalSettings,
    *,
    hybrid: bool,
    cross_lingual: bool = False,
) -> list[Fused[Key]]:
    """The candidates of the retrievers that ran (``lists``: None for one that did not) fused by
    ``retrieval.fusion``; in hybrid mode with the heading bonus (``query_tokens``) and each retriever's
    first ``pin_first`` kept among the first ``PIN_WITHIN``. ``cross_lingual``: see
    :meth:`ScoreFusion.fuse`."""
    present = {name: ranked for name, ranked in lists.items() if ranked is not None}
    if settings.fusion == "rrf":
        rankings = {name: [key for key, _ in ranked] for name, ranked in present.items()}
        fused = reciprocal_rank_fusion(rankings, k=settings.rrf_k, n_retrievers=len(rankings))
    else:
        fused = fusion.fuse(
            present, query_tokens if hybrid else None, depth, settings, cross_lingual=cross_lingual
        )
    if hybrid and settings.pin_first > 0:
        fused = pin_first_ranks(fused, settings.pin_first, PIN_WITHIN)
    return fused
