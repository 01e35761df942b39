"""Where retrieval gets chunk texts from: the catalog implements :class:`ChunkSource`.

:class:`InMemoryChunkSource` is a complete implementation for tests and benchmarks.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol, runtime_checkable

from rabbithole.core.models import Chunk


@runtime_checkable
class ChunkSource(Protocol):
    def chunks(self, collection: str) -> Sequence[Chunk]:
        """Every chunk of a collection (any order; used to build the BM25 index)."""
        ...

    def revision(self, collection: str) -> str:
        """Changes whenever the collection's chunks change (e.g. a counter or the last ingest's id);
        the BM25 index is rebuilt only when it does."""
        ...

    def get_chunks(self, collection: str, ids: Sequence[str]) -> Mapping[str, Chunk]:
        """Chunks by id (unknown ids left out)."""
        ...


class InMemoryChunkSource:
    """A dict-backed ChunkSource; the revision counts modifications per collection."""

    def __init__(self, chunks: Iterable[Chunk] = ()) -> None:
        self._chunks: dict[str, dict[str, Chunk]] = {}
        self._revisions: dict[str, int] = {}
        self._lock = threading.Lock()
        self.add(chunks)

    def add(self, chunks: Iterable[Chunk]) -> None:
        with self._lock:
            touched = set()
            for chunk in chunks:
                self._chunks.setdefault(chunk.collection, {})[chunk.id] = chunk
                touched.add(chunk.collection)
            for collection in touched:
                self._revisions[collection] = self._revisions.get(collection, 0) + 1

    def remove_document(self, collection: str, document: str) -> int:
        with self._lock:
            chunks = self._chunks.get(collection, {})
            gone = [cid for cid, c in chunks.items() if c.document == document]
            for cid in gone:
                del chunks[cid]
            if gone:
                self._revisions[collection] = self._revisions.get(collection, 0) + 1
            return len(gone)

    def drop_collection(self, collection: str) -> None:
        with self._lock:
            self._chunks.pop(collection, None)
            self._revisions[collection] = self._revisions.get(collection, 0) + 1

    def collections(self) -> list[str]:
        return sorted(self._chunks)

    def chunks(self, collection: str) -> Sequence[Chunk]:
        return list(self._chunks.get(collection, {}).values())

    def revision(self, collection: str) -> str:
        return str(self._revisions.get(collection, 0))

    def get_chunks(self, collection: str, ids: Sequence[str]) -> Mapping[str, Chunk]:
        chunks = self._chunks.get(collection, {})
        return {i: chunks[i] for i in ids if i in chunks}
