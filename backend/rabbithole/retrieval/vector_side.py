"""The vector side of a hybrid search: the collections' vector handles (reused while a collection's revision
stands), the vector query, and the similarity of hits the vector query did not return.

A BM25-only hit's similarity is computed from its stored vector: from the copy kept beside the BM25 index
(:mod:`rabbithole.retrieval.vector_cache`) when it is current, else from the store (the same stored float32
values).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from rabbithole.core.errors import InvalidRequestError, StoreError
from rabbithole.embeddings.base import Embedder, FloatArray, l2_normalize
from rabbithole.retrieval.bm25_index import BM25Index
from rabbithole.retrieval.bm25_indexes import BM25Indexes
from rabbithole.retrieval.query_views import QueryViews
from rabbithole.retrieval.source import ChunkSource
from rabbithole.retrieval.vector_cache import VectorCache

if TYPE_CHECKING:
    from rabbithole.core.sections import Where
    from rabbithole.store.chroma_store import ChromaStore, VectorCollection, VectorMatch

Key = tuple[str, str]  # (collection, chunk id)


class VectorHandles:
    """Vector handles per collection, opened once per collection revision (thread-safe)."""

    def __init__(self, store: ChromaStore, embedder: Embedder, source: ChunkSource) -> None:
        self.store = store
        self.embedder = embedder
        self.source = source
        self._handles: dict[tuple[str, bool], tuple[str, VectorCollection]] = {}
        self._lock = threading.Lock()

    def open(self, name: str, check_model: bool) -> tuple[str, VectorCollection]:
        """The collection's vector handle, reused while the collection's revision stands (a re-ingest or a
        re-created collection changes it, and the handle is opened, and the model checked, again), with the
        revision it was read at (one catalog query a search, shared with the BM25 index lookup). The store
        reads its files anew first when another process changed the collection (:meth:`ChromaStore.sync`)."""
        revision = self.source.revision(name)
        key = (name, check_model)
        with self._lock:
            cached = self._handles.get(key)
        if cached is not None and cached[0] == revision:
            return cached
        self.store.sync(name, revision)
        handle = self.store.open(name, self.embedder if check_model else None)
        with self._lock:
            self._handles[key] = (revision, handle)
        return revision, handle

    def forget(self, name: str) -> None:
        """Drop the collection's handles (its vectors were deleted or rebuilt)."""
        with self._lock:
            for key in [k for k in self._handles if k[0] == name]:
                del self._handles[key]

    def query(
        self,
        name: str,
        handles: dict[str, VectorCollection],
        vectors: Sequence[FloatArray],
        n: int,
        where: Where | None,
    ) -> list[list[VectorMatch]]:
        """The vector query (one answer list per vector, one Chroma call), read anew once when the store
        fails: another process may be writing the collection right now (its revision changes only when
        that process is done with a document)."""
        try:
            return handles[name].query_many(vectors, n, where)
        except StoreError:
            handle = self.reopened(name)
            handles[name] = handle
            return handle.query_many(vectors, n, where)

    def reopened(self, name: str) -> VectorCollection:
        """After a store error: the store read anew and the collection's handle opened again (another
        process may be writing the collection right now, or has just written it)."""
        revision = self.source.revision(name)
        self.store.refresh()
        self.store.sync(name, revision)
        handle = self.store.open(name, self.embedder)
        with self._lock:
            self._handles[(name, True)] = (revision, handle)
        return handle


def check_dimensions(qvec: FloatArray, handles: dict[str, VectorCollection]) -> None:
    """Raise InvalidRequestError when a collection holds vectors of another dimension than ``qvec``."""
    for name, handle in handles.items():
        if handle.dim != qvec.shape[0]:
            raise InvalidRequestError(
                f"the query vector has {qvec.shape[0]} dimensions, collection '{name}' holds "
                f"{handle.dim}-dimensional vectors"
            )


