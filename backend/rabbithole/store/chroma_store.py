"""ChromaDB vector store: one Chroma collection per Rabbithole collection, cosine space.

Embedded (``chromadb.PersistentClient`` under ``settings.chroma_dir``) by default, or a Chroma server
(``chromadb.HttpClient``) with ``storage.chroma_mode = "http"``.

Vectors are always computed by Rabbithole and passed in; Chroma's own (downloading) embedding function is
never used: every collection handle is obtained with ``embedding_function=None``.

The embedding model identity (``model_id``, ``dim``) is stored in the Chroma collection's metadata;
:meth:`ChromaStore.open` compares it with the configured embedder and raises
:class:`~rabbithole.core.errors.EmbeddingModelMismatchError` on a mismatch.
"""

from __future__ import annotations

import hashlib
import re
import threading
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from rabbithole.core.errors import (
    CollectionNotFoundError,
    EmbeddingModelMismatchError,
    RabbitholeError,
    StoreError,
)
from rabbithole.core.models import Chunk
from rabbithole.core.sections import Where, section_key
from rabbithole.embeddings.base import FloatArray, l2_normalize

if TYPE_CHECKING:
    from rabbithole.core.config import StorageSettings

COLLECTION_PREFIX = "rh_"
# Chroma collection metadata keys
META_COLLECTION = "rabbithole_collection"
META_MODEL = "embedding_model"
META_DIM = "embedding_dim"
META_SCHEMA = "rabbithole_schema"
SCHEMA_VERSION = 1

_DEFAULT_MAX_BATCH = 5000


class ModelIdentity(Protocol):
    """What the store needs to know of an embedder (every ``Embedder`` satisfies it)."""

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...


def chroma_collection_name(collection: str) -> str:
    """A valid, deterministic Chroma name for a Rabbithole collection: ``rh_<ascii slug>_<hash8>``.

    The hash of the exact name keeps names apart that sanitize alike ("A B" / "A-B" / "a b").
    """
    ascii_name = unicodedata.normalize("NFKD", collection).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", ascii_name).strip("-_")[:47].strip("-_")
    digest = hashlib.sha1(collection.encode("utf-8")).hexdigest()[:8]
    return f"{COLLECTION_PREFIX}{slug}_{digest}" if slug else f"{COLLECTION_PREFIX}{digest}"


@dataclass(frozen=True, slots=True)
class CollectionInfo:
    name: str  # the Rabbithole collection name
    chroma_name: str
    model_id: str
    dim: int
    count: int


@dataclass(frozen=True, slots=True)
class VectorMatch:
    id: str
    distance: float  # cosine distance in [0, 2]

    @property
    def similarity(self) -> float:
        return 1.0 - self.distance


@contextmanager
def _chroma_errors(action: str) -> Iterator[None]:
    try:
        yield
    except RabbitholeError:
        raise
    except (ValueError, TypeError) as exc:
        # Chroma reports bad input (and some not-found cases) as ValueError; keep our own ValueErrors
        if type(exc).__module__.startswith("chromadb"):
            raise StoreError(f"vector store: {action} failed: {exc}") from exc
        raise
    except Exception as exc:
        raise StoreError(f"vector store: {action} failed: {exc}") from exc


def chunk_metadata(chunk: Chunk) -> dict[str, str | int]:
    """The metadata stored with each vector: the fields a search filters on (``SearchFilters``), nothing
    else. The catalog holds the rest of a chunk; Chroma indexes every metadata field it is given, and the
    five a search never filtered on (section, heading, ordinal, start, end) cost a third of each write's
    CPU. Collections written before keep theirs, unused."""
    return {
        "document": chunk.document,
        "page": int(chunk.page),
        "page_end": int(chunk.page_end),
        "section_key": section_key(chunk.section),
    }


