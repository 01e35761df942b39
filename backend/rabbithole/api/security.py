"""The guards in front of every route (pure ASGI middlewares, so they also cover streaming responses):
the `Host:` check against DNS rebinding, the bearer token, and the request size limits. Their refusals use
the API's error shape."""

from __future__ import annotations

import hmac
import json
from collections.abc import Sequence

from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rabbithole.api.errors import error_body
from rabbithole.api.spa import is_web_app_request, route_path


async def _refuse(
    send: Send, status: int, type_: str, message: str, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    body = json.dumps(error_body(type_, message)).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def host_name(host_header: str) -> str:
    """The name of a `Host:` header without its port ("[::1]:8000" → "::1")."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class TrustedHostMiddleware:
    """Serves only requests whose `Host:` is one of ``hosts`` (["*"]: any): a web page that rebinds its own
    domain name to 127.0.0.1 still sends its name, and is refused."""

    def __init__(self, app: ASGIApp, hosts: Sequence[str]) -> None:
        self.app = app
        self.any = "*" in hosts
        self.hosts = {h.lower().strip("[]") for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self.any:
            await self.app(scope, receive, send)
            return
        header = _header(scope, b"host")
        if header is None or host_name(header) not in self.hosts:
            await _refuse(
                send,
                400,
                "InvalidHost",
                "this server does not answer to that Host header (server.allowed_hosts)",
            )
            return
        await self.app(scope, receive, send)


#: What a browser loads without a token: the API's description and its offline documentation pages, and
#: the web app's files (spa.is_web_app_request), which hold no data.
PUBLIC_PATHS = ("/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc")
PUBLIC_PREFIX = "/static-offline-docs/"


class BearerTokenMiddleware:
    """Requires `Authorization: Bearer <token>` on every request except CORS preflights, the API's
    documentation (PUBLIC_PATHS) and the web app's files. Paths are taken below the root path."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = route_path(scope)
        public = path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIX) or is_web_app_request(scope)
        if scope["method"] == "OPTIONS" or public:
            await self.app(scope, receive, send)
            return
        given = (_header(scope, b"authorization") or "").encode("latin-1")
        if not hmac.compare_digest(given, self.expected):
            await _refuse(
                send,
                401,
                "Unauthorized",
                "missing or wrong bearer token (send `Authorization: Bearer TOKEN`)",
                [(b"www-authenticate", b"Bearer")],
            )
            return
        await self.app(scope, receive, send)


class BodySizeLimitMiddleware:
    """Refuses bodies over the limit with 413: at once when Content-Length says so, else while reading
    (a chunked body is counted). Multipart uploads get ``upload_limit``, everything else ``limit``."""

    def __init__(self, app: ASGIApp, limit: int, upload_limit: int) -> None:
        self.app = app
        self.limit = limit
        self.upload_limit = upload_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        content_type = (_header(scope, b"content-type") or "").lower()
        limit = self.upload_limit if content_type.startswith("multipart/form-data") else self.limit
        message = f"request body larger than {limit} bytes"
        declared = _header(scope, b"content-length")
        if declared is not None:
            try:
                too_large = int(declared) > limit
            except ValueError:
                await _refuse(send, 400, "HTTPError", "invalid Content-Length header")
                return
            if too_large:
                await _refuse(send, 413, "RequestTooLarge", message)
                return
        received = 0

        async def counted() -> Message:
            nonlocal received
            event = await receive()
            if event["type"] == "http.request":
                received += len(event.get("body", b""))
                if received > limit:
                    raise StarletteHTTPException(413, message)
            return event

        await self.app(scope, counted, send)
