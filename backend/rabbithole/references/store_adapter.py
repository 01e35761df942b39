"""Thin adapters from the reference engine onto the catalog and the vector store of one collection.

* :meth:`CollectionPassages.section_passages`: the chunks of one section of one document, from the
  catalog's chunks **of that document** (an SQL filter on collection and document, grouped by section
  label; read once per document and cached), never a top-k search over the collection.
* :meth:`CollectionPassages.section_labels`: the section labels of a document's chunks (for
  :class:`~rabbithole.references.resolver.SectionIndex`), from the same read.
* :meth:`CollectionPassages.relevance`: cosine similarity of chunks to a query vector, from the vectors
  stored at ingestion (nothing is embedded again).
* :meth:`CollectionPassages.store_section_ids`: the same section lookup as a Chroma ``where`` on document
  and section key (:class:`~rabbithole.retrieval.filters.SearchFilters`), for checks against the index.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from rabbithole.core.models import Chunk
from rabbithole.embeddings.base import FloatArray, l2_normalize
from rabbithole.references.expansion import Relevance
from rabbithole.references.notes import DocumentDates, document_dates
from rabbithole.references.resolver import ReferenceResolver
from rabbithole.references.sections import SectionIndex
from rabbithole.registry.registry import DocumentRegistry
from rabbithole.retrieval.filters import SearchFilters, Where
from rabbithole.retrieval.query_views import QueryVector, combined_vector

__all__ = ["CollectionPassages"]


class _Vectors(Protocol):
    def ids(self, where: Where | None = None) -> list[str]: ...

    def get_embeddings(self, ids: Sequence[str]) -> dict[str, FloatArray]: ...


class _Chunks(Protocol):
    def chunks(self, collection: str, document: str | None = None) -> list[Chunk]: ...


class CollectionPassages:
    """Passages of one collection for the expander; thread-safe caches, valid while the collection is
    unchanged (build a new one after ingestion)."""

    def __init__(self, collection: str, catalog: _Chunks, vectors: _Vectors | None = None) -> None:
        self.collection = collection
        self.catalog = catalog
        self.vectors = vectors
        self._documents: dict[str, dict[str, list[Chunk]]] = {}
        self._heads: dict[str, str] = {}
        self._lock = threading.Lock()

    def document_sections(self, document: str) -> dict[str, list[Chunk]]:
        """{section label: its chunks in document order} of one document (chunks without a label left out)."""
        with self._lock:
            cached = self._documents.get(document)
        if cached is not None:
            return cached
        grouped: dict[str, list[Chunk]] = {}
        ordered = sorted(self.catalog.chunks(self.collection, document), key=lambda c: c.ordinal)
        for chunk in ordered:
            if chunk.section:
                grouped.setdefault(chunk.section, []).append(chunk)
        with self._lock:
            self._documents[document] = grouped
            self._heads[document] = "\n".join(c.text for c in ordered[:2])
        return grouped

    def section_paths(self, document: str) -> list[tuple[str, tuple[str, ...]]]:
        """(label, enclosing headings) of the document's sections, in document order."""
        return [(label, chunks[0].section_path) for label, chunks in self.document_sections(document).items()]

    def document_dates(self, document: str) -> DocumentDates:
        """The dates the document states in its head (enactment, last change)."""
        self.document_sections(document)
        with self._lock:
            head = self._heads.get(document, "")
        return document_dates(head)

    def section_passages(self, document: str, section: str) -> list[Chunk]:
        return list(self.document_sections(document).get(section, ()))

    def section_labels(self, document: str) -> list[str]:
        return list(self.document_sections(document))

    def store_section_ids(self, document: str, section: str) -> list[str]:
        """Ids of a section's chunks in the vector store (a ``where`` on document and section key)."""
        return self._vectors().ids(
            SearchFilters.create(documents=document, sections=section).to_chroma_where()
        )

    def _vectors(self) -> _Vectors:
        if self.vectors is None:
            raise RuntimeError("these passages were built without the collection's vectors")
        return self.vectors

    def resolver(self, registry: DocumentRegistry) -> ReferenceResolver:
        """A resolver over this collection: section labels, heading paths and document dates from here."""
        index = SectionIndex(self.section_labels, self.section_paths)
        return ReferenceResolver(registry, index, dates=self.document_dates)

    def relevance(self, query_vector: QueryVector) -> Relevance:
        """A relevance function: cosine similarity of chunks to ``query_vector`` (stored vectors; for a
        cross-lingual question's views, their combined vector)."""
        query = l2_normalize(combined_vector(query_vector))

        def score(chunks: Sequence[Chunk]) -> dict[str, float]:
            vectors = self._vectors().get_embeddings([c.id for c in chunks])
            return {
                chunk_id: float(np.clip(np.dot(l2_normalize(v), query), -1.0, 1.0))
                for chunk_id, v in vectors.items()
                if v.shape == query.shape
            }

        return score