class VectorCollection:
    """Handle on the vectors of one Rabbithole collection."""

    def __init__(self, store: ChromaStore, name: str, handle: Any, model_id: str, dim: int) -> None:
        self._store = store
        self.name = name
        self.model_id = model_id
        self.dim = dim
        self._handle = handle

    @property
    def chroma_name(self) -> str:
        return str(self._handle.name)

    def count(self) -> int:
        with _chroma_errors(f"counting '{self.name}'"):
            return int(self._handle.count())

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
        with _chroma_errors(f"writing to '{self.name}'"):
            for start in range(0, len(chunks), step):
                part = chunks[start : start + step]
                # No ``documents``: the catalog holds the passage texts and every search reads them from
                # there. A copy in Chroma would only cost its full-text index (half the upsert's time).
                self._handle.upsert(
                    ids=[c.id for c in part],
                    embeddings=vectors[start : start + step],
                    metadatas=[chunk_metadata(c) for c in part],
                )

    def ids(self, where: Where | None = None) -> list[str]:
        with _chroma_errors(f"listing '{self.name}'"):
            result = self._handle.get(where=where or None, include=[])
        return [str(i) for i in result["ids"]]

    def delete_ids(self, ids: Sequence[str]) -> None:
        step = self._store.max_batch_size
        with _chroma_errors(f"deleting from '{self.name}'"):
            for start in range(0, len(ids), step):
                self._handle.delete(ids=list(ids[start : start + step]))

    def delete_document(self, document: str) -> int:
        """Delete every chunk of one document; returns how many were deleted."""
        ids = self.ids({"document": document})
        self.delete_ids(ids)
        return len(ids)

    def documents(self) -> dict[str, int]:
        """Document name -> number of chunks."""
        with _chroma_errors(f"listing '{self.name}'"):
            result = self._handle.get(include=["metadatas"])
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
        with _chroma_errors(f"searching '{self.name}'"):
            # Chroma answers fewer results when the collection (or the filtered part) is smaller than n,
            # so no count() round trip is needed first.
            result = self._handle.query(
                query_embeddings=query,
                n_results=n,
                where=where or None,
                include=["distances"],
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
        with _chroma_errors(f"searching '{self.name}'"):
            result = self._handle.query(
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
        with _chroma_errors(f"reading vectors of '{self.name}'"):
            for start in range(0, len(ids), step):
                result = self._handle.get(ids=list(ids[start : start + step]), include=["embeddings"])
                embeddings = result.get("embeddings")
                if embeddings is None:
                    continue
                for chunk_id, vector in zip(result["ids"], embeddings, strict=True):
                    out[str(chunk_id)] = np.asarray(vector, dtype=np.float32)
        return out

    def __repr__(self) -> str:
        return f"VectorCollection({self.name!r}, model_id={self.model_id!r}, dim={self.dim})"


class ChromaStore:
    """The vector store. Thread-safe as far as the Chroma client is; collection creation is locked."""

    def __init__(self, client: Any, *, reopen: Callable[[], Any] | None = None) -> None:
        """``reopen``: builds a fresh client over the same data (embedded mode), for :meth:`refresh`."""
        self._client = client
        self._reopen = reopen
        self._lock = threading.Lock()
        self._max_batch: int | None = None

    def refresh(self) -> None:
        """Read what other processes wrote. An embedded Chroma keeps each collection's HNSW index in memory
        and never rereads it, so after another process (a `rabbithole ingest`, a second server) changed a
        collection, its searches fail ("Error finding id", "Nothing found on disk") or miss the new vectors.
        A fresh client reads the files again; handles opened before keep working on the old one. A Chroma
        server is one truth for all its clients: nothing to do."""
        if self._reopen is None:
            return
        with self._lock:
            self._client = self._reopen()

    @classmethod
    def from_settings(cls, settings: StorageSettings) -> ChromaStore:
        try:
            import chromadb
            from chromadb.config import Settings as ChromaSettings
        except ImportError as exc:  # pragma: no cover - chromadb is a hard dependency
            raise StoreError("the vector store needs the package chromadb") from exc
        chroma_settings = ChromaSettings(anonymized_telemetry=False)
        if settings.chroma_mode == "http":
            where = f"Chroma server at {settings.chroma_host}:{settings.chroma_port}"
            try:
                client = chromadb.HttpClient(
                    host=settings.chroma_host, port=settings.chroma_port, settings=chroma_settings
                )
            except Exception as exc:
                raise StoreError(f"cannot connect to the {where}: {exc}") from exc
            return cls(client)
        path = settings.chroma_dir

        def open_embedded() -> Any:
            try:
                path.mkdir(parents=True, exist_ok=True)
                return _fresh_persistent_client(str(path), chroma_settings)
            except Exception as exc:
                raise StoreError(f"cannot open the vector store at {path}: {exc}") from exc

        return cls(open_embedded(), reopen=open_embedded)

    @property
    def client(self) -> Any:
        return self._client

    @property
    def max_batch_size(self) -> int:
        if self._max_batch is None:
            try:
                self._max_batch = max(1, int(self._client.get_max_batch_size()))
            except Exception:
                self._max_batch = _DEFAULT_MAX_BATCH
        return self._max_batch

    def heartbeat(self) -> bool:
        try:
            self._client.heartbeat()
            return True
        except Exception:
            return False

    # --- collections --------------------------------------------------------------------------------

    def _get(self, collection: str) -> Any | None:
        try:
            return self._client.get_collection(chroma_collection_name(collection), embedding_function=None)
        except Exception as exc:
            if _is_not_found(exc):
                return None
            raise StoreError(f"vector store: opening '{collection}' failed: {exc}") from exc

    def _raw_collections(self) -> list[Any]:
        with _chroma_errors("listing collections"):
            return [
                c
                for c in self._client.list_collections()
                if str(c.name).startswith(COLLECTION_PREFIX) and META_COLLECTION in (c.metadata or {})
            ]

    def list_collections(self, *, with_counts: bool = True) -> list[CollectionInfo]:
        infos = []
        for raw in self._raw_collections():
            meta: Mapping[str, Any] = raw.metadata or {}
            count = 0
            if with_counts:
                with _chroma_errors("counting"):
                    count = int(raw.count())
            infos.append(
                CollectionInfo(
                    name=str(meta[META_COLLECTION]),
                    chroma_name=str(raw.name),
                    model_id=str(meta.get(META_MODEL, "")),
                    dim=int(meta.get(META_DIM, 0)),
                    count=count,
                )
            )
        return sorted(infos, key=lambda i: i.name)

    def collection_names(self) -> list[str]:
        return [info.name for info in self.list_collections(with_counts=False)]

    def exists(self, collection: str) -> bool:
        return self._get(collection) is not None

    def open(
        self, collection: str, embedder: ModelIdentity | None = None, *, create: bool = False
    ) -> VectorCollection:
        """Open (or with ``create=True`` create) a collection.

        With an ``embedder`` the stored model identity must match it (else EmbeddingModelMismatchError);
        ``embedder=None`` skips the check (counting, deleting) and cannot create.
        Raises CollectionNotFoundError when it does not exist and ``create`` is False.
        """
        handle = self._get(collection)
        if handle is None:
            if not create:
                raise CollectionNotFoundError(collection, self.collection_names())
            if embedder is None:
                raise ValueError("creating a collection needs the embedder whose vectors it will hold")
            with self._lock, _chroma_errors(f"creating '{collection}'"):
                handle = self._client.get_or_create_collection(
                    chroma_collection_name(collection),
                    configuration={"hnsw": {"space": "cosine"}},
                    metadata={
                        META_COLLECTION: collection,
                        META_MODEL: embedder.model_id,
                        META_DIM: int(embedder.dim),
                        META_SCHEMA: SCHEMA_VERSION,
                    },
                    embedding_function=None,
                )
        meta: Mapping[str, Any] = handle.metadata or {}
        model_id = str(meta.get(META_MODEL, ""))
        dim = int(meta.get(META_DIM, 0))
        if embedder is not None and (model_id != embedder.model_id or dim != int(embedder.dim)):
            indexed, configured = model_id, embedder.model_id
            if model_id == embedder.model_id:  # same name, other vector size (e.g. a re-pulled model tag)
                indexed, configured = f"{model_id} ({dim}-d)", f"{embedder.model_id} ({embedder.dim}-d)"
            raise EmbeddingModelMismatchError(collection, indexed, configured)
        return VectorCollection(self, collection, handle, model_id, dim)

    def delete_collection(self, collection: str) -> bool:
        """Delete a collection's vectors; False when it did not exist."""
        if self._get(collection) is None:
            return False
        with _chroma_errors(f"deleting '{collection}'"):
            try:
                self._client.delete_collection(chroma_collection_name(collection))
            except Exception as exc:
                if _is_not_found(exc):
                    return False
                raise
        return True


def _fresh_persistent_client(path: str, settings: Any) -> Any:
    """A PersistentClient with its own Chroma system. Chroma shares one system (and its in-memory indexes)
    per folder and process; the cached one is set aside (not stopped: open handles still use it) so the
    new client reads the folder anew."""
    import chromadb
    from chromadb.api.shared_system_client import SharedSystemClient

    with SharedSystemClient._refcount_lock:
        SharedSystemClient._identifier_to_system.pop(path, None)
        SharedSystemClient._identifier_to_refcount.pop(path, None)
    return chromadb.PersistentClient(path=path, settings=settings)


def _is_not_found(exc: Exception) -> bool:
    name = type(exc).__name__
    text = str(exc).lower()
    return name in ("NotFoundError", "InvalidCollectionException") or (
        "does not exist" in text or "not found" in text
    )
