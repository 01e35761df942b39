"""The fake SearxNG HTTP API (a Starlette app): ``/search`` answers SearxNG's JSON format from the fixture
pages, which it serves itself, plus pages that misbehave on purpose and ``/_fake`` controls.

Pages that misbehave (to pin as search results):

* ``/pages/{name}?delay=S``: the fixture page after S seconds (slow).
* ``/binary``: a PDF (not a web page).
* ``/huge?size=N``: an HTML page of N bytes, streamed without a Content-Length (oversized).
* ``/redirect/{n}``: a chain of n redirects ending at ``/pages/dose-limits.html``.
* ``/status/{code}``: an empty answer with that status.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from rabbithole.devtools.fake_searxng.pages import fixture_pages, matching_pages


@dataclass(slots=True)
class SearchFaults:
    """How ``/search`` misbehaves: an HTTP status instead of results, a delay, HTML instead of JSON."""

    status: int | None = None
    delay_s: float = 0.0
    not_json: bool = False


@dataclass(slots=True)
class FakeSearxngState:
    faults: SearchFaults = field(default_factory=SearchFaults)
    pinned: list[dict[str, str]] = field(default_factory=list)  # results listed before the matches
    only_pinned: bool = False
    requests: list[str] = field(default_factory=list)  # path and query of every request

    def reset(self) -> None:
        self.faults = SearchFaults()
        self.pinned.clear()
        self.only_pinned = False
        self.requests.clear()


def create_app(state: FakeSearxngState) -> Starlette:
    async def record(request: Request) -> None:
        query = f"?{request.url.query}" if request.url.query else ""
        state.requests.append(request.url.path + query)

    async def search(request: Request) -> Response:
        await record(request)
        faults = state.faults
        if faults.delay_s:
            await asyncio.sleep(faults.delay_s)
        if request.query_params.get("format") != "json":
            return PlainTextResponse("Forbidden", status_code=403)  # SearxNG without the JSON format
        if faults.status is not None:
            return PlainTextResponse("Internal Server Error", status_code=faults.status)
        if faults.not_json:
            return Response("<html><body>Too many requests</body></html>", media_type="text/html")
        query = request.query_params.get("q", "")
        base = str(request.base_url).rstrip("/")
        results: list[dict[str, Any]] = [
            {"url": p["url"].replace("{base}", base), "title": p["title"], "content": p["content"]}
            for p in state.pinned
        ]
        if not state.only_pinned:
            for page in matching_pages(query):
                results.append(
                    {"url": f"{base}/pages/{page.name}", "title": page.title, "content": page.text[:160]}
                )
        for rank, result in enumerate(results, start=1):
            result.update(engine="fixture", engines=["fixture"], score=1.0 / rank, category="general")
        return JSONResponse(
            {
                "query": query,
                "number_of_results": len(results),
                "results": results,
                "answers": [],
                "corrections": [],
                "infoboxes": [],
                "suggestions": [],
                "unresponsive_engines": [],
            }
        )

    async def page(request: Request) -> Response:
        await record(request)
        fixture = fixture_pages().get(request.path_params["name"])
        if fixture is None:
            return PlainTextResponse("Not Found", status_code=404)
        delay = float(request.query_params.get("delay", "0"))
        if delay:
            await asyncio.sleep(delay)
        return Response(fixture.body, headers={"content-type": fixture.media_type})

    async def binary(request: Request) -> Response:
        await record(request)
        return Response(
            b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\n%%EOF\n", media_type="application/pdf"
        )

    async def huge(request: Request) -> Response:
        await record(request)
        size = int(request.query_params.get("size", str(10_000_000)))

        async def body() -> AsyncIterator[bytes]:
            yield b"<html><body><article>"
            piece = b"<p>Dose limits protect workers from ionising radiation.</p>" * 1000
            sent = 0
            while sent < size:
                yield piece
                sent += len(piece)
            yield b"</article></body></html>"

        return StreamingResponse(body(), media_type="text/html")

    async def redirect(request: Request) -> Response:
        await record(request)
        n = int(request.path_params["n"])
        target = "/pages/dose-limits.html" if n <= 1 else f"/redirect/{n - 1}"
        return RedirectResponse(target, status_code=302)

    async def status(request: Request) -> Response:
        await record(request)
        return Response(b"", status_code=int(request.path_params["code"]))

    async def control_search(request: Request) -> Response:
        body = await request.json()
        state.faults = SearchFaults(
            body.get("status"), float(body.get("delay_s", 0)), bool(body.get("not_json"))
        )
        state.pinned[:] = list(body.get("pinned", []))
        state.only_pinned = bool(body.get("only_pinned"))
        return JSONResponse({"ok": True})

    async def control_reset(request: Request) -> Response:
        state.reset()
        return JSONResponse({"ok": True})

    async def control_requests(request: Request) -> Response:
        return JSONResponse(list(state.requests))

    return Starlette(
        routes=[
            Route("/search", search, methods=["GET", "POST"]),
            Route("/pages/{name}", page),
            Route("/binary", binary),
            Route("/huge", huge),
            Route("/redirect/{n:int}", redirect),
            Route("/status/{code:int}", status),
            Route("/_fake/search", control_search, methods=["POST"]),
            Route("/_fake/reset", control_reset, methods=["POST"]),
            Route("/_fake/requests", control_requests),
        ]
    )
