"""What the pure ASGI guards share: reading a request header from the scope, and answering a refusal in
the API's error shape (``{"error": {"type", "message"}}``) without calling the app."""

from __future__ import annotations

import json
from collections.abc import Sequence

from starlette.types import Scope, Send

from rabbithole.api.errors import error_body


def header(scope: Scope, name: bytes) -> str | None:
    """The first value of the request header ``name`` (lower case), decoded as latin-1; None if absent."""
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


async def refuse(
    send: Send, status: int, type_: str, message: str, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    """Answer ``status`` with the API's JSON error body."""
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
