"""Domain errors as MCP errors: a tool's failure is its result with ``isError`` and the error's message (what
the calling model reads), a resource's a JSON-RPC error (-32602 for what does not exist)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError

from rabbithole.core.errors import NotFoundError, RabbitholeError


def _message(exc: RabbitholeError) -> str:
    return f"{type(exc).__name__}: {exc.public_message}"


@contextmanager
def tool_errors() -> Iterator[None]:
    """Inside a tool: a domain error becomes a ToolError with its type and message."""
    try:
        yield
    except RabbitholeError as exc:
        raise ToolError(_message(exc)) from exc


@contextmanager
def resource_errors() -> Iterator[None]:
    """Inside a resource: a missing thing is ResourceNotFoundError, any other domain error ResourceError."""
    try:
        yield
    except NotFoundError as exc:
        raise ResourceNotFoundError(_message(exc)) from exc
    except RabbitholeError as exc:
        raise ResourceError(_message(exc)) from exc
