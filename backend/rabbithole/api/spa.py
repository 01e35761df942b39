"""The built web app (frontend/dist) at `/`: its files, and index.html for every client route (a run's URL
can be bookmarked and reloaded). The API's own paths (/api, /health and the API documentation) and any
path a route of the application answers never fall back to the app, so they keep their JSON errors.

The app's URLs are relative to index.html (Vite base './', routes in the hash), so at the app's root it works
under any prefix a proxy strips. Only index.html sent for a deeper path (a client route typed as a path,
/research/runs/42) carries ``<base href="{root_path}/">`` (server.root_path, e.g. /research), so that its
relative asset and API URLs still resolve under the prefix.

Compressed: `npm run build` writes NAME.br and NAME.gz beside every text file of the build
(frontend/scripts/compress-dist.mjs); a client whose Accept-Encoding allows it gets the copy (brotli first),
with Content-Encoding, the original's Content-Type and ``Vary: Accept-Encoding``, so nothing is compressed
per request. index.html (under 1 kB) is compressed per request, as it may carry ``<base>``. Only the web
app's files: the API (its PDFs, its event streams) never passes a compression layer."""

from __future__ import annotations

import gzip
import html
import mimetypes
import re
from pathlib import Path

from starlette.datastructures import Headers
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Receive, Scope, Send

#: Paths the API answers itself (exact paths and prefixes): never the web app.
#: /mcp: the MCP server (streamable HTTP, mcp/transports.py), behind the token like /api.
API_PATHS = ("/health", "/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc", "/api", "/mcp")
API_PREFIXES = ("/api/", "/static-offline-docs/", "/docs/", "/mcp/")

#: Vite puts content-hashed files here: they never change under their name.
HASHED_DIR = "assets/"
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"

#: The precompressed copies the build writes, in the order they are preferred: (encoding, suffix).
PRECOMPRESSED = (("br", ".br"), ("gzip", ".gz"))
VARY = "Accept-Encoding"

_HEAD = re.compile(rb"<head[^>]*>", re.IGNORECASE)
_LAST_SEGMENT_HAS_SUFFIX = re.compile(r"\.[A-Za-z0-9]{1,8}$")

MISSING_BUILD_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Rabbithole: web app not built</title></head>
<body>
<h1>The web app is not built</h1>
<p>The API is running, but there is no built web app in <code>{web_dir}</code>.</p>
<p>Build it with <code>make run</code> (builds it when missing or stale, then serves), or
<code>cd frontend &amp;&amp; npm ci &amp;&amp; npm run build</code>; or point
<code>RABBITHOLE_SERVER__WEB_DIR</code> at a build.</p>
<p>The API itself works: <a href="api/collections">api/collections</a>, <a href="health">health</a>,
<a href="docs">docs</a>.</p>
</body></html>
"""


def default_web_dir() -> Path:
    """frontend/dist of the source checkout this package runs from."""
    return Path(__file__).resolve().parents[3] / "frontend" / "dist"


def route_path(scope: Scope) -> str:
    """The request's path below the root path (uvicorn puts the root path in front of ``path``)."""
    path: str = scope.get("path", "")
    root: str = scope.get("root_path", "")
    if root and (path == root or path.startswith(root + "/")):
        return path[len(root) :] or "/"
    return path


def is_api_path(path: str) -> bool:
    """Whether the API answers ``path`` (a route path) itself."""
    return path in API_PATHS or path.startswith(API_PREFIXES)


def is_web_app_request(scope: Scope) -> bool:
    """A GET or HEAD of a path outside the API: the web app's files and client routes. They carry no data
    and load before the app can send a token, so the bearer token does not guard them."""
    return (
        scope["type"] == "http" and scope["method"] in ("GET", "HEAD") and not is_api_path(route_path(scope))
    )


def with_base(index: bytes, root_path: str) -> bytes:
    """index.html with ``<base href="{root_path}/">`` as the first element of its head."""
    tag = f'<base href="{html.escape(root_path, quote=True)}/">'.encode()
    match = _HEAD.search(index)
    if match is None:
        return tag + index
    return index[: match.end()] + tag + index[match.end() :]


def _routed(scope: Scope) -> bool:
    """Whether a route of the application answers the request's path (any method): routes come first."""
    app = scope.get("app")
    routes: list[BaseRoute] = list(getattr(getattr(app, "router", None), "routes", []))
    return any(route.matches(scope)[0] != Match.NONE for route in routes)


