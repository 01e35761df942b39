"""Hybrid search: vector (Chroma) + BM25 (bm25s), fused with Reciprocal Rank Fusion.

Per collection, each retriever returns up to ``candidates`` chunks under the same filters; the lists of
all searched collections are merged per retriever by raw score (cosine similarity / BM25 score), cut to
``candidates`` and fused with RRF. Overlapping chunks of one document are de-duplicated (the better
one stays), and every hit gets comparable scores:

- ``score``: RRF normalized by the maximum possible RRF, in [0, 1]; 1.0 = ranked first by every
  retriever that ran (hybrid: both; a hit found by only one of them scores at most 0.5);
- ``similarity``: cosine similarity to the query; for BM25-only hits from their stored vectors (the copy
  kept beside the BM25 index, see :mod:`rabbithole.retrieval.vector_cache`, else the store); None in
  "bm25" mode unless a query vector was given;
- ``bm25``: raw BM25 score (0.0 when no query term occurs); None in "vector" mode;
- ``vector_rank`` / ``bm25_rank``: 1-based ranks in the merged candidate lists, None when not a candidate.

Modes "vector" and "bm25" run one retriever (benchmarks compare them). A query vector can be passed in
to leave embedding time out of measurements.

Cross-lingual queries: a query that is evidently in a language none of a collection's documents is in (an
English question over German laws, by its function words, see ``tokenizer.query_language``) is searched in
that collection's BM25 index by the German terms of the English phrases it contains (``retrieval.glossary``,
see :mod:`rabbithole.retrieval.glossary`), together with its citations, numbers and names. When the glossary
knows no phrase of the query (or is switched off), hybrid mode leaves that collection's BM25 out, which could
only add noise; when no collection runs BM25, the query is fused from the vector ranking alone (so 1.0 =
first by vector). The same translation moves the query vector (:meth:`HybridSearcher.embed_query`,
``retrieval.glossary_vector_weight``). In hybrid mode each retriever's first ``retrieval.pin_first``
candidates are kept among the first ``PIN_WITHIN`` results (:func:`fusion.pin_first_ranks`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from rabbithole.core.config import RetrievalSettings
from rabbithole.core.errors import InvalidRequestError, StoreError
from rabbithole.core.models import Chunk, SearchHit
from rabbithole.embeddings.base import Embedder, FloatArray, l2_normalize
from rabbithole.retrieval.bm25_index import BM25Index, BM25Indexes, BM25Params, BM25Result
from rabbithole.retrieval.filters import SearchFilters
from rabbithole.retrieval.fusion import Fused, dedup_overlapping, pin_first_ranks, reciprocal_rank_fusion
from rabbithole.retrieval.glossary import cross_lingual_query, cross_lingual_text
from rabbithole.retrieval.rerank import Reranker, create_reranker
from rabbithole.retrieval.score_fusion import ScoreFusion
from rabbithole.retrieval.source import ChunkSource
from rabbithole.retrieval.thesaurus import expanded_query
from rabbithole.retrieval.tokenizer import query_language, tokenize_query
from rabbithole.retrieval.vector_cache import VectorCache

if TYPE_CHECKING:
    from rabbithole.core.config import Settings
    from rabbithole.core.sections import Where
    from rabbithole.store.chroma_store import ChromaStore, VectorCollection, VectorMatch

log = logging.getLogger(__name__)

#: retrieval.pin_first keeps each retriever's first candidates among this many first results
PIN_WITHIN = 5
#: candidates fetched beyond k in the first page (dedup may drop some)
FETCH_MARGIN = 5

SearchMode = Literal["hybrid", "vector", "bm25"]
MODES: tuple[SearchMode, ...] = ("hybrid", "vector", "bm25")

Key = tuple[str, str]  # (collection, chunk id)


@dataclass(slots=True)
class SearchResult:
    hits: list[SearchHit]
    mode: SearchMode
    timings: dict[str, float] = field(default_factory=dict)  # seconds per stage
    candidates: dict[str, int] = field(default_factory=dict)  # retriever -> merged candidate count
    bm25_skipped: list[str] = field(default_factory=list)  # collections not searched by BM25 (language)
    bm25_translated: list[str] = field(default_factory=list)  # collections BM25 searched via the glossary


@dataclass(slots=True)
class _Info:
    similarity: float | None = None
    bm25: float | None = None


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
        self._handles: dict[tuple[str, bool], tuple[str, VectorCollection]] = {}
        self._handles_lock = threading.Lock()
        #: the revision each collection had when its vectors were last opened
        self._revisions: dict[str, str] = {}
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
        query_vector: np.ndarray | None = None,
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

    def embed_query(self, query: str, collections: str | Sequence[str] | None = None) -> FloatArray:
        """The query's vector. With ``collections``: an English question over collections whose documents
        are German (none English) is embedded as its own unit vector plus ``glossary_vector_weight`` times
        the unit vector of its glossary translation (:func:`cross_lingual_text`)."""
        vector = self.embedder.embed_query(query)
        if collections is None or self.settings.glossary_vector_weight <= 0:
            return vector
        names = [collections] if isinstance(collections, str) else list(collections)
        languages = tuple(dict.fromkeys(lang for name in names for lang in self.bm25.get(name).languages))
        german = cross_lingual_text(query, languages, self.settings)
        if german is None:
            return vector
        translated = self.embedder.embed_query(german)
        weight = np.float32(self.settings.glossary_vector_weight)
        return l2_normalize(l2_normalize(vector) + weight * l2_normalize(translated))

    def run(
        self,
        query: str,
        collections: str | Sequence[str],
        *,
        k: int | None = None,
        filters: SearchFilters | None = None,
        mode: SearchMode = "hybrid",
        query_vector: np.ndarray | None = None,
        candidates: int | None = None,
    ) -> SearchResult:
        """Search and report per-stage timings.

        collections: one name or several (searched together, results merged).
        k: hits to return (default settings.k); candidates: per retriever (default settings.candidates).
        query_vector: use this instead of embedding ``query`` (``query`` is still used by BM25).
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
        opened = {name: self._open(name, use_vector) for name in names}
        handles = {name: handle for name, (_, handle) in opened.items()}

        qvec: FloatArray | None = None
        if query_vector is not None:
            qvec = l2_normalize(np.asarray(query_vector, dtype=np.float32).reshape(-1))
            if use_vector:
                for name, handle in handles.items():
                    if handle.dim != qvec.shape[0]:
                        raise InvalidRequestError(
                            f"the query vector has {qvec.shape[0]} dimensions, collection '{name}' holds "
                            f"{handle.dim}-dimensional vectors"
                        )
        elif use_vector:
            t = time.perf_counter()
            qvec = self.embed_query(query, names)
            timings["embed"] = time.perf_counter() - t

        info: dict[Key, _Info] = {}
        rankings: dict[str, list[Key]] = {}

        if use_vector:
            assert qvec is not None
            t = time.perf_counter()
            where = filters.to_chroma_where()
            scored: list[tuple[float, int, Key]] = []
            for c_index, name in enumerate(names):
                for match in self._query_vectors(name, handles, qvec, n_candidates, where):
                    key = (name, match.id)
                    scored.append((-match.similarity, c_index, key))
                    info.setdefault(key, _Info()).similarity = match.similarity
            scored.sort(key=lambda s: (s[0], s[1]))
            rankings["vector"] = [key for _, _, key in scored[:n_candidates]]
            timings["vector"] = time.perf_counter() - t

        bm25_results: dict[str, tuple[BM25Index, BM25Result]] = {}
        skipped_bm25: list[str] = []
        translated_for: list[str] = []
        bm25_tokens: dict[str, tuple[BM25Index, list[str]]] = {}  # per collection: for heading matches
        # (also the index whose stored vectors give BM25-only hits their similarity)
        if use_bm25:
            t = time.perf_counter()
            scored_b: list[tuple[float, int, Key]] = []
            # Cross-lingual: BM25 cannot match an (evidently) English question against German-only text;
            # in hybrid mode such a collection is searched by vector only (bm25 mode always runs BM25).
            qlang = query_language(query) if self.cross_lingual_skip else None
            for c_index, name in enumerate(names):
                index = self.bm25.get(name, revision=opened[name][0])
                bm25_query = query
                bm25_query = expanded_query(query, qlang, index.languages, self.settings) or query
                if qlang is not None and qlang not in index.languages:
                    translated = cross_lingual_query(query, qlang, index.languages, self.settings)
                    if translated is not None:
                        bm25_query = translated
                        translated_for.append(name)
                    elif mode == "hybrid":
                        skipped_bm25.append(name)
                        bm25_tokens[name] = (index, tokenize_query(query, index.languages))
                        continue
                tokens = tokenize_query(bm25_query, index.languages)
                bm25_tokens[name] = (index, tokens)
                result = index.search(tokens, n_candidates, filters)
                bm25_results[name] = (index, result)
                for hit in result.matches:
                    key = (name, hit.id)
                    scored_b.append((-hit.score, c_index, key))
                    info.setdefault(key, _Info()).bm25 = hit.score
            scored_b.sort(key=lambda s: (s[0], s[1]))
            if len(skipped_bm25) < len(names):
                rankings["bm25"] = [key for _, _, key in scored_b[:n_candidates]]
            timings["bm25"] = time.perf_counter() - t

        t = time.perf_counter()
        if self.settings.fusion == "rrf":
            fused = reciprocal_rank_fusion(rankings, k=self.settings.rrf_k, n_retrievers=len(rankings))
        else:
            depth = 2 * (max(k, self.settings.rerank_candidates) if self.reranker else k) + FETCH_MARGIN
            fused = self._fusion.fuse(
                [(key, info[key].similarity or 0.0) for key in rankings["vector"]]
                if "vector" in rankings
                else None,
                [(key, info[key].bm25 or 0.0) for key in rankings["bm25"]] if "bm25" in rankings else None,
                bm25_tokens if mode == "hybrid" else None,
                depth,
                self.settings,
            )
        if mode == "hybrid" and self.settings.pin_first > 0:
            fused = pin_first_ranks(fused, self.settings.pin_first, PIN_WITHIN)
        timings["fuse"] = time.perf_counter() - t

        rerank = self.reranker is not None and mode == "hybrid"
        t = time.perf_counter()
        top, chunks = self._top_unique(fused, max(k, self.settings.rerank_candidates) if rerank else k)
        timings["fetch"] = time.perf_counter() - t

        t = time.perf_counter()
        if qvec is not None:
            indexes = {name: index for name, (index, _) in bm25_tokens.items()}
            self._fill_similarity([f.key for f in top], info, qvec, handles, indexes)
        if bm25_results:
            for f in top:
                entry = info.setdefault(f.key, _Info())
                if entry.bm25 is None and f.key[0] in bm25_results:
                    index, result = bm25_results[f.key[0]]
                    row = index.row_of(f.key[1])
                    entry.bm25 = result.score_of_row(row) if row is not None else 0.0
        timings["scores"] = time.perf_counter() - t

        hits = []
        for f in top:
            entry = info.get(f.key, _Info())
            hits.append(
                SearchHit(
                    chunk=chunks[f.key],
                    score=f.score,
                    similarity=entry.similarity,
                    bm25=entry.bm25,
                    vector_rank=f.ranks.get("vector"),
                    bm25_rank=f.ranks.get("bm25"),
                )
            )
        if rerank and self.reranker is not None:
            t = time.perf_counter()
            hits = self.reranker.rerank(query, hits)
            timings["rerank"] = time.perf_counter() - t
        hits = hits[:k]
        timings["total"] = time.perf_counter() - started
        return SearchResult(
            hits=hits,
            mode=mode,
            timings=timings,
            candidates={name: len(keys) for name, keys in rankings.items()},
            bm25_skipped=skipped_bm25,
            bm25_translated=translated_for,
        )

    def _query_vectors(
        self,
        name: str,
        handles: dict[str, VectorCollection],
        qvec: FloatArray,
        n: int,
        where: Where | None,
    ) -> list[VectorMatch]:
        """The vector query, read anew once when the store fails: another process may be writing the
        collection right now (its revision changes only when that process is done with a document)."""
        try:
            return handles[name].query(qvec, n, where)
        except StoreError:
            self.store.refresh()
            handle = self.store.open(name, self.embedder)
            with self._handles_lock:
                self._handles[(name, True)] = (self._revisions.get(name, ""), handle)
            handles[name] = handle
            return handle.query(qvec, n, where)

    def vectors(self, collection: str) -> VectorCollection:
        """The collection's current vector handle (read anew when the collection changed)."""
        return self._open(collection, check_model=False)[1]

    def warm(self, collection: str) -> None:
        """Open the collection's vector handle (checking its model), load its BM25 index and keep a copy of
        its vectors beside it (built once per revision: after an ingestion, this is where it is built)."""
        revision, handle = self._open(collection, check_model=True)
        index = self.bm25.get(collection, revision=revision)
        self.vector_cache.build(self.bm25.directory(collection), index, handle)

    def invalidate(self, collection: str) -> None:
        """Drop the in-memory BM25 index of a collection (e.g. after re-ingesting it)."""
        self.bm25.invalidate(collection)

    # --- helpers ------------------------------------------------------------------------------------

    def _open(self, name: str, check_model: bool) -> tuple[str, VectorCollection]:
        """The collection's vector handle, reused while the collection's revision stands (a re-ingest or a
        re-created collection changes it, and the handle is opened, and the model checked, again), with the
        revision it was read at (one catalog query a search, shared with the BM25 index lookup)."""
        revision = self.source.revision(name)
        key = (name, check_model)
        with self._handles_lock:
            cached = self._handles.get(key)
        if cached is not None and cached[0] == revision:
            return cached
        with self._handles_lock:
            seen = self._revisions.get(name)
            stale = seen is not None and seen != revision
        if stale:  # another process (or this one) changed the collection: read the store anew
            self.store.refresh()
        handle = self.store.open(name, self.embedder if check_model else None)
        with self._handles_lock:
            self._handles[key] = (revision, handle)
            self._revisions[name] = revision
        return revision, handle

    def _top_unique(self, fused: Sequence[Fused[Key]], k: int) -> tuple[list[Fused[Key]], dict[Key, Chunk]]:
        """The k best fused candidates after dedup, fetching chunks from the catalog a page at a time (most
        queries need only the first page, so the catalog is not asked for every candidate)."""
        chunks: dict[Key, Chunk] = {}
        page = k + FETCH_MARGIN
        fetched = 0
        while True:
            batch = fused[fetched : fetched + page]
            chunks.update(self._fetch_chunks([f.key for f in batch]))
            fetched += len(batch)
            present = [f for f in fused[:fetched] if f.key in chunks]
            top = dedup_overlapping(
                present,
                lambda f: ((f.key[0], chunks[f.key].document), chunks[f.key].start, chunks[f.key].end),
                self.dedup_min_overlap,
            )[:k]
            if len(top) >= k or fetched >= len(fused):
                break
            page *= 2
        if len(present) < fetched:
            log.warning(
                "%d search candidates are in the index but not in the catalog (re-ingest?)",
                fetched - len(present),
            )
        return top, chunks

    def _fetch_chunks(self, keys: Sequence[Key]) -> dict[Key, Chunk]:
        by_collection: dict[str, list[str]] = {}
        for collection, chunk_id in keys:
            by_collection.setdefault(collection, []).append(chunk_id)
        out: dict[Key, Chunk] = {}
        for collection, ids in by_collection.items():
            for chunk_id, chunk in self.source.get_chunks(collection, ids).items():
                out[(collection, chunk_id)] = chunk
        return out

    def _fill_similarity(
        self,
        keys: Sequence[Key],
        info: dict[Key, _Info],
        qvec: FloatArray,
        handles: dict[str, VectorCollection],
        indexes: dict[str, BM25Index],
    ) -> None:
        """The similarity of hits the vector query did not return: their vectors come from the copy kept
        beside the BM25 index when it is current, else from the store (the same stored float32 values)."""
        missing: dict[str, list[str]] = {}
        for key in keys:
            if info.setdefault(key, _Info()).similarity is None:
                missing.setdefault(key[0], []).append(key[1])
        for collection, ids in missing.items():
            handle = handles[collection]
            if handle.dim != qvec.shape[0]:
                continue  # bm25 mode with a query vector of another model: no similarity
            vectors: dict[str, FloatArray] = {}
            index = indexes.get(collection)
            cached = self.vector_cache.get(self.bm25.directory(collection), index) if index else None
            if cached is not None and index is not None:
                for chunk_id in ids:
                    row = index.row_of(chunk_id)
                    vector = cached.vector(row) if row is not None else None
                    if vector is not None:
                        vectors[chunk_id] = vector
            rest = [chunk_id for chunk_id in ids if chunk_id not in vectors]
            if rest:
                vectors.update(handle.get_embeddings(rest))
            for chunk_id, vector in vectors.items():
                similarity = float(np.clip(np.dot(l2_normalize(vector), qvec), -1.0, 1.0))
                info[(collection, chunk_id)].similarity = similarity
