"""Security headers on every response (the web app and its files, the API, its errors and event streams,
/docs and /redoc): a Content-Security-Policy that allows only this server's own scripts, styles, images,
connections and workers and forbids framing, plus X-Content-Type-Options, X-Frame-Options,
Referrer-Policy and the cross-origin isolation headers. A header a response sets itself is kept.

The API documentation pages (Swagger UI, ReDoc, from fastapi_offline) carry inline scripts: their policy
allows exactly those scripts by their SHA-256 (computed from the page as served, so a root path in them is
covered) and inline styles, which both UIs set at run time."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Mapping

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rabbithole.api.spa import route_path

#: The pages whose policy lists their inline scripts by hash.
DOCS_PAGES = ("/docs", "/docs/oauth2-redirect", "/redoc")

_COMMON = {
    "default-src": "'self'",
    "connect-src": "'self'",
    "font-src": "'self' data:",
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}
#: The web app: its module scripts and stylesheet are files; React sets styles through the DOM (which a
#: policy does not restrict); pdf.js runs its worker from the app's files and draws into blob: and data:
#: images.
APP_POLICY = {
    **_COMMON,
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data: blob:",
    "worker-src": "'self' blob:",
}
#: Swagger UI and ReDoc: their inline scripts by hash (added per page), inline styles; ReDoc's search
#: runs in a blob: worker.
DOCS_POLICY = {
    **_COMMON,
    "script-src": "'self'",
    "style-src": "'self' 'unsafe-inline'",
    "img-src": "'self' data:",
    "worker-src": "'self' blob:",
}
OTHER_HEADERS = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}

_INLINE_SCRIPT = re.compile(rb"<script(?![^>]*\bsrc\s*=)[^>]*>(.*?)</script>", re.IGNORECASE | re.DOTALL)


def policy_text(directives: Mapping[str, str]) -> str:
    return "; ".join(f"{name} {value}" for name, value in directives.items())


def inline_script_hashes(html: bytes) -> list[str]:
    """CSP sources ('sha256-...') of the inline scripts of an HTML page, in order, without repeats."""
    hashes = [
        f"'sha256-{base64.b64encode(hashlib.sha256(body).digest()).decode()}'"
        for body in _INLINE_SCRIPT.findall(html)
    ]
    return list(dict.fromkeys(hashes))


def docs_policy(html: bytes) -> str:
    """The policy of a documentation page: DOCS_POLICY with the page's inline scripts allowed by hash."""
    scripts = " ".join([DOCS_POLICY["script-src"], *inline_script_hashes(html)])
    return policy_text({**DOCS_POLICY, "script-src": scripts})


APP_POLICY_TEXT = policy_text(APP_POLICY)


def _with_headers(message: Message, policy: str) -> Message:
    """The response start ``message`` with the security headers it does not set itself."""
    headers: list[tuple[bytes, bytes]] = list(message.get("headers", []))
    present = {bytes(name).lower() for name, _ in headers}
    wanted = {"content-security-policy": policy, **OTHER_HEADERS}
    headers += [(k.encode(), v.encode()) for k, v in wanted.items() if k.encode() not in present]
    return {**message, "headers": headers}


class SecurityHeadersMiddleware:
    """Adds the security headers to every HTTP response; outermost, so refusals of the guards get them."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if route_path(scope) in DOCS_PAGES:
            await self._docs_page(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = _with_headers(message, APP_POLICY_TEXT)
            await send(message)

        await self.app(scope, receive, send_with_headers)

    async def _docs_page(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A documentation page is small and whole: its body is read first, to hash its inline scripts."""
        start: Message | None = None
        body = bytearray()

        async def collect(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
            elif message["type"] == "http.response.body":
                body.extend(message.get("body", b""))
                if not message.get("more_body", False) and start is not None:
                    await send(_with_headers(start, docs_policy(bytes(body))))
                    await send({"type": "http.response.body", "body": bytes(body)})
            else:
                await send(message)

        await self.app(scope, receive, collect)
