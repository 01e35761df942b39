"""Per-collection BM25 indexes: in memory, persisted under the index folder, rebuilt from the chunk source
only when the collection's revision (or the tokenizer or BM25 parameters) changed."""

from __future__ import annotations

import logging
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path

from rabbithole.core.models import Chunk
from rabbithole.retrieval.bm25_index import BM25Index, BM25Params, collection_dir_name, fingerprint
from rabbithole.retrieval.bm25_storage import load_index, save_index
from rabbithole.retrieval.bm25_text import PreparedDocument, document_tokens, prepared_key
from rabbithole.retrieval.source import ChunkSource
from rabbithole.retrieval.tokenizer import Language

log = logging.getLogger(__name__)


class BM25Indexes:
    """Per-collection BM25 indexes: in memory, persisted under ``index_dir``, rebuilt from the
    ChunkSource only when its revision (or the tokenizer/BM25 parameters) changed."""

    def __init__(self, index_dir: Path, source: ChunkSource, params: BM25Params | None = None) -> None:
        self.index_dir = Path(index_dir)
        self.source = source
        self.params = params or BM25Params()
        self._cache: dict[str, BM25Index] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self.builds = 0  # how many indexes were built (not loaded) by this instance
        self.loads = 0
        #: per collection and document: token lists computed ahead for the next build
        self._prepared: dict[str, dict[str, tuple[Language, PreparedDocument]]] = {}
        self._prepared_lock = threading.Lock()

    def prepare_document(self, collection: str, chunks: Sequence[Chunk]) -> None:
        """Compute one document's BM25 tokens ahead of the next build of ``collection`` (ingestion calls
        this on its writer thread while it embeds, so the build after the last file only has to count). The
        build uses them only for a document whose chunks are exactly these."""
        if not chunks:
            return
        language, lists = document_tokens(chunks)
        with self._prepared_lock:
            self._prepared.setdefault(collection, {})[chunks[0].document] = (
                language,
                (prepared_key(chunks), lists),
            )

    def directory(self, collection: str) -> Path:
        return self.index_dir / collection_dir_name(collection)

    def _lock(self, collection: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(collection, threading.Lock())

    def get(self, collection: str, revision: str | None = None) -> BM25Index:
        """The current index of a collection (loading or rebuilding it when needed). ``revision``: the
        collection's revision when the caller has just read it (saves asking the source again)."""
        wanted = fingerprint(self.source.revision(collection) if revision is None else revision, self.params)
        cached = self._cache.get(collection)
        if cached is not None and cached.fingerprint == wanted:
            return cached
        with self._lock(collection):
            revision = self.source.revision(collection)
            wanted = fingerprint(revision, self.params)
            cached = self._cache.get(collection)
            if cached is not None and cached.fingerprint == wanted:
                return cached
            directory = self.directory(collection)
            with self._prepared_lock:
                prepared = self._prepared.pop(collection, None)
            index = load_index(directory, expected_fingerprint=wanted)
            if index is not None:
                self.loads += 1
            else:
                index = BM25Index.build(
                    collection, self.source.chunks(collection), revision, self.params, prepared
                )
                self.builds += 1
                log.info(
                    "built BM25 index of '%s': %d chunks in %.2f s",
                    collection,
                    len(index),
                    index.build_seconds,
                )
                try:
                    save_index(index, directory)
                except OSError as exc:
                    log.warning("could not save the BM25 index of '%s' (kept in memory): %s", collection, exc)
            self._cache[collection] = index
            return index

    def invalidate(self, collection: str) -> None:
        """Forget the in-memory index (the revision check would also notice a change)."""
        self._cache.pop(collection, None)

    def delete(self, collection: str) -> None:
        """Forget and remove a collection's persisted index."""
        with self._lock(collection):
            self._cache.pop(collection, None)
            shutil.rmtree(self.directory(collection), ignore_errors=True)