def ranked_by_vector(
    vectors: VectorHandles,
    names: Sequence[str],
    handles: dict[str, VectorCollection],
    qvec: FloatArray,
    n_candidates: int,
    where: Where | None,
) -> tuple[list[tuple[Key, float]], dict[Key, float]]:
    """The ``n_candidates`` nearest chunks of all collections ``names``, merged by cosine similarity, best
    first, with their similarity; and the similarity of every chunk any collection returned."""
    ranking, similarity = ranked_by_vectors(vectors, names, handles, [qvec], n_candidates, where)[0]
    return ranking, similarity


def ranked_by_vectors(
    vectors: VectorHandles,
    names: Sequence[str],
    handles: dict[str, VectorCollection],
    queries: Sequence[FloatArray],
    n_candidates: int,
    where: Where | None,
) -> list[tuple[list[tuple[Key, float]], dict[Key, float]]]:
    """:func:`ranked_by_vector` for each of ``queries``, one Chroma call per collection."""
    scored: list[list[tuple[float, int, Key]]] = [[] for _ in queries]
    similarity: list[dict[Key, float]] = [{} for _ in queries]
    for c_index, name in enumerate(names):
        for q_index, matches in enumerate(vectors.query(name, handles, queries, n_candidates, where)):
            for match in matches:
                key = (name, match.id)
                scored[q_index].append((-match.similarity, c_index, key))
                similarity[q_index][key] = match.similarity
    out: list[tuple[list[tuple[Key, float]], dict[Key, float]]] = []
    for rows, known in zip(scored, similarity, strict=True):
        rows.sort(key=lambda s: (s[0], s[1]))
        out.append(([(key, known[key]) for _, _, key in rows[:n_candidates]], known))
    return out


def views_ranked(
    vectors: VectorHandles,
    names: Sequence[str],
    handles: dict[str, VectorCollection],
    views: QueryViews,
    n_candidates: int,
    where: Where | None,
) -> tuple[list[tuple[Key, float]], list[tuple[Key, float]] | None, dict[Key, float]]:
    """The question's own vector and its translation's as two rankings (the second None when the query
    has no translation), and the similarities to the combined vector known so far (none when there are
    two rankings: a hit's similarity is the combined vector's, filled in by :func:`missing_similarities`)."""
    if views.translation is None:
        ranking, similarity = ranked_by_vector(vectors, names, handles, views.combined, n_candidates, where)
        return ranking, None, similarity
    (own, _), (translated, _) = ranked_by_vectors(
        vectors, names, handles, [views.question, views.translation], n_candidates, where
    )
    return own, translated, {}


def missing_similarities(
    keys: Sequence[Key],
    known: dict[Key, float],
    qvec: FloatArray,
    handles: dict[str, VectorCollection],
    indexes: dict[str, BM25Index],
    bm25: BM25Indexes,
    cache: VectorCache,
    reopen: Callable[[str], VectorCollection] | None = None,
) -> dict[Key, float]:
    """The similarity to ``qvec`` of the ``keys`` not in ``known`` (hits the vector query did not return):
    their vectors come from the copy kept beside the BM25 index when it is current, else from the store
    (read again once through ``reopen`` when the store fails, as the vector query is)."""
    missing: dict[str, list[str]] = {}
    for key in keys:
        if key not in known:
            missing.setdefault(key[0], []).append(key[1])
    out: dict[Key, float] = {}
    for collection, ids in missing.items():
        handle = handles[collection]
        if handle.dim != qvec.shape[0]:
            continue  # bm25 mode with a query vector of another model: no similarity
        vectors: dict[str, FloatArray] = {}
        index = indexes.get(collection)
        cached = cache.get(bm25.directory(collection), index) if index else None
        if cached is not None and index is not None:
            for chunk_id in ids:
                row = index.row_of(chunk_id)
                vector = cached.vector(row) if row is not None else None
                if vector is not None:
                    vectors[chunk_id] = vector
        rest = [chunk_id for chunk_id in ids if chunk_id not in vectors]
        if rest:
            try:
                vectors.update(handle.get_embeddings(rest))
            except StoreError:
                if reopen is None:
                    raise
                handle = handles[collection] = reopen(collection)
                vectors.update(handle.get_embeddings(rest))
        for chunk_id, vector in vectors.items():
            out[(collection, chunk_id)] = float(np.clip(np.dot(l2_normalize(vector), qvec), -1.0, 1.0))
    return out
