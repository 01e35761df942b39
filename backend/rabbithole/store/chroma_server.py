"""A Chroma server as the vector store (``vectors.url``): the client, and its failures as domain errors.

The client is ``chromadb.HttpClient`` over the whole URL (scheme, host, port and an optional path prefix,
e.g. behind a reverse proxy), with ``vectors.token`` in a header, bounded by ``vectors.timeout_s`` per
request (chromadb's own HTTP session waits for ever), in the database ``vectors.database`` (created when
missing). A server that refuses the connection, or does not answer in time, is a
:class:`VectorStoreUnavailableError` naming the URL, never a hang.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import httpx

from rabbithole.core.errors import StoreError, VectorStoreUnavailableError

if TYPE_CHECKING:
    from rabbithole.core.config import VectorSettings

log = logging.getLogger(__name__)

API_PATH = "/api/v2"
#: the longest the first contact with the server (or a reconnect) waits for the TCP connection
CONNECT_TIMEOUT_S = 10.0


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what it was raised from or during (chromadb turns a refused connection into a
    ValueError raised inside the handler of httpx's error)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def unreachable(exc: BaseException) -> str | None:
    """Why the server could not be reached, when ``exc`` says so (a refused or dropped connection, a
    timeout); None for an error the server answered with."""
    for cause in _causes(exc):
        if isinstance(cause, httpx.TimeoutException):
            return f"no answer within the time allowed ({type(cause).__name__})"
        if isinstance(cause, httpx.TransportError):
            return str(cause) or type(cause).__name__
    return None


class ChromaServer:
    """How to reach the Chroma server of ``settings`` (nothing is sent before :meth:`connect`)."""

    def __init__(self, settings: VectorSettings) -> None:
        self.url = settings.url
        self.database = settings.database
        self.timeout_s = settings.timeout_s
        self._headers: dict[str, str] = {}
        if settings.token:
            value = f"Bearer {settings.token}" if settings.token_header == "Authorization" else settings.token
            self._headers[settings.token_header] = value

    @property
    def label(self) -> str:
        return f"the Chroma server at {self.url}"

    def _timeout(self) -> httpx.Timeout:
        return httpx.Timeout(self.timeout_s, connect=min(self.timeout_s, CONNECT_TIMEOUT_S))

    def error(self, action: str, exc: BaseException) -> StoreError:
        """``exc`` of a call to the server as a domain error naming the server."""
        reason = unreachable(exc)
        if reason is not None:
            return VectorStoreUnavailableError(self.url, action, reason)
        return StoreError(f"vector store ({self.label}): {action} failed: {exc}")

    def _check_answering(self) -> None:
        """One heartbeat with a bounded wait, before chromadb's client (whose first calls are not bounded)
        is built: a server that is down or hung is reported here."""
        try:
            response = httpx.get(
                f"{self.url}{API_PATH}/heartbeat", headers=self._headers, timeout=self._timeout()
            )
        except httpx.HTTPError as exc:
            raise self.error("connecting", exc) from exc
        if response.status_code in (401, 403):
            raise StoreError(
                f"{self.label} refused the request ({response.status_code}): set vectors.token "
                "(RABBITHOLE_VECTORS__TOKEN) and vectors.token_header to what it expects"
            )
        if response.status_code >= 500:
            raise VectorStoreUnavailableError(self.url, "connecting", f"HTTP {response.status_code}")
        if response.status_code >= 400:
            raise StoreError(
                f"{self.label} answered HTTP {response.status_code} to a heartbeat: is vectors.url the "
                "address of a Chroma server (its path prefix included)?"
            )

    def connect(self) -> Any:
        """A ``chromadb`` client of the server, in the configured database (created when missing).
        Raises VectorStoreUnavailableError (not answering) or StoreError."""
        import chromadb
        from chromadb.config import Settings as ChromaSettings
        from chromadb.errors import NotFoundError

        self._check_answering()

        def client() -> Any:
            made = chromadb.HttpClient(
                host=self.url,  # a whole URL: chromadb takes scheme, port and path prefix from it
                headers=dict(self._headers),
                database=self.database,
                settings=ChromaSettings(anonymized_telemetry=False),
            )
            self._bound(made)
            return made

        try:
            try:
                return client()
            except NotFoundError:
                self._create_database()
                return client()
        except StoreError:
            raise
        except Exception as exc:
            raise self.error(f"opening the database '{self.database}'", exc) from exc

    def _create_database(self) -> None:
        import chromadb
        from chromadb.config import Settings as ChromaSettings
        from chromadb.errors import ChromaError

        admin = chromadb.AdminClient(
            ChromaSettings(
                anonymized_telemetry=False,
                chroma_api_impl="chromadb.api.fastapi.FastAPI",
                chroma_server_host=self.url,
                chroma_server_http_port=_port(self.url),
                chroma_server_headers=dict(self._headers),
            )
        )
        self._bound(admin)
        try:
            admin.create_database(self.database)
        except ChromaError as exc:
            if "already exists" not in str(exc):  # another process created it meanwhile
                raise
        finally:
            _stop_system(admin)

    def _bound(self, client: Any) -> None:
        """Bound every request of ``client`` by ``vectors.timeout_s`` (chromadb's session has none)."""
        session = getattr(getattr(client, "_server", None), "_session", None)
        if isinstance(session, httpx.Client):
            session.timeout = self._timeout()


def _port(url: str) -> int:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.port or (443 if parts.scheme == "https" else 80)


def _stop_system(client: Any) -> None:
    system = getattr(client, "_system", None)
    if system is not None:
        try:
            system.stop()
        except Exception:  # it is no longer used; a failure to stop it costs memory, nothing else
            log.warning("stopping a Chroma admin client failed", exc_info=True)
