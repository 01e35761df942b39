"""Rebuilding a collection's vectors from the catalog: the repair of a damaged vector index.

The catalog is the system of record (docs/architecture.md, "Data"): it holds every chunk with its text,
section and heading, and each document's title and abbreviation, which is all the embedder was given at
ingestion. So the vectors are rebuilt without the PDFs (an upload's file may be gone), the same inputs
giving the same vectors. The caller holds the collection's write lock."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rabbithole.core.errors import EmbeddingModelMismatchError
from rabbithole.ingestion.embedding_text import document_label, labelled_input

if TYPE_CHECKING:
    from rabbithole.catalog.repository import Catalog
    from rabbithole.embeddings.base import Embedder
    from rabbithole.store.chroma_store import ChromaStore

log = logging.getLogger(__name__)

#: (documents done, documents in all, the document just done)
RebuildProgress = Callable[[int, int, str], None]


@dataclass(frozen=True, slots=True)
class RebuildReport:
    collection: str
    documents: int
    vectors: int


def rebuild_vectors(
    collection: str,
    *,
    catalog: Catalog,
    store: ChromaStore,
    embedder: Embedder,
    progress: RebuildProgress | None = None,
) -> RebuildReport:
    """Delete the collection's vectors (a damaged index is deleted without being read) and embed every
    chunk of the catalog again. EmbeddingModelMismatchError when the collection was indexed with another
    model than the configured one (`rabbithole ingest --reindex` moves a folder to a new model)."""
    info = catalog.require_collection(collection)
    if info.embedding_model != embedder.model_id:
        raise EmbeddingModelMismatchError(collection, info.embedding_model, embedder.model_id)
    documents = catalog.documents(collection)
    store.delete_collection(collection)
    vectors = store.open(collection, embedder, create=True)
    written = 0
    for done, document in enumerate(documents, start=1):
        chunks = catalog.chunks(collection, document.file_name)
        if chunks:
            label = document_label(document.abbreviation, document.title, document.file_name)
            vectors.upsert(chunks, embedder.embed_documents([labelled_input(label, c) for c in chunks]))
            written += len(chunks)
        if progress is not None:
            progress(done, len(documents), document.file_name)
    log.info("rebuilt the vectors of %s: %d documents, %d vectors", collection, len(documents), written)
    return RebuildReport(collection, len(documents), written)
