"""The guards in front of every route (pure ASGI middlewares, so they also cover streaming responses):
the `Host:` check against DNS rebinding, the token (bearer header or session cookie), and the request size
limits. Their refusals use the API's error shape. The `Origin:` check of requests that change something
is api/origin_guard.py (every auth mode); the response headers are api/headers.py."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rabbithole.api.refusals import header, refuse
from rabbithole.api.spa import is_web_app_request, route_path


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
        host = header(scope, b"host")
        if host is None or host_name(host) not in self.hosts:
            await refuse(
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
#: Where a browser trades the token for a session cookie (api/routes/session.py); no token needed there.
SESSION_PATH = "/api/session"
SESSION_COOKIE = "rabbithole_session"
#: The scope key naming how a request proved the token: "bearer" or "cookie" (absent: no token configured).
AUTH_SCOPE_KEY = "rabbithole.auth"


def session_cookie_value(token: str) -> str:
    """The session cookie's value for ``token``: an HMAC of a fixed label keyed with the token. It proves the
    token was given without being the token, and stops working when the token changes."""
    return hmac.new(token.encode(), b"rabbithole session cookie v1", hashlib.sha256).hexdigest()


def needs_no_token(scope: Scope, path: str) -> bool:
    """The documentation pages, and the web app's files (spa.is_web_app_request: a GET/HEAD outside the
    API and /health), which hold no data and load before the app can ask for the token."""
    return path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIX) or is_web_app_request(scope)


def cookie_value(scope: Scope, name: str) -> str | None:
    cookies = header(scope, b"cookie")
    return cookie_parser(cookies).get(name) if cookies else None


class BearerTokenMiddleware:
    """Requires the token on every request except CORS preflights, the documentation (PUBLIC_PATHS), the
    web app's files (a non-API GET) and the session endpoint: as `Authorization: Bearer <token>`, or as the
    session cookie POST /api/session set (SameSite=Strict keeps it off cross-site requests). A request that
    changes something from a foreign origin, cookie or not, never gets here: the cross-origin guard
    (api/origin_guard.py) in front of this one refuses it, also on another port of the same host name
    (the same "site" for the cookie)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()
        self.cookie = session_cookie_value(token).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] == "OPTIONS":
            await self.app(scope, receive, send)
            return
        path = route_path(scope)
        if (path == SESSION_PATH and scope["method"] != "GET") or needs_no_token(scope, path):
            await self.app(scope, receive, send)
            return
        via = self._credential(scope)
        if via is None:
            await refuse(
                send,
                401,
                "Unauthorized",
                "missing or wrong token (send `Authorization: Bearer TOKEN`, or sign in with "
                "POST /api/session)",
                [(b"www-authenticate", b"Bearer")],
            )
            return
        await self.app({**scope, AUTH_SCOPE_KEY: via}, receive, send)

    def _credential(self, scope: Scope) -> str | None:
        """How the request proves the token ("bearer" or "cookie"), or None."""
        given = (header(scope, b"authorization") or "").encode("latin-1")
        if hmac.compare_digest(given, self.expected):
            return "bearer"
        cookie = (cookie_value(scope, SESSION_COOKIE) or "").encode("latin-1", "replace")
        if hmac.compare_digest(cookie, self.cookie):
            return "cookie"
        return None


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
        content_type = (header(scope, b"content-type") or "").lower()
        limit = self.upload_limit if content_type.startswith("multipart/form-data") else self.limit
        message = f"request body larger than {limit} bytes"
        declared = header(scope, b"content-length")
        if declared is not None:
            try:
                too_large = int(declared) > limit
            except ValueError:
                await refuse(send, 400, "HTTPError", "invalid Content-Length header")
                return
            if too_large:
                await refuse(send, 413, "RequestTooLarge", message)
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
