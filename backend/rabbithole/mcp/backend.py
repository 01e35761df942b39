"""What the MCP tools work on: the services and the run service of the process serving them. The API server
fills it in its lifespan (HTTP); `rabbithole mcp` opens its own (stdio)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import Context

from rabbithole.api.access import PRINCIPAL_SCOPE_KEY, Access, NotSignedInError, Principal
from rabbithole.api.runs.service import RunService
from rabbithole.core.config import Settings
from rabbithole.core.errors import RabbitholeError
from rabbithole.services import Services


@dataclass
class McpBackend:
    _services: Services | None = None
    _runs: RunService | None = None

    def attach(self, services: Services, runs: RunService) -> None:
        self._services = services
        self._runs = runs

    def detach(self) -> None:
        self._services = None
        self._runs = None

    @property
    def services(self) -> Services:
        if self._services is None:
            raise RabbitholeError("the MCP server is not serving (starting or stopping)")
        return self._services

    async def access(self, ctx: Context[Any, Any]) -> Access:
        """The permissions of the request a tool or resource answers (api/access.py). Over HTTP in
        accounts mode: the account the API's accounts middleware found for that request (none: refused);
        over stdio (no HTTP request) or in the other modes: everything, as before."""
        services = self.services
        request = getattr(ctx.request_context, "request", None)
        scope = getattr(request, "scope", None)
        if services.settings.server.auth_mode != "accounts" or scope is None:
            return Access(None)
        principal = scope.get(PRINCIPAL_SCOPE_KEY)
        if not isinstance(principal, Principal):
            raise NotSignedInError("sign in first")
        roles = await asyncio.to_thread(services.accounts.memberships.roles_of, principal.user.id)
        return Access(principal, roles)

    @property
    def runs(self) -> RunService:
        if self._runs is None:
            raise RabbitholeError("the MCP server is not serving (starting or stopping)")
        return self._runs


@asynccontextmanager
async def opened_backend(backend: McpBackend, settings: Settings) -> AsyncIterator[McpBackend]:
    """Services and a run service of this process (stdio), attached to ``backend`` while open."""
    services = Services(settings)
    await services.aopen()
    runs = await asyncio.to_thread(RunService, services)
    try:
        await runs.start()
        backend.attach(services, runs)
        yield backend
    finally:
        backend.detach()
        await runs.stop()
        await services.aclose()
