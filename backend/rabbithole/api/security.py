"""The guards in front of every route (pure ASGI middlewares, so they also cover streaming responses):
the `Host:` check against DNS rebinding, the token (bearer header or session cookie) with its `Origin:`
check, and the request size limits. Their refusals use the API's error shape."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Collection, Sequence
from urllib.parse import urlsplit

from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import cookie_parser
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
#: Where a browser trades the token for a session cookie (api/routes/session.py); no token needed there.
SESSION_PATH = "/api/session"
SESSION_COOKIE = "rabbithole_session"
#: The scope key naming how a request proved the token: "bearer" or "cookie" (absent: no token configured).
AUTH_SCOPE_KEY = "rabbithole.auth"
_SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def session_cookie_value(token: str) -> str:
    """The session cookie's value for ``token``: an HMAC of a fixed label keyed with the token. It proves the
    token was given without being the token, and stops working when the token changes."""
    return hmac.new(token.encode(), b"rabbithole session cookie v1", hashlib.sha256).hexdigest()


def _needs_no_token(scope: Scope, path: str) -> bool:
    """The documentation pages, and the web app's files (spa.is_web_app_request: a GET/HEAD outside the
    API and /health), which hold no data and load before the app can ask for the token."""
    return path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIX) or is_web_app_request(scope)


def origin_allowed(scope: Scope, trusted_origins: Collection[str]) -> bool:
    """Whether the request's `Origin:` (when it sends one) is this server (its `Host:`, or the
    `X-Forwarded-Host:` a proxy set; a page cannot set either on a cross-site request without a CORS
    preflight) or one of ``trusted_origins`` (server.cors_origins). No `Origin:`: not a browser's
    cross-site request, allowed."""
    origin = _header(scope, b"origin")
    if origin is None:
        return True
    origin = origin.strip().lower().rstrip("/")
    if origin in trusted_origins:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False  # "null" (sandboxed frames, file://) and the like
    served = {
        (_header(scope, name) or "").split(",")[0].strip().lower() for name in (b"host", b"x-forwarded-host")
    }
    return parts.netloc in served - {""}


def _cookie(scope: Scope, name: str) -> str | None:
    header = _header(scope, b"cookie")
    return cookie_parser(header).get(name) if header else None


class BearerTokenMiddleware:
    """Requires the token on every request except CORS preflights, the documentation (PUBLIC_PATHS), the
    web app's files (a non-API GET) and the session endpoint: as `Authorization: Bearer <token>`, or as the
    session cookie POST /api/session set. A request the cookie authorizes that changes something (not
    GET/HEAD/OPTIONS) must also come from this server's own pages or a trusted origin (origin_allowed):
    SameSite=Strict keeps the cookie off cross-site requests, the `Origin:` check also off other sites on
    the same host name (another port is the same "site")."""

    def __init__(self, app: ASGIApp, token: str, trusted_origins: Collection[str] = ()) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()
        self.cookie = session_cookie_value(token).encode()
        self.trusted_origins = {o.strip().lower().rstrip("/") for o in trusted_origins}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] == "OPTIONS":
            await self.app(scope, receive, send)
            return
        method: str = scope["method"]
        path = route_path(scope)
        if path == SESSION_PATH and method != "GET":
            if not origin_allowed(scope, self.trusted_origins):
                await _refuse_origin(send)
                return
            await self.app(scope, receive, send)
            return
        if _needs_no_token(scope, path):
            await self.app(scope, receive, send)
            return
        via = self._credential(scope)
        if via is None:
            await _refuse(
                send,
                401,
                "Unauthorized",
                "missing or wrong token (send `Authorization: Bearer TOKEN`, or sign in with "
                "POST /api/session)",
                [(b"www-authenticate", b"Bearer")],
            )
            return
        foreign = not origin_allowed(scope, self.trusted_origins)
        if via == "cookie" and method not in _SAFE_METHODS and foreign:
            await _refuse_origin(send)
            return
        await self.app({**scope, AUTH_SCOPE_KEY: via}, receive, send)

    def _credential(self, scope: Scope) -> str | None:
        """How the request proves the token ("bearer" or "cookie"), or None."""
        given = (_header(scope, b"authorization") or "").encode("latin-1")
        if hmac.compare_digest(given, self.expected):
            return "bearer"
        cookie = (_cookie(scope, SESSION_COOKIE) or "").encode("latin-1", "replace")
        if hmac.compare_digest(cookie, self.cookie):
            return "cookie"
        return None


async def _refuse_origin(send: Send) -> None:
    await _refuse(
        send,
        403,
        "CrossOriginRefused",
        "refused: the request's Origin is neither this server nor one of server.cors_origins",
    )


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