def _inside(web_dir: Path, relative: str) -> Path | None:
    """The file ``relative`` names inside ``web_dir``; None when it is not a file there (outside it, a
    folder, missing, or not a valid path such as one with a NUL byte)."""
    try:
        file = (web_dir / relative).resolve()
        return file if file.is_relative_to(web_dir) and file.is_file() else None
    except (OSError, ValueError):
        return None


def accepted_encodings(accept_encoding: str) -> set[str]:
    """The content codings an Accept-Encoding header allows (``q=0`` refuses one; ``*`` stands for any)."""
    accepted: set[str] = set()
    for item in accept_encoding.split(","):
        coding, _, parameters = item.partition(";")
        coding = coding.strip().lower()
        quality = parameters.strip().lower()
        refused = quality.startswith("q=") and _is_zero(quality[2:])
        if coding and not refused:
            accepted.add(coding)
    if "*" in accepted:
        accepted |= {encoding for encoding, _ in PRECOMPRESSED}
    return accepted


def _is_zero(quality: str) -> bool:
    try:
        return float(quality) == 0
    except ValueError:
        return False


def precompressed_copy(file: Path, accept_encoding: str) -> tuple[str, Path] | None:
    """The build's compressed copy of ``file`` the client accepts (encoding, path), or None."""
    accepted = accepted_encodings(accept_encoding)
    for encoding, suffix in PRECOMPRESSED:
        copy = file.with_name(file.name + suffix)
        if encoding in accepted and copy.is_file():
            return encoding, copy
    return None


class WebAppMiddleware:
    """Answers GET/HEAD requests outside the API from ``web_dir``; passes everything else on."""

    def __init__(self, app: ASGIApp, web_dir: Path) -> None:
        self.app = app
        self.web_dir = web_dir.resolve()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not is_web_app_request(scope) or _routed(scope):
            await self.app(scope, receive, send)
            return
        response = self.respond(route_path(scope), scope.get("root_path", ""), Headers(scope=scope))
        if response is None:
            await self.app(scope, receive, send)  # the API's 404, in its error shape
            return
        await response(scope, receive, send)

    def respond(self, path: str, root_path: str, headers: Headers) -> Response | None:
        index = self.web_dir / "index.html"
        if not index.is_file():
            return HTMLResponse(
                MISSING_BUILD_PAGE.format(web_dir=html.escape(str(self.web_dir))),
                status_code=503,
                headers={"Cache-Control": REVALIDATE},
            )
        relative = path.lstrip("/")
        page = index.read_bytes()
        if relative and relative != "index.html":
            file = _inside(self.web_dir, relative)
            if file is not None:
                return self._file(file, relative, headers)
            if _LAST_SEGMENT_HAS_SUFFIX.search(relative):
                return None  # a missing file (e.g. an asset of an older build), not a client route
            page = with_base(page, root_path)
        page_headers = {"Cache-Control": REVALIDATE, "Vary": VARY}
        if "gzip" in accepted_encodings(headers.get("accept-encoding", "")):
            page = gzip.compress(page, compresslevel=6)
            page_headers["Content-Encoding"] = "gzip"
        return Response(page, media_type="text/html", headers=page_headers)

    def _file(self, file: Path, relative: str, headers: Headers) -> Response:
        cache = IMMUTABLE if relative.startswith(HASHED_DIR) else REVALIDATE
        response_headers = {"Cache-Control": cache}
        sent = file
        copy = precompressed_copy(file, headers.get("accept-encoding", ""))
        if copy is not None:
            encoding, sent = copy
            response_headers["Content-Encoding"] = encoding
        if copy is not None or _has_copies(file):
            response_headers["Vary"] = VARY
        media_type = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        response = FileResponse(
            sent, headers=response_headers, media_type=media_type, stat_result=sent.stat()
        )
        etag = response.headers.get("etag")
        if etag is not None and etag in headers.get("if-none-match", ""):
            unchanged = {"ETag": etag, "Cache-Control": cache}
            if "Vary" in response_headers:
                unchanged["Vary"] = VARY
            return Response(status_code=304, headers=unchanged)
        return response


def _has_copies(file: Path) -> bool:
    """Whether the build compressed ``file`` (its plain answer then varies with Accept-Encoding too)."""
    return any(file.with_name(file.name + suffix).is_file() for _, suffix in PRECOMPRESSED)
