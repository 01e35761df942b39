"""Domain errors. Services raise these; the edges (HTTP, SSE, CLI) translate them."""

from __future__ import annotations


class RabbitholeError(Exception):
    """Base class for every error Rabbithole reports to a user."""

    #: HTTP status the API answers with; CLI exit code is derived from the class.
    http_status: int = 500
    exit_code: int = 1

    @property
    def public_message(self) -> str:
        """What a remote client is told (the CLI shows ``str(self)``, which may say more)."""
        return str(self)


class ConfigurationError(RabbitholeError):
    http_status = 500
    exit_code = 78  # EX_CONFIG


class NotFoundError(RabbitholeError):
    http_status = 404
    exit_code = 66  # EX_NOINPUT


class CollectionNotFoundError(NotFoundError):
    def __init__(self, collection: str, known: list[str] | None = None) -> None:
        hint = f" (known: {', '.join(known)})" if known else " (none ingested yet: run `rabbithole ingest`)"
        super().__init__(f"collection '{collection}' does not exist{hint}")
        self.collection = collection

    @property
    def public_message(self) -> str:
        """Without the list of known collections: a 404 does not enumerate what exists."""
        return f"collection '{self.collection}' does not exist"


class DocumentNotFoundError(NotFoundError):
    pass


class CollectionExistsError(RabbitholeError):
    http_status = 409
    exit_code = 73  # EX_CANTCREAT

    def __init__(self, collection: str) -> None:
        super().__init__(f"collection '{collection}' already exists")
        self.collection = collection


class InvalidRequestError(RabbitholeError):
    http_status = 422
    exit_code = 64  # EX_USAGE


class EmbeddingModelMismatchError(RabbitholeError):
    """A collection was indexed with another embedding model than the one configured."""

    http_status = 409
    exit_code = 65

    def __init__(self, collection: str, indexed_with: str, configured: str) -> None:
        super().__init__(
            f"collection '{collection}' was indexed with embedding model '{indexed_with}', but "
            f"'{configured}' is configured; vectors of different models cannot be compared. Re-index it "
            f"with `rabbithole ingest PATH --collection {collection} --reindex`, or configure "
            f"'{indexed_with}' again."
        )
        self.indexed_with = indexed_with
        self.configured = configured


class EmbeddingError(RabbitholeError):
    http_status = 503
    exit_code = 69  # EX_UNAVAILABLE


class IngestionError(RabbitholeError):
    """A single file could not be ingested; the batch goes on."""

    exit_code = 65  # EX_DATAERR


class StoreError(RabbitholeError):
    http_status = 503
    exit_code = 74  # EX_IOERR


class VectorStoreUnavailableError(StoreError):
    """The Chroma server (``vectors.url``) could not be reached or did not answer in time."""

    exit_code = 69  # EX_UNAVAILABLE, as for the other services that are down

    def __init__(self, url: str, action: str, reason: str) -> None:
        super().__init__(
            f"the Chroma server at {url} is unavailable ({action}: {reason}); start it, or point "
            "vectors.url (RABBITHOLE_VECTORS__URL) at a running one"
        )
        self.url = url


class DamagedIndexError(StoreError):
    """A collection's vector index was found damaged (it crashed or hung the process reading it); it is not
    opened again until it is rebuilt from the catalog."""

    def __init__(self, collection: str, reason: str) -> None:
        self.collection = collection
        self.reason = reason
        import shlex
        from urllib.parse import quote

        super().__init__(
            f"the vector index of collection '{collection}' is damaged ({reason}); rebuild it from the "
            f"catalog: `rabbithole rebuild {shlex.quote(collection)}` or POST "
            f"/api/collections/{quote(collection, safe='')}/rebuild (the documents and their texts are safe)"
        )


class StorageFullError(StoreError):
    """The disk under the data directory is full (SQLite's "database or disk is full", ENOSPC): nothing more
    can be written until space is freed."""

    http_status = 507  # Insufficient Storage


class LLMError(RabbitholeError):
    http_status = 502
    exit_code = 69


class LLMUnavailableError(LLMError):
    """Neither the primary nor the fallback model could be reached."""

    http_status = 503


class LLMOutputError(LLMError):
    """The model kept producing output that does not match the requested schema.

    ``attempts``, ``prompt_tokens`` and ``output_tokens``: what the failed attempts took (0 where unknown).
    """

    def __init__(
        self, message: str, *, attempts: int = 0, prompt_tokens: int = 0, output_tokens: int = 0
    ) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.prompt_tokens = prompt_tokens
        self.output_tokens = output_tokens


class ContextWindowExceededError(LLMError):
    http_status = 413
    exit_code = 65


class RunNotFoundError(NotFoundError):
    def __init__(self, run_id: str) -> None:
        super().__init__(f"research run '{run_id}' does not exist (list them with `rabbithole runs`)")
        self.run_id = run_id


class RunStateError(RabbitholeError):
    """The run is not in a state that allows the request (resuming a finished run, a stale answer)."""

    http_status = 409
    exit_code = 65


class RunBusyError(RunStateError):
    """Another live process (a server, or the CLI) executes the run: it holds the run's lease."""


class RunFailedError(RabbitholeError):
    """A research run stopped in its error state; it can be resumed from its last checkpoint."""

    http_status = 502
    exit_code = 70


class ServerUnavailableError(RabbitholeError):
    """A Rabbithole server (``rabbithole research --server URL``) could not be reached or failed."""

    http_status = 502
    exit_code = 69  # EX_UNAVAILABLE
