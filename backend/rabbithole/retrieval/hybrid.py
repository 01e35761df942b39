"""Hybrid search: vector (Chroma) + BM25 (bm25s), fused by score (or by rank, ``retrieval.fusion``).

Per collection, each retriever returns up to ``candidates`` chunks under the same filters; the lists of
all searched collections are merged per retriever by raw score (cosine similarity / BM25 score), cut to
``candidates`` and fused (:mod:`rabbithole.retrieval.score_fusion`, or RRF). Overlapping chunks of one
document are de-duplicated (the better one stays, :mod:`rabbithole.retrieval.hit_pages`), and every hit
gets comparable scores:

- ``score``: the fused value in [0, 1] (score fusion: 1.0 = best in every retriever that ran, or nearly so
  plus a heading match; RRF: normalized by the maximum possible RRF);
- ``similarity``: cosine similarity to the query; for BM25-only hits from their stored vectors
  (:mod:`rabbithole.retrieval.vector_side`); None in "bm25" mode unless a query vector was given;
- ``bm25``: raw BM25 score (0.0 when no query term occurs); None in "vector" mode;
- ``vector_rank`` / ``bm25_rank``: 1-based ranks in the merged candidate lists, None when not a candidate.

Modes "vector" and "bm25" run one retriever (benchmarks compare them). A query vector can be passed in
to leave embedding time out of measurements.

Cross-lingual queries: an English question over German laws is searched in BM25 by the German terms the
glossary gives its phrases (:mod:`rabbithole.retrieval.bm25_side`), and by two vector retrievers, its own
vector and its translation's (:mod:`rabbithole.retrieval.query_views`). In hybrid mode each retriever's
first ``retrieval.pin_first`` candidates are kept among the first 5 (:func:`score_fusion.fuse_candidates`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rabbithole.core.config import RetrievalSettings
from rabbithole.core.errors import InvalidRequestError, StoreError
from rabbithole.core.models import SearchHit
from rabbithole.embeddings.base import Embedder, FloatArray
from rabbithole.retrieval.bm25_index import BM25Params
from rabbithole.retrieval.bm25_indexes import BM25Indexes
from rabbithole.retrieval.bm25_side import BM25Side, search_bm25
from rabbithole.retrieval.filters import SearchFilters
from rabbithole.retrieval.hit_pages import FETCH_MARGIN, top_unique
from rabbithole.retrieval.query_views import QueryVector, QueryViews, combine, embed_views
from rabbithole.retrieval.rerank import Reranker, create_reranker
from rabbithole.retrieval.score_fusion import ScoreFusion, fuse_candidates
from rabbithole.retrieval.search_result import MODES as MODES
from rabbithole.retrieval.search_result import SearchMode as SearchMode
from rabbithole.retrieval.search_result import SearchResult as SearchResult
from rabbithole.retrieval.source import ChunkSource
from rabbithole.retrieval.vector_cache import VectorCache
from rabbithole.retrieval.vector_side import (
    VectorHandles,
    check_dimensions,
    missing_similarities,
    ranked_by_vector,
    views_ranked,
)

if TYPE_CHECKING:
    from rabbithole.core.config import Settings
    from rabbithole.store.chroma_store import ChromaStore, VectorCollection


Key = tuple[str, str]  # (collection, chunk id)


class HybridSearcher:
    """Search one or several collections. Collaborators are injected; thread-safe."""

    def __init__(
        self,
        embedder: Embedder,
        store: ChromaStore,
        source: ChunkSource,
        *,
        index_dir: Path | None = None,
        settings: RetrievalSettings | None = None,
        bm25: BM25Indexes | None = None,
        bm25_params: BM25Params | None = None,
        dedup_min_overlap: float = 0.0,
        cross_lingual_skip: bool = True,
        reranker: Reranker | None = None,
    ) -> None:
        if bm25 is None:
            if index_dir is None:
                raise ValueError("HybridSearcher needs index_dir (or a BM25Indexes)")
            bm25 = BM25Indexes(index_dir, source, bm25_params)
        self.embedder = embedder
        self.store = store
        self.source = source
        self.bm25 = bm25
        self.settings = settings or RetrievalSettings.model_validate({})
        self.dedup_min_overlap = dedup_min_overlap
        self._vectors = VectorHandles(store, embedder, source)
        self.cross_lingual_skip = cross_lingual_skip
        self._fusion = ScoreFusion()
        self.reranker = reranker
        self.vector_cache = VectorCache()

    @classmethod
    def from_settings(
        cls, settings: Settings, embedder: Embedder, store: ChromaStore, source: ChunkSource
    ) -> HybridSearcher:
        return cls(
            embedder,
            store,
            source,
            index_dir=settings.storage.index_dir,
            settings=settings.retrieval,
            reranker=create_reranker(settings),
        )

    # --- public API ---------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        collections: str | Sequence[str],
        *,
        k: int | None = None,
        filters: SearchFilters | None = None,
        mode: SearchMode = "hybrid",
        query_vector: QueryVector | None = None,
        candidates: int | None = None,
    ) -> list[SearchHit]:
        """The ``k`` best chunks for ``query``, best first. See :meth:`run` for the details."""
        return self.run(
            query,
            collections,
            k=k,
            filters=filters,
            mode=mode,
            query_vector=query_vector,
            candidates=candidates,
        ).hits

    def embed_query(self, query: str) -> FloatArray:
        """The query's own vector (a search given it searches it as given)."""
        return self.embedder.embed_query(query)

    def embed_views(self, query: str, collections: str | Sequence[str]) -> QueryViews:
        """The query's vectors for a search of ``collections``: an English question over collections whose
        documents are German (none English) also gets the unit vector of its glossary translation, and
        their combination (``glossary_vector_weight``) as its one vector; pass the views to a search of the
        same query (``query_vector``) to search both (:mod:`rabbithole.retrieval.query_views`)."""
        names = [collections] if isinstance(collections, str) else list(collections)
        return embed_views(self.embedder, query, self._languages(names), self.settings)

    def _languages(self, names: Sequence[str]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(lang for name in names for lang in self.bm25.get(name).languages))

    def run(
        self,
        query: str,
        collections: str | Sequence[str],
        *,
        k: int | None = None,
        filters: SearchFilters | None = None,
        mode: SearchMode = "hybrid",
        query_vector: QueryVector | None = None,
        candidates: int | None = None,
    ) -> SearchResult:
        """Search and report per-stage timings.

        collections: one name or several (searched together, results merged).
        k: hits to return (default settings.k); candidates: per retriever (default settings.candidates).
        query_vector: use this instead of embedding ``query`` (``query`` is still used by BM25): the views
        of :meth:`embed_views` (both searched, as when the query is embedded here), or a plain vector
        (searched as given, as one retriever).
        Raises InvalidRequestError, CollectionNotFoundError, EmbeddingModelMismatchError, EmbeddingError,
        StoreError.
        """
        started = time.perf_counter()
        timings: dict[str, float] = {}
        names = [collections] if isinstance(collections, str) else list(dict.fromkeys(collections))
        if not names:
            raise InvalidRequestError("no collection to search")
        if mode not in MODES:
            raise InvalidRequestError(f"unknown search mode '{mode}' (use one of: {', '.join(MODES)})")
        k = self.settings.k if k is None else k
        if k < 1:
            raise InvalidRequestError(f"k must be at least 1, got {k}")
        n_candidates = max(k, self.settings.candidates if candidates is None else candidates)
        filters = filters or SearchFilters()
        filters.validate()
        if not query.strip() and query_vector is None:
            raise InvalidRequestError("the query is empty")
        use_vector = mode in ("hybrid", "vector")
        use_bm25 = mode in ("hybrid", "bm25")

        # Open collections first: unknown names and model mismatches fail before any work.
        opened = {name: self._vectors.open(name, use_vector) for name in names}
        handles = {name: handle for name, (_, handle) in opened.items()}

        qvec: FloatArray | None = None
        views: QueryViews | None = None
        if isinstance(query_vector, QueryViews):
            views = query_vector
        elif query_vector is not None:
            views = combine(query_vector, None, 0.0)  # a plain vector: searched as given
        if views is not None:
            qvec = views.combined
            if use_vector:
                check_dimensions(qvec, handles)
        elif use_vector:
            t = time.perf_counter()
            views = self.embed_views(query, names)
            qvec = views.combined
            timings["embed"] = time.perf_counter() - t

        similarity: dict[Key, float] = {}
        vector_ranking: list[tuple[Key, float]] | None = None
        translation_ranking: list[tuple[Key, float]] | None = None
        if use_vector:
            assert qvec is not None
            t = time.perf_counter()
            where = filters.to_chroma_where()
            if mode == "hybrid" and self.settings.translation_weight > 0 and views is not None:
                vector_ranking, translation_ranking, similarity = views_ranked(
                    self._vectors, names, handles, views, n_candidates, where
                )
            else:
                vector_ranking, similarity = ranked_by_vector(
                    self._vectors, names, handles, qvec, n_candidates, where
                )
            timings["vector"] = time.perf_counter() - t

        side = BM25Side()
        if use_bm25:
            t = time.perf_counter()
            revisions = {name: revision for name, (revision, _) in opened.items()}
            side = search_bm25(
                query,
                names,
                revisions,
                self.bm25,
                self.settings,
                filters,
                n_candidates,
                hybrid=mode == "hybrid",
                cross_lingual_skip=self.cross_lingual_skip,
            )
            timings["bm25"] = time.perf_counter() - t

        t = time.perf_counter()
        lists = {"vector": vector_ranking, "translation": translation_ranking, "bm25": side.ranking}
        depth = 2 * (max(k, self.settings.rerank_candidates) if self.reranker else k) + FETCH_MARGIN
        fused = fuse_candidates(
            self._fusion,
            lists,
            side.tokens,
            depth,
            self.settings,
            hybrid=mode == "hybrid",
            cross_lingual=bool(side.translated),
        )
        timings["fuse"] = time.perf_counter() - t

        rerank = self.reranker is not None and mode == "hybrid"
        t = time.perf_counter()
        wanted = max(k, self.settings.rerank_candidates) if rerank else k
        top, chunks = top_unique(fused, wanted, self.source, self.dedup_min_overlap)
        timings["fetch"] = time.perf_counter() - t

        t = time.perf_counter()
        if qvec is not None:
            indexes = {name: index for name, (index, _) in side.tokens.items()}
            keys = [f.key for f in top]
            similarity.update(
                missing_similarities(
                    keys,
                    similarity,
                    qvec,
                    handles,
                    indexes,
                    self.bm25,
                    self.vector_cache,
                    reopen=self._vectors.reopened,
                )
            )
        bm25_scores = side.scores_of([f.key for f in top])
        timings["scores"] = time.perf_counter() - t

        hits = [
            SearchHit(
                chunk=chunks[f.key],
                score=f.score,
                similarity=similarity.get(f.key),
                bm25=bm25_scores.get(f.key),
                vector_rank=f.ranks.get("vector"),
                bm25_rank=f.ranks.get("bm25"),
            )
            for f in top
        ]
        if rerank and self.reranker is not None:
            t = time.perf_counter()
            hits = self.reranker.rerank(query, hits)
            timings["rerank"] = time.perf_counter() - t
        hits = hits[:k]
        timings["total"] = time.perf_counter() - started
        counts = {name: len(ranked) for name, ranked in lists.items() if ranked is not None}
        return SearchResult(
            hits=hits,
            mode=mode,
            timings=timings,
            candidates=counts,
            bm25_skipped=side.skipped,
            bm25_translated=side.translated,
        )

    def vectors(self, collection: str) -> VectorCollection:
        """The collection's current vector handle (read anew when the collection changed)."""
        return self._vectors.open(collection, check_model=False)[1]

    def warm(self, collection: str) -> None:
        """Open the collection's vector handle (checking its model), load its BM25 index and keep a copy of
        its vectors beside it (built once per revision: after an ingestion, this is where it is built)."""
        revision, handle = self._vectors.open(collection, check_model=True)
        index = self.bm25.get(collection, revision=revision)
        directory = self.bm25.directory(collection)
        try:
            self.vector_cache.build(directory, index, handle)
        except StoreError:  # another process wrote the collection meanwhile: read the store anew, once
            self.vector_cache.build(directory, index, self._vectors.reopened(collection))

    def invalidate(self, collection: str) -> None:
        """Drop the in-memory BM25 index and the vector handles of a collection (e.g. after deleting or
        rebuilding it)."""
        self.bm25.invalidate(collection)
        self._vectors.forget(collection)
