"""Domain errors → HTTP responses with a stable JSON shape: {"error": {"type", "message"}}."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from rabbithole.core.errors import RabbitholeError


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RabbitholeError)
    async def _domain_error(_request: Request, exc: RabbitholeError) -> JSONResponse:
        return JSONResponse(
            status_code=exc.http_status,
            content={"error": {"type": type(exc).__name__, "message": str(exc)}},
        )
