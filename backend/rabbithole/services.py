"""The services of one Rabbithole process, built once from settings (the API's lifespan, a CLI command, a
test fixture) and handed to whatever needs them. Nothing here is a module global; models load lazily."""

from __future__ import annotations

import logging
import threading
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from rabbithole.catalog.repository import Catalog
from rabbithole.core.config import Settings
from rabbithole.ingestion.registry_file import REGISTRY_FILE
from rabbithole.ingestion.registry_file import file_digest as _file_digest

# Collaborators are imported where they are built: a command that needs only the catalog (a re-run of
# `rabbithole ingest` over an unchanged folder) never pays for Chroma, the embedder or the search stack.
if TYPE_CHECKING:
    from rabbithole.embeddings.base import Embedder
    from rabbithole.ingestion.pipeline import IngestionPipeline
    from rabbithole.llm.tokens import TokenCounter
    from rabbithole.registry.registry import DocumentRegistry
    from rabbithole.retrieval.hybrid import HybridSearcher
    from rabbithole.store.chroma_store import ChromaStore

log = logging.getLogger(__name__)


class Services:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        settings.storage.data_dir.mkdir(parents=True, exist_ok=True)
        self.catalog = Catalog(settings.storage.catalog_path, settings.storage.sqlite_busy_timeout_ms)
        self._lock = threading.Lock()
        self._registries: dict[str, tuple[str, DocumentRegistry]] = {}

    def close(self) -> None:
        self.catalog.close()

    def __enter__(self) -> Services:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- lazily built collaborators ----------------------------------------------------------------

    @cached_property
    def embedder(self) -> Embedder:
        from rabbithole.embeddings.factory import create_embedder

        return create_embedder(self.settings)

    @property
    def embedding_model_id(self) -> str:
        return self.embedder.model_id

    @cached_property
    def store(self) -> ChromaStore:
        from rabbithole.store.chroma_store import ChromaStore

        return ChromaStore.from_settings(self.settings.storage)

    @cached_property
    def tokens(self) -> TokenCounter:
        from rabbithole.llm.tokens import TokenCounter

        return TokenCounter()

    @cached_property
    def searcher(self) -> HybridSearcher:
        from rabbithole.retrieval.hybrid import HybridSearcher

        return HybridSearcher.from_settings(self.settings, self.embedder, self.store, self.catalog)

    def ingestion_pipeline(self) -> IngestionPipeline:
        from rabbithole.ingestion.parser import AutoParser
        from rabbithole.ingestion.pipeline import IngestionPipeline

        return IngestionPipeline(
            settings=self.settings.ingestion,
            catalog=self.catalog,
            parser=AutoParser(self.settings.ingestion),
            embedder_factory=lambda: self.embedder,
            store_factory=lambda: self.store,
            tokens_factory=lambda: self.tokens,
            on_collection_changed=self._collection_changed,
            registry_builder=self.update_registry,
            warm_up=self._warm_up_after_ingestion,
        )

    def _warm_up_after_ingestion(self) -> None:
        """Import the search stack and the registry builder (about a second of imports) while ingestion
        embeds, so the BM25 index and the registry are built right after the last file."""
        import bm25s  # noqa: F401  (the BM25 index's library)

        import rabbithole.registry.builder  # noqa: F401

        _ = self.searcher

    def _collection_changed(self, collection: str) -> None:
        # Build the BM25 index now, so the first search after ingestion is fast.
        self.searcher.bm25.get(collection)

    # -- the document registry ---------------------------------------------------------------------

    def update_registry(self, collection: str, folder: Path, documents_changed: bool) -> None:
        """Rebuild the registry when documents changed or the user edited the collection's registry.yaml."""
        user_file = folder / REGISTRY_FILE
        digest = _file_digest(user_file)
        if documents_changed or self.catalog.load_registry(collection).get("user_file_sha256") != digest:
            self.rebuild_registry(collection, folder)

    def rebuild_registry(self, collection: str, folder: Path | None) -> DocumentRegistry:
        from rabbithole.registry.builder import build_registry
        from rabbithole.registry.registry import DocumentInfo as RegistryDocument

        documents = [
            RegistryDocument(file_name=d.file_name, title=d.title, abbreviation=d.abbreviation)
            for d in self.catalog.documents(collection)
        ]
        user_file = folder / REGISTRY_FILE if folder is not None else None
        registry = build_registry(
            collection,
            documents,
            self.catalog.document_texts(collection),
            user_file=user_file if user_file is not None and user_file.exists() else None,
        )
        for problem in registry.problems:
            log.warning("%s", problem)
        data = registry.to_dict()
        data["user_file_sha256"] = _file_digest(user_file) if user_file is not None else ""
        self.catalog.save_registry(collection, data)
        with self._lock:
            self._registries.pop(collection, None)
        return registry

    def registry(self, collection: str) -> DocumentRegistry:
        revision = self.catalog.revision(collection)
        with self._lock:
            cached = self._registries.get(collection)
            if cached is not None and cached[0] == revision:
                return cached[1]
        from rabbithole.registry.registry import DocumentRegistry

        registry = DocumentRegistry.from_dict(self.catalog.load_registry(collection))
        with self._lock:
            self._registries[collection] = (revision, registry)
        return registry
