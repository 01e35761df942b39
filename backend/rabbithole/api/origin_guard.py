"""The cross-origin guard: a request that changes something (any method but GET, HEAD and OPTIONS) is
refused with 403 when a browser says it comes from another origin, in every auth mode (no token too).

A page on another origin can send a POST without a CORS preflight (a form, or `fetch` with
`mode: 'no-cors'` and a FormData body): the browser cannot read the answer, but the server would act on it.
Browsers send `Origin:` with every such request, and `Sec-Fetch-Site:` too; a page cannot set or remove
either. The request is refused when

* its `Origin:` is neither this server (the `Host:` it was sent to, or the `X-Forwarded-Host:` a reverse
  proxy set, which a page cannot set without a preflight either) nor one of server.cors_origins; "null"
  (sandboxed frames, file://) counts as foreign;
* its `Sec-Fetch-Site:` is `cross-site` or `same-site` (another port or subdomain of the same site) and its
  `Origin:` is not one of server.cors_origins.

Requests without `Origin:` and `Sec-Fetch-Site:` (curl, scripts, httpx, the CLI's `--server` mode) are not
a browser's cross-origin requests and pass."""

from __future__ import annotations

from collections.abc import Collection
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from rabbithole.api.refusals import header, refuse

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
_FOREIGN_SITES = ("cross-site", "same-site")


def normalized_origin(origin: str) -> str:
    """An origin as compared: lower case, no trailing slash."""
    return origin.strip().lower().rstrip("/")


def origin_allowed(scope: Scope, trusted_origins: Collection[str]) -> bool:
    """Whether the request's `Origin:` (when it sends one) is this server (its `Host:`, or the
    `X-Forwarded-Host:` a proxy set) or one of ``trusted_origins`` (normalized). No `Origin:`: allowed."""
    origin = header(scope, b"origin")
    if origin is None:
        return True
    origin = normalized_origin(origin)
    if origin in trusted_origins:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False  # "null" (sandboxed frames, file://) and the like
    served = {
        (header(scope, name) or "").split(",")[0].strip().lower() for name in (b"host", b"x-forwarded-host")
    }
    return parts.netloc in served - {""}


def cross_origin_refusal(scope: Scope, trusted_origins: Collection[str]) -> str | None:
    """Why the request is refused as a foreign origin's, or None when it may pass."""
    if not origin_allowed(scope, trusted_origins):
        origin = header(scope, b"origin")
        return (
            f"refused: a request from origin {origin!r}, which is neither this server nor one of "
            "server.cors_origins, may not change anything"
        )
    site = (header(scope, b"sec-fetch-site") or "").strip().lower()
    if site in _FOREIGN_SITES and normalized_origin(header(scope, b"origin") or "") not in trusted_origins:
        return (
            f"refused: a {site} request (Sec-Fetch-Site) from an origin that is not one of "
            "server.cors_origins may not change anything"
        )
    return None


class CrossOriginGuardMiddleware:
    """Refuses requests other than GET/HEAD/OPTIONS from a foreign origin (cross_origin_refusal) with 403
    CrossOriginRefused before they reach a route (nothing is read, stored or changed)."""

    def __init__(self, app: ASGIApp, trusted_origins: Collection[str] = ()) -> None:
        self.app = app
        self.trusted_origins = {normalized_origin(o) for o in trusted_origins}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            why = cross_origin_refusal(scope, self.trusted_origins)
            if why is not None:
                await refuse(send, 403, "CrossOriginRefused", why)
                return
        await self.app(scope, receive, send)
