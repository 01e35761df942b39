"""What crosses between Rabbithole and Chroma: its errors as :class:`StoreError`, and the metadata stored
with each vector."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rabbithole.core.errors import RabbitholeError, StoreError
from rabbithole.core.models import Chunk
from rabbithole.core.sections import section_key

if TYPE_CHECKING:
    from rabbithole.store.chroma_server import ChromaServer


@contextmanager
def chroma_errors(action: str, server: ChromaServer | None = None) -> Iterator[None]:
    """Chroma's errors of ``action`` as :class:`StoreError`; with a Chroma ``server``, naming it, and a
    server that cannot be reached as :class:`~rabbithole.core.errors.VectorStoreUnavailableError`."""
    try:
        yield
    except RabbitholeError:
        raise
    except (ValueError, TypeError) as exc:
        # Chroma reports bad input (and some not-found cases) as ValueError; keep our own ValueErrors
        if type(exc).__module__.startswith("chromadb"):
            raise _store_error(action, exc, server) from exc
        raise
    except Exception as exc:
        raise _store_error(action, exc, server) from exc


def _store_error(action: str, exc: Exception, server: ChromaServer | None) -> StoreError:
    if server is not None:
        return server.error(action, exc)
    return StoreError(f"vector store: {action} failed: {exc}")


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


def is_not_found(exc: Exception) -> bool:
    name = type(exc).__name__
    text = str(exc).lower()
    return name in ("NotFoundError", "InvalidCollectionException") or (
        "does not exist" in text or "not found" in text
    )
