"""HTTP responses of the fake server: JSON errors, and chunked bodies that can be slowed or dropped."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Sequence
from datetime import UTC, datetime

from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

_dropping: contextvars.ContextVar[bool] = contextvars.ContextVar("fake_ollama_dropping", default=False)


class _QuietDrops(logging.Filter):
    """Hide uvicorn's complaint about the responses this server breaks off on purpose."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (_dropping.get() and "without completing response" in record.getMessage())


logging.getLogger("uvicorn.error").addFilter(_QuietDrops())


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class ChunkedResponse(Response):
    """A chunked body sent piece by piece: per-chunk delay, and a connection drop if asked."""

    def __init__(
        self,
        chunks: Sequence[bytes],
        *,
        media_type: str,
        status_code: int = 200,
        chunk_delay_s: float = 0.0,
        drop_after: int | None = None,
    ) -> None:
        self.chunks = list(chunks)
        self.status_code = status_code
        self.media_type = media_type
        self.chunk_delay_s = chunk_delay_s
        self.drop_after = drop_after
        self.background = None
        self.raw_headers = [(b"content-type", media_type.encode("latin-1"))]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        for i, chunk in enumerate(self.chunks):
            if self.drop_after is not None and i >= self.drop_after:
                break
            if self.chunk_delay_s:
                await asyncio.sleep(self.chunk_delay_s)
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        if self.drop_after is not None:
            _dropping.set(True)
            return  # uvicorn closes the connection: the client sees an incomplete chunked body
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def error(status: int, message: str, openai: bool = False) -> JSONResponse:
    if openai:
        return JSONResponse(
            {"error": {"message": message, "type": "api_error", "param": None, "code": None}}, status
        )
    return JSONResponse({"error": message}, status)
