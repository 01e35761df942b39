"""Every error the API answers has one JSON shape, ``{"error": {"type", "message", "details"?}}``: domain
errors (their HTTP status), validation errors (422), HTTP errors of the framework and the middlewares (404,
405, 400, 401, 403, 413) and unexpected failures (500, with no stack trace: that goes to the server log)."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from rabbithole.api.spa import route_path
from rabbithole.core.errors import RabbitholeError

log = logging.getLogger(__name__)


class ErrorDetail(BaseModel):
    type: str
    message: str
    details: list[dict[str, Any]] | None = None


class ErrorResponse(BaseModel):
    error: ErrorDetail


def error_body(type_: str, message: str, details: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"type": type_, "message": message}
    if details is not None:
        error["details"] = details
    return {"error": error}


def error_response(
    status: int, type_: str, message: str, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(status_code=status, content=error_body(type_, message), headers=headers)


_DESCRIPTIONS = {
    400: "Bad request (e.g. a `Host:` header the server does not answer to).",
    401: "Missing or wrong credential: the token or its session cookie (server.auth token), a personal token "
    "or a session (server.auth accounts).",
    403: "A request that changes something (not GET/HEAD/OPTIONS) from a foreign origin: its `Origin:` is "
    "neither this server nor in server.cors_origins, or `Sec-Fetch-Site:` says cross-site or same-site "
    "and its origin is not in server.cors_origins; accounts mode: without the session's X-CSRF-Token, or "
    "something the account may see but not do.",
    404: "Not found.",
    409: "Conflict with the current state.",
    413: "Request body too large.",
    415: "Unsupported media type.",
    416: "The requested byte range is not in the file.",
    422: "Invalid request values.",
    429: "Too many failed sign-ins of this account or from this address (Retry-After: when to try again).",
    500: "Internal error (details in the server log).",
    503: "A backing service (vector store, embedder, model) is unavailable.",
}

#: Statuses every route can answer (middlewares and the server itself).
COMMON_STATUSES = (400, 401, 403, 422, 500)


def responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for a route: the common error statuses plus ``statuses``, all ErrorResponse."""
    return {
        status: {"model": ErrorResponse, "description": _DESCRIPTIONS[status]}
        for status in sorted({*COMMON_STATUSES, *statuses})
    }


def _location(loc: tuple[Any, ...] | list[Any]) -> str:
    return ".".join(str(part) for part in loc)


def allowed_methods(request: Request) -> list[str]:
    """The methods the API documents at the request's path (the router names only one route's, and there
    is one route a method), HEAD with GET. Of the documented paths that match, the first wins, as in the
    router: /api/runs/events (a stream) is not /api/runs/{run_id}."""
    path = route_path(request.scope)
    paths: dict[str, dict[str, Any]] = request.app.openapi().get("paths", {})
    for template, operations in paths.items():
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))
        if re.fullmatch(pattern, path):
            methods = {method.upper() for method in operations}
            if "GET" in methods:
                methods.add("HEAD")
            return sorted(methods)
    return []


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RabbitholeError)
    async def _domain_error(_request: Request, exc: RabbitholeError) -> JSONResponse:
        if exc.http_status >= 500:
            log.warning("%s: %s", type(exc).__name__, exc)
        return error_response(exc.http_status, type(exc).__name__, exc.public_message)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        details = [
            {"location": _location(err.get("loc", ())), "message": str(err.get("msg", ""))}
            for err in exc.errors()
        ]
        message = "; ".join(f"{d['location']}: {d['message']}" for d in details) or "invalid request"
        return JSONResponse(status_code=422, content=error_body("ValidationError", message, details))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        type_ = "RequestTooLarge" if exc.status_code == 413 else "HTTPError"
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = ", ".join(allowed_methods(request)) or headers.get("Allow", "")
        return error_response(exc.status_code, type_, str(exc.detail), headers=headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
        return error_response(500, "InternalError", "internal error; the server log has the details")
