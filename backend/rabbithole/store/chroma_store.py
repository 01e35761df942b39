"""ChromaDB vector store: one Chroma collection per Rabbithole collection, cosine space.

Embedded (``chromadb.PersistentClient`` under ``settings.chroma_dir``) by default, or a Chroma server
(``chromadb.HttpClient``, :mod:`rabbithole.store.chroma_server`) when ``vectors.url`` is set. The
protections of the embedded store (the refresh after another process wrote, the record of damaged indexes,
the session markers whose leftovers make the next start check the indexes in a child process) concern
local index files: a server owns its files, so none of them is used with one.

Vectors are always computed by Rabbithole and passed in; Chroma's own (downloading) embedding function is
never used: every collection handle is obtained with ``embedding_function=None``.

The embedding model identity (``model_id``, ``dim``) is stored in the Chroma collection's metadata;
:meth:`ChromaStore.open` compares it with the configured embedder and raises
:class:`~rabbithole.core.errors.EmbeddingModelMismatchError` on a mismatch.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from rabbithole.core.errors import (
    CollectionNotFoundError,
    DamagedIndexError,
    EmbeddingModelMismatchError,
    RabbitholeError,
    StoreError,
)
from rabbithole.store.chroma_errors import chroma_errors, chunk_metadata, is_not_found
from rabbithole.store.chroma_server import ChromaServer
from rabbithole.store.client_gate import ClientGate
from rabbithole.store.damage import DAMAGE_FILE, DamageRecord
from rabbithole.store.names import COLLECTION_PREFIX, chroma_collection_name
from rabbithole.store.sessions import SESSIONS_DIR, StoreSessions
from rabbithole.store.vector_collection import VectorCollection, VectorMatch

if TYPE_CHECKING:
    from rabbithole.core.config import StorageSettings, VectorSettings

__all__ = [
    "ChromaStore",
    "CollectionInfo",
    "VectorCollection",
    "VectorMatch",
    "chroma_collection_name",
    "chunk_metadata",
]

log = logging.getLogger(__name__)

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


@dataclass(frozen=True, slots=True)
class CollectionInfo:
    name: str  # the Rabbithole collection name
    chroma_name: str
    model_id: str
    dim: int
    count: int


class ChromaStore:
    """The vector store. Thread-safe: every call through the Chroma client holds the client gate's shared
    side, a swap of the client (:meth:`refresh`) holds it alone; collection creation is locked.

    ``damage``: the record of damaged indexes (embedded mode): such a collection is never opened
    (:class:`DamagedIndexError`) until :meth:`delete_collection` removes it for a rebuild. ``sessions``: the
    marker of this process having the embedded store open (removed by :meth:`close`). ``server``: the
    Chroma server the client talks to (``client`` None: connected at the first call, and again at the
    next one while it cannot be reached, so a server started after this process is found)."""

    def __init__(
        self,
        client: Any | None,
        *,
        reopen: Callable[[], Any] | None = None,
        damage: DamageRecord | None = None,
        sessions: StoreSessions | None = None,
        server: ChromaServer | None = None,
    ) -> None:
        """``reopen``: builds a fresh client over the same data (embedded mode), for :meth:`refresh`."""
        if client is None and server is None:
            raise ValueError("a store needs a client, or the Chroma server to connect to")
        self._client = client
        self._reopen = reopen
        self.server = server
        self._lock = threading.Lock()
        self._connect_lock = threading.Lock()
        self._max_batch: int | None = None
        self.gate = ClientGate()
        self.damage = damage
        self.sessions = sessions
        self._known: dict[str, str] = {}  # collection -> the catalog revision this process's client holds
        if sessions is not None:
            sessions.begin()

    def close(self) -> None:
        """This process is done with the store (a clean stop: no check of the indexes at the next start;
        the connections to a Chroma server closed)."""
        if self.sessions is not None:
            self.sessions.end()
        if self.server is not None and self._client is not None:
            client, self._client = self._client, None
            _stop(getattr(client, "_system", None))

    @property
    def location(self) -> str:
        """Where the vectors are, for people: "embedded", or "server <url>"."""
        return f"server {self.server.url}" if self.server is not None else "embedded"

    def _errors(self, action: str) -> AbstractContextManager[None]:
        return chroma_errors(action, self.server)

    def _current(self) -> Any:
        """The client (the caller holds the gate), connecting to the Chroma server when not yet connected."""
        client = self._client
        if client is not None:
            return client
        assert self.server is not None
        with self._connect_lock:
            if self._client is None:
                self._client = self.server.connect()
            return self._client

    def refresh(self) -> None:
        """Read what other processes wrote. An embedded Chroma keeps each collection's HNSW index in memory
        and never rereads it, so after another process (a `rabbithole ingest`, a second server) changed a
        collection, its searches fail ("Error finding id", "Nothing found on disk") or miss the new vectors,
        and a write through the stale index would overwrite theirs. A fresh client reads the files again.
        The swap waits until no call is in flight; handles opened before move to the new client before
        their next call, and the old client is stopped: two clients of one folder never write at once. A
        Chroma server is one truth for all its clients: nothing to do."""
        if self._reopen is None:
            return
        with self.gate.exclusive():
            # the client's system is looked up by folder: take the old one before the new client replaces it
            old_system = getattr(self._client, "_system", None)
            self._client = self._reopen()
            self._known.clear()
        _stop(old_system)

    def sync(self, collection: str, revision: str) -> None:
        """Before a search or a write of ``collection`` at the catalog's ``revision``: read the store anew
        when another process changed the collection since this process last saw it."""
        with self._lock:
            seen = self._known.get(collection)
        if seen is not None and seen != revision:
            self.refresh()
        with self._lock:
            self._known[collection] = revision

    def note_written(self, collection: str, revision: str) -> None:
        """This process wrote ``collection`` (holding its write lock) and the catalog is now at
        ``revision``: its client holds that state, no refresh is needed for it."""
        with self._lock:
            self._known[collection] = revision

    @classmethod
    def from_settings(cls, settings: StorageSettings, vectors: VectorSettings | None = None) -> ChromaStore:
        """The store of ``vectors`` (a Chroma server when its ``url`` is set: nothing is sent before the
        first call), else embedded under ``settings.chroma_dir``."""
        if vectors is not None and vectors.server:
            return cls(None, server=ChromaServer(vectors))
        try:
            from chromadb.config import Settings as ChromaSettings
        except ImportError as exc:  # pragma: no cover - chromadb is a hard dependency
            raise StoreError("the vector store needs the package chromadb") from exc
        chroma_settings = ChromaSettings(anonymized_telemetry=False)
        path = settings.chroma_dir

        def open_embedded() -> Any:
            try:
                path.mkdir(parents=True, exist_ok=True)
                return _fresh_persistent_client(str(path), chroma_settings)
            except Exception as exc:
                raise StoreError(f"cannot open the vector store at {path}: {exc}") from exc

        return cls(
            open_embedded(),
            reopen=open_embedded,
            damage=DamageRecord(settings.data_dir / DAMAGE_FILE),
            sessions=StoreSessions(settings.data_dir / SESSIONS_DIR),
        )

    @property
    def client(self) -> Any:
        with self.gate.shared():
            return self._current()

    @property
    def max_batch_size(self) -> int:
        if self._max_batch is None:
            with self.gate.shared():
                client = self._current()  # a server that is down is reported, not guessed around
                try:
                    self._max_batch = max(1, int(client.get_max_batch_size()))
                except Exception:
                    self._max_batch = _DEFAULT_MAX_BATCH
        return self._max_batch

    def heartbeat(self) -> bool:
        try:
            with self.gate.shared():
                self._current().heartbeat()
            return True
        except Exception:
            return False

    # --- damaged indexes ----------------------------------------------------------------------------

    def damaged(self) -> dict[str, str]:
        """Collections whose index was found damaged, with the reason."""
        return self.damage.load() if self.damage is not None else {}

    def mark_damaged(self, damaged: dict[str, str]) -> None:
        if self.damage is not None:
            self.damage.mark(damaged)

    def _refuse_damaged(self, collection: str) -> None:
        reason = self.damage.reason(collection) if self.damage is not None else None
        if reason is not None:
            raise DamagedIndexError(collection, reason)

    # --- collections --------------------------------------------------------------------------------

    def raw_handle(self, collection: str) -> Any:
        """The Chroma handle of ``collection`` on the current client (the caller holds the gate)."""
        return self._current().get_collection(chroma_collection_name(collection), embedding_function=None)

    def _get(self, collection: str) -> Any | None:
        try:
            with self.gate.shared(), self._errors(f"opening '{collection}'"):
                try:
                    return self.raw_handle(collection)
                except Exception as exc:
                    if not isinstance(exc, RabbitholeError) and is_not_found(exc):
                        return None
                    raise
        except (ValueError, TypeError) as exc:  # chroma_errors keeps those not raised by Chroma
            raise StoreError(f"vector store: opening '{collection}' failed: {exc}") from exc

    def list_collections(self, *, with_counts: bool = True) -> list[CollectionInfo]:
        """The collections in the store; a damaged one is listed with count 0 (counting would read it)."""
        damaged = self.damaged() if with_counts else {}
        infos = []
        with self.gate.shared(), self._errors("listing collections"):
            for raw in self._current().list_collections():
                meta: Mapping[str, Any] = raw.metadata or {}
                if not str(raw.name).startswith(COLLECTION_PREFIX) or META_COLLECTION not in meta:
                    continue
                name = str(meta[META_COLLECTION])
                count = int(raw.count()) if with_counts and name not in damaged else 0
                infos.append(
                    CollectionInfo(
                        name=name,
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
        Raises CollectionNotFoundError when it does not exist and ``create`` is False, DamagedIndexError
        when its index was found damaged.
        """
        self._refuse_damaged(collection)
        with self.gate.shared() as generation:
            handle = self._get(collection)
            if handle is None:
                if not create:
                    raise CollectionNotFoundError(collection, self.collection_names())
                if embedder is None:
                    raise ValueError("creating a collection needs the embedder whose vectors it will hold")
                with self._lock, self._errors(f"creating '{collection}'"):
                    handle = self._current().get_or_create_collection(
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
        return VectorCollection(self, collection, handle, model_id, dim, generation)

    def delete_collection(self, collection: str) -> bool:
        """Delete a collection's vectors (a damaged one too: deleting does not read its index, and its
        damage is forgotten); False when it did not exist."""
        with self.gate.shared(), self._errors(f"deleting '{collection}'"):
            try:
                self._current().delete_collection(chroma_collection_name(collection))
            except Exception as exc:
                if not is_not_found(exc):
                    raise
                existed = False
            else:
                existed = True
        with self._lock:
            self._known.pop(collection, None)
        if self.damage is not None:
            self.damage.clear(collection)
        return existed


def _stop(system: Any) -> None:
    """Stop the Chroma system of a client set aside by :meth:`ChromaStore.refresh` (frees its in-memory
    indexes)."""
    if system is None:
        return
    try:
        system.stop()
    except Exception:  # it is no longer used; a failure to stop it costs memory, nothing else
        log.warning("stopping a replaced vector store client failed", exc_info=True)


def _fresh_persistent_client(path: str, settings: Any) -> Any:
    """A PersistentClient with its own Chroma system. Chroma shares one system (and its in-memory indexes)
    per folder and process; the cached one is set aside (the store stops it once no call uses it) so the
    new client reads the folder anew."""
    import chromadb
    from chromadb.api.shared_system_client import SharedSystemClient

    with SharedSystemClient._refcount_lock:
        SharedSystemClient._identifier_to_system.pop(path, None)
        SharedSystemClient._identifier_to_refcount.pop(path, None)
    return chromadb.PersistentClient(path=path, settings=settings)
