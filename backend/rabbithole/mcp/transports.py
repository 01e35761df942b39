"""The two ways in: stdio (`rabbithole mcp`, its own services over the configured data directory) and
streamable HTTP mounted on the API server at /mcp, behind its guards (Host, Origin, token)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import BaseRoute

from rabbithole.api.runs.service import RunService
from rabbithole.core.config import Settings
from rabbithole.mcp.backend import McpBackend, opened_backend
from rabbithole.mcp.server import build_server
from rabbithole.services import Services

#: Where the API server serves MCP (streamable HTTP).
HTTP_PATH = "/mcp"


def serve_stdio(settings: Settings) -> None:
    """Serve MCP on standard input and output until the client closes them."""
    backend = McpBackend()

    @asynccontextmanager
    async def lifespan(_server: MCPServer[McpBackend]) -> AsyncIterator[McpBackend]:
        async with opened_backend(backend, settings) as opened:
            yield opened

    build_server(backend, lifespan).run("stdio")


class HttpMcp:
    """MCP over streamable HTTP inside the API server: :attr:`route` answers ``HTTP_PATH``, and
    :meth:`serving` runs in the API's lifespan with its services and run service."""

    def __init__(self) -> None:
        self.backend = McpBackend()
        self.server = build_server(self.backend)
        # The API's guards check Host, Origin and the token in front of it: the SDK's own Host check
        # (127.0.0.1 only) would refuse the hosts the server is configured for.
        unguarded = TransportSecuritySettings(enable_dns_rebinding_protection=False)
        app = self.server.streamable_http_app(streamable_http_path=HTTP_PATH, transport_security=unguarded)
        self.route: BaseRoute = next(r for r in app.routes if getattr(r, "path", None) == HTTP_PATH)

    @asynccontextmanager
    async def serving(self, services: Services, runs: RunService) -> AsyncIterator[None]:
        """The SDK's session manager runs in a task of its own: its task group is entered and left in the
        same task, whichever tasks enter and leave the API's lifespan (a test's async fixture sets up and
        tears down in two)."""
        self.backend.attach(services, runs)
        started = asyncio.Event()
        stop = asyncio.Event()

        async def hold() -> None:
            async with self.server.session_manager.run():
                started.set()
                await stop.wait()

        task = asyncio.create_task(hold(), name="mcp-sessions")
        waiter = asyncio.create_task(started.wait())
        try:
            await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
            if task.done():
                waiter.cancel()
                task.result()  # its start failed: raised here
            yield
        finally:
            stop.set()
            await asyncio.gather(task, return_exceptions=True)
            self.backend.detach()
