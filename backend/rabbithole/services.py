"""The services of one Rabbithole process, built once from settings (the API's lifespan, a CLI command, a
test fixture) and handed to whatever needs them: the one composition root the graphs, the CLI and the API
share. Nothing here is a module global; models load lazily, and every lazy builder is safe when two threads
ask at once (a lock per collaborator: the first builds, the second waits and gets the same object).

Domain packages take the collaborators they need (a searcher, a catalog, an LLM client), never ``Services``
itself. The research checkpointer is async: ``await services.aopen()`` / ``await services.aclose()`` (or
``async with services:``) around code that runs graphs."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from rabbithole.catalog.records import CollectionInfo
from rabbithole.catalog.repository import Catalog
from rabbithole.core.config import Settings
from rabbithole.core.errors import (
    CollectionExistsError,
    DocumentNotFoundError,
    NotFoundError,
    RabbitholeError,
)
from rabbithole.ingestion.registry_file import REGISTRY_FILE
from rabbithole.ingestion.registry_file import file_digest as _file_digest

# Collaborators are imported where they are built: a command that needs only the catalog (a re-run of
# `rabbithole ingest` over an unchanged folder) never pays for Chroma, the embedder or the search stack.
if TYPE_CHECKING:
    from rabbithole.accounts.service import AccountService
    from rabbithole.embeddings.base import Embedder
    from rabbithole.ingestion.pipeline import IngestionPipeline
    from rabbithole.ingestion.rebuild import RebuildReport
    from rabbithole.ingestion.uploads import UploadFolder
    from rabbithole.llm.factory import LLMClient
    from rabbithole.llm.tokens import TokenCounter
    from rabbithole.references.graph import ReferenceGraph
    from rabbithole.references.resolver import ResolvedReference
    from rabbithole.references.tracing import ReferenceEngine
    from rabbithole.registry.registry import DocumentRegistry
    from rabbithole.research.language import LanguageDetector
    from rabbithole.retrieval.hybrid import HybridSearcher
    from rabbithole.runs.event_log import RunEventLog
    from rabbithole.runs.store import RunStore
    from rabbithole.store.chroma_store import ChromaStore
    from rabbithole.store.write_locks import CollectionWriteLocks
    from rabbithole.web.searcher import WebSearcher

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Collaborators another Services over the same data may share (models loaded once per process).
SHAREABLE = ("embedder", "store", "tokens", "language")


class Services:
    def __init__(self, settings: Settings, *, share_with: Services | None = None) -> None:
        """``share_with``: reuse that composition root's loaded models and store (same data directory and
        embedding settings; e.g. a second configuration of the LLM in one process)."""
        self.settings = settings
        settings.storage.data_dir.mkdir(parents=True, exist_ok=True)
        # SQLite files in the data folder, or the PostgreSQL database of database.url (migrated first; a
        # server that cannot be reached is a ConfigurationError naming its host and database)
        self.catalog = Catalog(
            settings.storage.catalog_path, settings.storage.sqlite_busy_timeout_ms, url=settings.database.url
        )
        self._lock = threading.Lock()
        self._built: dict[str, Any] = {}
        if share_with is not None:
            if share_with.settings.storage.data_dir != settings.storage.data_dir:
                raise ValueError("only Services over the same data directory can share collaborators")
            self._built.update({k: v for k, v in share_with._built.items() if k in SHAREABLE})
        self._build_locks: dict[str, threading.Lock] = {}
        self._registries: dict[str, tuple[str, DocumentRegistry]] = {}
        self._engines: dict[str, tuple[str, ReferenceEngine]] = {}
        self._checkpointer: Any = None
        self._checkpoint_conn: Any = None
        self._shares_store = "store" in self._built  # the Services it shares with closes it

    def close(self) -> None:
        for name in ("runs", "run_events", "accounts"):
            built = self._built.get(name)
            if built is not None:
                built.close()
        store = self._built.get("store")
        if store is not None and not self._shares_store:
            store.close()
        self.catalog.close()

    def __enter__(self) -> Services:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    async def aopen(self) -> Services:
        """Open the async resources (the research checkpointer)."""
        await self.checkpointer()
        return self

    async def aclose(self) -> None:
        """Close the async resources, then the rest."""
        if self._checkpoint_conn is not None:
            conn, self._checkpoint_conn, self._checkpointer = self._checkpoint_conn, None, None
            await conn.close()
        self.close()

    async def __aenter__(self) -> Services:
        return await self.aopen()

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    # -- lazily built collaborators ----------------------------------------------------------------

    def _once(self, name: str, build: Callable[[], T]) -> T:
        """``build()`` once per process, safe when two threads ask at once."""
        if name in self._built:
            return self._built[name]  # type: ignore[no-any-return]
        with self._lock:
            lock = self._build_locks.setdefault(name, threading.Lock())
        with lock:
            if name not in self._built:
                self._built[name] = build()
            return self._built[name]  # type: ignore[no-any-return]

    @property
    def embedder(self) -> Embedder:
        from rabbithole.embeddings.factory import create_embedder

        return self._once("embedder", lambda: create_embedder(self.settings))

    @property
    def embedding_model_id(self) -> str:
        return self.embedder.model_id

    @property
    def store(self) -> ChromaStore:
        from rabbithole.store.chroma_store import ChromaStore

        return self._once(
            "store", lambda: ChromaStore.from_settings(self.settings.storage, self.settings.vectors)
        )

    @property
    def tokens(self) -> TokenCounter:
        from rabbithole.llm.tokens import TokenCounter

        # the parsed pieces of its model are kept where the USE embedder keeps them: same model, same cache
        return self._once("tokens", lambda: TokenCounter(cache_dir=self.settings.storage.cache_dir))

    @property
    def searcher(self) -> HybridSearcher:
        from rabbithole.retrieval.hybrid import HybridSearcher

        return self._once(
            "searcher",
            lambda: HybridSearcher.from_settings(self.settings, self.embedder, self.store, self.catalog),
        )

    @property
    def llm(self) -> LLMClient:
        """The one LLM client of the process (primary + fallback model, context window)."""
        from rabbithole.llm.factory import LLMClient

        return self._once("llm", lambda: LLMClient(self.settings.llm, token_counter=self.tokens))

    @property
    def runs(self) -> RunStore:
        """The run store of research runs (in the catalog database; ``runs/store.py``)."""
        from rabbithole.runs.store import RunStore

        return self._once(
            "runs",
            lambda: RunStore(
                self.settings.storage.catalog_path,
                self.settings.storage.sqlite_busy_timeout_ms,
                url=self.settings.database.url,
            ),
        )

    @property
    def accounts(self) -> AccountService:
        """Users, tokens, sessions, memberships and the audit log (in the catalog database)."""
        from rabbithole.accounts.service import AccountService

        return self._once(
            "accounts",
            lambda: AccountService.open(
                self.settings.accounts,
                self.settings.storage.catalog_path,
                self.settings.storage.sqlite_busy_timeout_ms,
                url=self.settings.database.url,
            ),
        )

    @property
    def run_events(self) -> RunEventLog:
        """The persisted progress events of research runs (in the catalog database)."""
        from rabbithole.runs.event_log import RunEventLog

        return self._once(
            "run_events",
            lambda: RunEventLog(
                self.settings.storage.catalog_path,
                self.settings.storage.sqlite_busy_timeout_ms,
                url=self.settings.database.url,
            ),
        )

    @property
    def language_detector(self) -> LanguageDetector:
        from rabbithole.research.language import LanguageDetector

        return self._once("language", lambda: LanguageDetector(self.settings.research.languages))

    @property
    def web_searcher(self) -> WebSearcher | None:
        """Optional web research: the SearxNG client, page fetcher and scorer; None while
        ``web_research.searxng_url`` is unset (web research is off by default)."""
        if not self.settings.web_research.searxng_url:
            return None
        from rabbithole.web.searcher import WebSearcher

        return self._once("web_searcher", lambda: WebSearcher(self.settings.web_research, self.embedder))

    def llm_for(self, model: str | None) -> LLMClient:
        """The LLM client for ``model`` (None or the configured model: the shared client)."""
        if model is None or model == self.settings.llm.model:
            return self.llm
        from rabbithole.llm.factory import LLMClient

        settings = self.settings.llm.model_copy(update={"model": model})
        return self._once(f"llm:{model}", lambda: LLMClient(settings, token_counter=self.tokens))

    def reference_engine(self, collection: str) -> ReferenceEngine:
        """The reference engine of ``collection``, rebuilt when the collection changed (revision)."""
        revision = self.catalog.revision(collection)
        with self._lock:
            cached = self._engines.get(collection)
        if cached is not None and cached[0] == revision:
            return cached[1]
        from rabbithole.references.tracing import ReferenceEngine

        with self._lock:
            lock = self._build_locks.setdefault(f"engine:{collection}", threading.Lock())
        with lock:
            with self._lock:
                cached = self._engines.get(collection)
            if cached is not None and cached[0] == revision:
                return cached[1]
            engine = ReferenceEngine(
                collection,
                searcher=self.searcher,
                catalog=self.catalog,
                vectors=self.searcher.vectors(collection),
                registry=self.registry(collection),
                settings=self.settings.references,
            )
            with self._lock:
                self._engines[collection] = (revision, engine)
            return engine

    async def checkpointer(self) -> Any:
        """The research graphs' async checkpointer (SQLite with WAL and a busy timeout, or PostgreSQL:
        ``database.url``), opened once."""
        if self._checkpointer is not None:
            return self._checkpointer
        from rabbithole.research.checkpoint import open_checkpointer

        storage = self.settings.storage
        conn, saver = await open_checkpointer(
            storage.checkpoint_path, storage.sqlite_busy_timeout_ms, self.settings.database.url
        )
        if self._checkpointer is not None:  # another task opened it meanwhile
            await conn.close()
            return self._checkpointer
        self._checkpoint_conn, self._checkpointer = conn, saver
        return saver

    def ingestion_pipeline(self) -> IngestionPipeline:
        from rabbithole.ingestion.ocr.languages import reading_in
        from rabbithole.ingestion.parser import AutoParser
        from rabbithole.ingestion.pipeline import IngestionPipeline

        settings = self.settings.ingestion
        return IngestionPipeline(
            settings=settings,
            catalog=self.catalog,
            parser=AutoParser(settings),
            parser_in=lambda languages: AutoParser(reading_in(settings, languages)),
            embedder_factory=self.ingestion_embedder,
            release_embedder=self.release_ingestion_embedder,
            write_lock=self.collection_writes.hold,
            store_factory=lambda: self.store,
            tokens_factory=lambda: self.tokens,
            on_collection_changed=self._collection_changed,
            registry_builder=self.update_registry,
            language_of=self.language_detector.detect,
            warm_up=self._warm_up_after_ingestion,
            prepare_index=lambda collection, chunks: self.searcher.bm25.prepare_document(collection, chunks),
        )

    def ingestion_embedder(self) -> Embedder:
        """What ingestion embeds with (``embeddings.ingest_process``): the model in a process of its own
        (a :class:`ChildProcessEmbedder`, which the pipeline closes after its run), or this process's
        embedder. ``auto`` keeps a model this process has loaded already (the server after its warm-up)."""
        from rabbithole.embeddings.child_process import CHILD_PROVIDERS, ChildProcessEmbedder

        cfg = self.settings.embeddings
        embedder = self.embedder
        if cfg.provider not in CHILD_PROVIDERS or cfg.ingest_process == "inline":
            return embedder
        if cfg.ingest_process == "auto" and getattr(embedder, "loaded", False):
            return embedder
        return ChildProcessEmbedder(embedder, cfg, self.settings.storage.cache_dir)

    @staticmethod
    def release_ingestion_embedder(embedder: Embedder) -> None:
        """Stop an embedding process :meth:`ingestion_embedder` started; this process's embedder stays."""
        from rabbithole.embeddings.child_process import ChildProcessEmbedder

        if isinstance(embedder, ChildProcessEmbedder):
            embedder.close()

    def warm_up(self) -> dict[str, str]:
        """Load what a search needs (the embedder, the search stack, each collection's vector handle and
        BM25 index), so the first search after a start is as fast as the next. A collection that cannot be
        loaded (a damaged index, a model mismatch) does not stop the others: returns those, with the
        reason (its searches report it again)."""
        searcher = self.searcher
        load = getattr(self.embedder, "load", None)  # a local model's weights and full tokenizer
        if callable(load):
            load()
        _ = self.embedder.embed_query("warm-up")
        failed: dict[str, str] = {}
        for collection in self.catalog.list_collections():
            try:
                searcher.warm(collection.name)
            except RabbitholeError as exc:
                log.warning("collection %s could not be loaded: %s", collection.name, exc)
                failed[collection.name] = str(exc)
        return failed

    def _warm_up_after_ingestion(self) -> None:
        """Import the search stack and the registry builder (about a second of imports) while ingestion
        embeds, so the BM25 index and the registry are built right after the last file."""
        import bm25s  # noqa: F401  (the BM25 index's library)

        import rabbithole.registry.builder  # noqa: F401

        _ = self.searcher

    def _collection_changed(self, collection: str) -> None:
        # Build the BM25 index and the copy of the vectors beside it now, so the first search after
        # ingestion is fast.
        self.searcher.warm(collection)

    # -- collections and documents ------------------------------------------------------------------

    @property
    def collection_writes(self) -> CollectionWriteLocks:
        """One writer per collection (ingestion, deletions, rebuilds), in this and other processes."""
        from rabbithole.store.write_locks import CollectionWriteLocks

        return self._once(
            "collection_writes", lambda: CollectionWriteLocks(self.settings.storage.data_dir / "locks")
        )

    @property
    def uploads(self) -> UploadFolder:
        """The PDFs uploaded through the API."""
        from rabbithole.ingestion.uploads import UploadFolder

        return self._once("uploads", lambda: UploadFolder(self.settings.storage.uploads_dir))

    def create_collection(self, name: str, ocr_languages: Sequence[str] = ()) -> CollectionInfo:
        """An empty collection for the configured embedding model, reading its scans in ``ocr_languages``
        (() = the server's default); CollectionExistsError if there is one, OcrLanguageError for languages
        Tesseract cannot read here."""
        from rabbithole.ingestion.discovery import validate_collection_name
        from rabbithole.ingestion.ocr.languages import check_languages

        name = validate_collection_name(name)
        languages = check_languages(ocr_languages)
        if self.catalog.collection(name) is not None:
            raise CollectionExistsError(name)
        self.store.open(name, self.embedder, create=True)
        self.catalog.ensure_collection(name, self.embedder.model_id, self.embedder.dim)
        if languages:
            self.catalog.set_ocr_languages(name, languages)
        return self.catalog.require_collection(name)

    def set_ocr_languages(self, name: str, ocr_languages: Sequence[str]) -> CollectionInfo:
        """The languages the collection's scans are read in from now on (() = the server's default);
        OcrLanguageError for languages Tesseract cannot read here. Documents read before keep their text
        until they are read again (ingestion/ocr/collection_ocr.py)."""
        from rabbithole.ingestion.ocr.languages import check_languages

        self.catalog.require_collection(name)
        self.catalog.set_ocr_languages(name, check_languages(ocr_languages))
        return self.catalog.require_collection(name)

    def delete_collection(self, name: str) -> None:
        """Its vectors, documents, pages, chunks, problems and registry (the user's PDFs stay)."""
        self.catalog.require_collection(name)
        with self.collection_writes.hold(name):
            self.store.delete_collection(name)
            self.catalog.delete_collection(name)
            self.searcher.invalidate(name)
            self.uploads.remove(name)

    def delete_document(self, collection: str, file_name: str) -> None:
        """One document's vectors and catalog rows (a later `rabbithole ingest` of a folder that still holds
        the file adds it again)."""
        self.catalog.require_collection(collection)
        with self.collection_writes.hold(collection):
            if file_name not in self.catalog.document_hashes(collection):
                raise DocumentNotFoundError(f"document '{file_name}' is not in collection '{collection}'")
            if self.store.exists(collection):
                self.store.sync(collection, self.catalog.revision(collection))
                self.store.open(collection).delete_document(file_name)
            self.catalog.delete_document(collection, file_name)
            self.store.note_written(collection, self.catalog.revision(collection))
            self.uploads.remove(collection, file_name)

    def rebuild_vectors(
        self, collection: str, progress: Callable[[int, int, str], None] | None = None
    ) -> RebuildReport:
        """Rebuild a collection's vectors from the catalog (the repair of a damaged index), holding its
        write lock; its search is prepared again afterwards."""
        from rabbithole.ingestion.rebuild import rebuild_vectors

        self.catalog.require_collection(collection)
        with self.collection_writes.hold(collection):
            self.searcher.invalidate(collection)
            report = rebuild_vectors(
                collection, catalog=self.catalog, store=self.store, embedder=self.embedder, progress=progress
            )
            self.catalog.touch(collection)
            self.store.note_written(collection, self.catalog.revision(collection))
            self.searcher.warm(collection)
        return report

    def check_vector_store(self) -> dict[str, str]:
        """After a process that had the embedded store open ended without closing it (killed, crashed),
        check every collection's index in a child process before this one reads any: a damaged index is
        recorded (never opened here, searches say how to rebuild it) instead of crashing the server at
        every start. Returns what was found damaged; nothing to do (no cost) after a clean stop."""
        storage = self.settings.storage
        if self.settings.vectors.server:  # a server owns its index files: nothing to check here
            return {}
        from rabbithole.store.probe import check_after_unclean_stop
        from rabbithole.store.sessions import SESSIONS_DIR, StoreSessions

        stale = StoreSessions(storage.data_dir / SESSIONS_DIR).unclean()
        if not stale:
            return {}
        collections = [c.name for c in self.catalog.list_collections()]
        return check_after_unclean_stop(
            self.store, storage.chroma_dir, collections, stale, storage.store_check_timeout_s
        )

    def reference_graph(self, collection: str) -> ReferenceGraph:
        """The collection's reference graph: documents and sections as nodes, references as edges."""
        from rabbithole.references.graph import build_reference_graph

        self.catalog.require_collection(collection)
        documents = self.catalog.documents(collection)
        return build_reference_graph(
            collection,
            self.catalog.document_texts(collection),
            self.catalog.chunks(collection),
            self.registry(collection),
            titles={d.file_name: d.title for d in documents},
        )

    def passage_references(self, collection: str, chunk_id: str) -> list[ResolvedReference]:
        """The references in one passage (a search hit's ``chunk_id``), each resolved to its target document
        and section, or with the reason it could not be."""
        from rabbithole.references.grammar import detect_references
        from rabbithole.references.resolver import Citing

        self.catalog.require_collection(collection)
        chunk = self.catalog.get_chunks(collection, [chunk_id]).get(chunk_id)
        if chunk is None:
            raise NotFoundError(f"passage '{chunk_id}' is not in collection '{collection}'")
        resolver = self.reference_engine(collection).resolver
        citing = Citing(chunk.document, chunk.section)
        return [resolver.resolve(ref, citing) for ref in detect_references(chunk.text)]

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

    def replace_registry_file(self, collection: str, content: dict[str, Any]) -> DocumentRegistry:
        """Make ``content`` (what a registry.yaml holds) the collection's user registry file and rebuild the
        registry with it. Kept with the collection's uploads; InvalidRequestError listing the problems of an
        invalid file (nothing changes then)."""
        import yaml

        from rabbithole.core.errors import InvalidRequestError
        from rabbithole.registry.user_file import RegistryFileError, load_user_file

        self.catalog.require_collection(collection)
        folder = self.uploads.folder(collection)
        folder.mkdir(parents=True, exist_ok=True)
        draft = folder / f".{REGISTRY_FILE}.new"
        draft.write_text(yaml.safe_dump(content, allow_unicode=True, sort_keys=False), encoding="utf-8")
        try:
            load_user_file(draft, strict=True)
        except RegistryFileError as exc:
            draft.unlink()
            raise InvalidRequestError(str(exc).replace(str(draft), REGISTRY_FILE)) from None
        draft.replace(folder / REGISTRY_FILE)
        return self.rebuild_registry(collection, folder)

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
