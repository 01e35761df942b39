"""The offline API documentation (fastapi_offline serves Swagger UI and ReDoc from files in its package)
made fully offline: ReDoc's bundle shows a logo it loads from cdn.redoc.ly in its sidebar. The bundle is
served here with that address removed (the image then fails at once and ReDoc hides it), so /redoc makes
no request beyond this server."""

from __future__ import annotations

import functools
from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

#: Where fastapi_offline mounts its files, and ReDoc's bundle among them.
STATIC_URL = "/static-offline-docs"
REDOC_BUNDLE = f"{STATIC_URL}/redoc.standalone.js"
#: What ReDoc's bundle loads from elsewhere: the "API docs by Redocly" logo.
REDOC_REMOTE_LOGO = b"https://cdn.redoc.ly/redoc/logo-mini.svg"


@functools.cache
def redoc_bundle() -> bytes:
    """ReDoc's standalone bundle as fastapi_offline ships it, without the remote logo's address."""
    original = Path(fastapi_offline.__file__).parent / "static" / "redoc.standalone.js"
    return original.read_bytes().replace(REDOC_REMOTE_LOGO, b"")


async def _serve_redoc_bundle(_request: Request) -> Response:
    return Response(redoc_bundle(), media_type="text/javascript", headers={"Cache-Control": "no-cache"})


def serve_offline_redoc(app: FastAPI) -> None:
    """Answer REDOC_BUNDLE with redoc_bundle(), ahead of fastapi_offline's mount of the same folder."""
    app.router.routes.insert(0, Route(REDOC_BUNDLE, _serve_redoc_bundle, methods=["GET"]))
