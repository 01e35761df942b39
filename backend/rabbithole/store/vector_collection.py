"""The vectors of one Rabbithole collection: upsert, delete, list, query and read back.

Every call goes through the store's client gate (:mod:`rabbithole.store.client_gate`): it holds the gate's
shared side, and a handle opened before the store swapped its client is opened again on the new client
first, so no call ever reaches a client the store has set aside.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from rabbithole.core.models import Chunk
from rabbithole.core.sections import Where
from rabbithole.embeddings.base import FloatArray, l2_normalize
from rabbithole.store.chroma_errors import chroma_errors, chunk_metadata

if TYPE_CHECKING:
    from rabbithole.store.chroma_store import ChromaStore


@dataclass(frozen=True, slots=True)
class VectorMatch:
    id: str
    distance: float  # cosine distance in [0, 2]

    @property
    def similarity(self) -> float:
        return 1.0 - self.distance


class VectorCollection:
    """Handle on the vectors of one Rabbithole collection."""

    def __init__(
        self, store: ChromaStore, name: str, handle: Any, model_id: str, dim: int, generation: int
    ) -> None:
        self._store = store
        self.name = name
        self.model_id = model_id
        self.dim = dim
        self._handle = handle
        self._generation = generation

    @property
    def chroma_name(self) -> str:
        return str(self._handle.name)

    @contextmanager
    def _client_call(self, action: str) -> Iterator[Any]:
        """The Chroma handle for one call, on the store's current client, with the gate held."""
        with self._store.gate.shared() as generation, chroma_errors(action, self._store.server):
            if generation != self._generation:
                self._handle = self._store.raw_handle(self.name)
                self._generation = generation
            yield self._handle

    def count(self) -> int:
        with self._client_call(f"counting '{self.name}'") as handle:
            return int(handle.count())

    def upsert(self, chunks: Sequence[Chunk], embeddings: np.ndarray) -> None:
        """Insert or replace chunks with their vectors (one row per chunk, ``dim`` columns)."""
        if len(chunks) == 0:
            return
        vectors = np.asarray(embeddings, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(chunks):
            raise ValueError(f"expected {len(chunks)} embeddings, got an array of shape {vectors.shape}")
        if vectors.shape[1] != self.dim:
            raise ValueError(f"collection '{self.name}' holds {self.dim}-d vectors, got {vectors.shape[1]}-d")
        vectors = l2_normalize(vectors)
        step = self._store.max_batch_size
        for start in range(0, len(chunks), step):
            part = chunks[start : start + step]
            with self._client_call(f"writing to '{self.name}'") as handle:
                # No ``documents``: the catalog holds the passage texts and every search reads them from
                # there. A copy in Chroma would only cost its full-text index (half the upsert's time).
                handle.upsert(
                    ids=[c.id for c in part],
                    embeddings=vectors[start : start + step],
                    metadatas=[chunk_metadata(c) for c in part],
                )

    def ids(self, where: Where | None = None) -> list[str]:
        with self._client_call(f"listing '{self.name}'") as handle:
            result = handle.get(where=where or None, include=[])
        return [str(i) for i in result["ids"]]

    def delete_ids(self, ids: Sequence[str]) -> None:
        step = self._store.max_batch_size
        for start in range(0, len(ids), step):
            with self._client_call(f"deleting from '{self.name}'") as handle:
                handle.delete(ids=list(ids[start : start + step]))

    def delete_document(self, document: str) -> int:
        """Delete every chunk of one document; returns how many were deleted."""
        ids = self.ids({"document": document})
        self.delete_ids(ids)
        return len(ids)

    def documents(self) -> dict[str, int]:
        """Document name -> number of chunks."""
        with self._client_call(f"listing '{self.name}'") as handle:
            result = handle.get(include=["metadatas"])
        counts: dict[str, int] = {}
        for meta in result["metadatas"] or []:
            doc = str((meta or {}).get("document", ""))
            counts[doc] = counts.get(doc, 0) + 1
        return counts

    def query(self, vector: np.ndarray, n: int, where: Where | None = None) -> list[VectorMatch]:
        """The ``n`` nearest chunks (cosine), optionally restricted by a Chroma ``where`` filter."""
        query = np.asarray(vector, dtype=np.float32).reshape(1, -1)
        if query.shape[1] != self.dim:
            raise ValueError(
                f"collection '{self.name}' holds {self.dim}-d vectors, query is {query.shape[1]}-d"
            )
        if n <= 0:
            return []
        with self._client_call(f"searching '{self.name}'") as handle:
            # Chroma answers fewer results when the collection (or the filtered part) is smaller than n,
            # so no count() round trip is needed first.
            result = handle.query(
                query_embeddings=query, n_results=n, where=where or None, include=["distances"]
            )
        ids = result["ids"][0] if result["ids"] else []
        distances = result["distances"][0] if result.get("distances") else []
        return [VectorMatch(str(i), float(d)) for i, d in zip(ids, distances, strict=True)]

    def query_many(
        self, vectors: Sequence[np.ndarray], n: int, where: Where | None = None
    ) -> list[list[VectorMatch]]:
        """:meth:`query` for several vectors in one Chroma call (one answer list per vector, in order)."""
        queries = np.stack([np.asarray(v, dtype=np.float32).reshape(-1) for v in vectors])
        if queries.shape[1] != self.dim:
            raise ValueError(
                f"collection '{self.name}' holds {self.dim}-d vectors, query is {queries.shape[1]}-d"
            )
        if n <= 0:
            return [[] for _ in vectors]
        with self._client_call(f"searching '{self.name}'") as handle:
            result = handle.query(
                query_embeddings=queries, n_results=n, where=where or None, include=["distances"]
            )
        ids = result["ids"] or [[] for _ in vectors]
        distances = result.get("distances") or [[] for _ in vectors]
        return [
            [VectorMatch(str(i), float(d)) for i, d in zip(row_ids, row_distances, strict=True)]
            for row_ids, row_distances in zip(ids, distances, strict=True)
        ]

    def get_embeddings(self, ids: Sequence[str]) -> dict[str, FloatArray]:
        """Stored vectors by chunk id (ids that are not stored are left out)."""
        out: dict[str, FloatArray] = {}
        if not ids:
            return out
        step = self._store.max_batch_size
        for start in range(0, len(ids), step):
            with self._client_call(f"reading vectors of '{self.name}'") as handle:
                result = handle.get(ids=list(ids[start : start + step]), include=["embeddings"])
            embeddings = result.get("embeddings")
            if embeddings is None:
                continue
            for chunk_id, vector in zip(result["ids"], embeddings, strict=True):
                out[str(chunk_id)] = np.asarray(vector, dtype=np.float32)
        return out

    def __repr__(self) -> str:
        return f"VectorCollection({self.name!r}, model_id={self.model_id!r}, dim={self.dim})"
